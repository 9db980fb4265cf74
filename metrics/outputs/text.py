"""The plain-text writers of the command line: the score table, the paired comparison (and
every pair's, the risk table and the fragility check), and each other command's tables (the
leaderboard, the agreement of orderings, what the query set can detect, the leaks).

Every number goes through `metrics.format`, the one formatter the dashboard and the report
use too, so a figure reads the same wherever it is printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrics.context.cost import Cost
from metrics.context.leakage import Leakage
from metrics.core.blocks import BlockEvaluation, BlockRun
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.core.geometric import GeometricDifference
from metrics.decide.best import BestMarks
from metrics.decide.fragility import Fragility
from metrics.decide.latency import CostFigure, Timed
from metrics.decide.leaderboard import AllPairs, Leaderboard
from metrics.decide.risk import risks
from metrics.explain.slices import Slice
from metrics.io import Queries
from metrics.spark.evaluate import SparkEvaluation, SparkRun
from metrics.stats.agreement import Agreement
from metrics.stats.comparison import CORRECTIONS, Comparison, PairedTest
from metrics.stats.intervals import Interval
from metrics.stats.power import PowerFigure
from metrics.stats.topic_set_size import TopicSetSize
from metrics.vocabulary import FACET_RULES, QUERY_CLASSES, SLICE_MIN_QUERIES
from metrics.vocabulary import format as fmt
from metrics.vocabulary import risk as risk_words
from metrics.vocabulary.agreement import AGREEMENT_TERMS, NO_SWAP, tau_text
from metrics.vocabulary.comparisons import (
    DECISIONS,
    EQUIVALENCE_METHOD,
    MANY_QUERIES,
    WIN_TIE_LOSS,
    scale_sentence,
)
from metrics.vocabulary.conventions import min_effect_sentence
from metrics.vocabulary.format import figure, listing, signed
from metrics.vocabulary.leaderboard import LEADERBOARD_TERMS
from metrics.vocabulary.leakage import LEAKAGE_RULE, SCOPES
from metrics.vocabulary.measures import geometric_summary
from metrics.vocabulary.names import Spec
from metrics.vocabulary.power import POWER_METHOD, TOPIC_SET_METHOD
from metrics.vocabulary.timings import (
    PAIRED,
    QUANTILE_INTERVAL,
    QUERIES_READ,
    STATISTICS,
    TIMING_COLUMNS,
    amount,
    ratio_interval,
    signed_amount,
)
from metrics.vocabulary.tukey import (
    ANOVA_HEADER,
    ANOVA_METHOD,
    SOURCES,
    TUKEY_METHOD,
    margin_sentence,
)

COMPARISON_HEADER = [
    "metric",
    "before",
    "after",
    "difference [interval]",
    WIN_TIE_LOSS,
    "p",
    "p adj",
    "p t",
    "p wilcoxon",
    "effect",
]


def format_difference(test: PairedTest) -> str:
    """A paired difference with its interval, signed: '+0.135 [-0.060, +0.384]'."""
    return fmt.difference(test.difference, test.low, test.high)


def format_table(evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
                 marks: BestMarks | None = None, specs: Sequence[Spec] | None = None) -> str:
    """Readable summary of any driver's result: metrics down (`specs`, default the
    summary's), runs across (with `marks`, each metric's best run and those not
    significantly worse marked), then conventions, what each figure's own parameters say,
    counts and readings."""
    specs = evaluation.summary_specs if specs is None else specs
    scored = bool(evaluation.scored.any())
    lines = summary_lines(evaluation, marks, specs)
    for run in evaluation.runs:
        lines += ["", _run_notes(run, scored=scored)]
    return "\n".join(lines) + "\n"


def format_geometric(summaries: dict[str, dict[str, Interval]]) -> str:
    """The geometric summaries (gm_map), each run's value over its interval, and how each is
    made."""
    lines = []
    for key, runs in summaries.items():
        summary = geometric_summary(key)
        level = next(iter(runs.values())).confidence_level if runs else None
        lines.append(f"{summary.name} ({key}); {fmt.confidence(level)} interval: "
                     f"{summary.interval}" if level is not None else summary.name)
        lines += table(["run", key, "interval"],
                       [[fmt.terminal(name), figure(i.mean),
                         f"[{figure(i.low)}, {figure(i.high)}]"] for name, i in runs.items()])
        lines.append(f"  - {summary.rule}")
    return "\n".join(lines) + "\n"


def format_geometric_differences(differences: Sequence[GeometricDifference]) -> str:
    """compare's geometric summaries (gm_map): each candidate's difference from the
    baseline over its paired interval, and how it is read."""
    lines = []
    for key in dict.fromkeys(d.summary.key for d in differences):
        found = [d for d in differences if d.summary.key == key]
        level = fmt.confidence(found[0].confidence_level)
        lines.append(f"{found[0].summary.name} ({key}), each candidate against "
                     f"{fmt.terminal(found[0].b)}; {level} interval:")
        lines += table(["candidate", f"{key} difference", "interval"],
                       [[fmt.terminal(d.a), signed(d.difference),
                         fmt.bounds(d.low, d.high)] for d in found])
        lines.append(f"  - {found[0].summary.paired}")
    return "\n".join(lines) + "\n"


def format_block_table(evaluation: BlockEvaluation, marks: BestMarks | None = None,
                       specs: Sequence[Spec] | None = None) -> str:
    """The block-by-block driver's summary, as ``format_table`` writes it, then the sweep:
    each run's means and intervals at every K (the bands it computed as it went)."""
    lines = [format_table(evaluation, marks, specs).rstrip("\n")]
    lo, hi = evaluation.sweep_range
    names = [s.measure.summary_key for s in evaluation.summary_specs]
    for run in evaluation.runs:
        bands = {(k, name): (low, high) for k, name, low, high in run.sweep_intervals}
        rows = [[str(k)] + [fmt.interval(run.sweep_means[name][i], *bands[k, name])
                            for name in names]
                for i, k in enumerate(range(lo, hi + 1))]
        lines += ["", f"{run.name}: the sweep, K = {lo} to {hi} (mean [low, high])",
                  *table(["K", *names], rows)]
    return "\n".join(lines) + "\n"


