"""gm_map of a scored evaluation (trec_eval's geometric mean of AP; `GM_MAP` in
metrics.vocabulary.measures): each run's value with its percentile bootstrap interval over the
scored queries, and the paired difference of two runs.

It reads each scored query's AP over the full list (trec_eval's map), asked of the evaluation
when it does not hold it, and draws the resamples every mean of the evaluation reads (its seed
and number of resamples). A standardised evaluation is refused: a z-score has no logarithm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.geometric import geometric_difference, geometric_interval
from metrics.stats.intervals import Interval
from metrics.vocabulary.measures import GM_MAP, GeometricSummary

__all__ = ["GeometricDifference", "geometric_difference_of", "geometric_differences",
           "geometric_means"]


@dataclass(frozen=True)
class GeometricDifference:
    summary: GeometricSummary
    a: str  # the run compared
    b: str  # the run it is compared with
    difference: float  # gm(a) - gm(b)
    low: float
    high: float
    confidence_level: float


def _figures(evaluation: Evaluation, summary: GeometricSummary
             ) -> tuple[Evaluation, dict[str, np.ndarray]]:
    if evaluation.standardised:
        raise ValueError(f"{summary.key} is a geometric mean of AP: it is undefined on "
                         "standardised figures (a z-score has no logarithm): it is computed "
                         "on the raw figures only")
    held = evaluation.with_measures([summary.of])
    key = held.resolve(summary.of).key
    return held, {run.name: np.asarray(held.per_query_scores(run.name)[key], dtype=float)
                  for run in held.runs}


def _resamples(evaluation: Evaluation):
    c = evaluation.conventions
    return resampled_queries(int(evaluation.scored.sum()), seed=c.seed,
                             n_resamples=c.n_resamples)


def geometric_means(evaluation: Evaluation, summary: GeometricSummary = GM_MAP
                    ) -> dict[str, Interval]:
    """Run name -> its gm_map with a percentile bootstrap interval over the scored queries
    (NaN over no query)."""
    held, figures = _figures(evaluation, summary)
    c = held.conventions
    resamples = _resamples(held)
    out = {}
    for name, values in figures.items():
        value, low, high = geometric_interval(values, resamples, floor=summary.floor,
                                              confidence_level=c.confidence_level)
        out[name] = Interval(value, low, high, "bootstrap", c.confidence_level)
    return out


def geometric_difference_of(evaluation: Evaluation, a: str, b: str,
                            summary: GeometricSummary = GM_MAP) -> GeometricDifference:
    """gm_map of run `a` minus that of run `b`, with a paired percentile bootstrap interval
    (both on the same resampled queries)."""
    return geometric_differences(evaluation, b, [a], summary)[0]


def geometric_differences(evaluation: Evaluation, baseline: str, candidates: Sequence[str],
                          summary: GeometricSummary = GM_MAP
                          ) -> tuple[GeometricDifference, ...]:
    """Each candidate's gm_map minus the baseline's, as `geometric_difference_of`, the
    per-query figures read and the queries resampled once for them all."""
    held, figures = _figures(evaluation, summary)
    for name in (baseline, *candidates):
        if name not in figures:
            raise ValueError(f"no run named {name!r}: {', '.join(figures)}")
    c = held.conventions
    resamples = _resamples(held)
    out = []
    for candidate in candidates:
        difference, low, high = geometric_difference(
            figures[candidate], figures[baseline], resamples, floor=summary.floor,
            confidence_level=c.confidence_level)
        out.append(GeometricDifference(summary, candidate, baseline, difference, low, high,
                                       c.confidence_level))
    return tuple(out)
