"""Do two orderings of the same items agree? Kendall's tau and tau_AP, on arrays.

An ordering is given by one score per item, higher first. Kendall's tau is tau-b (ties in
either ordering counted as neither concordant nor discordant, scipy.stats.kendalltau's
default). tau_AP (Yilmaz, Aslam and Robertson 2008) weighs a disagreement near the top more
than one near the bottom: read down the second ordering, each item at position i > 1 adds the
share of the i - 1 items above it that the first ordering also puts above it;
tau_AP = 2 / (N - 1) times the sum of those shares, minus 1. It needs strict orders: items
that tie are ordered as given (the first item first). Both are 1 for the same order, -1 for
the reversed one, and undefined (nan) for fewer than two items.
"""

from __future__ import annotations

import numpy as np

from metrics.stats.validate import check_values

__all__ = ["discordant_pairs", "kendall_tau", "order", "tau_ap"]


def order(scores: np.ndarray) -> np.ndarray:
    """The items' positions best first (a stable sort: a tie keeps the given order)."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's tau-b between the orderings two score arrays give the same items."""
    from scipy.stats import kendalltau

    a, b = _orderings_iv(a, b)
    if len(a) < 2:
        return float("nan")
    return float(kendalltau(a, b).statistic)


def tau_ap(first: np.ndarray, second: np.ndarray) -> float:
    """tau_AP of the second ordering against the first (not symmetric: the first is the
    reference, as human labels against a judge's, or a trusted measure against another)."""
    first, second = _orderings_iv(first, second)
    n = len(first)
    if n < 2:
        return float("nan")
    position = np.empty(n, dtype=np.int64)
    position[order(first)] = np.arange(n)  # each item's place under the first ordering
    read = position[order(second)]  # the first's places, read down the second ordering
    above = read[None, :] < read[:, None]  # above[i, j]: j is above i under the first
    earlier = np.tri(n, k=-1, dtype=bool)  # j comes before i under the second
    agreeing = (above & earlier).sum(axis=1)[1:]
    return float(2 / (n - 1) * (agreeing / np.arange(1, n)).sum() - 1)


def _orderings_iv(a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    """Two orderings of the same items: one finite score per item each, as float arrays."""
    a = check_values("scores", a, ndim=1, rows="items")
    b = check_values("scores", b, ndim=1, rows="items")
    if a.shape != b.shape:
        raise ValueError(f"two orderings of the same items need arrays of one shape, got "
                         f"{a.shape} and {b.shape}")
    return a, b


def discordant_pairs(a: np.ndarray, b: np.ndarray) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, that one ordering puts strictly one way and the other
    strictly the other way."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    i, j = np.triu_indices(len(a), k=1)
    swapped = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) < 0
    return [(int(x), int(y)) for x, y in zip(i[swapped], j[swapped], strict=True)]