def summary_lines(evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
                  marks: BestMarks | None, specs: Sequence[Spec]) -> list[str]:
    """The summary's lines: what the means run over, the table of figures, the conventions
    and what each figure's own parameters say (any driver's result)."""
    k, c = evaluation.k, evaluation.conventions
    scored = bool(evaluation.scored.any())
    header = ["metric", *evaluation.run_names, "interval"]
    rows = [
        [s.label(k, c)]
        + [
            (fmt.interval(r.summary[s.key].mean, r.summary[s.key].low, r.summary[s.key].high)
             + (f" {marks.mark(s.label(k, c), r.name)}"
                if marks and marks.mark(s.label(k, c), r.name) else "")) if scored else fmt.MISSING
            for r in evaluation.runs
        ]
        # the interval the means carry (a standardised Hit@K's is a bootstrap one)
        + [evaluation.runs[0].summary[s.key].method if evaluation.runs else s.measure.interval]
        for s in specs
    ]
    excluded = fmt.listing(evaluation.excluded_ids) or "none"
    lines = [
        f"Scores at K = {k} over {fmt.count(len(evaluation.scored_ids), 'scored query')} "
        f"({len(evaluation.excluded_ids):,} excluded: {excluded})",
        f"mean [low, high] at {fmt.confidence(evaluation.conventions.confidence_level)} "
        "confidence; every query weighs the same"
        if scored else
        f"no scored query: no query has a relevant id at grade "
        f"{evaluation.conventions.relevance_level} or above, so no mean exists ({fmt.MISSING})",
        "",
    ]
    lines += table(header, rows)
    if marks is not None:
        lines.append(marks.sentence)
    lines += ["", "Conventions:"]
    lines += [f"  - {sentence}" for sentence in evaluation.conventions.sentences().values()]
    if getattr(evaluation, "standardised", ""):
        lines.append(f"  - {evaluation.standardised}")
    notes = evaluation.notes(specs)
    lines += [f"  - {s.label(k, c)}: {notes[s.key]}." for s in specs if s.key in notes]
    return lines


