"""A run's per-query figures -> each summary measure's mean and interval, as the vocabulary
declares it: Wilson for Hit@K (the query is the trial), the bootstrap (percentile or BCa, the
interval_method convention) over queries for the rest. Aggregation only: the figures in, the
intervals out, never a ranked list.

The bootstrap's resampled queries are drawn once per evaluation from the conventions' seed
and applied to every run and measure, so intervals are reproducible to the last digit and
comparable across runs; the sweep's draw starts from the same seed, so at the chosen K a
sweep band is exactly the summary interval. Every run's resampled means come from one pass
over the resamples (``Resamples.means``), whichever way they were drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.stats.bca import bootstrap_bounds
from metrics.stats.bootstrap import Resamples, as_resamples, resampled_queries
from metrics.stats.intervals import Interval, wilson
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.conventions import Conventions

__all__ = ["bands_of", "bootstrap_table", "summaries_of", "summarise", "summarise_runs",
           "sweep_bands"]


# the default summary: each summary measure's key -> its interval
SUMMARY_METHODS: dict[str, str] = {m.key: m.interval for m in SUMMARY_MEASURES}


def summarise(at_k: dict[str, np.ndarray], counts: Resamples | np.ndarray,
              conventions: Conventions, methods: dict[str, str] | None = None,
              ) -> dict[str, Interval]:
    """Each figure's mean and interval from its per-query values at K (the scored queries,
    keyed as `methods` is: figure key -> "bootstrap" or "wilson"; default the summary
    measures) and the resampled queries (Resamples, or a table of counts (resamples,
    queries))."""
    return summarise_runs([at_k], counts, conventions, methods)[0]


def summarise_runs(at_ks: list[dict[str, np.ndarray]], counts: Resamples | np.ndarray,
                   conventions: Conventions, methods: dict[str, str] | None = None,
                   ) -> list[dict[str, Interval]]:
    """``summarise`` of several runs over the same resampled queries, in one pass over them;
    each run's figures are those it gets alone."""
    methods = SUMMARY_METHODS if methods is None else methods
    tables = [bootstrap_table(at_k, methods) for at_k in at_ks]
    distributions = (as_resamples(counts).means(*tables) if tables and tables[0] is not None
                     else [None] * len(at_ks))
    return summaries_of(at_ks, tables, distributions, conventions, methods)


def bootstrap_table(at_k: dict[str, np.ndarray],
                    methods: dict[str, str] | None = None) -> np.ndarray | None:
    """The columns the bootstrap resamples: each bootstrap figure's per-query values at K,
    in the order of `methods` (default the summary measures); None when there is none."""
    methods = SUMMARY_METHODS if methods is None else methods
    keys = [key for key, method in methods.items() if method == "bootstrap"]
    return np.column_stack([at_k[key] for key in keys]) if keys else None


def summaries_of(at_ks: list[dict[str, np.ndarray]], tables: list[np.ndarray | None],
                 distributions: list[np.ndarray | None], conventions: Conventions,
                 methods: dict[str, str] | None = None) -> list[dict[str, Interval]]:
    """``summarise_runs`` given each run's bootstrap table and its resampled means (a driver
    that sums the resamples block by block hands these over)."""
    methods = SUMMARY_METHODS if methods is None else methods
    level = conventions.confidence_level
    keys = [key for key, method in methods.items() if method == "bootstrap"]
    summaries = []
    for at_k, values, distribution in zip(at_ks, tables, distributions, strict=True):
        summary = {}
        if keys:
            low, high = bootstrap_bounds(values, distribution, confidence_level=level,
                                         method=conventions.interval_method)
            means = values.mean(axis=0) if len(values) else np.zeros(len(keys))
            summary = {
                key: Interval(float(means[i]), float(low[i]), float(high[i]), "bootstrap",
                              level)
                for i, key in enumerate(keys)
            }
        for key in (key for key, method in methods.items() if method == "wilson"):
            outcomes = at_k[key]  # a 0/1 outcome per query: the query is the trial
            summary[key] = wilson(int(outcomes.sum()), len(outcomes), confidence_level=level)
        summaries.append({key: summary[key] for key in methods})
    return summaries


# the default sweep: (curve key, the name its rows carry, its interval) of each summary measure
SWEEP_FIGURES = tuple((m.key, m.summary_key, m.interval) for m in SUMMARY_MEASURES)


def sweep_bands(curves: dict[str, np.ndarray], ks: range, conventions: Conventions,
                figures: Sequence[tuple[str, str, str]] = SWEEP_FIGURES,
                ) -> list[tuple[int, str, float, float]]:
    """(k, name, low, high) for every figure at every K of ``ks``, from each figure's
    per-query values at those K (the scored queries, (n, len(ks))); `figures` are (curve key,
    name, interval), default the summary measures. One bootstrap call covers every (figure,
    K) column, on the summary's resampled queries (the same seed and n)."""
    c = conventions
    n = next(iter(curves.values())).shape[0]
    boot = [np.asarray(curves[key], dtype=float) for key, _, method in figures
            if method == "bootstrap"]
    values = np.concatenate(boot, axis=1) if boot else None
    distribution = (resampled_queries(n, seed=c.seed, n_resamples=c.n_resamples)
                    .means(values)[0] if boot else None)
    hits = {key: curves[key].sum(axis=0) for key, _, method in figures if method == "wilson"}
    return bands_of(values, distribution, hits, n, ks, c, figures)


def bands_of(values: np.ndarray | None, distribution: np.ndarray | None,
             hits: dict[str, np.ndarray], n: int, ks: range, conventions: Conventions,
             figures: Sequence[tuple[str, str, str]] = SWEEP_FIGURES,
             ) -> list[tuple[int, str, float, float]]:
    """``sweep_bands`` from what it reads of the per-query values: the resampled means of
    the bootstrap figures' columns (figure by figure, K by K), those columns themselves
    (only BCa reads them: None for the percentile interval), and for each Wilson figure its
    hits at each K over `n` queries. A driver that never holds every query at every K (the
    block-by-block one) gives these."""
    c = conventions
    if distribution is not None:
        low, high = bootstrap_bounds(values, distribution, confidence_level=c.confidence_level,
                                     method=c.interval_method)
    rows, column = [], 0
    for key, name, method in figures:
        if method == "wilson":
            bands = [(band.low, band.high) for band in
                     (wilson(int(hit), n, confidence_level=c.confidence_level)
                      for hit in hits[key])]
        else:
            bands = list(zip(low[column:column + len(ks)], high[column:column + len(ks)],
                             strict=True))
            column += len(ks)
        rows += [(k, name, float(lo), float(hi)) for k, (lo, hi) in zip(ks, bands, strict=True)]
    return rows
