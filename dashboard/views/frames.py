"""The frames the views show, reshaped from the engine's own frames and objects.

Pure (pandas, no streamlit): no metric arithmetic, only selection, reshaping, ordering and
formatting. Every label and tooltip comes from the measure registry and Conventions.sentences().
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.views import highlight
from metrics import (
    DECISIONS,
    QUERY_CLASSES,
    SUMMARY_MEASURES,
    AllPairs,
    BestMarks,
    Comparison,
    Corpus,
    Cost,
    Evaluation,
    Leaderboard,
    Slice,
    anova_margin,
    anova_rows,
    created_minute,
    power_table,
    vocabulary,
)
from metrics import format as fmt

# the characters a table's labels column shows at its default width (Judged@1000), and what
# a character of a table's 14 px text takes on average
LABEL_FITS = 11
TABLE_CHAR_WIDTH = 6.6

# worst first, so that sorting by class puts the queries to look at on top
CLASS_ORDER = {c: i for i, c in enumerate(reversed(QUERY_CLASSES))}
SORTS = {
    "largest difference between runs": "spread",
    "baseline's score (lowest first)": "baseline",
    "baseline's query class (misses first)": "class",
    "query id": "id",
}


def measure_help(evaluation: Evaluation, key: str, *, interval: bool = False) -> str:
    """Tooltip of a figure's column (a figure key: 'nDCG', 'P(rel=2)', 'Rprec'): what it
    certifies, the conventions behind it and what its own parameters say."""
    spec = evaluation.spec(key)
    note = evaluation.notes([spec]).get(key)
    return vocabulary.measure_help(spec.measure, evaluation.conventions, interval=interval) + (
        f" {spec.label(evaluation.k, evaluation.conventions)}: {note}." if note else "")


def baseline_label(evaluation: Evaluation, name: str) -> str:
    """The run's name, saying so when it is the baseline (unless the name already does)."""
    is_baseline = name == evaluation.run_names[0] and name.casefold() != "baseline"
    return f"{name} (baseline)" if is_baseline else name


def summary_table(evaluation: Evaluation, marks: BestMarks | None = None) -> pd.DataFrame:
    """Metrics down, runs across (the baseline first); each cell "mean [low, high]" at K
    (with `marks`, the best run's and those not significantly worse marked), then the
    interval method and the conventions the metric depends on."""
    sentences = evaluation.conventions.sentences()
    notes = evaluation.notes()
    rows = []
    for spec in evaluation.summary_specs:
        row = {"Metric": spec.label(evaluation.k, evaluation.conventions)}
        for run in evaluation.runs:
            interval = run.summary[spec.key]
            mark = marks.mark(row["Metric"], run.name) if marks is not None else ""
            row[run.name] = (fmt.interval(interval.mean, interval.low, interval.high)
                             + (f" {mark}" if mark else ""))
        row["Interval"] = spec.measure.interval
        row["Conventions"] = " ".join([sentences[name] for name in spec.measure.depends_on]
                                      + ([notes[spec.key]] if spec.key in notes else []))
        rows.append(row)
    return pd.DataFrame(rows)


def label_width(labels) -> int | None:
    """A labels column wide enough for its longest label (a figure added with parameters:
    RBPresid(p=0.9)@10), in pixels; None while the default width holds them all."""
    widest = max((len(str(label)) for label in labels), default=0)
    return None if widest <= LABEL_FITS else round(widest * TABLE_CHAR_WIDTH) + 20


def scores_summary(evaluation: Evaluation) -> pd.DataFrame:
    """Evaluation.summary() of the figures that are scores in [0, 1] (a count is not): what
    a chart on the 0-1 scale draws."""
    summary = evaluation.summary()
    bounded = {evaluation.label(s.key) for s in evaluation.summary_specs if s.measure.bounded}
    return summary[summary["label"].isin(bounded)].reset_index(drop=True)


def scores_of(evaluation: Evaluation, label: str) -> pd.DataFrame:
    """The rows of scores_summary of one figure (its label), each run's in the runs' order:
    what the headline's picture draws (empty when that figure is not a score shown)."""
    summary = scores_summary(evaluation)
    return summary[summary["label"] == label].reset_index(drop=True)


