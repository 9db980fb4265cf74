"""The summaries that are not means (gm_map, added in the sidebar's More measures), through
the engine: each shown run's value over its interval and its paired difference against the
baseline (metrics.geometric_means, metrics.geometric_differences). The Overview shows them
for every run shown against the view's baseline, Compare for its candidates against its own."""

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


def geometric_tables(view: View, baseline: str | None = None,
                     candidates: tuple[str, ...] | None = None) -> tuple[GeometricTable, ...]:
    """One table per summary the view asks for, once per view and runs: the baseline (default
    the view's) and then `candidates` (default every other run shown)."""
    baseline = view.baseline if baseline is None else baseline
    if candidates is None:
        candidates = tuple(run for run in view.evaluation.run_names if run != baseline)
    return tuple(derived(view, "geometric", (key, baseline, tuple(candidates)),
                         lambda key=key: _table(view, key, baseline, list(candidates)))
                 for key in view.summaries)


def means(view: View, key: str) -> dict[str, metrics.Interval]:
    """Each shown run's `key` (gm_map) over its interval, once per view: the Overview's
    table and the LaTeX download read the same (ValueError on standardised figures)."""
    return derived(view, "geometric means", (key,), lambda: metrics.geometric_means(
        view.evaluation, metrics.geometric_summary(key)))


def _table(view: View, key: str, baseline: str, others: list[str]) -> GeometricTable:
    summary = metrics.geometric_summary(key)
    evaluation = view.evaluation
    try:
        found = means(view, key)
    except ValueError as error:
        return GeometricTable(key, problem=str(error))
    level = fmt.confidence(evaluation.conventions.confidence_level)
    paired = {d.a: d for d in metrics.geometric_differences(evaluation, baseline, others,
                                                             summary)}
    against = f"Against {baseline}"
    rows = tuple({"Run": run, key: fmt.interval(found[run].mean, found[run].low, found[run].high),
                  against: "baseline" if run == baseline else
                  fmt.difference(paired[run].difference, paired[run].low, paired[run].high)}
                 for run in [baseline, *others])
    sentence = (f"{summary.name} ({key}): {summary.rule} Interval ({level}): "
                f"{summary.interval}. Against the baseline: {summary.paired}")
    return GeometricTable(key, rows, sentence)
