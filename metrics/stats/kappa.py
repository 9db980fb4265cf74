"""Cohen's kappa between two raters' grades, on a contingency table, with its large-sample
standard error (Fleiss, Cohen and Everitt 1969) and a normal interval.

table[i, j] counts the items the first rater graded category i and the second category j.
Weighted kappa gives partial credit through agreement weights w (1 on the diagonal, less
further off): kappa = (p_o - p_e) / (1 - p_e) with p_o = sum w p and p_e = sum w r c, where
r and c are the raters' margins. Unweighted kappa is the identity weights; linear weights
are 1 - |s_i - s_j| / (s_max - s_min) over the categories' scores s (the grades).

Kappa is undefined (nan, with the reason in words) without an item, and when a rater gives
every item the same category: then p_o = p_e whatever the other rater does, so the formula
gives 0 (or 0/0) without measuring any agreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from metrics.stats.validate import check_fraction
from metrics.vocabulary.agreement import KAPPA_FULL_CREDIT, KAPPA_NO_ITEM, KAPPA_ONE_CATEGORY

__all__ = ["Kappa", "cohens_kappa", "linear_weights"]


@dataclass(frozen=True)
class Kappa:
    kappa: float  # nan when undefined (no item, or a rater with one category): see `undefined`
    se: float
    low: float
    high: float
    weighted: bool
    items: int
    confidence_level: float
    undefined: str = ""  # why kappa has no value, in words; "" when it has one


def linear_weights(scores: object) -> np.ndarray:
    """Agreement weights 1 - |s_i - s_j| / range over the categories' scores."""
    s = np.asarray(scores, dtype=float)
    spread = s.max() - s.min() if len(s) else 0.0
    if spread == 0:
        return np.ones((len(s), len(s)))
    return 1 - np.abs(s[:, None] - s[None, :]) / spread


def cohens_kappa(table: object, *, weights: object = None, confidence_level: float,
                 raters: tuple[str, str] = ("the first rater", "the second rater"),
                 item: str = "item") -> Kappa:
    """Kappa of a square table of counts; `weights` a square agreement-weight matrix (None:
    unweighted). `raters` (rows', columns') and `item` name them in the reason an undefined
    kappa gives."""
    confidence_level = check_fraction("confidence_level", confidence_level)
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError(f"a kappa table must be square, got shape {counts.shape}")
    if (counts < 0).any():
        raise ValueError("a kappa table holds counts: no cell may be negative")
    weighted = weights is not None
    w = np.eye(len(counts)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != counts.shape:
        raise ValueError(f"weights of shape {w.shape} do not fit a table of {counts.shape}")
    items = int(counts.sum())
    nan = float("nan")
    if items == 0:
        return Kappa(nan, nan, nan, nan, weighted, 0, confidence_level,
                     KAPPA_NO_ITEM.format(item=item))
    p = counts / items
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    single = [name for name, margin in zip(raters, (rows, cols), strict=True)
              if np.count_nonzero(margin) < 2]
    if single:  # p_o = p_e whatever the other rater does: no agreement to measure
        return Kappa(nan, nan, nan, nan, weighted, items, confidence_level,
                     KAPPA_ONE_CATEGORY.format(raters=" and ".join(single), item=item))
    observed = float((w * p).sum())
    expected = float((w * np.outer(rows, cols)).sum())
    if expected >= 1:  # weights that credit every disagreement in full: chance explains all
        return Kappa(nan, nan, nan, nan, weighted, items, confidence_level, KAPPA_FULL_CREDIT)
    kappa = (observed - expected) / (1 - expected)
    # Fleiss, Cohen and Everitt (1969): each cell's weight against its row's and column's
    # mean weights
    row_mean = w @ cols  # for row i: sum_j w_ij c_j
    col_mean = rows @ w  # for column j: sum_i r_i w_ij
    spread = (w - (row_mean[:, None] + col_mean[None, :]) * (1 - kappa)) ** 2
    variance = ((p * spread).sum() - (kappa - expected * (1 - kappa)) ** 2) / (
        (1 - expected) ** 2 * items)
    se = float(np.sqrt(max(variance, 0.0)))
    half = NormalDist().inv_cdf(1 - (1 - confidence_level) / 2) * se
    return Kappa(float(kappa), se, float(kappa - half), float(kappa + half), weighted, items,
                 confidence_level)