def slices_table(evaluation: Evaluation, slices: list[Slice], key: str) -> pd.DataFrame:
    """Slices down (the facet's order), runs across: each cell one measure's "mean [low,
    high]" over the slice's scored queries; a slice too small to read says so."""
    rows = []
    for piece in slices:
        row = {"Slice": piece.value, "Queries": piece.queries}
        for name in evaluation.run_names:
            interval = piece.summary[name][key]
            row[name] = fmt.interval(interval.mean, interval.low, interval.high)
        row["Note"] = "too few queries to read" if piece.too_small else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=["Slice", "Queries", *evaluation.run_names, "Note"])


def counts_table(evaluation: Evaluation) -> pd.DataFrame:
    """Per run: what was scored, what was not, and why."""
    n_excluded = len(evaluation.excluded_ids)
    rows = []
    for run in evaluation.runs:
        classes = pd.Series(run.classes).value_counts()
        report = run.report
        rows.append(
            {
                "Run": run.name,
                "Scored": len(evaluation.scored_ids),
                "Excluded": n_excluded,
                **{c.replace("_", " ").capitalize(): int(classes.get(c, 0)) for c in QUERY_CLASSES},
                "Repeats": run.repeats,
                "Missing": len(run.missing_queries),
                "Not in qrels": len(run.aligned.ignored_queries),
                "Dropped lines": len(report.dropped) if report else 0,
            }
        )
    return pd.DataFrame(rows)


def load_reports(evaluation: Evaluation) -> list:
    """The qrels' report then each shown run's, as the engine wrote them."""
    reports = [evaluation.qrels_report] + [run.report for run in evaluation.runs]
    return [report for report in reports if report is not None]


def report_lines(report, which: str) -> pd.DataFrame:
    """A report's dropped lines or repeats as a table (line, reason)."""
    entries = getattr(report, which)
    return pd.DataFrame({"Line": [e.line for e in entries], "Reason": [e.reason for e in entries]})


def sweep_long(evaluation: Evaluation, runs: list[str] | None = None) -> pd.DataFrame:
    """Evaluation.sweep() as long rows: run, k, metric, label ("MRR@K"), mean."""
    wide = evaluation.sweep()
    if runs is not None:
        wide = wide[wide["run"].isin(runs)]
    long = wide.melt(id_vars=["run", "k"], var_name="metric", value_name="mean")
    labels = {s.name(): s.label("K", evaluation.conventions) for s in evaluation.sweep_specs}
    return long.assign(label=long["metric"].map(labels))


def sweep_intervals(evaluation: Evaluation) -> pd.DataFrame:
    """Evaluation.sweep_intervals() as rows: run, k, metric, low, high."""
    return pd.DataFrame(evaluation.sweep_intervals(), columns=["run", "k", "metric", "low", "high"])


def query_cells(evaluation: Evaluation, keys: list[str]) -> pd.DataFrame:
    """Per-query scores at K, long: query_id, run, key, label, value, class."""
    wide = evaluation.per_query()
    long = wide.melt(
        id_vars=["run", "query_id", "class"], value_vars=keys, var_name="key", value_name="value"
    )
    labels = {key: evaluation.label(key, summary=False) for key in keys}
    return long.assign(label=long["key"].map(labels))


def query_order(evaluation: Evaluation, key: str, sort: str) -> list[str]:
    """Scored query ids in the order a SORTS value asks for, ties broken by query id."""
    wide = evaluation.per_query()
    scores = wide.pivot(index="query_id", columns="run", values=key)
    baseline = evaluation.run_names[0]
    ids = sorted(scores.index, key=fmt.natural_key)
    if sort == "id":
        return ids
    base = scores[baseline]
    if sort == "baseline":
        keys = {q: (base[q],) for q in ids}
    elif sort == "class":
        classes = wide[wide["run"] == baseline].set_index("query_id")["class"]
        keys = {q: (CLASS_ORDER[classes[q]], base[q]) for q in ids}
    elif sort == "spread":
        spread = scores.max(axis=1) - scores.min(axis=1)
        keys = {q: (-spread[q],) for q in ids}
    else:
        raise ValueError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS.values())}")
    return sorted(ids, key=keys.__getitem__)  # a stable sort: ties keep the query-id order


# --------------------------------------------------------------------------- comparison


