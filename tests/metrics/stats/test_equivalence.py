"""metrics.stats.equivalence: the paired TOST against statsmodels' ttost_paired."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.weightstats import ttost_paired

from metrics.stats.equivalence import tost, tost_pvalues


@pytest.mark.parametrize("seed, n, shift, margin", [
    (1, 50, 0.0, 0.05), (2, 200, 0.01, 0.02), (3, 12, -0.03, 0.1), (4, 1000, 0.004, 0.01),
    (5, 30, 0.2, 0.05)])
def test_the_tost_is_statsmodels_ttost_paired(seed, n, shift, margin):
    rng = np.random.default_rng(seed)
    before = rng.uniform(0, 1, n)
    after = np.clip(before + shift + rng.normal(0, 0.1, n), 0, 1)
    p, lower, upper = ttost_paired(after, before, -margin, margin)
    found = tost(after - before, margin=margin)
    assert found.p == pytest.approx(p, rel=1e-10, abs=1e-300)
    assert (found.t_lower, found.p_lower, found.df) == (
        pytest.approx(lower[0], rel=1e-10), pytest.approx(lower[1], rel=1e-10, abs=1e-300),
        lower[2])
    assert (found.t_upper, found.p_upper) == (
        pytest.approx(upper[0], rel=1e-10), pytest.approx(upper[1], rel=1e-10, abs=1e-300))
    assert found.equivalent(0.05) == (p < 0.05)
    columns = np.column_stack([after - before, before - after])
    assert tost_pvalues(columns, margin=margin)[0] == pytest.approx(found.p, rel=1e-12)


def test_constant_differences_are_decided_by_the_margin():
    assert tost(np.full(5, 0.01), margin=0.02).p == 0.0
    assert tost(np.full(5, 0.03), margin=0.02).p == 1.0
    assert tost(np.zeros(5), margin=0.02).equivalent(0.05)


@pytest.mark.parametrize("kwargs, message", [
    (dict(differences=np.zeros(5), margin=0), "margin"),
    (dict(differences=np.zeros(5), margin=float("nan")), "margin"),
    (dict(differences=np.zeros(1), margin=0.1), "at least 2"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tost(**kwargs)
