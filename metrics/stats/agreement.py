"""Do two orderings of the same items agree? Kendall's tau and tau_AP, on arrays; and, for
two orderings of the same runs by their means, the Agreement that names them and the pairs
that swap (what decide's measure_agreements and the judge's label_agreement both return).

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

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from metrics.stats.validate import check_values
from metrics.vocabulary.agreement import TAU_ALL_TIED, UNDEFINED, agreement_sentence

__all__ = ["Agreement", "agreement", "discordant_pairs", "kendall_tau", "order", "tau_ap"]


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


@dataclass(frozen=True)
class Agreement:
    """Two orderings of the same runs and how far they agree."""

    first: str  # what orders the runs first: a label, "nDCG@10 (qrels a.txt)"
    second: str
    means_first: tuple[float, ...]  # per run, in the runs' order
    means_second: tuple[float, ...]
    runs: tuple[str, ...]
    tau: float
    tau_ap: float  # the second ordering against the first
    swapped: tuple[tuple[str, str], ...]  # (a, b): the first puts a above b, the second below

    @property
    def order_first(self) -> tuple[str, ...]:
        return tuple(self.runs[i] for i in order(self.means_first))

    @property
    def order_second(self) -> tuple[str, ...]:
        return tuple(self.runs[i] for i in order(self.means_second))

    @property
    def tau_undefined(self) -> str:
        """Why tau has no value ("" when it has one): fewer than two runs, or an ordering
        that ties every run."""
        if len(self.runs) < 2:
            return UNDEFINED
        tied = [name for name, means in ((self.first, self.means_first),
                                         (self.second, self.means_second))
                if len(set(means)) == 1]
        return TAU_ALL_TIED.format(ordering=tied[0]) if tied else ""

    @property
    def tau_ap_undefined(self) -> str:
        """Why tau_AP has no value: fewer than two runs (it orders ties as given)."""
        return UNDEFINED if len(self.runs) < 2 else ""

    @property
    def undefined(self) -> dict[str, str]:
        """The figures without a value, each with why."""
        return {name: why for name, why in (("tau", self.tau_undefined),
                                            ("tau_ap", self.tau_ap_undefined)) if why}

    @property
    def sentence(self) -> str:
        n = len(self.runs)
        return agreement_sentence(self.first, self.second, self.tau, self.tau_ap,
                                  len(self.swapped), n * (n - 1) // 2,
                                  tau_why=self.tau_undefined)

    def as_dict(self) -> dict:
        return {"first": self.first, "second": self.second,
                "order_first": list(self.order_first), "order_second": list(self.order_second),
                "tau": None if self.tau_undefined else self.tau,
                "tau_ap": None if self.tau_ap_undefined else self.tau_ap,
                "swapped": [list(pair) for pair in self.swapped], "sentence": self.sentence,
                "undefined": self.undefined}


def agreement(first: str, second: str, means_first: Mapping[str, float],
              means_second: Mapping[str, float]) -> Agreement:
    """Two orderings of the runs both mappings hold (run -> mean), in the first's order."""
    runs = tuple(means_first)
    if set(runs) != set(means_second):
        raise ValueError(f"the two orderings must hold the same runs, got {sorted(runs)} and "
                         f"{sorted(means_second)}")
    a = np.array([means_first[r] for r in runs], dtype=float)
    b = np.array([means_second[r] for r in runs], dtype=float)
    swapped = []
    for i, j in discordant_pairs(a, b):
        swapped.append((runs[i], runs[j]) if a[i] > a[j] else (runs[j], runs[i]))
    return Agreement(first, second, tuple(a.tolist()), tuple(b.tolist()), runs,
                     kendall_tau(a, b), tau_ap(a, b), tuple(swapped))