def power_by_test(comparison: Comparison, delta: float | None = None) -> dict:
    """(candidate, metric) -> what the query set can detect there (metrics.power_table),
    computed once for every table of the comparison."""
    return {(f.candidate, f.metric): f
            for f in power_table(comparison, alpha=comparison.alpha, delta=delta)}


def comparison_table(comparison: Comparison, candidate: str,
                     power: dict | None = None) -> pd.DataFrame:
    """One candidate against the baseline, one row per metric: the engine's figures as they
    are (means and difference unrounded; the interval, the counts and p as text), the
    smallest difference the query set detects, and the reading with what that means."""
    power = power_by_test(comparison) if power is None else power
    rows = [
        {
            "Metric": t.metric,
            "Before": t.before_mean,
            "After": t.after_mean,
            "Difference": fmt.zero_as_written(t.difference),
            "Interval": fmt.bounds(t.low, t.high),
            vocabulary.WIN_TIE_LOSS: fmt.win_tie_loss(t.wins, t.ties, t.losses),
            "p": fmt.p_value(t.p_randomization),
            "p adjusted": fmt.p_value(t.p_adjusted),
            "p t-test": fmt.p_value(t.p_t),
            "p Wilcoxon": fmt.p_value(t.p_wilcoxon),
            "Effect size": t.effect_size,
            "Detectable": power[t.candidate, t.metric].min_detectable_difference,
            "Verdict": comparison.verdict(t),
            "Reading": f"{comparison.verdict(t)}; {power[t.candidate, t.metric].sentence}",
        }
        for t in comparison.tests
        if t.candidate == candidate
    ]
    return pd.DataFrame(rows)


def comparison_differences(comparison: Comparison) -> pd.DataFrame:
    """Every test of the comparison, one row each (metrics in their order, candidates in
    theirs): the paired difference with its interval as numbers, whether it is significant
    after the correction, and the engine's verdict and figures as written, for the tooltip:
    what the difference chart draws."""
    return pd.DataFrame([
        {
            "run": t.candidate,
            "label": t.metric,
            "difference": t.difference,
            "low": t.low,
            "high": t.high,
            "significant": bool(t.significant),
            "written": fmt.difference(t.difference, t.low, t.high),
            "p adjusted": fmt.p_value(t.p_adjusted),
            "verdict": comparison.verdict(t),
        }
        for t in comparison.tests
    ], columns=["run", "label", "difference", "low", "high", "significant", "written",
                "p adjusted", "verdict"])


def slice_comparison_table(pieces: list[tuple[str, Comparison]]) -> pd.DataFrame:
    """One row per slice: its queries and the one test compared there (a candidate on a
    metric), p adjusted over every slice shown."""
    rows = []
    for label, comparison in pieces:
        t = comparison.tests[0]
        rows.append({
            "Slice": label,
            "Queries": len(comparison.query_ids),
            "Before": t.before_mean,
            "After": t.after_mean,
            "Difference": fmt.zero_as_written(t.difference),
            "Interval": fmt.bounds(t.low, t.high),
            vocabulary.WIN_TIE_LOSS: fmt.win_tie_loss(t.wins, t.ties, t.losses),
            "p adjusted": fmt.p_value(t.p_adjusted),
            "Reading": comparison.verdict(t),
            "low": t.low,  # the interval's bounds as numbers, for the chart
            "high": t.high,
        })
    return pd.DataFrame(rows)


def paired_scores(comparison: Comparison, metric: str) -> pd.DataFrame:
    """Per-query scores of one metric, every candidate: run (the candidate), query_id,
    before (the baseline's), after, difference (the engine's per-query arrays)."""
    frames = [
        pd.DataFrame({"run": t.candidate, "query_id": list(comparison.query_ids),
                      "before": t.before, "after": t.after, "difference": t.differences})
        for t in comparison.tests
        if t.metric == metric
    ]
    return pd.concat(frames, ignore_index=True)


def by_difference(paired: pd.DataFrame, candidate: str) -> pd.DataFrame:
    """One candidate's rows, largest gain first, largest loss last; ties by query id."""
    mine = paired[paired["run"] == candidate]
    ids = mine["query_id"].to_numpy()
    # natural id order first, then a stable sort by difference: ties keep the id order
    # (one pass over the ids in Python, not a pandas lookup per comparison)
    by_id = np.array(sorted(range(len(ids)), key=lambda i: fmt.natural_key(ids[i])), dtype=int)
    difference = mine["difference"].to_numpy()[by_id]
    order = by_id[np.argsort(-difference, kind="stable")]
    return mine.iloc[order][["query_id", "before", "after", "difference"]].reset_index(drop=True)


