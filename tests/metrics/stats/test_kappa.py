"""Cohen's kappa and weighted kappa with their standard errors against statsmodels'
cohens_kappa (an independent implementation), and kappa's value against a plain loop over
the items."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_kappa

from metrics.stats.kappa import cohens_kappa, linear_weights


def _table(seed: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 20, size=(size, size))
    return table + np.diag(rng.integers(10, 60, size=size))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("size", [2, 3, 5])
def test_kappa_and_its_se_are_statsmodels(seed, size):
    table = _table(seed, size)
    expected = statsmodels_kappa(table)
    found = cohens_kappa(table, confidence_level=0.95)
    assert found.kappa == pytest.approx(expected.kappa, rel=1e-12)
    assert found.se == pytest.approx(expected.std_kappa, rel=1e-10)
    assert (found.low, found.high) == pytest.approx(
        (expected.kappa_low, expected.kappa_upp), rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("size", [3, 4])
def test_weighted_kappa_and_its_se_are_statsmodels(seed, size):
    table = _table(seed, size)
    expected = statsmodels_kappa(table, wt="linear")
    found = cohens_kappa(table, weights=linear_weights(np.arange(size)), confidence_level=0.95)
    assert found.kappa == pytest.approx(expected.kappa, rel=1e-12)
    assert found.se == pytest.approx(expected.std_kappa, rel=1e-10)


def test_kappa_from_a_plain_loop_over_items():
    rng = np.random.default_rng(4)
    first = rng.integers(0, 3, size=300)
    second = np.where(rng.random(300) < 0.7, first, rng.integers(0, 3, size=300))
    agree = sum(a == b for a, b in zip(first, second, strict=True)) / 300
    chance = sum((first == g).mean() * (second == g).mean() for g in range(3))
    table = np.zeros((3, 3))
    for a, b in zip(first, second, strict=True):
        table[a, b] += 1
    assert cohens_kappa(table, confidence_level=0.95).kappa == pytest.approx(
        (agree - chance) / (1 - chance))


def test_undefined_kappa_is_nan_not_a_number_made_up():
    assert np.isnan(cohens_kappa([[5, 0], [0, 0]], confidence_level=0.95).kappa)
    assert np.isnan(cohens_kappa([[0, 0], [0, 0]], confidence_level=0.95).kappa)
    with pytest.raises(ValueError, match="square"):
        cohens_kappa([[1, 2, 3]], confidence_level=0.95)


@pytest.mark.parametrize("table,single", [
    ([[0, 0], [7, 5]], "the first rater"),  # the first rater calls every item category 1
    ([[0, 4], [0, 9]], "the second rater"),
    ([[5, 0], [0, 0]], "the first rater and the second rater"),
    ([[0, 3, 0], [0, 6, 0], [0, 2, 0]], "the second rater"),
])
def test_a_rater_with_one_category_leaves_kappa_undefined_with_its_reason(table, single):
    """With one category from a rater, observed agreement equals chance whatever the other
    rater does: the formula gives 0 with a zero-width interval, which would read as 'no
    agreement, measured precisely'. It is undefined, and says why."""
    for weights in (None, linear_weights(np.arange(len(table)))):
        found = cohens_kappa(table, weights=weights, confidence_level=0.95)
        assert np.isnan([found.kappa, found.low, found.high]).all()
        assert found.undefined.startswith(single + " gave every item the same category")
    named = cohens_kappa(table, confidence_level=0.95, raters=("the humans", "the judge"),
                         item="pair")
    assert "every pair the same category" in named.undefined
    assert cohens_kappa([[0, 0], [0, 0]], confidence_level=0.95).undefined == (
        "no item is graded by both raters")
    assert cohens_kappa(_table(0, 2), confidence_level=0.95).undefined == ""
