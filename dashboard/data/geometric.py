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


def means(view: View, key: str) -> dict[str, metrics.Interval]:
    """Each shown run's `key` (gm_map) over its interval, once per view: the Overview's
    table and the LaTeX download read the same (ValueError on standardised figures)."""
    return derived(view, "geometric means", (key,), lambda: metrics.geometric_means(
        view.evaluation, metrics.geometric_summary(key)))


def _table(view: View, key: str) -> GeometricTable:
    summary = metrics.geometric_summary(key)
    evaluation = view.evaluation
    try:
        found = means(view, key)
    except ValueError as error:
        return GeometricTable(key, problem=str(error))
    level = fmt.confidence(evaluation.conventions.confidence_level)
    baseline = view.baseline
    others = [run for run in evaluation.run_names if run != baseline]
    paired = {d.a: d for d in metrics.geometric_differences(evaluation, baseline, others,
                                                             summary)}
    against = f"Against {baseline}"
    rows = tuple({"Run": run, key: fmt.interval(found[run].mean, found[run].low, found[run].high),
                  against: "baseline" if run == baseline else
                  fmt.difference(paired[run].difference, paired[run].low, paired[run].high)}
                 for run in evaluation.run_names)
    sentence = (f"{summary.name} ({key}): {summary.rule} Interval ({level}): "
                f"{summary.interval}. Against the baseline: {summary.paired}")
    return GeometricTable(key, rows, sentence)