def biggest_changes(paired: pd.DataFrame, candidate: str, n: int, *, gains: bool) -> pd.DataFrame:
    """The n queries the candidate improved most (gains, largest first) or hurt most (losses,
    largest first); ties left out."""
    ordered = by_difference(paired, candidate)
    if gains:
        return ordered[ordered["difference"] > 0].head(n).reset_index(drop=True)
    return ordered[ordered["difference"] < 0].iloc[::-1].head(n).reset_index(drop=True)


def query_changes(comparison: Comparison, candidate: str, query_id: str) -> pd.DataFrame:
    """One query's figure before and after on every compared metric."""
    i = comparison.query_ids.index(query_id)
    rows = [
        {"Metric": t.metric, "Before": t.before[i], "After": t.after[i],
         "Difference": t.differences[i]}
        for t in comparison.tests
        if t.candidate == candidate
    ]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- snapshots


def snapshot_title(header: dict) -> str:
    """A snapshot's name on an axis: its time (to the minute) and label."""
    created = created_minute(header)
    label = header.get("label")
    return f"{created} · {label}" if label else created


def drift_frame(rows: list[dict], points: list[str]) -> pd.DataFrame:
    """metrics.snapshot.drift_rows as a frame, each snapshot named by `points` (in order)."""
    frame = pd.DataFrame(rows)
    return frame.assign(point=frame["snapshot"].map(dict(enumerate(points))))


def drift_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (snapshot, run) in the frame's order, one column per metric with
    "mean [low, high]", and the run's fingerprint (the lists scored) in short."""
    rows: dict[tuple, dict] = {}
    for r in frame.itertuples(index=False):
        row = rows.setdefault((r.snapshot, r.run), {
            "Snapshot": r.point, "Run": r.run,
            "Lists": str(r.run_fingerprint).removeprefix("sha256:")[:12]})
        row[r.label_at_k] = fmt.interval(r.mean, r.low, r.high)
    return pd.DataFrame(list(rows.values()))


def with_chunks(frame: pd.DataFrame, corpus: Corpus | None) -> pd.DataFrame:
    """The frame with a "chunk" column (each doc_id's title and text as one cell of plain
    text) when a corpus is read; the frame as it is otherwise."""
    if corpus is None or not len(frame):
        return frame
    return frame.assign(chunk=[highlight.cell(corpus.title(doc), corpus.text(doc))
                               for doc in frame["doc_id"]])


def cost_table(costs: list[Cost]) -> pd.DataFrame:
    """One row per run: chunks, tokens, cost and recall at K and at the suggested k, and
    what the difference buys."""
    return pd.DataFrame([{
        # tokens as whole numbers: a table shows them with thousands separators
        "run": c.run, "K": c.current.k, "tokens at K": round(c.current.tokens),
        "cost at K": c.current.cost_per_1000, "recall at K": c.current.recall,
        "suggested k": c.suggested.k, "tokens at k": round(c.suggested.tokens),
        "cost at k": c.suggested.cost_per_1000, "recall at k": c.suggested.recall,
        "recall bought": c.recall_bought, "recall extra": c.recall_extra,
    } for c in costs])


def movement_notes(movement: pd.DataFrame) -> list[str]:
    """Each id's ranks before and after and what the candidate did: "rank 7 → 2, lifted into
    the top K" ("—" where a run did not return it)."""
    def rank(value) -> str:
        return fmt.MISSING if pd.isna(value) else f"{int(value)}"
    return [f"rank {rank(before)} → {rank(after)}, {moved}" for before, after, moved
            in zip(movement["before"], movement["after"], movement["moved"], strict=True)]


def leaderboard_table(board: Leaderboard, metric: str,
                      pairs: AllPairs | None = None) -> pd.DataFrame:
    """One metric's standings, best first: mean, rank, its interval and P(best); with every
    pair tested (`pairs`), each run's letters ("Group": runs that share one are not told
    apart)."""
    letters = {} if pairs is None else pairs.letters(metric)
    return pd.DataFrame([{"Run": s.run, "Mean": s.mean, "Rank": s.rank,
                          "Rank interval": f"{s.rank_low}–{s.rank_high}", "P(best)": s.p_best,
                          **({"Group": letters[s.run]} if letters else {})}
                         for s in board.standings(metric)])


