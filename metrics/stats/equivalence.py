"""Are two runs the same within a margin? The paired equivalence test: two one-sided paired
t-tests (TOST, Schuirmann 1987) on per-query differences, beside the paired tests of
``metrics.stats.paired``.

With margin delta > 0 and the mean difference d over n queries, standard error se = sd / sqrt(n)
(ddof = 1), df = n - 1:

- lower: H0 d <= -delta against d > -delta, t = (d + delta) / se, p = P(T_df > t);
- upper: H0 d >= +delta against d < +delta, t = (d - delta) / se, p = P(T_df < t);
- the TOST p is the larger of the two: below alpha, the runs are the same within the margin
  (the (1 - 2 alpha) interval of d lies inside (-delta, +delta)).

statsmodels' ``ttost_paired`` is the tests' oracle. scipy is imported inside the functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metrics.stats.validate import check_fraction, check_number, check_values

__all__ = ["Equivalence", "check_margin", "tost", "tost_pvalues"]


@dataclass(frozen=True)
class Equivalence:
    """The TOST of one set of paired differences against a margin: each one-sided test's t
    and p, and ``p``, the larger p. When every query changed by the same amount (sd = 0) each
    t is infinite: p is 0 inside the margin and 1 on or beyond it."""

    margin: float
    difference: float
    n: int
    t_lower: float
    p_lower: float
    t_upper: float
    p_upper: float
    p: float

    @property
    def df(self) -> int:
        return self.n - 1

    def equivalent(self, alpha: float) -> bool:
        """The runs are the same within the margin at level alpha (both one-sided tests
        reject)."""
        return self.p < check_fraction("alpha", alpha)


def check_margin(margin: object) -> float:
    """An equivalence margin: a number > 0, in the metric's units."""
    return check_number("margin", margin, low=0, low_open=True, meaning="the metric's units")


def tost(differences: object, *, margin: float) -> Equivalence:
    """The paired TOST of per-query differences (n,) (after - before, at least 2 queries)
    against +-margin."""
    differences = check_values("differences", differences, ndim=1, least=2)
    margin = check_margin(margin)
    return _tost(differences[:, None], margin)[0]


def tost_pvalues(differences: object, *, margin: float) -> np.ndarray:
    """The TOST p of each column of differences (n, k), in one pass."""
    differences = check_values("differences", differences, ndim=2, least=2)
    return np.array([test.p for test in _tost(differences, check_margin(margin))])


def _tost(differences: np.ndarray, margin: float) -> list[Equivalence]:
    from scipy import stats  # imported here: it costs the command line ~0.8 s of start-up

    n = differences.shape[0]
    means = differences.mean(axis=0)
    constant = (differences == differences[0]).all(axis=0)
    sd = np.where(constant, 0.0, differences.std(axis=0, ddof=1))
    found = []
    for mean, spread in zip(means.tolist(), sd.tolist(), strict=True):
        if spread == 0:  # t = +-inf: decided by which side of each bound the mean lies
            t_lower = math.inf if mean > -margin else -math.inf
            t_upper = -math.inf if mean < margin else math.inf
            p_lower = 0.0 if mean > -margin else 1.0
            p_upper = 0.0 if mean < margin else 1.0
        else:
            se = spread / math.sqrt(n)
            t_lower, t_upper = (mean + margin) / se, (mean - margin) / se
            p_lower = float(stats.t.sf(t_lower, n - 1))
            p_upper = float(stats.t.cdf(t_upper, n - 1))
        found.append(Equivalence(margin, mean, n, t_lower, p_lower, t_upper, p_upper,
                                 max(p_lower, p_upper)))
    return found
