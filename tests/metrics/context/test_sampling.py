"""Sampling queries to label: seeded, without replacement, proportional allocation by
largest remainders (against a plain loop), every stratum sampled within itself."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from metrics.context.sampling import allocation, sample_queries


def _largest_remainders(sizes, n):
    total = sum(sizes)
    exact = [s * n / total for s in sizes]
    shares = [int(e) for e in exact]
    left = n - sum(shares)
    for i in sorted(range(len(sizes)), key=lambda i: (-(exact[i] - shares[i]), i))[:left]:
        shares[i] += 1
    return shares


@pytest.mark.parametrize("sizes,n", [([10, 20, 30], 7), ([1, 1, 1], 2), ([5, 95], 10),
                                     ([3, 3, 4], 10), ([7], 3)])
def test_allocation_is_largest_remainders(sizes, n):
    assert allocation(sizes, n) == _largest_remainders(sizes, n)
    assert sum(allocation(sizes, n)) == n


def test_a_simple_sample_is_seeded_distinct_and_in_query_order():
    ids = [f"q{i}" for i in range(100)]
    first = sample_queries(ids, 20, rng=np.random.default_rng(5))
    assert first == sample_queries(ids, 20, rng=np.random.default_rng(5))
    assert first != sample_queries(ids, 20, rng=np.random.default_rng(6))
    assert len(set(first)) == 20 and first == sorted(first, key=ids.index)


def test_every_query_is_equally_likely():
    ids = [f"q{i}" for i in range(10)]
    rng = np.random.default_rng(1)
    counts = Counter(q for _ in range(2000) for q in sample_queries(ids, 3, rng=rng))
    assert all(abs(c / 2000 - 0.3) < 0.04 for c in counts.values())


def test_a_stratified_sample_holds_each_stratum_s_share():
    ids = [f"q{i}" for i in range(60)]
    strata = ["a"] * 10 + ["b"] * 20 + ["c"] * 30
    drawn = sample_queries(ids, 12, rng=np.random.default_rng(2), strata=strata)
    by = Counter(strata[ids.index(q)] for q in drawn)
    assert by == {"a": 2, "b": 4, "c": 6}


def test_too_many_is_refused():
    with pytest.raises(ValueError, match="more queries"):
        sample_queries(["a", "b"], 3, rng=np.random.default_rng(0))