def pairs_tables(pairs: AllPairs, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every pair on one metric: the runs best first with their letters, and the matrix of
    adjusted p-values (row run against column run)."""
    label = pairs.label(metric)
    letters = pairs.letters(label)
    means = dict(zip(pairs.runs, pairs.means[label], strict=True))
    groups = pd.DataFrame([{"Run": run, "Mean": means[run], "Group": letter}
                           for run, letter in letters.items()])
    order = list(letters)
    index = {run: i for i, run in enumerate(pairs.runs)}
    matrix = pd.DataFrame([{"Run": a, **{b: "" if a == b else
                                         fmt.p_value(pairs.p_adjusted[label][index[a], index[b]])
                                         for b in order}} for a in order])
    return groups, matrix


def pair_table(pairs: AllPairs, metric: str) -> pd.DataFrame:
    """Every pair on one metric, the earlier run as the baseline: the difference, the p it
    is judged by (adjusted, or the randomized Tukey HSD's), the classic Tukey p and the
    effect size with the Tukey HSD, the equivalence p with a minimum effect, the verdict."""
    label = pairs.label(metric)
    tukey = pairs.test == "tukey"
    rows = []
    for row in pairs.pair_rows():
        if row["metric"] != label:
            continue
        found = {"Baseline": row["baseline"], "Candidate": row["candidate"],
                 "Difference": fmt.zero_as_written(row["difference"]),
                 "p": fmt.p_value(row["p"] if tukey else row["p_adjusted"])}
        if tukey:
            found |= {"p classic": fmt.p_value(row["p_classic"]),
                      "Effect size": fmt.effect(row["effect_size"])}
        if "p_equivalence" in row:
            found["p equivalence"] = fmt.p_value(row["p_equivalence"])
        found["Verdict"] = DECISIONS[row["decision"]]
        rows.append(found)
    return pd.DataFrame(rows)


def anova_table(anova) -> tuple[pd.DataFrame, str]:
    """The two-way ANOVA's lines as the engine writes them (metrics.anova_rows), and the
    sentence under them (a run mean's margin of error)."""
    return (pd.DataFrame(anova_rows(anova), columns=vocabulary.tukey.ANOVA_HEADER),
            anova_margin(anova))


def topic_set_table(sizes: dict) -> pd.DataFrame:
    """Per metric label, the queries a future set needs by the paired t-test and by the
    one-way ANOVA over the runs (metrics.topic_set_sizes)."""
    return pd.DataFrame([{"Metric": label, "Paired t-test": size.paired_t,
                          "ANOVA over the runs": size.anova}
                         for label, size in sizes.items()])


# --------------------------------------------------------------------------- P-R curve, agreement


def pr_curve(evaluation: Evaluation) -> pd.DataFrame:
    """Each run's interpolated precision at every recall level the evaluation holds (the
    IPrec figures asked for), as rows: run, recall, label, mean, low, high."""
    level = vocabulary.measures.RECALL.name
    rows = [{"run": run.name, "recall": float(spec.given[level]),
             "label": evaluation.label(spec.key), "mean": run.summary[spec.key].mean,
             "low": run.summary[spec.key].low, "high": run.summary[spec.key].high}
            for run in evaluation.runs for spec in evaluation.summary_specs
            if set(spec.given) == {level}]  # at a level alone, under the conventions in force
    return pd.DataFrame(rows, columns=["run", "recall", "label", "mean", "low", "high"])


def agreement_table(agreements) -> pd.DataFrame:
    """One row per ordering compared with the reference: tau, tau_AP, the pairs that swap."""
    return pd.DataFrame(
        # tau as written: a number, or undefined with why (an ordering that ties every run)
        [{"Against": a.second, "tau": vocabulary.agreement.tau_text(a.tau, a.tau_undefined),
          "tau_AP": vocabulary.agreement.tau_text(a.tau_ap, a.tau_ap_undefined),
          "Swapped": "; ".join(vocabulary.agreement.SWAP.format(a=x, b=y)
                               for x, y in a.swapped) or vocabulary.agreement.NO_SWAP}
         for a in agreements], columns=["Against", "tau", "tau_AP", "Swapped"])


# --------------------------------------------------------------------------- one query


def query_figures_table(figures: pd.DataFrame, evaluation: Evaluation,
                        ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """metrics.query_figures as shown: a row per run, its class in words, then each default
    measure headed by its per-query label at K ("nDCG@10"); and the figures asked for, a
    row each ("Rprec", "ERR@20") with a column per run, so that any number of them fits the
    page (None when none was asked)."""
    default = {m.key: evaluation.label(m.key, summary=False) for m in SUMMARY_MEASURES}
    shown = figures[["run", "class", *default]].rename(
        columns=default | {"run": "Run", "class": "Class"})
    shown["Class"] = shown["Class"].map(lambda c: c.replace("_", " ") if c else fmt.MISSING)
    added = [s for s in evaluation.summary_specs if s.key in figures and s.key not in default]
    if not added:
        return shown, None
    more = figures.set_index("run")[[s.key for s in added]].T
    # the labels are the index: a run may be called anything, "Figure" included
    more.index = pd.Index([evaluation.label(s.key, summary=False) for s in added], name="Figure")
    more.columns.name = None
    return shown, more


def standardised_table(written: pd.DataFrame, evaluation: Evaluation) -> pd.DataFrame:
    """metrics.standardised_query as shown: a row per figure and run, the figure's per-query
    label at K, each number written as the engine writes a figure, an undefined z-score (and
    the figure shown from it) written undefined with why; the Phi(z) column only when the
    figures shown are Phi(z)."""
    def written_out(column: str) -> list[str]:  # a z-score, or the figure shown from it
        return [fmt.undefined(why) if why else fmt.figure(value)
                for value, why in zip(written[column], written["undefined"], strict=True)]

    shown = pd.DataFrame({
        "Figure": [evaluation.label(key, summary=False) for key in written["metric"]],
        "Run": written["run"],
        "Raw": written["raw"].map(fmt.figure),
        "Mean": written["mean"].map(fmt.figure),
        "Standard deviation": written["deviation"].map(fmt.figure),
        "z": written_out("z"),
    })
    if evaluation.population.scale == "cdf":
        shown["Phi(z)"] = written_out("shown")
    return shown


def contribution_table(contribution: pd.DataFrame, evaluation: Evaluation) -> pd.DataFrame:
    """metrics.query_contribution with each measure's per-query label at the evaluation's K
    and conventions (the mean difference zero where it is written as zero)."""
    return contribution.assign(
        metric=[evaluation.label(key, summary=False) for key in contribution["metric"]],
        **{"mean difference": contribution["mean difference"].map(fmt.zero_as_written)})


def unjudged_in(side: pd.DataFrame) -> list[tuple[str, int | None, int | None]]:
    """The unjudged ids of two lists side by side (metrics.side_by_side), each once, in the
    order met rank by rank (left list first), with its rank in each list (None: not there)."""
    seen: dict[str, tuple[int | None, int | None]] = {}
    for row in side.itertuples(index=False):
        for doc, judged, side_name in ((row.a_doc, row.a_judged, "a"),
                                       (row.b_doc, row.b_judged, "b")):
            if pd.isna(doc) or judged or doc in seen:  # an empty slot (NaN in a str column)
                continue
            a_rank = row.rank if side_name == "a" else _rank(row.b_in_a)
            b_rank = row.rank if side_name == "b" else _rank(row.a_in_b)
            seen[doc] = (a_rank, b_rank)
    return [(doc, a, b) for doc, (a, b) in seen.items()]


def _rank(value) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def rescored_table(rescored, evaluation: Evaluation) -> pd.DataFrame:
    """metrics.Rescored.rows(), each measure headed by its label at the evaluation's K and
    conventions (the change zero where it is written as zero)."""
    frame = pd.DataFrame(rescored.rows())
    return frame.assign(metric=[evaluation.label(key) for key in frame["metric"]],
                        difference=frame["difference"].map(fmt.zero_as_written))


def labels_table(grades: dict[tuple[str, str], int]) -> pd.DataFrame:
    """The grades given in the session, one row each, in the order given."""
    return pd.DataFrame([{"query_id": q, "doc_id": d, "grade": g}
                         for (q, d), g in grades.items()],
                        columns=["query_id", "doc_id", "grade"])
