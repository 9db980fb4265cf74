"""Facets: quantile bins of numbers, the largest categories, missing values, the length in
words, and slices that partition a list of query ids."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from metrics.explain.facets import (
    LENGTH,
    MAX_BINS,
    MISSING,
    OTHER,
    TOP_CATEGORIES,
    Facet,
    facet,
    facets,
    slice_masks,
)
from metrics.io.queries import Queries, load_queries


def make_queries(columns: dict[str, list], texts: list[str] | None = None) -> Queries:
    n = len(texts) if texts is not None else len(next(iter(columns.values())))
    ids = tuple(f"q{i}" for i in range(n))
    return Queries("test", "jsonl", ids, tuple(texts or ["text"] * n),
                   {name: tuple(values) for name, values in columns.items()},
                   tuple(range(1, n + 1)))


def ids_of(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


def check_partition(result: Facet, ids: list[str]) -> None:
    assert sum(result.counts) == len(ids)
    assert len(set(result.bins)) == len(result.bins) and 0 not in result.counts
    assert {query: result.label(query) for query in ids} == result.labels
    for label, size in zip(result.bins, result.counts, strict=True):
        assert sum(1 for query in ids if result.labels[query] == label) == size


def quarter_groups(values: list[float]) -> list[set[int]]:
    """The queries of each bin, from scipy's average ranks: quarter of (r - 1/2) / n."""
    ranks = rankdata(values, method="average")
    quarter = np.minimum(np.floor((ranks - 0.5) / len(values) * 4), 3)
    return [set(np.flatnonzero(quarter == q).tolist()) for q in range(4) if (quarter == q).any()]


def groups_of(result: Facet, n: int) -> list[set[int]]:
    return [{i for i in range(n) if result.labels[f"q{i}"] == label} for label in result.bins]


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_number_bins_are_the_quarters_of_the_middle_ranks(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, int(rng.integers(6, 60)), size=int(rng.integers(5, 300))).tolist()
    result = facet("n", ids_of(len(values)), values)
    assert result.kind == "number" and len(result.bins) <= MAX_BINS
    if len(set(values)) > MAX_BINS:
        assert groups_of(result, len(values)) == quarter_groups(values)
    for label, (low, high) in zip(result.bins, result.ranges, strict=True):
        held = [v for i, v in enumerate(values) if result.labels[f"q{i}"] == label]
        assert (low, high) == (min(held), max(held))  # the label states the bin's range
        low, high = min(held), max(held)
        assert label == (str(low) if low == high else f"[{low}, {high}]")
    check_partition(result, ids_of(len(values)))


@pytest.mark.parametrize("seed", range(4))
def test_without_ties_the_bins_are_cut_at_numpy_quartiles(seed):
    rng = np.random.default_rng(seed)
    values = rng.permutation(rng.normal(size=int(rng.integers(8, 200)))).tolist()
    result = facet("x", ids_of(len(values)), values)
    edges = np.quantile(values, [0.25, 0.5, 0.75], method="hazen")
    expected = np.searchsorted(edges, values, side="right")  # [min, e1), [e1, e2), ...
    got = [result.bins.index(result.labels[f"q{i}"]) for i in range(len(values))]
    assert got == expected.tolist() and len(result.bins) == MAX_BINS


def test_number_labels_in_order():
    result = facet("n", ids_of(8), [1, 2, 3, 4, 5, 6, 7, 8])
    assert result.bins == ("[1, 2]", "[3, 4]", "[5, 6]", "[7, 8]")
    assert result.counts == (2, 2, 2, 2)
    assert result.ranges == ((1, 2), (3, 4), (5, 6), (7, 8))


def test_few_distinct_values_give_a_bin_each():
    result = facet("n", ids_of(7), [3, 1, 3, 2, 3, 1, 3])
    assert (result.bins, result.counts) == (("1", "2", "3"), (2, 1, 4))
    result = facet("n", ids_of(3), [5, 5, 5])
    assert (result.bins, result.counts) == (("5",), (3,))


@pytest.mark.parametrize(
    ("values", "bins"),
    [
        ([1] * 60 + [2, 3, 4, 5, 6] * 8, ("1", "[2, 3]", "[4, 6]")),
        ([6] * 60 + [1, 2, 3, 4, 5] * 8, ("[1, 3]", "[4, 5]", "6")),
        ([1, 2] + [3] * 90 + [4, 5], ("[1, 2]", "3", "[4, 5]")),
    ],
)
def test_a_heavily_tied_value_has_its_own_bin(values, bins):
    result = facet("n", ids_of(len(values)), values)
    assert result.bins == bins and sum(result.counts) == len(values)
    assert groups_of(result, len(values)) == quarter_groups(values)


def test_floats_are_written_as_figures_and_kept_apart():
    result = facet("score", ids_of(8), [0.1, 0.25, 0.3, 0.45, 0.5, 0.61, 0.8, 1.0])
    assert result.bins == ("[0.100, 0.250]", "[0.300, 0.450]", "[0.500, 0.610]",
                           "[0.800, 1]")
    close = facet("tiny", ids_of(3), [0.0001, 0.0002, 0.0003])
    assert len(set(close.bins)) == 3  # three decimals would write each as 0.000


def test_missing_values_have_their_own_bin_last():
    result = facet("n", ids_of(6), [None, 4, None, 1, 2, 3])
    assert result.bins == ("1", "2", "3", "4", MISSING)
    assert result.counts == (1, 1, 1, 1, 2)
    assert result.labels["q0"] == result.labels["q2"] == MISSING
    only_missing = facet("n", ids_of(2), [None, None])
    assert (only_missing.bins, only_missing.counts) == ((MISSING,), (2,))


