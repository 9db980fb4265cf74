"""metrics.stats.power: against statsmodels' TTestPower, by simulation, and at the edges."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from statsmodels.stats.power import TTestPower

from metrics.core.compare import compare_evaluation
from metrics.core.sample import load_sample
from metrics.decide.power import power_report, power_table
from metrics.stats.comparison import compare
from metrics.stats.power import (
    PowerFigure,
    detection_power,
    min_detectable_difference,
    queries_needed,
)
from metrics.vocabulary.power import (
    ALPHA,
    ANY_DIFFERENCE,
    POWER,
    POWER_MEANING,
    POWER_METHOD,
    TOO_FEW,
    power_sentence,
)
from tests.marks import thorough_after

# the common level and one other by default; the other seven under -m thorough
_COMMON = (0.05, 0.8)
LEVELS = thorough_after([_COMMON] + [(alpha, power) for alpha in (0.01, 0.05, 0.1)
                                     for power in (0.5, 0.8, 0.9) if (alpha, power) != _COMMON],
                        keep=2)
JSON_KEYS = ["baseline", "candidate", "metric", "queries", "sd_difference",
             "min_detectable_difference", "queries_needed"]


def _integral_power(effect: float, n: int, alpha: float) -> float:
    """Power of the two-sided one-sample t-test, independently of any noncentral t code: with
    T = (Z + nc) / S, S = sqrt(V / df), V ~ chi2(df), integrate P(|T| > c | V) over V.
    (statsmodels' own power function returns nan at 2 or 3 queries: scipy's nct.cdf, far in
    its lower tail.)"""
    df, nc = n - 1, effect * math.sqrt(n)
    c = stats.t.isf(alpha / 2, df)

    def given(v: float) -> float:
        s = math.sqrt(v / df)
        return stats.chi2.pdf(v, df) * (stats.norm.cdf(nc - c * s) + stats.norm.cdf(-nc - c * s))

    low, high = stats.chi2.ppf([1e-15, 1 - 1e-15], df)
    return integrate.quad(given, low, high, epsabs=1e-13, epsrel=1e-12, limit=200)[0]


# --------------------------------------------------------------------------- against statsmodels


@pytest.mark.parametrize("alpha, power", LEVELS)
def test_min_detectable_difference_equals_statsmodels(alpha: float, power: float) -> None:
    solver = TTestPower()
    for n in (5, 9, 30, 100, 300):
        effect = solver.solve_power(nobs=n, alpha=alpha, power=power, alternative="two-sided")
        for sd in (0.05, 0.2, 0.4):
            # statsmodels' solver stops within ~1e-5 of the root (ours within 1e-10)
            assert min_detectable_difference(sd, n, alpha, power) == pytest.approx(
                effect * sd, rel=1e-4), (sd, n)


@pytest.mark.parametrize("alpha, power", LEVELS)
def test_min_detectable_difference_has_the_power_asked(alpha: float, power: float) -> None:
    """Also at 2 and 3 queries, where statsmodels' solver gives up on the huge effect sizes
    (it caps its bracket at 10), and at 10,000, where it stops short."""
    for n in (2, 3, 9, 1000, 10_000):
        mde = min_detectable_difference(0.2, n, alpha, power)
        assert _integral_power(mde / 0.2, n, alpha) == pytest.approx(power, abs=1e-8), n


@pytest.mark.parametrize("alpha, power", LEVELS)
def test_queries_needed_equals_ceil_of_statsmodels(alpha: float, power: float) -> None:
    solver = TTestPower()
    for sd in (0.1, 0.3):
        for delta in (0.01, 0.03, 0.1, 0.3):
            nobs = solver.solve_power(effect_size=delta / sd, alpha=alpha, power=power,
                                      alternative="two-sided")
            n = queries_needed(sd, delta, alpha, power)
            assert n == max(2, math.ceil(nobs)), (sd, delta, nobs)
            # the fewest: n reaches the power, n - 1 does not
            assert _integral_power(delta / sd, n, alpha) >= power - 1e-12
            if n > 2:
                assert _integral_power(delta / sd, n - 1, alpha) < power


def test_detection_power_equals_statsmodels() -> None:
    for delta, sd, n in [(0.02, 0.2, 50), (-0.02, 0.2, 50), (0.1, 0.3, 9), (0.2, 0.1, 3)]:
        expected = TTestPower().power(abs(delta) / sd, n, 0.05, alternative="two-sided")
        assert detection_power(delta, sd, n) == pytest.approx(expected, abs=1e-10)
    assert detection_power(0.0, 0.2, 30) == pytest.approx(0.05, abs=1e-12)  # the level


# --------------------------------------------------------------------------- by simulation


def _rejection_rate(population: np.ndarray, n: int, rng: np.random.Generator,
                    draws: int = 2_000, alpha: float = ALPHA) -> float:
    """Share of `draws` query sets of n differences, drawn with replacement from population,
    that the two-sided paired t-test rejects; every t-test at once."""
    sets = rng.choice(population, size=(draws, n))
    t = sets.mean(axis=1) / (sets.std(axis=1, ddof=1) / math.sqrt(n))
    return float((np.abs(t) > stats.t.isf(alpha / 2, n - 1)).mean())


def _shifted(differences: np.ndarray, mean: float) -> np.ndarray:
    """The observed differences moved to a true mean, spread so that drawing from them has
    the standard deviation (ddof=1) the calculation used: drawn from, a set of m values has
    the ddof=0 spread, sqrt((m-1)/m) times smaller, which would inflate the power."""
    m = len(differences)
    return (differences - differences.mean()) * math.sqrt(m / (m - 1)) + mean


def test_queries_needed_detects_delta_80_percent_of_the_time_on_the_sample() -> None:
    """Sakai's check of a topic-set size: query sets of the computed size, drawn from the
    observed differences shifted to a true mean delta, are rejected by the paired t-test in
    80% +- 3% of 2,000 draws. The sample's bm25 - baseline nDCG@5 differences spread on both
    sides (a strongly one-sided spread makes the t-test's real power differ from its own)."""
    comparison = compare_evaluation(load_sample())
    differences = comparison.test("bm25", "nDCG@5").differences
    sd = float(np.std(differences, ddof=1))
    rng = np.random.default_rng(20160501)
    for delta in (0.05, 0.1):
        n = queries_needed(sd, delta)
        assert n > 30  # far from the sample's 9 queries: the question the figure answers
        assert _rejection_rate(_shifted(differences, delta), n, rng) == pytest.approx(
            POWER, abs=0.03
        ), delta


def test_min_detectable_difference_is_detected_80_percent_of_the_time() -> None:
    """At the current size: sets of n differences with a true mean of the minimum detectable
    difference are rejected in 80% +- 3% of 2,000 draws, and half of it far less often."""
    rng = np.random.default_rng(7)
    observed = np.round(rng.normal(0.01, 0.15, 60).clip(-1, 1), 12)  # 60 queries
    sd = float(np.std(observed, ddof=1))
    mde = min_detectable_difference(sd, len(observed))
    rate = _rejection_rate(_shifted(observed, mde), len(observed), rng)
    assert rate == pytest.approx(POWER, abs=0.03)
    assert _rejection_rate(_shifted(observed, mde / 2), len(observed), rng) < 0.5


# --------------------------------------------------------------------------- properties


def test_more_queries_detect_smaller_differences() -> None:
    mdes = [min_detectable_difference(0.2, n) for n in (2, 3, 5, 10, 50, 200, 5000)]
    assert all(a > b for a, b in zip(mdes, mdes[1:], strict=False))


def test_queries_needed_and_min_detectable_difference_agree() -> None:
    """n = queries_needed(sd, delta) is the first size whose MDE is at most delta."""
    for sd, delta in [(0.1, 0.02), (0.25, 0.05), (0.3, 0.2), (0.05, 0.001)]:
        n = queries_needed(sd, delta)
        assert min_detectable_difference(sd, n) <= delta
        if n > 2:
            assert min_detectable_difference(sd, n - 1) > delta


def test_queries_needed_reads_only_the_ratio_of_delta_to_sd() -> None:
    assert queries_needed(0.2, 0.02) == queries_needed(0.1, 0.01) == queries_needed(0.4, 0.04)


def test_tiny_differences_need_many_queries_without_failing() -> None:
    """Seven billion queries: there the t-test is the z-test, whose two tails are solved
    directly (the textbook ((z_a/2 + z_b) sd / delta)^2 drops the far tail, ~17,000 queries
    fewer at this size)."""
    effect, z = 1e-5 / 0.3, stats.norm.isf(0.025)

    def short(n: float) -> float:
        nc = effect * math.sqrt(n)
        return stats.norm.sf(z - nc) + stats.norm.sf(z + nc) - 0.8

    normal = optimize.brentq(short, 2, 1e12, xtol=1e-3)
    assert queries_needed(0.3, 1e-5) == pytest.approx(normal, rel=1e-8)


# --------------------------------------------------------------------------- edges


def test_no_spread_detects_any_difference_with_two_queries() -> None:
    assert min_detectable_difference(0.0, 9) == 0.0
    assert min_detectable_difference(0, 2) == 0.0
    assert queries_needed(0.0, 0.01) == 2
    assert detection_power(0.01, 0.0, 2) == 1.0


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_queries_cannot_say(n: int) -> None:
    assert min_detectable_difference(0.2, n) is None


def test_large_effects_need_the_fewest_queries() -> None:
    assert queries_needed(0.01, 1.0) == 2


@pytest.mark.parametrize("delta", [0, 0.0, -0.02, float("nan"), float("inf"), True, "0.02"])
def test_delta_must_be_a_positive_number(delta: object) -> None:
    with pytest.raises(ValueError, match="delta"):
        queries_needed(0.2, delta)


@pytest.mark.parametrize("sd", [-0.1, float("nan"), float("inf"), None, True])
def test_sd_must_be_finite_and_not_negative(sd: object) -> None:
    with pytest.raises(ValueError, match="sd"):
        min_detectable_difference(sd, 10)
    with pytest.raises(ValueError, match="sd"):
        queries_needed(sd, 0.02)


@pytest.mark.parametrize("n", [-1, 2.5, "10", True])
def test_n_must_be_a_whole_number(n: object) -> None:
    with pytest.raises(ValueError, match="n must"):
        min_detectable_difference(0.2, n)


@pytest.mark.parametrize(
    "alpha, power, message",
    [(0.0, 0.8, "alpha"), (1.0, 0.8, "alpha"), (0.05, 1.0, "power"), (0.05, 0.0, "power"),
     (True, 0.8, "alpha"), (0.5, 0.4, "exceed alpha"), (0.05, 0.05, "exceed alpha")],
)
def test_levels_are_checked(alpha: object, power: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        min_detectable_difference(0.2, 10, alpha, power)
    with pytest.raises(ValueError, match=message):
        queries_needed(0.2, 0.02, alpha, power)


def test_detection_power_needs_two_queries() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        detection_power(0.02, 0.2, 1)


# --------------------------------------------------------------------------- the table


def test_power_table_reads_every_test_of_a_comparison() -> None:
    comparison = compare_evaluation(load_sample())
    figures = power_table(comparison, delta=0.05)
    assert len(figures) == len(comparison.tests)
    for figure, test in zip(figures, comparison.tests, strict=True):
        assert isinstance(figure, PowerFigure)
        assert (figure.baseline, figure.candidate, figure.metric) == (
            comparison.baseline, test.candidate, test.metric)
        assert figure.queries == test.n == 9
        sd = float(np.std(test.differences, ddof=1))
        assert figure.sd_difference == pytest.approx(sd, abs=1e-15)
        assert figure.min_detectable_difference == min_detectable_difference(sd, 9)
        assert figure.queries_needed == queries_needed(sd, 0.05)
        assert (figure.alpha, figure.power, figure.delta) == (ALPHA, POWER, 0.05)
        assert list(figure.as_dict()) == JSON_KEYS


def test_power_table_without_delta_has_no_queries_needed() -> None:
    figures = power_table(compare_evaluation(load_sample()), alpha=0.1, power=0.9)
    assert all(f.queries_needed is None for f in figures)
    assert all(f.sentence.startswith("a true difference under ") for f in figures)
    assert all("90% power" in f.sentence and "would detect" not in f.sentence for f in figures)


def test_power_report_is_the_command_line_json() -> None:
    report = power_report(compare_evaluation(load_sample()), delta=0.02)
    assert list(report) == ["alpha", "power", "delta", "pairs"]
    assert (report["alpha"], report["power"], report["delta"]) == (0.05, 0.8, 0.02)
    assert all(list(pair) == JSON_KEYS for pair in report["pairs"])
    assert json.loads(json.dumps(report, allow_nan=False)) == report
    assert power_report(compare_evaluation(load_sample()))["delta"] is None


def _comparison(after_shift: np.ndarray) -> object:
    rng = np.random.default_rng(3)
    before = rng.uniform(0.2, 0.6, len(after_shift))
    return compare("base", {"base": {"m": before}, "cand": {"m": before + after_shift}},
                   [f"q{i}" for i in range(len(after_shift))], n_permutations=999,
                   n_resamples=200, rng=1)


def test_sentence_beside_a_significant_verdict() -> None:
    shift = np.random.default_rng(4).normal(0.1, 0.05, 40)
    (figure,) = power_table(_comparison(shift))
    assert figure.significant
    assert figure.sentence.startswith("this query set detects differences of ")
    assert figure.sentence.endswith(" or more with 80% power")


def test_constant_differences_have_no_spread() -> None:
    """0.1 + float noise in every query: the spread is 0, not 1e-17."""
    (figure,) = power_table(_comparison(np.full(12, 0.1)), delta=0.01)
    assert figure.sd_difference == 0.0
    assert figure.min_detectable_difference == 0.0
    assert figure.queries_needed == 2
    assert figure.sentence.startswith(ANY_DIFFERENCE)


def test_power_table_checks_its_arguments() -> None:
    comparison = compare_evaluation(load_sample())
    with pytest.raises(ValueError, match="needs a Comparison"):
        power_table(comparison.tests)
    with pytest.raises(ValueError, match="delta"):
        power_table(comparison, delta=-0.01)
    with pytest.raises(ValueError, match="exceed alpha"):
        power_table(comparison, alpha=0.5, power=0.3)


# --------------------------------------------------------------------------- words


def test_sentences() -> None:
    assert power_sentence(queries=60, min_detectable_difference=0.0431, power=0.8,
                          significant=False) == (
        "a true difference under 0.043 may not show: this set can detect 0.043 or more with "
        "80% power")
    assert power_sentence(queries=60, min_detectable_difference=0.03, power=0.8,
                          significant=True) == (
        "this query set detects differences of 0.030 or more with 80% power")
    assert power_sentence(queries=60, min_detectable_difference=0.0431, power=0.8,
                          significant=False, queries_needed=280, delta=0.02) == (
        "underpowered for a difference of 0.020: this set can detect 0.043 or more with 80% "
        "power; 280 queries would detect a difference of 0.020 with 80% power (this set has 60)")
    # not significant, but the set detects the difference named: not underpowered
    assert power_sentence(queries=600, min_detectable_difference=0.013, power=0.8,
                          significant=False, queries_needed=280, delta=0.02) == (
        "this query set detects differences of 0.013 or more with 80% power; 280 queries "
        "would detect a difference of 0.020 with 80% power (this set has 600)")
    assert power_sentence(queries=1, min_detectable_difference=None, power=0.8,
                          significant=False) == TOO_FEW
    tiny = power_sentence(queries=10**6, min_detectable_difference=0.00031, power=0.8,
                          significant=True)
    assert "0.00031 or more" in tiny


def test_method_names_the_test_and_the_design() -> None:
    assert "two-sided paired t-test" in POWER_METHOD
    assert "Sakai" in POWER_METHOD and "2016" in POWER_METHOD
    assert set(POWER_MEANING) == set(JSON_KEYS[3:])
    assert (ALPHA, POWER) == (0.05, 0.8)
