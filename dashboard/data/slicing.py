"""What the queries file adds, through the engine and the store: the facets, the filter that
applies to every page, and the figures and comparisons per slice. Like cache.py, every call
is computed once per view and kept in the server's one store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import metrics
from dashboard.data.cache import CompareOptions, View, resampling, spinner, store
from metrics import Comparison


def facets(view: View) -> dict[str, metrics.Facet]:
    """The queries file's facets, binned over every scored query, filtered or not (none
    without the file): a filter keeps bins that mean the same on every page."""
    if view.queries is None:
        return {}
    key = view.key if view.whole_key is None else view.whole_key
    return store().get("facets", (key, view.queries_key),
                       lambda: metrics.facets(view.queries, view.unfiltered.scored_ids),
                       files=view.files | {view.queries_key}, parents=[view.source])


def filtered(view: View, facet: str, values: Sequence[str]) -> View:
    """The view over the queries whose bin of `facet` is one of `values`: every page's
    figures then run over them alone (metrics.filter_evaluation)."""
    values = tuple(values)
    key = (view.key, view.queries_key, facet, values)
    evaluation = store().get(
        "filtered", key,
        lambda: metrics.filter_evaluation(view.evaluation, facets(view)[facet], values),
        files=view.files | {view.queries_key}, parents=[view.source],
        shared=(view.evaluation,), on_miss=spinner("Reading the chosen queries…"))
    # the raw figures (standardised views) over the same queries, for the K sweep
    raw = None if view.raw is None else store().get(
        "filtered", (key, "raw"),
        lambda: metrics.filter_evaluation(view.raw, facets(view)[facet], values),
        files=view.files | {view.queries_key}, parents=[view.source], shared=(view.raw,))
    return replace(view, evaluation=evaluation, key=key, whole=view.evaluation,
                   whole_key=view.key, raw=raw)


def slices(view: View, facet: str) -> list[metrics.Slice]:
    """Every shown run's summary per slice of one facet, each slice evaluated alone."""
    return store().get(
        "slices", (view.key, view.queries_key, facet),
        lambda: metrics.slice_evaluation(view.evaluation, facets(view)[facet]),
        files=view.files | {view.queries_key}, parents=[view.source],
        shared=(view.evaluation,), on_miss=spinner("Scoring each slice…"))


def compare_slices(view: View, options: CompareOptions, facet: str, candidate: str,
                   metric: str) -> list[tuple[str, Comparison]]:
    """One candidate against the baseline on one metric (a measure key), per slice of a
    facet, p adjusted over the slices shown."""
    return store().get(
        "slice comparison",
        (view.key, view.queries_key, facet, options.baseline, candidate, metric,
         options.correction, options.alpha),
        lambda: metrics.compare_slices(
            view.evaluation, facets(view)[facet], baseline=options.baseline,
            candidates=[candidate], metrics=[metric], correction=options.correction,
            alpha=options.alpha, **resampling(view.evaluation.conventions)),
        files=view.files | {view.queries_key}, parents=[view.source],
        shared=(view.evaluation,), on_miss=spinner("Comparing each slice…"))


def first_facet(view: View) -> str | None:
    """The facet pages open on (metrics.default_facet): the file's own first one."""
    return metrics.default_facet(facets(view))


def report_slices(view: View, options: CompareOptions, facet: str, metric: str
                  ) -> list[tuple[str, Comparison]]:
    """Every candidate against the baseline on one metric, per slice of a facet, p adjusted
    over every (candidate, slice): what the report's by-kind section shows."""
    return store().get(
        "slice comparison",
        (view.key, view.queries_key, facet, options.baseline, options.candidates, metric,
         options.correction, options.alpha, "report"),
        lambda: metrics.compare_slices(
            view.evaluation, facets(view)[facet], baseline=options.baseline,
            candidates=list(options.candidates), metrics=[metric],
            correction=options.correction, alpha=options.alpha,
            **resampling(view.evaluation.conventions)),
        files=view.files | {view.queries_key}, parents=[view.source],
        shared=(view.evaluation,), on_miss=spinner("Comparing each slice…"))
