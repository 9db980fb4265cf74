"""How many queries a future query set needs: Sakai's topic-set-size design (Information
Retrieval Journal 2016), from the residual variance V_E of a pilot's two-way ANOVA
(``metrics.stats.anova``; this query set is the pilot), in three designs:

- **paired t-test**: the fewest queries with which the two-sided paired t-test at level alpha
  detects a true difference of `min_difference` between two runs with the power asked; the
  differences' variance is taken as 2 V_E (Sakai's pooled estimate), and the power is the
  exact noncentral-t one of ``metrics.stats.power.queries_needed``;
- **one-way ANOVA over m runs**: the fewest queries per run with which the ANOVA F test at
  level alpha detects runs whose best and worst means are `min_difference` apart (the others
  at their middle: the least favourable spread, sum of squared deviations minD² / 2), with
  noncentral F power: lambda = n minD² / (2 V_E), df (m - 1, m (n - 1));
- **confidence interval**: the fewest queries with which the expected width of the paired
  difference's (1 - alpha) t interval, 2 t(n - 1; alpha / 2) E[s] / sqrt(n), is at most
  `width`, with E[s] = c4(n) sqrt(2 V_E), c4(n) = sqrt(2 / (n - 1)) Gamma(n / 2) /
  Gamma((n - 1) / 2) (the sample standard deviation's expectation under normality).

statsmodels' TTestPower and FTestAnovaPower are the tests' oracles. scipy is imported inside
the functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from metrics.stats.power import check_delta, check_levels, queries_needed
from metrics.stats.validate import check_count, check_number
from metrics.vocabulary.power import ALPHA, MIN_QUERIES, POWER

__all__ = [
    "TopicSetSize",
    "anova_power",
    "anova_queries",
    "ci_queries",
    "expected_ci_width",
    "t_test_queries",
    "topic_set_size",
]

# a bracket is doubled at most this often (2^60 queries: only a variance of 0 or a difference
# of a hair could need more, and the answer would mean nothing)
_MAX_DOUBLINGS = 60


@dataclass(frozen=True)
class TopicSetSize:
    """The three designs for one figure, from one pilot's residual variance.

    ``paired_t`` and ``anova`` are the queries needed to detect ``min_difference`` with
    probability ``power`` at level ``alpha`` (the ANOVA over ``runs`` runs); ``ci`` the
    queries for an expected interval ``ci_width`` wide at confidence 1 - alpha (None when
    no width is named)."""

    residual_variance: float
    min_difference: float
    alpha: float
    power: float
    runs: int
    ci_width: float | None
    paired_t: int
    anova: int
    ci: int | None

    def as_dict(self) -> dict:
        return {"residual_variance": self.residual_variance,
                "min_difference": self.min_difference, "alpha": self.alpha,
                "power": self.power, "runs": self.runs, "ci_width": self.ci_width,
                "paired_t": self.paired_t, "anova": self.anova, "ci": self.ci}


def _check_variance(variance: object) -> float:
    return check_number("residual_variance", variance, low=0)


def _check_runs(runs: object) -> int:
    runs = check_count("runs", runs)
    if runs < 2:
        raise ValueError(f"runs must be at least 2 (an ANOVA compares runs), got {runs}")
    return runs


def topic_set_size(residual_variance: float, min_difference: float, *, runs: int,
                   alpha: float = ALPHA, power: float = POWER,
                   ci_width: float | None = None) -> TopicSetSize:
    """The three designs from a pilot's residual variance V_E (>= 0): the queries the paired
    t-test and the one-way ANOVA over `runs` runs need to detect min_difference (> 0), and,
    with ci_width (> 0), the queries for an expected interval that wide."""
    variance = _check_variance(residual_variance)
    min_difference = check_delta(min_difference)
    runs = _check_runs(runs)
    alpha, power = check_levels(alpha, power)
    width = None if ci_width is None else check_number("ci_width", ci_width, low=0,
                                                       low_open=True)
    return TopicSetSize(
        residual_variance=variance, min_difference=min_difference, alpha=alpha, power=power,
        runs=runs, ci_width=width,
        paired_t=_t_test_queries(variance, min_difference, alpha, power),
        anova=_anova_queries(variance, min_difference, runs, alpha, power),
        ci=None if width is None else _ci_queries(variance, width, alpha))


def t_test_queries(residual_variance: float, min_difference: float, *, alpha: float = ALPHA,
                   power: float = POWER) -> int:
    """Queries for the paired t-test design (the differences' variance 2 V_E)."""
    alpha, power = check_levels(alpha, power)
    return _t_test_queries(_check_variance(residual_variance), check_delta(min_difference),
                           alpha, power)


def _t_test_queries(variance: float, min_difference: float, alpha: float,
                    power: float) -> int:
    return queries_needed(math.sqrt(2 * variance), min_difference, alpha, power)


def anova_power(residual_variance: float, min_difference: float, *, runs: int,
                queries: int, alpha: float = ALPHA) -> float:
    """Power of the one-way ANOVA F test over `runs` runs of `queries` queries each, when
    the best and worst means are min_difference apart (the others at their middle)."""
    variance = _check_variance(residual_variance)
    if variance == 0:
        return 1.0
    return _anova_power(variance, check_delta(min_difference), _check_runs(runs),
                        float(check_count("queries", queries)),
                        check_number("alpha", alpha, low=0, high=1, low_open=True,
                                     high_open=True))


def _anova_power(variance: float, min_difference: float, runs: int, n: float,
                 alpha: float) -> float:
    from scipy import stats

    between, within = runs - 1, runs * (n - 1)
    critical = stats.f.isf(alpha, between, within)
    noncentrality = n * min_difference ** 2 / (2 * variance)
    return float(stats.ncf.sf(critical, between, within, noncentrality))


def anova_queries(residual_variance: float, min_difference: float, *, runs: int,
                  alpha: float = ALPHA, power: float = POWER) -> int:
    """Queries (per run, at least 2) for the one-way ANOVA design."""
    alpha, power = check_levels(alpha, power)
    return _anova_queries(_check_variance(residual_variance), check_delta(min_difference),
                          _check_runs(runs), alpha, power)


def _anova_queries(variance: float, min_difference: float, runs: int, alpha: float,
                   power: float) -> int:
    if variance == 0:
        return MIN_QUERIES

    def enough(n: int) -> bool:
        return _anova_power(variance, min_difference, runs, float(n), alpha) >= power

    return _fewest(enough)


def expected_ci_width(residual_variance: float, queries: int, *,
                      alpha: float = ALPHA) -> float:
    """The expected width of the (1 - alpha) paired t interval of a difference over
    `queries` queries, the differences' variance 2 V_E."""
    queries = check_count("queries", queries)
    if queries < MIN_QUERIES:
        raise ValueError(f"an interval needs at least {MIN_QUERIES} queries, got {queries}")
    return _expected_width(_check_variance(residual_variance), queries,
                           check_number("alpha", alpha, low=0, high=1, low_open=True,
                                        high_open=True))


def _expected_width(variance: float, n: int, alpha: float) -> float:
    from scipy import special, stats

    c4 = math.sqrt(2 / (n - 1)) * math.exp(special.gammaln(n / 2) - special.gammaln((n - 1) / 2))
    return 2 * stats.t.isf(alpha / 2, n - 1) * c4 * math.sqrt(2 * variance) / math.sqrt(n)


def ci_queries(residual_variance: float, width: float, *, alpha: float = ALPHA) -> int:
    """Queries for the confidence-interval design: the expected width at most `width`."""
    return _ci_queries(_check_variance(residual_variance),
                       check_number("width", width, low=0, low_open=True),
                       check_number("alpha", alpha, low=0, high=1, low_open=True,
                                    high_open=True))


def _ci_queries(variance: float, width: float, alpha: float) -> int:
    if variance == 0:
        return MIN_QUERIES
    return _fewest(lambda n: _expected_width(variance, n, alpha) <= width)


def _fewest(enough) -> int:
    """The smallest whole n >= 2 for which enough(n) holds, enough rising with n: doubling
    to a bracket, then bisection on whole numbers."""
    low = MIN_QUERIES
    if enough(low):
        return low
    high = 2 * low
    for _ in range(_MAX_DOUBLINGS):
        if enough(high):
            break
        low, high = high, 2 * high
    else:
        raise ValueError("no number of queries is enough: the difference or width is too "
                         "small for the variance")
    while high - low > 1:  # enough(high) holds, enough(low) does not
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high
