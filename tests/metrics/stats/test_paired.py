"""metrics.stats.paired: each paired test on its own, against scipy and hand-worked cases."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from metrics.stats import (
    effect_size,
    paired_bootstrap,
    paired_differences,
    sign_flip_pvalues,
    t_pvalue,
    t_pvalues,
    wilcoxon_pvalue,
    wilcoxon_pvalues,
)
from metrics.stats.intervals import bootstrap


def test_differences_are_rounded_so_float_noise_ties_and_never_negative_zero() -> None:
    before = np.array([0.1 + 0.2, 0.3, 0.5])
    after = np.array([0.3, 0.1 + 0.2, 0.7])
    d = paired_differences(after, before)
    np.testing.assert_array_equal(d, [0.0, 0.0, 0.2])
    assert not np.signbit(d[:2]).any()
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        paired_differences(after, before[:2])


@pytest.mark.parametrize("seed, n", [(1, 12), (2, 60), (3, 300)])
def test_t_and_wilcoxon_equal_scipy(seed: int, n: int) -> None:
    d = np.round(np.random.default_rng(seed).normal(0.02, 0.2, n), 12)
    assert t_pvalue(d) == stats.ttest_rel(d, np.zeros(n)).pvalue
    assert wilcoxon_pvalue(d) == stats.wilcoxon(d).pvalue


@pytest.mark.parametrize("seed", range(10))
def test_the_vectorised_exact_wilcoxon_equals_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.integers(-2, 3, int(rng.integers(2, 14))) / 4  # ties and zeros
    if not d.any():
        d[0] = 0.25
    assert wilcoxon_pvalue(d) == stats.wilcoxon(d).pvalue


@pytest.mark.parametrize("n", [3, 50, 51, 400, 2000])
def test_every_column_at_once_has_the_digits_of_scipy_on_that_column_alone(n: int) -> None:
    rng = np.random.default_rng(n)
    d = np.round(np.column_stack([
        rng.normal(0.02, 0.2, n),  # no ties
        rng.integers(-3, 4, n) / 8,  # ties and zeros
        np.zeros(n),  # nothing moved
        np.full(n, 0.25),  # one change everywhere
        np.r_[0.5, np.zeros(n - 1)],  # one query moved
        rng.normal(0, 0.3, n) * (rng.random(n) < 0.3),  # mostly zeros
    ]), 12)
    t, w = t_pvalues(d), wilcoxon_pvalues(d)
    for j in (0, 1, 4, 5):  # scipy itself, on the column alone, where nothing is pinned
        column = d[:, j].copy()
        assert t[j] == stats.ttest_rel(column, np.zeros(n)).pvalue
        assert w[j] == stats.wilcoxon(column).pvalue
    assert (t[2], w[2], t[3]) == (1.0, 1.0, 0.0)
    assert list(t) == [t_pvalue(c) for c in d.T] and list(w) == [wilcoxon_pvalue(c) for c in d.T]


def test_constant_differences_are_pinned() -> None:
    zeros, same = np.zeros(5), np.full(5, 0.1)
    assert (t_pvalue(zeros), wilcoxon_pvalue(zeros), effect_size(zeros)) == (1.0, 1.0, 0.0)
    assert t_pvalue(same) == 0.0 and math.isnan(effect_size(same))


def test_effect_size_is_the_mean_over_the_sample_sd() -> None:
    d = np.array([0.1, 0.2, 0.3, 0.4, -0.1])
    assert effect_size(d) == pytest.approx(0.18 / math.sqrt(0.037), rel=1e-12)


def test_sign_flips_are_shared_by_every_column_and_reproducible() -> None:
    d = np.random.default_rng(4).normal(0.03, 0.2, (40, 3))
    together = sign_flip_pvalues(d, n_permutations=2000, rng=np.random.default_rng(9))
    for j in range(3):
        alone = sign_flip_pvalues(d[:, [j]], n_permutations=2000, rng=np.random.default_rng(9))
        assert alone[0] == together[j]
    # 40 positive differences: no draw reaches the observed mean, p = 1 / (1 + B)
    ones = np.linspace(0.1, 0.5, 40)[:, None]
    assert sign_flip_pvalues(ones, n_permutations=999, rng=np.random.default_rng(0))[0] == 1e-3


def test_paired_bootstrap_is_the_intervals_module_bootstrap() -> None:
    d = np.random.default_rng(5).normal(0.05, 0.2, (70, 2))
    low, high = paired_bootstrap(
        d, confidence_level=0.95, n_resamples=1000, rng=np.random.default_rng(5)
    )
    reference = bootstrap(d, rng=np.random.default_rng(5))
    assert [(r.low, r.high) for r in reference] == list(zip(low, high, strict=True))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: t_pvalue(np.zeros((3, 2))), "1-D"),
        (lambda: effect_size(np.array([0.1])), "at least 2"),
        (lambda: wilcoxon_pvalue(np.array([0.1, np.nan])), "finite"),
        (lambda: sign_flip_pvalues(np.zeros(4), n_permutations=10, rng=np.random.default_rng()),
         "2-D"),
        (lambda: sign_flip_pvalues(np.zeros((4, 1)), n_permutations=0,
                                   rng=np.random.default_rng()), "n_permutations"),
        (lambda: sign_flip_pvalues(np.zeros((4, 1)), n_permutations=10, rng=3), "Generator"),
        (lambda: paired_bootstrap(np.zeros((4, 1)), confidence_level=1.0, n_resamples=10,
                                  rng=np.random.default_rng()), "confidence_level"),
    ],
)
def test_bad_arguments_raise_value_error(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
