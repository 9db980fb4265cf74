"""Quantiles of resampled queries: what a percentile bootstrap of a quantile (a p95 latency)
reads. The resamples are ``metrics.stats.bootstrap``'s (counts of each query in each
resample); each resample's quantile is numpy's ``np.percentile(..., method="linear")`` of
the multiset of values it draws, read here from the counts without building that multiset.

Every resample draws exactly n queries, so the order statistics a quantile reads sit at the
same places in every resample (numpy's virtual index (n - 1) q, between floor and floor + 1):
with the values sorted once, the value at place j of resample r is the first sorted value
whose cumulative count in r passes j.

Memory. The dense draw's table is read whole ((resamples, n) cumulative counts). The blocked
draw (beyond DENSE_CELLS cells) is read in two passes over its blocks, so that no (resamples,
n) table is held: the first sums each resample's counts over about sqrt(n) bins of the sorted
values; the second keeps, for each resample and place, the counts of the one bin that holds
the place (resamples x places x sqrt(n) integers), and reads the value there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.stats.bootstrap import Resamples

__all__ = ["quantile_places", "resampled_quantiles", "sample_quantiles"]


def quantile_places(n: int, q: float) -> tuple[int, int, float]:
    """Where numpy's linear method reads quantile q of n sorted values: (below, above,
    weight of above), as ``np.quantile`` computes them (virtual index (n - 1) q, Hyndman and
    Fan's type 7; at or past the last value, the last value)."""
    virtual = (n - 1) * q
    if virtual >= n - 1:
        return n - 1, n - 1, 0.0
    below = max(int(np.floor(virtual)), 0)
    return below, below + 1, float(virtual - below)


def _lerp(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    """numpy's _lerp: a + (b - a) t, from b's side when t >= 0.5 (as np.percentile does)."""
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def sample_quantiles(values: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """The quantiles of the values themselves, as the resampled ones are read."""
    values = np.sort(np.asarray(values, dtype=float))
    out = []
    for q in qs:
        below, above, gamma = quantile_places(len(values), q)
        out.append(float(_lerp(values[below], values[above], gamma)))
    return np.array(out)


def resampled_quantiles(values: np.ndarray, resamples: Resamples,
                        qs: Sequence[float]) -> np.ndarray:
    """Each resample's quantiles of the values: (n_resamples, len(qs)), resample r's
    column i equal to ``np.percentile(np.repeat(values, counts[r]), 100 * qs[i])``."""
    values = np.asarray(values, dtype=float)
    n = resamples.n
    if values.shape != (n,):
        raise ValueError(f"values hold {values.shape} queries; the resamples draw {n:,}")
    if n == 0:
        return np.full((resamples.n_resamples, len(qs)), np.nan)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    places = [quantile_places(n, q) for q in qs]
    wanted = sorted({p for below, above, _ in places for p in (below, above)})
    if resamples.blocked:
        at = _blocked_places(resamples, order, wanted)
    else:
        cumulative = np.cumsum(resamples.dense[:, order], axis=1)
        at = {place: (cumulative <= place).sum(axis=1) for place in wanted}
    out = np.empty((resamples.n_resamples, len(qs)))
    for i, (below, above, gamma) in enumerate(places):
        out[:, i] = _lerp(ordered[at[below]], ordered[at[above]], gamma)
    return out


def _blocked_places(resamples: Resamples, order: np.ndarray, wanted: list[int]
                    ) -> dict[int, np.ndarray]:
    """For each place j, the sorted position each resample's j-th draw falls on, read over
    the blocked draw in two passes (see the module's docstring)."""
    n, r = resamples.n, resamples.n_resamples
    width = max(1, int(np.ceil(np.sqrt(n))))
    bins = -(-n // width)
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    totals = np.zeros((r, bins))
    for start, stop in resamples.blocks():  # pass 1: each resample's draws per bin
        counts = resamples.counts(start, stop)
        of_bin = position[start:stop] // width
        by_bin = np.argsort(of_bin, kind="stable")
        found, first = np.unique(of_bin[by_bin], return_index=True)
        totals[:, found] += np.add.reduceat(counts[:, by_bin], first, axis=1)
    before = np.cumsum(totals, axis=1) - totals  # draws in the bins below each bin
    rows = np.arange(r)
    target = {j: (before <= j).sum(axis=1) - 1 for j in wanted}  # the bin that holds j
    held = {j: np.zeros((r, width), dtype=np.int32) for j in wanted}
    for start, stop in resamples.blocks():  # pass 2: the counts of that bin, in order
        counts = resamples.counts(start, stop)
        of_bin = position[start:stop] // width
        by_bin = np.argsort(of_bin, kind="stable")
        sorted_bins = of_bin[by_bin]
        inside = position[start:stop] % width
        for j in wanted:  # each resample's members of its bin in this block: a run of by_bin
            first = np.searchsorted(sorted_bins, target[j], side="left")
            many = np.searchsorted(sorted_bins, target[j], side="right") - first
            rr = np.repeat(rows, many)
            runs = np.repeat(first - np.r_[0, np.cumsum(many)[:-1]], many)
            cc = by_bin[np.arange(len(rr)) + runs]
            held[j][rr, inside[cc]] = counts[rr, cc]
    at = {}
    for j in wanted:
        offset = j - before[rows, target[j]]
        within = (np.cumsum(held[j], axis=1) <= offset[:, None]).sum(axis=1)
        at[j] = target[j] * width + within
    return at
