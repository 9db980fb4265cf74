"""Is the query set big enough? Power of the two-sided paired t-test on per-query differences.

A "not significant" verdict on a small query set says little: the set may simply be unable to
see a difference of the size that matters. From the standard deviation of the per-query
differences of the runs at hand, per (candidate, metric):

- ``min_detectable_difference``: the smallest true mean difference the test detects at the
  current number of queries with the given power;
- ``queries_needed``: the fewest queries that detect a named difference delta with that power
  (Sakai's topic-set-size design, Information Retrieval Journal 2016, works the same way).

Both use the exact power of the two-sided one-sample (paired) t-test, from the noncentral t:
power(d, n) = P(|T| > t_{1-alpha/2, n-1}) with T ~ nct(df = n - 1, nc = d sqrt(n) / sd),
solved with brentq -- the same formula as statsmodels' ``TTestPower``, which the tests check
against. scipy is imported inside the functions: importing scipy.stats costs the command line
~0.8 s of start-up.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from metrics.stats.validate import check_fraction, check_integer, check_number
from metrics.vocabulary.power import ALPHA, MIN_QUERIES, POWER, power_sentence

__all__ = [
    "PowerFigure",
    "detection_power",
    "min_detectable_difference",
    "power_figure",
    "queries_needed",
]


class PairedDifferences(Protocol):
    """What power reads of one paired test (metrics.PairedTest has it): its per-query
    differences, which candidate and metric they are of, and its verdict."""

    candidate: str
    metric: str
    differences: np.ndarray
    significant: bool


# brentq stops within this many effect-size units (d / sd) or queries: far below what a
# three-decimal figure or a whole number of queries can show
_XTOL = 1e-10
# a bracket is doubled at most this often before giving up (2^60 effect sizes or queries:
# only a non-finite input could need more, and those are refused first)
_MAX_DOUBLINGS = 60


@dataclass(frozen=True)
class PowerFigure:
    """What one (candidate, metric) comparison's query set can detect.

    ``sd_difference`` is the standard deviation (ddof=1) of the per-query differences,
    candidate - baseline; ``min_detectable_difference`` the smallest true mean difference the
    two-sided paired t-test detects at ``queries`` queries with probability ``power`` at level
    ``alpha`` (None below 2 queries); ``queries_needed`` the fewest queries that detect
    ``delta`` (None without a delta, or below 2 queries, where no spread is known).
    ``significant`` is the comparison's verdict, which picks the sentence.
    """

    baseline: str
    candidate: str
    metric: str
    queries: int
    sd_difference: float | None
    min_detectable_difference: float | None
    queries_needed: int | None
    alpha: float
    power: float
    delta: float | None
    significant: bool

    def as_dict(self) -> dict:
        """The JSON of one pair (plain Python types, unrounded floats)."""
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "metric": self.metric,
            "queries": int(self.queries),
            "sd_difference": self.sd_difference,
            "min_detectable_difference": self.min_detectable_difference,
            "queries_needed": self.queries_needed,
        }

    @property
    def sentence(self) -> str:
        """'this query set detects differences of 0.030 or more with 80% power' beside a
        significant verdict; beside one that is not, 'underpowered for a difference of 0.020:
        ...' when delta is named and smaller, 'a true difference under 0.043 may not show: ...'
        when none is; then how many queries would detect delta, if named."""
        return power_sentence(
            queries=self.queries,
            min_detectable_difference=self.min_detectable_difference,
            power=self.power,
            significant=self.significant,
            queries_needed=self.queries_needed,
            delta=self.delta,
        )


def check_levels(alpha: object, power: object) -> tuple[float, float]:
    alpha = check_fraction("alpha", alpha)
    power = check_fraction("power", power)
    if power <= alpha:
        # at a true difference of 0 the test already rejects with probability alpha: a power
        # at or below it asks for nothing
        raise ValueError(f"power must exceed alpha ({alpha:g}), got {power:g}")
    return alpha, power


def _check_sd(sd: object) -> float:
    return check_number("sd", sd, low=0)


def check_delta(delta: object) -> float:
    return check_number("delta", delta, low=0, low_open=True,
                        meaning="a difference worth detecting")


def _check_n(n: object) -> int:
    return check_integer("n", n, what="a whole number of queries")


def _power(effect: float, n: float, alpha: float) -> float:
    """Power of the two-sided one-sample t-test at effect size d / sd and n (>= 2, may be
    fractional while solving): both tails of the noncentral t beyond the critical value."""
    from scipy import stats

    df = n - 1.0
    nc = effect * math.sqrt(n)
    critical = stats.t.isf(alpha / 2, df)
    # The lower tail P(T < -c) is read as P(T' > c) with T' ~ nct(df, -nc), the same number by
    # symmetry: scipy's nct.cdf returns nan far in its lower tail (df = 1, nc = 8), its sf
    # does not.
    return float(stats.nct.sf(critical, df, nc) + stats.nct.sf(critical, df, -nc))


def _z_sum(alpha: float, power: float) -> float:
    """z_{1-alpha/2} + z_{power}: the normal approximation, n ~ (z_sum sd / d)^2, starts the
    brackets near the answer."""
    from scipy import stats

    return float(stats.norm.isf(alpha / 2) + stats.norm.ppf(power))


def _bracket_up(f, low: float, high: float) -> float:
    """A high end with f(high) > 0, doubling from high (f(low) < 0)."""
    for _ in range(_MAX_DOUBLINGS):
        if f(high) > 0:
            return high
        high = low + 2 * (high - low)
    raise ValueError("the power could not be bracketed; the inputs are out of range")


def detection_power(delta: float, sd: float, n: int, *, alpha: float = ALPHA) -> float:
    """Chance that the two-sided paired t-test at level alpha, over n queries whose
    differences have standard deviation sd, detects a true mean difference delta.

    1.0 when sd is 0 and delta is not (every query moves by delta: the t statistic is
    infinite); ValueError below 2 queries.
    """
    delta = abs(check_number("delta", delta))  # two-sided: a loss is as readily detected
    sd, n = _check_sd(sd), _check_n(n)
    alpha = check_fraction("alpha", alpha)
    if n < MIN_QUERIES:
        raise ValueError(f"the paired t-test needs at least {MIN_QUERIES} queries, got {n}")
    if sd == 0:
        return 1.0 if delta > 0 else alpha
    return _power(delta / sd, n, alpha)


def min_detectable_difference(
    sd: float, n: int, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest true mean difference the two-sided paired t-test at level alpha detects
    with probability power over n queries whose differences have standard deviation sd.

    None below 2 queries (no spread, no test: nothing can be said); 0.0 when sd is 0 (every
    query changed by the same amount, so any non-zero difference is detected).
    """
    sd, n = _check_sd(sd), _check_n(n)
    alpha, power = check_levels(alpha, power)
    return _min_detectable_difference(sd, n, alpha, power)


