"""metrics.stats.bca: scipy's BCa arithmetic to the last bits on the same resampled means, scipy's
own BCa bootstrap within simulation error, and the degenerate columns scipy answers with nan.

The exact comparisons call scipy's private steps as scipy 1.17 has them:
_bca_interval(data, statistic, axis, alpha, theta_hat_b, batch, xp), then stats.quantile."""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

try:  # scipy's own BCa steps are private (1.17's): the public bootstrap is checked either way
    from scipy._lib._array_api import array_namespace
    from scipy.stats._resampling import _bca_interval, _percentile_of_score
except ImportError:  # pragma: no cover - another scipy
    _bca_interval = None

from metrics.stats.bca import bca_bounds, bca_from_counts
from metrics.stats.bootstrap import bootstrap_means, percentile_bounds, resample_counts


def _sample(kind: str, n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Per-query figures shaped like real ones."""
    if kind == "skewed":
        return rng.lognormal(0.0, 1.5, (n, m))
    if kind == "ndcg":  # many zeros and ones, a beta middle
        u = rng.random((n, m))
        return np.where(u < 0.5, 0.0, np.where(u < 0.7, 1.0, rng.beta(2, 3, (n, m))))
    if kind == "rr":  # 1, 1/2, 1/3, ... and 0: resampled means tie with the estimate
        return np.where(rng.random((n, m)) < 0.4, 0.0, 1 / rng.integers(1, 11, (n, m)))
    return rng.integers(0, 2, (n, m)).astype(float)  # "binary"


def _scipy_bca(values: np.ndarray, distribution: np.ndarray, confidence_level: float):
    """scipy 1.17's own steps: _bca_interval (levels, acceleration) then stats.quantile, as
    scipy.stats.bootstrap runs them, on one sample per column."""
    if _bca_interval is None or not hasattr(stats, "quantile"):
        pytest.skip("this scipy does not have 1.17's private BCa steps")
    data = np.ascontiguousarray(values.T)  # (m, n): what bootstrap hands _bca_interval
    theta_hat_b = np.ascontiguousarray(distribution.T)
    xp = array_namespace(data)
    alpha_1, alpha_2, a_hat = _bca_interval(
        (data,),
        np.mean,
        axis=-1,
        alpha=(1 - confidence_level) / 2,
        theta_hat_b=theta_hat_b,
        batch=None,
        xp=xp,
    )
    ci = stats.quantile(theta_hat_b, np.stack([alpha_1, alpha_2], axis=-1), axis=-1)
    share = _percentile_of_score(theta_hat_b, data.mean(axis=-1, keepdims=True), axis=-1, xp=xp)
    return ci[:, 0], ci[:, 1], a_hat, ndtri(share)


@pytest.mark.parametrize("kind", ["skewed", "ndcg", "rr", "binary"])
@pytest.mark.parametrize("n, m, n_resamples", [(6, 2, 499), (30, 3, 1000), (200, 4, 2000)])
@pytest.mark.parametrize("confidence_level", [0.9, 0.95])
def test_same_resampled_means_give_scipys_bca_bounds(kind, n, m, n_resamples, confidence_level):
    rng = np.random.default_rng(n * 7 + m)
    values = _sample(kind, n, m, rng)
    values[:2, 0] = [0.0, 1.0]  # never a constant column: that one is ours, not scipy's
    distribution = bootstrap_means(values, resample_counts(n, n_resamples=n_resamples, rng=rng))
    # ours reads a resampled mean within float noise of the estimate as a tie, scipy only an
    # exact one: such means are snapped onto the estimate so both read the same ties
    estimate = np.ascontiguousarray(values.T).mean(axis=1)
    distribution = np.where(np.abs(distribution - estimate) <= 1e-12, estimate, distribution)
    ours = bca_bounds(values, distribution, confidence_level=confidence_level)
    low, high, acceleration, z0 = _scipy_bca(values, distribution, confidence_level)
    assert not ours.fell_back.any()
    np.testing.assert_allclose(ours.z0, z0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.acceleration, acceleration, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(ours.low, low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.high, high, rtol=0, atol=1e-12)


def test_the_discrete_samples_do_tie_with_the_estimate():
    """The comparison above exercises the tie rule: on 0/1 figures many resampled means equal
    the estimate exactly, as they do on scipy's side."""
    rng = np.random.default_rng(30 * 7 + 3)
    values = _sample("binary", 30, 3, rng)
    distribution = bootstrap_means(values, resample_counts(30, n_resamples=1000, rng=rng))
    ties = (distribution == values.mean(axis=0)).mean(axis=0)
    assert (ties > 0.05).all()


def test_a_resampled_mean_within_float_noise_of_the_estimate_ties_with_it():
    values = np.array([[0.1], [0.2], [0.3]])  # estimate 0.2 (as the mean rounds it)
    estimate = values.mean()
    noisy = np.array([[estimate - 1e-15], [estimate + 1e-15], [0.1], [0.3]])
    assert bca_bounds(values, noisy, confidence_level=0.95).z0[0] == 0.0  # 2 ties, 1 below
    apart = np.array([[estimate - 1e-9], [estimate - 1e-9], [0.1], [0.3]])
    assert bca_bounds(values, apart, confidence_level=0.95).z0[0] > 0


def test_a_resampled_mean_equal_to_the_estimate_counts_one_half():
    values = np.array([[0.0], [1.0]])  # estimate 0.5
    both_sides = np.array([[0.0], [0.5], [0.5], [1.0]])
    assert bca_bounds(values, both_sides, confidence_level=0.95).z0[0] == 0.0
    above = np.array([[0.5], [0.5], [0.5], [1.0]])  # share (0 + 3) / 8
    z0 = bca_bounds(values, above, confidence_level=0.95).z0[0]
    assert z0 == pytest.approx(NormalDist().inv_cdf(3 / 8), abs=1e-15)
    assert z0 == pytest.approx(_scipy_bca(values, above, 0.95)[3][0], abs=1e-15)


def _mean_bounds(runs: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    bounds = np.array(runs)
    return bounds.mean(axis=0), bounds.std(axis=0, ddof=1)


@pytest.mark.parametrize("kind, n", [("skewed", 30), ("ndcg", 60), ("rr", 40)])
def test_agrees_with_scipy_bootstrap_bca_within_simulation_error(kind, n):
    """Independent resamples on both sides, 20,000 each, K = 12 runs each. One run's bound
    moves by its simulation error s (the quantile of 20,000 draws at a level that is itself
    estimated); the mean of K runs by s / sqrt(K). The two means differ by
    sqrt(s_ours^2 + s_scipy^2) / sqrt(K) at one standard deviation; 4 of them is the tolerance,
    with s measured from the runs themselves. On the skewed sample the percentile interval
    lies further than that from scipy's BCa, so the comparison can tell the two apart."""
    x = _sample(kind, n, 1, np.random.default_rng(5))[:, 0]
    n_resamples, runs = 20_000, 12
    ours = []
    for seed in range(runs):
        counts = resample_counts(n, n_resamples=n_resamples, rng=np.random.default_rng(seed))
        result = bca_from_counts(x[:, None], counts, confidence_level=0.95)
        assert not result.fell_back.any()
        ours.append((result.low[0], result.high[0]))
    theirs = []
    for seed in range(runs):
        ci = stats.bootstrap(
            (x,),
            np.mean,
            n_resamples=n_resamples,
            method="BCa",
            rng=np.random.default_rng(1000 + seed),
        ).confidence_interval
        theirs.append((ci.low, ci.high))
    our_mean, our_spread = _mean_bounds(ours)
    their_mean, their_spread = _mean_bounds(theirs)
    tolerance = 4 * np.sqrt((our_spread**2 + their_spread**2) / runs)
    assert (np.abs(our_mean - their_mean) <= tolerance).all(), (our_mean, their_mean, tolerance)
    if kind == "skewed":
        percentile = percentile_bounds(bootstrap_means(x[:, None], counts), confidence_level=0.95)
        gap = np.abs(np.array([percentile[0][0], percentile[1][0]]) - their_mean)
        assert gap.max() > 3 * tolerance.max()


def test_constant_columns_give_the_value_itself_without_falling_back():
    rng = np.random.default_rng(2)
    values = np.column_stack([np.full(25, 0.3), rng.random(25), np.zeros(25)])
    distribution = bootstrap_means(values, resample_counts(25, n_resamples=500, rng=rng))
    assert not (distribution[:, 0] == 0.3).all()  # float noise: 0.3 is not a sum's exact mean
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = bca_bounds(values, distribution, confidence_level=0.95)
    assert result.low[0] == result.high[0] == 0.3
    assert result.low[2] == result.high[2] == 0.0
    assert result.low[1] < values[:, 1].mean() < result.high[1]
    np.testing.assert_array_equal(result.fell_back, [False, False, False])


def test_one_query_and_no_query():
    one = bca_bounds(np.array([[0.25, 1.0]]), np.array([[0.25, 1.0]] * 3), confidence_level=0.9)
    np.testing.assert_array_equal(one.low, [0.25, 1.0])
    np.testing.assert_array_equal(one.high, [0.25, 1.0])
    assert not one.fell_back.any()
    none = bca_bounds(np.zeros((0, 2)), np.zeros((10, 2)), confidence_level=0.9)
    np.testing.assert_array_equal(none.low, [0.0, 0.0])
    np.testing.assert_array_equal(none.high, [0.0, 0.0])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # scipy's
@pytest.mark.parametrize("side", ["above", "below"])
def test_infinite_bias_correction_falls_back_to_the_percentile_interval(side):
    """Every resampled mean on one side of the estimate: z0 = -inf or +inf, where scipy's levels
    (and bounds) are nan. The column gets the percentile bounds and the mask says so."""
    rng = np.random.default_rng(4)
    values = rng.lognormal(0.0, 1.0, (20, 2))
    distribution = bootstrap_means(values, resample_counts(20, n_resamples=400, rng=rng))
    estimate = values[:, 1].mean()
    spread = np.linspace(0.01, 0.5, 400)
    distribution[:, 1] = estimate + spread if side == "above" else estimate - spread
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = bca_bounds(values, distribution, confidence_level=0.95)
    np.testing.assert_array_equal(result.fell_back, [False, True])
    assert np.isinf(result.z0[1])
    low, high = percentile_bounds(distribution[:, 1:], confidence_level=0.95)
    assert (result.low[1], result.high[1]) == (low[0], high[0])
    assert np.isfinite(result.low).all() and np.isfinite(result.high).all()
    scipy_low, scipy_high, _, _ = _scipy_bca(values, distribution, 0.95)
    assert np.isnan(scipy_low[1]) and np.isnan(scipy_high[1])
    assert np.isfinite(scipy_low[0])  # the regular column: ours is scipy's
    assert result.low[0] == pytest.approx(scipy_low[0], abs=1e-12)


def test_columns_together_equal_columns_one_by_one():
    rng = np.random.default_rng(9)
    values = np.column_stack(
        [
            _sample("ndcg", 40, 1, rng),
            np.full(40, 0.7),
            _sample("rr", 40, 1, rng),
            _sample("skewed", 40, 2, rng),
        ]
    )
    distribution = bootstrap_means(values, resample_counts(40, n_resamples=800, rng=rng))
    distribution[:, 3] = values[:, 3].mean() + np.linspace(0.01, 0.2, 800)  # falls back
    together = bca_bounds(values, distribution, confidence_level=0.9)
    np.testing.assert_array_equal(together.fell_back, [False, False, False, True, False])
    for j in range(values.shape[1]):
        alone = bca_bounds(values[:, [j]], distribution[:, [j]], confidence_level=0.9)
        assert alone.low[0] == together.low[j]
        assert alone.high[0] == together.high[j]
        assert alone.fell_back[0] == together.fell_back[j]


def test_from_counts_is_bca_of_the_resampled_means():
    rng = np.random.default_rng(11)
    values = _sample("ndcg", 50, 3, rng)
    counts = resample_counts(50, n_resamples=300, rng=rng)
    direct = bca_bounds(values, bootstrap_means(values, counts), confidence_level=0.95)
    via_counts = bca_from_counts(values, counts, confidence_level=0.95)
    np.testing.assert_array_equal(via_counts.low, direct.low)
    np.testing.assert_array_equal(via_counts.high, direct.high)


@pytest.mark.parametrize(
    "values, distribution, level, message",
    [
        (np.ones(5), np.ones((3, 1)), 0.95, "values must be a 2-D"),
        (np.ones((5, 2)), np.ones((3, 1)), 0.95, "at least one resample of each of the 2"),
        (np.ones((5, 1)), np.ones((0, 1)), 0.95, "at least one resample"),
        (np.array([[1.0], [np.nan]]), np.ones((3, 1)), 0.95, "values must be finite"),
        (np.ones((5, 1)), np.array([[np.inf]]), 0.95, "distribution must be finite"),
        (np.ones((5, 1)), np.ones((3, 1)), 1.0, "confidence_level"),
    ],
)
def test_rejects_bad_input(values, distribution, level, message):
    with pytest.raises(ValueError, match=message):
        bca_bounds(values, distribution, confidence_level=level)


def test_from_counts_rejects_counts_of_another_query_count():
    with pytest.raises(ValueError, match="one column per query"):
        bca_from_counts(np.ones((5, 1)), np.ones((10, 4)), confidence_level=0.95)
