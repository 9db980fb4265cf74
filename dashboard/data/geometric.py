"""The summaries that are not means (gm_map, added in the sidebar's More measures), through
the engine: each shown run's value over its interval and its paired difference against the
baseline (metrics.geometric_means, metrics.geometric_difference_of). The Overview shows them."""

from __future__ import annotations

from dataclasses import dataclass

import metrics
from dashboard.data.cache import View, derived
from metrics import format as fmt


@dataclass(frozen=True, eq=False)
class GeometricTable:
    key: str  # "gm_map"
    rows: tuple[dict[str, str], ...] = ()  # Run, value [interval], against the baseline
    sentence: str = ""  # how it is made: its rule, its interval, its paired comparison
    problem: str | None = None  # why it cannot be computed (standardised figures)


def geometric_tables(view: View) -> tuple[GeometricTable, ...]:
    """One table per summary the view asks for, once per view."""
    return tuple(derived(view, "geometric", (key,), lambda key=key: _table(view, key))
                 for key in view.summaries)


def _table(view: View, key: str) -> GeometricTable:
    summary = metrics.geometric_summary(key)
    evaluation = view.evaluation
    try:
        found = metrics.geometric_means(evaluation, summary)
    except ValueError as error:
        return GeometricTable(key, problem=str(error))
    level = fmt.confidence(evaluation.conventions.confidence_level)
    baseline = view.baseline
    rows = []
    for run in evaluation.run_names:
        interval = found[run]
        row = {"Run": run, key: f"{fmt.figure(interval.mean)} [{fmt.figure(interval.low)}, "
               f"{fmt.figure(interval.high)}]"}
        if run == baseline:
            row[f"Against {baseline}"] = "baseline"
        else:
            paired = metrics.geometric_difference_of(evaluation, run, baseline, summary)
            row[f"Against {baseline}"] = (f"{fmt.signed(paired.difference)} "
                                          f"[{fmt.signed(paired.low)}, "
                                          f"{fmt.signed(paired.high)}]")
        rows.append(row)
    sentence = (f"{summary.name} ({key}): {summary.rule} Interval ({level}): "
                f"{summary.interval}. Against the baseline: {summary.paired}")
    return GeometricTable(key, tuple(rows), sentence)