# --- categories ------------------------------------------------------------------------------


def test_the_ten_largest_categories_and_other():
    sizes = {"c1": 9, "c2": 3, "c10": 3, "c3": 3, "b": 8, "a": 7, "d": 6, "e": 5, "f": 4,
             "g": 2, "h": 1, "i": 1}
    values = [name for name, size in sizes.items() for _ in range(size)] + [None] * 2
    result = facet("topic", ids_of(len(values)), values)
    assert result.kind == "category"
    # largest first; c2, c3 and c10 tie, in natural order
    assert result.bins == ("c1", "b", "a", "d", "e", "f", "c2", "c3", "c10", "g", OTHER,
                           MISSING)
    assert result.counts == (9, 8, 7, 6, 5, 4, 3, 3, 3, 2, 2, 2)
    assert len(result.bins) == TOP_CATEGORIES + 2
    assert result.labels[f"q{len(values) - 3}"] == OTHER
    check_partition(result, ids_of(len(values)))


def test_ten_categories_or_fewer_need_no_other():
    values = [f"v{i % 10}" for i in range(40)]
    result = facet("topic", ids_of(40), values)
    assert OTHER not in result.bins and len(result.bins) == 10


def test_a_category_named_like_a_bin_of_its_own_keeps_its_name():
    values = ["missing", "other", None] + [f"v{i}" for i in range(12)]
    result = facet("topic", ids_of(len(values)), values)
    assert result.missing == "(missing)" and result.labels["q2"] == "(missing)"
    assert result.labels["q0"] == "missing" and "(other)" in result.bins
    check_partition(result, ids_of(len(values)))


def test_mixed_values_make_a_category():
    result = facet("v", ids_of(3), [1, "two", 1])
    assert (result.kind, result.bins, result.counts) == ("category", ("1", "two"), (2, 1))


# --- facets of a queries file ----------------------------------------------------------------


def test_query_length_is_always_a_facet():
    queries = load_queries(b"q1\tone\nq2\ttwo  words\nq3\tthree words here\nq4\t a b c d \n")
    result = facets(queries)
    assert list(result) == [LENGTH]
    assert result[LENGTH].kind == "number"
    assert result[LENGTH].labels == {"q1": "1", "q2": "2", "q3": "3", "q4": "4"}


def test_facets_of_a_file_in_its_order():
    text = (b'{"_id": "a", "text": "x y", "metadata": {"lang": "en", "year": 2020}}\n'
            b'{"_id": "b", "text": "z", "metadata": {"lang": "de"}}\n')
    result = facets(load_queries(text))
    assert list(result) == [LENGTH, "lang", "year"]
    assert result["year"].bins == ("2020", MISSING) and result["year"].counts == (1, 1)
    assert result["lang"].labels == {"a": "en", "b": "de"}


def test_a_file_column_named_like_the_length_replaces_it():
    queries = make_queries({LENGTH: ["short", "long"]})
    assert facets(queries)[LENGTH].kind == "category"


def test_facets_over_given_ids_cut_bins_over_those():
    queries = make_queries({"n": [1, 2, 3, 4, 5, 6, 7, 8, 100, 200]})
    result = facets(queries, ["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "x"])["n"]
    assert result.bins == ("[1, 2]", "[3, 4]", "[5, 6]", "[7, 8]", MISSING)
    assert result.labels["x"] == MISSING and "q8" not in result.labels
    length = facets(queries, ["q0", "x"])[LENGTH]
    assert (length.bins, length.counts) == (("1", MISSING), (1, 1))


def test_slice_masks_partition_the_ids():
    queries = make_queries({"topic": ["a", "b", "a", None, "c"]})
    result = facets(queries)["topic"]
    order = ["q4", "q0", "unknown", "q3", "q2"]
    slices = slice_masks(result, order)
    assert [label for label, _ in slices] == ["a", "c", MISSING]  # "b" holds none of them
    masks = np.array([mask for _, mask in slices])
    assert masks.dtype == bool and (masks.sum(axis=0) == 1).all()
    assert dict((label, mask.tolist()) for label, mask in slices) == {
        "a": [False, True, False, False, True], "c": [True, False, False, False, False],
        MISSING: [False, False, True, True, False],
    }
    by_array = slice_masks(result, np.array(order, dtype=object))
    assert [mask.tolist() for _, mask in by_array] == [mask.tolist() for _, mask in slices]
    assert slice_masks(result, []) == []


# --- the partition, as a property ------------------------------------------------------------


values = st.one_of(
    st.lists(st.one_of(st.none(), st.integers(-5, 30)), min_size=1, max_size=80),
    st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1,
             max_size=80),
    st.lists(st.one_of(st.none(), st.sampled_from([f"c{i}" for i in range(15)])), min_size=1,
             max_size=80),
)


@settings(max_examples=150, deadline=None)
@given(values)
def test_bins_always_partition_and_counts_sum(column):
    ids = ids_of(len(column))
    result = facet("v", ids, column)
    check_partition(result, ids)
    named = [label for label in result.bins if label != result.missing]
    limit = MAX_BINS if result.kind == "number" else TOP_CATEGORIES + 1
    assert len(named) <= limit
    assert result.count(result.missing) == column.count(None)
    slices = slice_masks(result, ids[::-1])
    assert sum(int(mask.sum()) for _, mask in slices) == len(ids)
    assert np.array([mask for _, mask in slices]).sum(axis=0).tolist() == [1] * len(ids)
