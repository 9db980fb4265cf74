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
from metrics.stats.bootstrap import Resamples, as_resamples
from metrics.stats.intervals import Interval, bootstrap, wilson
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.conventions import Conventions

__all__ = ["summarise", "summarise_runs", "sweep_bands"]


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
    level = conventions.confidence_level
    keys = [key for key, method in methods.items() if method == "bootstrap"]
    tables = [np.column_stack([at_k[key] for key in keys]) if keys else None for at_k in at_ks]
    distributions = (as_resamples(counts).means(*tables) if keys
                     else [None] * len(at_ks))
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
    K) column, drawn from a fresh Generator on the seed."""
    c = conventions
    n = next(iter(curves.values())).shape[0]
    boot = [curves[key] for key, _, method in figures if method == "bootstrap"]
    intervals = iter(bootstrap(
        np.concatenate(boot, axis=1), confidence_level=c.confidence_level,
        n_resamples=c.n_resamples, rng=np.random.default_rng(c.seed),
        method=c.interval_method,
    ) if boot else ())
    rows = []
    for key, name, method in figures:
        values = curves[key]
        if method == "wilson":
            bands = [wilson(int(hits), n, confidence_level=c.confidence_level)
                     for hits in values.sum(axis=0)]
        else:
            bands = [next(intervals) for _ in range(values.shape[1])]
        rows += [(k, name, band.low, band.high) for k, band in zip(ks, bands, strict=True)]
    return rows