def format_slices(evaluation: Evaluation, slices: Sequence[Slice],
                  specs: Sequence[Spec] | None = None) -> str:
    """Every summary figure (or `specs`) per slice of one facet: slices down (each with its
    scored queries, marked when too small to read), runs across."""
    k, c = evaluation.k, evaluation.conventions
    specs = evaluation.summary_specs if specs is None else specs
    header = ["slice", "queries", "metric", *evaluation.run_names]
    rows = [
        [piece.value if i == 0 else "",
         (fmt.count(piece.queries, "query") + (" (too few)" if piece.too_small else ""))
         if i == 0 else "",
         spec.label(k, c)]
        + [fmt.interval(s.mean, s.low, s.high)
           for s in (piece.summary[name][spec.key] for name in evaluation.run_names)]
        for piece in slices
        for i, spec in enumerate(specs)
    ]
    facet = slices[0].facet if slices else "?"
    lines = [f"By {facet}: each slice evaluated alone (mean [low, high])", *table(header, rows),
             *(f"  - {FACET_RULES[key]}" for key in ("small", "figures"))]
    return "\n".join(lines) + "\n"


def _run_notes(run: RunEvaluation | BlockRun | SparkRun, *, scored: bool = True) -> str:
    """A run's query classes and counts, its k suggestion and readings, and its diagnosis
    (these two only over scored queries)."""
    classes = {c: int((run.classes == c).sum()) for c in QUERY_CLASSES}
    s = run.suggestion
    lines = [
        f"{run.name}: "
        + ", ".join(f"{n:,} {c}" for c, n in classes.items())
        + f"; {fmt.count(run.repeats, 'repeated id')}; "
        f"{fmt.count(len(run.missing_queries), 'query', 'queries')} without a list",
    ]
    if not scored:
        return "\n".join([*lines, "  no scored query: no k suggestion and no diagnosis"])
    if s.advice:
        lines.append(
            f"  k suggestion: k = {s.k} reaches recall {fmt.figure(s.recall)} of a best "
            f"{fmt.figure(s.best_recall)} (precision {fmt.figure(s.precision)}, "
            f"{fmt.figure(s.noise_chunks)} noise chunks per query)")
    else:
        lines.append("  k suggestion: none")
    lines += [f"  reading: {reading}" for reading in s.readings]
    lines += [
        f"  {'FLAGGED' if f.flagged else 'ok':7} {f.failure}: {f.sentence}" for f in run.diagnosis
    ]
    return "\n".join(lines)


