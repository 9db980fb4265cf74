"""Aligned arrays -> every metric at every K = 1..width in one vectorized pass.

`cumsum` along ranks gives every cutoff at once; there is no Python loop over queries or K.
What each measure means is declared in metrics.vocabulary; this module only computes it, and
keeps the denominators it divided by so that an explanation can state them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.conventions import Conventions
from metrics.ranking import AlignedRun, QuerySet
from metrics.vocabulary import MEASURE_BY_KEY, MEASURES, SUMMARY_MEASURES, Measure

__all__ = ["MEASURES", "MEASURE_BY_KEY", "SUMMARY_MEASURES", "Measure", "Scores", "compute",
           "gains"]




@dataclass(frozen=True, eq=False)
class Scores:
    """Per-query values of every measure at every K: values[key][q, k - 1]."""

    values: dict[str, np.ndarray]
    first_relevant_rank: np.ndarray  # (n,) 1-based, 0 when no relevant id was returned
    hits: np.ndarray  # (n, width) relevant ids within the top K
    noise: np.ndarray  # (n, width) returned ids within the top K that are not relevant
    # what recall and AP divided by at every K (read-only, broadcast to (n, width)): an
    # explanation states these rather than recomputing them
    recall_denominator: np.ndarray
    ap_denominator: np.ndarray

    @property
    def width(self) -> int:
        return self.hits.shape[1]

    def at(self, k: int) -> dict[str, np.ndarray]:
        if not 1 <= k <= self.width:
            raise ValueError(f"k must lie in 1..{self.width}, got {k}")
        return {key: v[:, k - 1] for key, v in self.values.items()}


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (no evidence, no credit)."""
    out = np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _per_count(numerator: np.ndarray, count: np.ndarray) -> np.ndarray:
    """numerator / count for a count that is 0 only where the numerator is 0 too (no hits
    when no id is relevant, ...): 0 there, and a plain division everywhere else."""
    return numerator / np.maximum(count, 1)


def gains(grades: np.ndarray, gain: str) -> np.ndarray:
    positive = np.maximum(grades, 0, dtype=float)  # grades <= 0 give no gain
    return positive if gain == "linear" else np.exp2(positive) - 1


def _ideal_dcg(ideal: np.ndarray, discount: np.ndarray, gain: str) -> np.ndarray:
    """IDCG at every K: the cumulative DCG of the best order, flat once the grades run out."""
    columns = min(ideal.shape[1], len(discount))
    best = np.cumsum(gains(ideal[:, :columns], gain) / discount[:columns], axis=1)
    idcg = np.empty((ideal.shape[0], len(discount)))
    idcg[:, :columns] = best
    idcg[:, columns:] = best[:, -1:]
    return idcg


def compute(query_set: QuerySet, run: AlignedRun, conventions: Conventions) -> Scores:
    width = run.width
    cutoff = np.arange(1, width + 1, dtype=float)
    hits = np.cumsum(run.relevant, axis=1, dtype=np.int32)
    n_relevant = query_set.n_relevant[:, None]
    denominator = (
        n_relevant if conventions.recall_denominator == "all" else np.minimum(n_relevant, cutoff)
    )

    precision = hits / cutoff
    recall = _per_count(hits, denominator)
    # 2PR / (P + R) with P = hits / K and R = hits / D is 2 hits / (D + K), and 0 without hits
    f1 = 2 * hits / (denominator + cutoff)

    any_relevant = run.relevant.any(axis=1)
    first = np.where(any_relevant, run.relevant.argmax(axis=1) + 1, 0)
    rr = np.where(
        (first[:, None] > 0) & (first[:, None] <= cutoff), 1 / np.maximum(first, 1)[:, None], 0.0
    )

    precision_sum = np.cumsum(run.relevant * precision, axis=1)
    ap = _per_count(precision_sum, denominator)
    context_precision = _per_count(precision_sum, hits)
    if conventions.rr == "full":
        rr = np.broadcast_to(rr[:, -1:], rr.shape).copy()
    ap_denominator = denominator
    if conventions.ap == "full":
        # over the query's own list: min(R, K) becomes min(R, its list length), so a score
        # does not depend on how long the other runs' lists are
        length = run.list_length[:, None]
        ap_denominator = (
            n_relevant
            if conventions.recall_denominator == "all"
            else np.minimum(n_relevant, length)
        )
        ap = np.broadcast_to(_per_count(precision_sum[:, -1:], ap_denominator), ap.shape).copy()

    discount = np.log2(cutoff + 1)
    dcg = np.cumsum(gains(run.grade, conventions.gain) / discount, axis=1)
    idcg = _ideal_dcg(query_set.ideal, discount, conventions.gain)

    returned = np.cumsum(run.returned, axis=1, dtype=np.int32)
    values = {
        "P": precision,
        "R": recall,
        "F1": f1,
        "Hit": (hits > 0).astype(float),
        "RR": rr,
        "AP": ap,
        "DCG": dcg,
        "IDCG": idcg,
        "nDCG": _ratio(dcg, idcg),
        "CP": context_precision,
        "Judged": _per_count(np.cumsum(run.judged, axis=1, dtype=np.int32), returned),
    }
    shape = hits.shape
    return Scores(
        values=values,
        first_relevant_rank=first,
        hits=hits,
        noise=returned - hits,
        recall_denominator=np.broadcast_to(denominator, shape),
        ap_denominator=np.broadcast_to(ap_denominator, shape),
    )
