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

import numpy as np

from metrics.stats.bca import bootstrap_bounds
from metrics.stats.bootstrap import Resamples, as_resamples
from metrics.stats.intervals import Interval, bootstrap, wilson
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.conventions import Conventions

__all__ = ["summarise", "summarise_runs", "sweep_bands"]


def summarise(at_k: dict[str, np.ndarray], counts: Resamples | np.ndarray,
              conventions: Conventions) -> dict[str, Interval]:
    """Each summary measure's mean and interval from its per-query values at K (the scored
    queries, keyed by measure key) and the resampled queries (Resamples, or a table of
    counts (resamples, queries))."""
    return summarise_runs([at_k], counts, conventions)[0]


def summarise_runs(at_ks: list[dict[str, np.ndarray]], counts: Resamples | np.ndarray,
                   conventions: Conventions) -> list[dict[str, Interval]]:
    """``summarise`` of several runs over the same resampled queries, in one pass over them;
    each run's figures are those it gets alone."""
    level = conventions.confidence_level
    keys = [m.key for m in SUMMARY_MEASURES if m.interval == "bootstrap"]
    tables = [np.column_stack([at_k[key] for key in keys]) for at_k in at_ks]
    distributions = as_resamples(counts).means(*tables)
    summaries = []
    for at_k, values, distribution in zip(at_ks, tables, distributions, strict=True):
        low, high = bootstrap_bounds(values, distribution, confidence_level=level,
                                     method=conventions.interval_method)
        means = values.mean(axis=0) if len(values) else np.zeros(len(keys))
        summary = {
            key: Interval(float(means[i]), float(low[i]), float(high[i]), "bootstrap", level)
            for i, key in enumerate(keys)
        }
        hits = at_k["Hit"]
        summary["Hit"] = wilson(int(hits.sum()), len(hits), confidence_level=level)
        summaries.append({m.key: summary[m.key] for m in SUMMARY_MEASURES})
    return summaries


def sweep_bands(curves: dict[str, np.ndarray], ks: range,
                conventions: Conventions) -> list[tuple[int, str, float, float]]:
    """(k, summary key, low, high) for every summary measure at every K of ``ks``, from each
    measure's per-query values at those K (the scored queries, (n, len(ks))). One bootstrap
    call covers every (measure, K) column, drawn from a fresh Generator on the seed."""
    c = conventions
    n = next(iter(curves.values())).shape[0]
    boot = [curves[m.key] for m in SUMMARY_MEASURES if m.interval == "bootstrap"]
    intervals = iter(bootstrap(
        np.concatenate(boot, axis=1), confidence_level=c.confidence_level,
        n_resamples=c.n_resamples, rng=np.random.default_rng(c.seed),
        method=c.interval_method,
    ))
    rows = []
    for m in SUMMARY_MEASURES:
        values = curves[m.key]
        if m.interval == "wilson":
            bands = [wilson(int(hits), n, confidence_level=c.confidence_level)
                     for hits in values.sum(axis=0)]
        else:
            bands = [next(intervals) for _ in range(values.shape[1])]
        rows += [(k, m.summary_key, band.low, band.high)
                 for k, band in zip(ks, bands, strict=True)]
    return rows
