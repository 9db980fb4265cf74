"""The frames the views show, reshaped from the engine's own frames and objects.

Pure (pandas, no streamlit): no metric arithmetic, only selection, reshaping, ordering and
formatting. Every label and tooltip comes from the measure registry and Conventions.sentences().
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from metrics import MEASURE_BY_KEY, QUERY_CLASSES, SUMMARY_MEASURES, Evaluation, bootstrap, wilson
from metrics.output import format_interval

# which convention sentences (keys of Conventions.sentences()) a measure's figure depends on
CONVENTIONS_OF = {
    "P": ("precision", "relevance_level"),
    "R": ("recall_denominator", "relevance_level"),
    "F1": ("precision", "recall_denominator", "relevance_level"),
    "Hit": ("relevance_level",),
    "RR": ("rr", "relevance_level"),
    "AP": ("ap", "recall_denominator", "relevance_level"),
    "DCG": ("gain",),
    "IDCG": ("gain",),
    "nDCG": ("gain",),
    "CP": ("relevance_level",),
    "Judged": ("judged",),
}
# worst first, so that sorting by class puts the queries to look at on top
CLASS_ORDER = {c: i for i, c in enumerate(reversed(QUERY_CLASSES))}
SORTS = {
    "largest difference between runs": "spread",
    "baseline's score (lowest first)": "baseline",
    "baseline's query class (misses first)": "class",
    "query id": "id",
}


def measure_help(evaluation: Evaluation, key: str, *, interval: bool = False) -> str:
    """Tooltip of a measure's column: what it certifies and the conventions behind it."""
    measure = MEASURE_BY_KEY[key]
    sentences = evaluation.conventions.sentences()
    parts = [f"{measure.name}: {measure.meaning}."]
    parts += [sentences[name] for name in CONVENTIONS_OF[key]]
    if interval:
        parts.append(sentences["interval"])
    return " ".join(parts)


def baseline_label(evaluation: Evaluation, name: str) -> str:
    """The run's name, saying so when it is the baseline (unless the name already does)."""
    is_baseline = name == evaluation.run_names[0] and name.casefold() != "baseline"
    return f"{name} (baseline)" if is_baseline else name


def summary_table(evaluation: Evaluation) -> pd.DataFrame:
    """Metrics down, runs across (the baseline first); each cell "mean [low, high]" at K,
    then the interval method and the conventions the metric depends on."""
    sentences = evaluation.conventions.sentences()
    rows = []
    for m in SUMMARY_MEASURES:
        row = {"Metric": m.label(evaluation.k)}
        for run in evaluation.runs:
            interval = run.summary[m.key]
            row[run.name] = format_interval(interval.mean, interval.low, interval.high)
        row["Interval"] = m.interval
        row["Conventions"] = " ".join(sentences[name] for name in CONVENTIONS_OF[m.key])
        rows.append(row)
    return pd.DataFrame(rows)


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
    labels = {m.summary_key: m.label("K") for m in SUMMARY_MEASURES}
    return long.assign(label=long["metric"].map(labels))


def sweep_intervals(evaluation: Evaluation) -> pd.DataFrame:
    """Interval at every K of the sweep, from the engine's own interval functions.

    The engine's sweep() gives means only. With a fresh Generator on the conventions' seed,
    metrics.bootstrap draws the same resampled queries as evaluate(), so the band at the
    chosen K equals the summary interval exactly; one call covers every (run, metric, K)
    column. Hit@K takes the Wilson interval like the summary. Returns run, k, metric, low, high.
    """
    conventions = evaluation.conventions
    lo, hi = evaluation.sweep_range
    scored = evaluation.scored
    n = int(scored.sum())
    pairs = [(run, m) for run in evaluation.runs for m in SUMMARY_MEASURES]
    boot = [(run, m) for run, m in pairs if m.interval == "bootstrap"]
    intervals = iter(bootstrap(
        np.concatenate([run.scores.values[m.key][scored, lo - 1 : hi] for run, m in boot], 1),
        confidence_level=conventions.confidence_level,
        n_resamples=conventions.n_resamples,
        rng=np.random.default_rng(conventions.seed),
    ))
    rows = []
    for run, m in pairs:
        values = run.scores.values[m.key][scored, lo - 1 : hi]
        if m.interval == "wilson":
            bands = [wilson(int(c), n, confidence_level=conventions.confidence_level)
                     for c in values.sum(axis=0)]
        else:
            bands = [next(intervals) for _ in range(values.shape[1])]
        rows += [(run.name, k, m.summary_key, band.low, band.high)
                 for k, band in zip(range(lo, hi + 1), bands, strict=True)]
    return pd.DataFrame(rows, columns=["run", "k", "metric", "low", "high"])


def query_cells(evaluation: Evaluation, keys: list[str]) -> pd.DataFrame:
    """Per-query scores at K, long: query_id, run, key, label, value, class."""
    wide = evaluation.per_query()
    long = wide.melt(
        id_vars=["run", "query_id", "class"], value_vars=keys, var_name="key", value_name="value"
    )
    labels = {key: MEASURE_BY_KEY[key].label(evaluation.k, summary=False) for key in keys}
    return long.assign(label=long["key"].map(labels))


def listing(ids, limit: int = 20) -> str:
    """Ids for a sentence: the first `limit`, then how many more."""
    ids = list(ids)
    more = f" and {len(ids) - limit:,} more" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more


def natural_key(text: str) -> list:
    """q2 before q10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def query_order(evaluation: Evaluation, key: str, sort: str) -> list[str]:
    """Scored query ids in the order a SORTS value asks for, ties broken by query id."""
    wide = evaluation.per_query()
    scores = wide.pivot(index="query_id", columns="run", values=key)
    baseline = evaluation.run_names[0]
    ids = sorted(scores.index, key=natural_key)
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
