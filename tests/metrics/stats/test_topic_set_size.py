"""metrics.stats.topic_set_size: Sakai's three designs against statsmodels' TTestPower and
FTestAnovaPower, and the expected interval width against its own definition and a
simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from metrics.stats.topic_set_size import (
    anova_power,
    anova_queries,
    ci_queries,
    expected_ci_width,
    t_test_queries,
    topic_set_size,
)

CASES = [(0.02, 0.05, 0.05, 0.8), (0.05, 0.03, 0.05, 0.8), (0.01, 0.02, 0.01, 0.9),
         (0.08, 0.10, 0.05, 0.5)]


@pytest.mark.parametrize("variance, difference, alpha, power", CASES)
def test_the_t_test_design_is_statsmodels_ttestpower_with_twice_the_residual_variance(
        variance, difference, alpha, power):
    n = t_test_queries(variance, difference, alpha=alpha, power=power)
    effect = difference / math.sqrt(2 * variance)
    reach = TTestPower().power
    assert reach(effect_size=effect, nobs=n, alpha=alpha) >= power
    assert n == 2 or reach(effect_size=effect, nobs=n - 1, alpha=alpha) < power


@pytest.mark.parametrize("runs", [2, 5, 10])
@pytest.mark.parametrize("variance, difference, alpha, power", CASES)
def test_the_anova_design_is_statsmodels_ftestanovapower(variance, difference, alpha, power,
                                                         runs):
    """Cohen's f² of the least favourable spread is minD² / (2 m V_E); statsmodels counts
    every observation (m n) with df (m - 1, m n - m): the same noncentral F."""
    n = anova_queries(variance, difference, runs=runs, alpha=alpha, power=power)
    f = math.sqrt(difference ** 2 / (2 * runs * variance))

    def reach(queries: int) -> float:
        return FTestAnovaPower().power(effect_size=f, nobs=runs * queries, alpha=alpha,
                                       k_groups=runs)

    assert reach(n) >= power and (n == 2 or reach(n - 1) < power)
    assert anova_power(variance, difference, runs=runs, queries=n, alpha=alpha) == (
        pytest.approx(reach(n), rel=1e-9))


@pytest.mark.parametrize("variance, width, alpha", [(0.02, 0.05, 0.05), (0.05, 0.1, 0.05),
                                                     (0.01, 0.02, 0.01)])
def test_the_interval_design_is_the_fewest_queries_for_the_expected_width(variance, width,
                                                                          alpha):
    n = ci_queries(variance, width, alpha=alpha)

    def expected(queries: int) -> float:  # 2 t(n-1; alpha/2) c4(n) sigma_d / sqrt(n)
        c4 = math.sqrt(2 / (queries - 1)) * math.exp(
            special.gammaln(queries / 2) - special.gammaln((queries - 1) / 2))
        return (2 * stats.t.isf(alpha / 2, queries - 1) * c4 * math.sqrt(2 * variance)
                / math.sqrt(queries))

    assert expected(n) <= width < expected(n - 1)
    assert expected_ci_width(variance, n, alpha=alpha) == pytest.approx(expected(n))


def test_the_expected_width_is_the_mean_width_of_simulated_intervals():
    rng = np.random.default_rng(5)
    variance, n = 0.03, 12
    diffs = rng.normal(0, math.sqrt(2 * variance), (40_000, n))
    widths = 2 * stats.t.isf(0.025, n - 1) * diffs.std(axis=1, ddof=1) / math.sqrt(n)
    assert widths.mean() == pytest.approx(expected_ci_width(variance, n), rel=0.01)


def test_the_three_designs_together():
    found = topic_set_size(0.03, 0.05, runs=4, ci_width=0.1)
    assert (found.paired_t, found.anova, found.ci) == (
        t_test_queries(0.03, 0.05), anova_queries(0.03, 0.05, runs=4), ci_queries(0.03, 0.1))
    # comparing 4 runs at once needs more queries than one pair
    assert found.anova > found.paired_t
    assert topic_set_size(0.03, 0.05, runs=4).ci is None
    assert set(found.as_dict()) >= {"paired_t", "anova", "ci", "residual_variance"}


def test_no_variance_needs_two_queries():
    assert topic_set_size(0.0, 0.01, runs=3, ci_width=0.01).as_dict() == {
        "residual_variance": 0.0, "min_difference": 0.01, "alpha": 0.05, "power": 0.8,
        "runs": 3, "ci_width": 0.01, "paired_t": 2, "anova": 2, "ci": 2}


@pytest.mark.parametrize("kwargs, message", [
    (dict(residual_variance=-1, min_difference=0.1, runs=3), "residual_variance"),
    (dict(residual_variance=0.1, min_difference=0, runs=3), "delta"),
    (dict(residual_variance=0.1, min_difference=0.1, runs=1), "runs"),
    (dict(residual_variance=0.1, min_difference=0.1, runs=3, power=0.01), "power"),
    (dict(residual_variance=0.1, min_difference=0.1, runs=3, ci_width=0), "ci_width"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        topic_set_size(**kwargs)
