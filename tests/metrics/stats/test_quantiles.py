"""Resampled quantiles against plain numpy: each resample's np.percentile over the values it
draws (np.repeat by its counts), in the dense draw and in the blocked draw read in two
passes; and the sample's own quantiles against np.percentile."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.stats.bootstrap import Resamples, resampled_queries
from metrics.stats.quantiles import resampled_quantiles, sample_quantiles

QS = (0.5, 0.95, 0.99)


def reference(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The plain loop: each resample's multiset of values, np.quantile (numpy's linear
    method, which np.percentile reads at 100 q: the same to the last bits but q's rounding)."""
    return np.array([[np.quantile(np.repeat(values, row.astype(int)), q, method="linear")
                      for q in QS] for row in counts])


@pytest.mark.parametrize("n", [1, 2, 3, 10, 257])
def test_dense_draw_matches_numpy_percentile_on_each_resample(n):
    rng = np.random.default_rng(n)
    values = np.round(rng.lognormal(3, 1, n), 1)  # ties, as timings in ms have
    resamples = resampled_queries(n, seed=7, n_resamples=300)
    got = resampled_quantiles(values, resamples, QS)
    np.testing.assert_array_equal(got, reference(values, resamples.dense))
    percentile = np.array([np.percentile(np.repeat(values, row.astype(int)), [50, 95, 99])
                           for row in resamples.dense])
    np.testing.assert_allclose(got, percentile, rtol=1e-12, atol=0)


@pytest.mark.parametrize("n", [5, 600, 9000])
def test_blocked_draw_matches_numpy_percentile_on_each_resample(n):
    rng = np.random.default_rng(n)
    values = rng.lognormal(3, 1, n)
    values[: n // 3] = values[0]  # a long tie across bins
    resamples = Resamples(n, 40, key=(11, 13))
    got = resampled_quantiles(values, resamples, QS)
    np.testing.assert_array_equal(got, reference(values, resamples.counts(0, n)))


def test_sample_quantiles_are_numpy_s():
    values = np.random.default_rng(3).exponential(20, 1001)
    np.testing.assert_array_equal(sample_quantiles(values, QS), np.quantile(values, QS))


def test_values_of_another_length_are_refused():
    with pytest.raises(ValueError, match="queries"):
        resampled_quantiles(np.ones(4), resampled_queries(5, seed=1, n_resamples=10), QS)