def format_comparison(evaluation: Evaluation, comparison: Comparison) -> str:
    """Each candidate against the baseline: a table of tests, then each test's verdict."""
    lines = [
        f"Paired comparison at K = {evaluation.k} over "
        f"{fmt.count(len(evaluation.scored_ids), 'scored query')}; "
        f"baseline: {comparison.baseline}",
        f"Randomization test ({fmt.count(comparison.n_permutations, 'sign flip')}, "
        f"seed {comparison.seed}); {CORRECTIONS[comparison.correction]} correction over "
        f"{fmt.count(comparison.n_comparisons, 'comparison')}; alpha {comparison.alpha}",
    ]
    if evaluation.standardised:  # every figure below is a standardised one
        lines.append(evaluation.standardised)
    if comparison.min_effect is not None:  # it changes the verdicts below: said above them
        lines.append(f"{min_effect_sentence(comparison.min_effect)} {EQUIVALENCE_METHOD}")
    if len(comparison.query_ids) >= MANY_QUERIES:  # what the p wilcoxon column is worth
        lines.append(scale_sentence(len(comparison.query_ids), comparison.min_effect))
    for candidate in comparison.candidates:
        tests = [t for t in comparison.tests if t.candidate == candidate]
        rows = [
            [
                t.metric,
                fmt.figure(t.before_mean),
                fmt.figure(t.after_mean),
                format_difference(t),
                fmt.win_tie_loss(t.wins, t.ties, t.losses),
                fmt.p_value(t.p_randomization),
                fmt.p_value(t.p_adjusted),
                fmt.p_value(t.p_t),
                fmt.p_value(t.p_wilcoxon),
                fmt.effect(t.effect_size),
            ]
            for t in tests
        ]
        lines += ["", f"{candidate} vs {comparison.baseline}:", *table(COMPARISON_HEADER, rows)]
        lines += [f"  {t.metric}: {comparison.verdict(t)}" for t in tests]
    return "\n".join(lines) + "\n"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned columns two spaces apart, a rule of dashes under the header; every cell
    with its control characters escaped (`format.terminal`), since ids come from files."""
    header = [fmt.terminal(str(cell)) for cell in header]
    rows = [[fmt.terminal(str(cell)) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [header, ["-" * w for w in widths]] + rows
    ]


def format_slice_comparison(facet: str, pieces: Sequence[tuple[str, Comparison]]) -> str:
    """compare --by: each slice's paired differences, p adjusted over every (candidate,
    metric, slice) shown."""
    if not pieces:
        return f"By {facet}: no slice holds two scored queries, nothing to compare\n"
    first = pieces[0][1]
    header = ["slice", "queries", "candidate", "metric", "difference [interval]", WIN_TIE_LOSS,
              "p adj", "verdict"]
    rows = [[label, f"{int(t.n):,}" + (" (too few)" if t.n < SLICE_MIN_QUERIES else ""),
             t.candidate, t.metric, format_difference(t),
             fmt.win_tie_loss(t.wins, t.ties, t.losses), fmt.p_value(t.p_adjusted),
             "significant" if t.significant else "not significant"]
            for label, comparison in pieces for t in comparison.tests]
    lines = [f"By {facet}: {first.baseline} -> each candidate over each slice alone; "
             f"{CORRECTIONS[first.correction]} correction over "
             f"{fmt.count(first.n_comparisons, 'comparison')} (every candidate, metric and "
             f"slice); alpha {first.alpha}", *table(header, rows),
             *(f"  - {FACET_RULES[key]}" for key in ("small", "figures"))]
    return "\n".join(lines) + "\n"


def format_costs(costs: Sequence[Cost]) -> str:
    """What each run's context costs at K and at the suggested k, one sentence a run."""
    lines = [f"Context cost ({costs[0].tokens.sentence})"]
    lines += [f"  {cost.run}: {cost.sentence}" for cost in costs]
    return "\n".join(lines) + "\n"


def _cost_cell(figure: CostFigure, column: str, *, signed_: bool = False) -> str:
    if figure.undefined is not None:
        return fmt.undefined(figure.undefined)
    def write(value: float) -> str:  # the unit is in the table's title
        return (signed_amount if signed_ else amount)(value, column).replace(" ms", "")
    return f"{write(figure.value)} [{write(figure.low)}, {write(figure.high)}]"


def _ratio_cell(figure: CostFigure) -> str:
    if figure.undefined is not None:
        return fmt.undefined(figure.undefined)
    return ratio_interval(figure.value, figure.low, figure.high)


def unit_of(column: str) -> str:
    unit = TIMING_COLUMNS[column][1]
    return f"; {unit}" if unit else ""


