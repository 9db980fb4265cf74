"""Figures per slice: every run's summary over the scored queries in one bin of a facet.

A slice's figures are what evaluating its scored queries alone would give: each query's
values do not depend on the other queries, and the bootstrap draws its resampled queries
on the conventions' seed (``resampled_queries``), as evaluate() does for the whole set: a
slice that holds every scored query has the summary's intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.core.asked import summary_methods
from metrics.core.compare import compare_evaluation
from metrics.core.evaluate import DEFAULT_SUMMARY, Evaluation
from metrics.explain.facets import Facet, slice_masks
from metrics.stats import corrections
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.comparison import Comparison
from metrics.stats.intervals import Interval
from metrics.stats.summary import summarise_runs
from metrics.vocabulary.comparisons import ALPHA, DEFAULT_CORRECTION
from metrics.vocabulary.slices import FILTER_JOIN, SLICE_MIN_QUERIES


@dataclass(frozen=True)
class Slice:
    facet: str
    value: str  # the bin's label
    queries: int  # scored queries in the slice
    summary: dict[str, dict[str, Interval]]  # run name -> measure key ("P", "RR", ...)

    @property
    def too_small(self) -> bool:
        """Shown, but marked: fewer than SLICE_MIN_QUERIES scored queries."""
        return self.queries < SLICE_MIN_QUERIES


def slice_evaluation(evaluation: Evaluation, facet: Facet) -> list[Slice]:
    """One Slice per bin of the facet that holds a scored query, in the facet's order."""
    conventions = evaluation.conventions
    at_k = {run.name: evaluation.per_query_scores(run.name) for run in evaluation.runs}
    asked = {spec.key: spec.measure.interval for spec in evaluation.summary_specs
             if spec in evaluation.asked}
    # standardised figures are no longer 0/1 outcomes: every interval a bootstrap one, as
    # the standardised evaluation's own (metrics.core.standardise)
    defaults = None
    if getattr(evaluation, "standardised", ""):
        defaults = dict.fromkeys(summary_methods(DEFAULT_SUMMARY), "bootstrap")
        asked = dict.fromkeys(asked, "bootstrap")
    slices = []
    for label, mask in slice_masks(facet, evaluation.scored_ids):
        n = int(mask.sum())
        resamples = resampled_queries(n, seed=conventions.seed,
                                      n_resamples=conventions.n_resamples)
        values = [{key: values[mask] for key, values in scores.items()}
                  for scores in at_k.values()]
        summaries = summarise_runs(values, resamples, conventions, defaults)
        if asked:  # their own call on the same draws, as the whole evaluation's
            for summary, more in zip(summaries, summarise_runs(values, resamples, conventions,
                                                               asked), strict=True):
                summary |= more
        summary = dict(zip(at_k, summaries, strict=True))
        slices.append(Slice(facet.name, label, n, summary))
    return slices


def filter_evaluation(evaluation: Evaluation, facet: Facet,
                      values: Sequence[str]) -> Evaluation:
    """The evaluation over the queries whose bin of `facet` is one of `values` (labels of its
    bins): every figure as if the query set held only them (Evaluation.restricted)."""
    values = list(dict.fromkeys(values))
    unknown = [value for value in values if value not in facet.bins]
    if not values:
        raise ValueError(f"filter on {facet.name!r}: no value chosen")
    if unknown:
        raise ValueError(f"filter on {facet.name!r}: {', '.join(map(repr, unknown))} not among "
                         f"its values ({', '.join(map(repr, facet.bins))})")
    ids = evaluation.query_set.query_ids
    mask = np.fromiter((facet.label(str(q)) in values for q in ids), dtype=bool, count=len(ids))
    return evaluation.restricted(mask, f"{facet.name} = {FILTER_JOIN.join(values)}")


def compare_slices(evaluation: Evaluation, facet: Facet, *, correction: str = DEFAULT_CORRECTION,
                   alpha: float = ALPHA, **options) -> list[tuple[str, Comparison]]:
    """The paired comparison (compare_evaluation's options) over each slice of 2 or more
    scored queries, as (slice, Comparison). The family the correction covers is every
    (candidate, metric, slice): one adjustment over all their p-values."""
    pieces = [(label, compare_evaluation(evaluation, queries=mask, correction="none",
                                         alpha=alpha, **options))
              for label, mask in slice_masks(facet, evaluation.scored_ids) if mask.sum() >= 2]
    p = np.array([t.p_randomization for _, c in pieces for t in c.tests])
    adjusted = corrections.adjust(p, correction)
    out, start = [], 0
    for label, comparison in pieces:
        end = start + len(comparison.tests)
        out.append((label, comparison.with_adjusted(adjusted[start:end], correction, alpha,
                                                    n_comparisons=len(p))))
        start = end
    return out