def _min_detectable_difference(sd: float, n: int, alpha: float, power: float) -> float | None:
    if n < MIN_QUERIES:
        return None
    if sd == 0:
        return 0.0
    return float(_detectable_effect(n, alpha, power) * sd)


@functools.lru_cache(maxsize=256)
def _detectable_effect(n: int, alpha: float, power: float) -> float:
    """The smallest effect size (difference / sd) detected: it depends on n, alpha and power
    only, so every test of a comparison (same queries, same levels) solves it once."""
    from scipy import optimize

    def short(effect: float) -> float:
        return _power(effect, n, alpha) - power

    start = _z_sum(alpha, power) / math.sqrt(n)  # the normal answer; the t needs more
    high = _bracket_up(short, 0.0, start)
    return optimize.brentq(short, 0.0, high, xtol=_XTOL)


def queries_needed(
    sd: float, delta: float, alpha: float = ALPHA, power: float = POWER
) -> int:
    """The fewest queries (at least 2) with which the two-sided paired t-test at level alpha
    detects a true mean difference delta with probability power, when the differences have
    standard deviation sd (those of the runs at hand, as a new query set is assumed to have).

    2 when sd is 0 (every query changes by the same amount: two queries show it). ValueError
    when delta is not > 0.
    """
    sd, delta = _check_sd(sd), check_delta(delta)
    alpha, power = check_levels(alpha, power)
    return _queries_needed(sd, delta, alpha, power)


def _queries_needed(sd: float, delta: float, alpha: float, power: float) -> int:
    if sd == 0:
        return MIN_QUERIES
    effect = delta / sd
    if _power(effect, MIN_QUERIES, alpha) >= power:
        return MIN_QUERIES
    from scipy import optimize

    def short(n: float) -> float:
        return _power(effect, n, alpha) - power

    start = max(2.0 * MIN_QUERIES, 2 * (_z_sum(alpha, power) / effect) ** 2)
    high = _bracket_up(short, float(MIN_QUERIES), start)
    root = optimize.brentq(short, float(MIN_QUERIES), high, xtol=_XTOL)
    # Power rises with n, so the answer is the ceiling of the root; check it on whole numbers
    # so that a root within brentq's tolerance of an integer cannot be off by one.
    n = max(MIN_QUERIES, math.ceil(root))
    while _power(effect, n, alpha) < power:
        n += 1
    while n > MIN_QUERIES and _power(effect, n - 1, alpha) >= power:
        n -= 1
    return n


def _spread(differences: np.ndarray) -> float | None:
    """Standard deviation (ddof=1) of the differences; exactly 0.0 when every query changed by
    the same amount (float noise in the mean must not leave a tiny spread); None below 2."""
    if len(differences) < MIN_QUERIES:
        return None
    if (differences == differences[0]).all():
        return 0.0
    return float(np.std(differences, ddof=1))


def power_figure(
    baseline: str,
    test: PairedDifferences,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    delta: float | None = None,
) -> PowerFigure:
    """What the query set of one paired test can detect, from its per-query differences."""
    alpha, power = check_levels(alpha, power)
    delta = None if delta is None else check_delta(delta)
    differences = np.asarray(test.differences, dtype=float)
    sd = _spread(differences)
    n = len(differences)
    return PowerFigure(
        baseline=baseline,
        candidate=test.candidate,
        metric=test.metric,
        queries=n,
        sd_difference=sd,
        min_detectable_difference=(
            None if sd is None else _min_detectable_difference(sd, n, alpha, power)
        ),
        queries_needed=(
            None if sd is None or delta is None else _queries_needed(sd, delta, alpha, power)
        ),
        alpha=alpha,
        power=power,
        delta=delta,
        significant=bool(test.significant),
    )