def format_timings(found: Timed) -> str:
    """compare/score --timings: each run's mean, p50, p95 and p99 of each column with their
    intervals, then each candidate against the baseline (mean and p95 difference, ratio of
    p95s), and how the intervals were made."""
    if not found.runs:
        return ""
    level = fmt.confidence(found.runs[0].confidence_level)
    lines = []
    for column in found.columns:
        rows = [[cost.run, f"{cost.n:,}", *(_cost_cell(cost.figure(s), column)
                                           for s in STATISTICS)]
                for cost in found.runs if cost.column == column]
        lines += [f"{column} per run ({level} intervals{unit_of(column)}):",
                  *table(["run", "queries", *STATISTICS], rows), ""]
        pairs = [p for p in found.pairs if p.column == column]
        if pairs:
            rows = [[p.candidate, f"{p.n:,}", _cost_cell(p.difference("mean"), column,
                                                          signed_=True),
                     _cost_cell(p.difference("p95"), column, signed_=True),
                     _ratio_cell(p.ratio("p95"))] for p in pairs]
            lines += [f"{column}: each candidate against {pairs[0].baseline}, paired"
                      f"{unit_of(column)}:",
                      *table(["candidate", "queries", "mean difference", "p95 difference",
                              "p95 ratio"], rows), ""]
    lines += [f"  - {QUANTILE_INTERVAL.format(level=level)}", f"  - {PAIRED}",
              f"  - {QUERIES_READ}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- each command's tables


def format_all_pairs(evaluation: Evaluation, pairs: AllPairs) -> str:
    """Every baseline's table of tests, then each metric's letters, best first; read by the
    Tukey HSD, its tables (format_pairs) instead of the paired comparisons'."""
    if pairs.test == "tukey":
        return format_pairs(pairs)
    parts = [format_comparison(evaluation, comparison) for comparison in pairs.comparisons]
    parts.append(_letters(pairs))
    return "\n".join(parts)


def _letters(pairs: AllPairs) -> str:
    """Each metric's letters, best first, under what they say."""
    rows = [[label, *(f"{run} {letter}" for run, letter in pairs.letters(label).items())]
            for label in pairs.metrics]
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    return "\n".join(["Significance letters (best first)", pairs.sentence(),
                      *table(["metric", *(["run letters"] + [""] * (width - 2))], rows)]) + "\n"


def format_pairs(pairs: AllPairs) -> str:
    """Every pair of runs on each metric as its test reads it: with the Tukey HSD the method,
    each metric's ANOVA table and margin of error, then every pair (difference, randomized
    and classic p, effect size ÷ √V_E); with paired tests every pair's p and adjusted p; the
    equivalence p with a minimum effect; each pair's verdict; then the letters."""
    tukey = pairs.test == "tukey"
    lines = [TUKEY_METHOD, ANOVA_METHOD] if tukey else []
    if pairs.min_effect is not None:
        lines.append(f"{min_effect_sentence(pairs.min_effect)} {EQUIVALENCE_METHOD}")
    header = ["baseline", "candidate", "difference",
              *(["p (randomized HSD)", "p (classic HSD)", "effect (÷ √V_E)"] if tukey
                else ["p", "p adjusted"]),
              *(["p equivalence"] if pairs.min_effect is not None else []), "verdict"]
    rows = pairs.pair_rows()
    for label in pairs.metrics:
        lines += ["", f"{label}:"]
        if tukey:
            lines += _anova_lines(pairs.tukey[label].anova)
        lines += table(header, [
            [row["baseline"], row["candidate"], fmt.signed(row["difference"]),
             *([fmt.p_value(row["p"]), fmt.p_value(row["p_classic"]),
                fmt.effect(row["effect_size"])] if tukey
               else [fmt.p_value(row["p"]), fmt.p_value(row["p_adjusted"])]),
             *([fmt.p_value(row["p_equivalence"])] if pairs.min_effect is not None else []),
             DECISIONS[row["decision"]]]
            for row in rows if row["metric"] == label])
    return "\n".join(lines) + "\n\n" + _letters(pairs)


def anova_rows(anova) -> list[list[str]]:
    """The two-way ANOVA's lines (runs, queries, residual) as written, under ANOVA_HEADER:
    what the text table and the dashboard's table both show."""
    def line(name: str, factor) -> list[str]:
        return [SOURCES[name], fmt.figure(factor.sum_of_squares), f"{factor.df:,}",
                fmt.figure(factor.mean_square), _f_value(factor.f), fmt.p_value(factor.p),
                fmt.effect(factor.omega_squared), fmt.effect(factor.partial_eta_squared)]

    return [line("systems", anova.systems), line("topics", anova.topics),
            [SOURCES["residual"], fmt.figure(anova.residual_sum_of_squares),
             f"{anova.residual_df:,}", fmt.figure(anova.residual_variance), "", "", "", ""]]


def anova_margin(anova) -> str:
    """The sentence under the table: a run mean's margin of error from the residual variance."""
    return margin_sentence(anova.margin_of_error, anova.confidence_level, anova.residual_df,
                           fmt.figure(anova.margin_of_error))


def _anova_lines(anova) -> list[str]:
    """The two-way ANOVA's table (runs, queries, residual) and the runs' margin of error."""
    return [*table(ANOVA_HEADER, anova_rows(anova)), anova_margin(anova)]


def _f_value(f: float) -> str:
    """F as written: infinite when the residual variance is 0, undefined when nothing varies."""
    if f == float("inf"):
        return "∞ (no residual variance)"
    if f != f:  # nan
        return fmt.undefined("every score is the same")
    return fmt.figure(f)


def format_review(comparison: Comparison, delta: float, found: Fragility | None) -> str:
    """The risk table (every candidate and metric) and, when asked, the fragility check."""
    rows = []
    for risk in risks(comparison, delta=delta):
        rows.append([risk.candidate, risk.metric,
                     f"{risk_words.share(risk.harm_share)} [{risk_words.share(risk.harm_low)}, "
                     f"{risk_words.share(risk.harm_high)}]",
                     figure(risk.mean_loss),  # — when no query loses (nan)
                     *(signed(value) for pair in zip(risk.urisk, risk.trisk, strict=True)
                       for value in pair)])
    alphas = [risk_words.alpha_key(a) for a in risk_words.RISK_ALPHAS]
    header = ["candidate", "metric", f"harmed (> {risk_words.delta_words(delta)})", "mean loss",
              *(f"{name} α={a}" for a in alphas for name in ("URisk", "TRisk"))]
    out = [f"\nRisk against {comparison.baseline} (TRisk beyond ±"
           f"{risk_words.TRISK_THRESHOLD:g}: reliably safer or riskier):\n",
           "\n".join(table(header, rows)) + "\n"]
    if found is not None:
        out.append(f"\nFragility: {found.summary}\n")
        out += [f"  {flip.sentence}\n" for flip in found.flips]
        out += [f"  not tried: {convention} ({why})\n" for convention, why in found.skipped]
    return "".join(out)


def format_leaderboard(board: Leaderboard, pairs: AllPairs | None = None) -> str:
    """One table per metric, best first: mean, rank, rank interval, P(best); with every pair
    tested (`pairs`, leaderboard --test), each run's letters beside it, then the pairs."""
    level = fmt.confidence(board.confidence_level)
    lines = [f"Leaderboard at K = {board.k} over {fmt.count(board.n_queries, 'scored query')}: "
             f"{fmt.count(board.n_resamples, 'paired bootstrap resample')}, seed {board.seed}",
             f"  - {LEADERBOARD_TERMS['rank_interval']}", f"  - {LEADERBOARD_TERMS['p_best']}"]
    if pairs is not None:
        lines.append(f"  - {pairs.sentence()}")
    for label, standings in board.metrics.items():
        letters = pairs.letters(label) if pairs is not None else {}
        rows = [[s.run, fmt.figure(s.mean), str(s.rank), f"{s.rank_low}–{s.rank_high}",
                 f"{s.p_best:.1%}", *([letters[s.run]] if letters else [])]
                for s in standings]
        lines += ["", f"{label}:", *table(["run", "mean", "rank", f"{level} rank interval",
                                           "P(best)", *(["letters"] if letters else [])],
                                          rows)]
    if pairs is not None:
        lines += ["", format_pairs(pairs).rstrip("\n")]
    return "\n".join(lines) + "\n"


def format_agreements(found: Sequence[Agreement]) -> str:
    """One row per pair of orderings: tau, tau_AP and the pairs that swap."""
    rows = [[a.first, a.second, tau_text(a.tau, a.tau_undefined),
             tau_text(a.tau_ap, a.tau_ap_undefined),
             "; ".join(f"{x} > {y}" for x, y in a.swapped) or NO_SWAP] for a in found]
    lines = table(["first", "second", "tau", "tau_AP", "swapped (as the first orders them)"],
                  rows)
    lines += ["", *(f"  - {AGREEMENT_TERMS[key]}" for key in ("order", "tau", "tau_ap"))]
    return "\n".join(lines) + "\n"


def format_power(report: dict[str, Any], figures: Sequence[PowerFigure],
                 sizes: dict[str, TopicSetSize] | None = None) -> str:
    rows = [[p["baseline"], p["candidate"], p["metric"], f"{p['queries']:,}",
             fmt.figure(p["sd_difference"]), _maybe(p["min_detectable_difference"]),
             "—" if p["queries_needed"] is None else f"{p['queries_needed']:,}"]
            for p in report["pairs"]]
    needed = f"queries for {report['delta']:g}" if report["delta"] is not None else "needed"
    lines = [POWER_METHOD, f"alpha {report['alpha']:g}, power {report['power']:.0%}", "",
             *table(["baseline", "candidate", "metric", "queries", "sd of diff.",
                     "detectable", needed], rows), ""]
    lines += [f"  {f.candidate} {f.metric}: {f.sentence}" for f in figures]
    if sizes:
        lines += ["", format_topic_set_sizes(sizes).rstrip("\n")]
    return "\n".join(lines) + "\n"


def format_topic_set_sizes(sizes: dict[str, TopicSetSize]) -> str:
    """The queries a future set needs, per metric, by the three designs."""
    first = next(iter(sizes.values()))
    width = (f"interval ≤ {fmt.figure(first.ci_width)} wide" if first.ci_width is not None
             else "interval (no --ci-width)")
    header = ["metric", "V_E", f"paired t (Δ {fmt.figure(first.min_difference)})",
              f"ANOVA over {first.runs} runs", width]
    rows = [[label, fmt.figure(size.residual_variance), f"{size.paired_t:,}",
             f"{size.anova:,}", "—" if size.ci is None else f"{size.ci:,}"]
            for label, size in sizes.items()]
    return "\n".join([TOPIC_SET_METHOD,
                      f"alpha {first.alpha:g}, power {first.power:.0%}; queries needed:",
                      *table(header, rows)]) + "\n"


def _maybe(value: float | None) -> str:
    return "—" if value is None else fmt.figure(value)


def format_leaks(leakage: Leakage, queries: Queries) -> str:
    rule = ("Every query checked, keyword ones too." if leakage.every_query
            else f"Rule: {LEAKAGE_RULE}")
    lines = [leakage.sentence, f"Scope '{leakage.scope}': {SCOPES[leakage.scope]}",
             f"Threshold: {leakage.threshold:g} of a query's word 3-grams in one chunk.", rule]
    if leakage.leaks:
        rows = [[leak.query_id, leak.doc_id, leak.kind, f"{leak.overlap:.2f}",
                 _start(queries.text(leak.query_id) or "")] for leak in leakage.leaks]
        lines += ["", *table(["query", "chunk", "kind", "overlap", "question"], rows)]
        lines += ["", "leaked queries: " + listing(list(leakage.leaked_queries), limit=20)]
    return "\n".join(lines) + "\n"


def _start(text: str, limit: int = 60) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[:limit - 1] + "…"
