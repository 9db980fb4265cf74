"""The per-query kernel: a block of queries scored alone gives exactly the figures those
queries get when the whole query set is scored at once (a query's R, judged non-relevant ids
and ideal list come from its own judgments, ERR's scale is carried on every row, and past its
block's width every figure is closed form), and the figures at chosen cutoffs are the same
numbers as plain columns keyed by query. Every measure is checked, those scored on request
too."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import strategies as st

from metrics.core.evaluate import evaluate
from metrics.core.kernel import Figures, compute
from metrics.core.prepared import prepare
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.measures import CATALOGUE
from tests.marks import examples
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_properties import collections, conventions

FACTS = ("hits", "noise", "first_relevant_rank", "list_length", "repeats")
# the diversity measures read the subtopic qrels: tests/metrics/core/test_diversity.py
ON_REQUEST = tuple(m.key for m in CATALOGUE if not m.shown and not m.subtopics)


def whole_and_prepared(judgments, lists, choice, wanted=ON_REQUEST):
    prepared = prepare(make_qrels(judgments), [make_run(lists)],
                       relevance_level=choice.relevance_level)
    query_set, aligned = prepared.query_set, prepared.aligned[0]
    return query_set, aligned, compute(query_set, aligned, choice, wanted)


def assert_same_figures(block: Figures, whole: Figures, rows) -> None:
    np.testing.assert_array_equal(block.cutoffs, whole.cutoffs)
    assert block.values.keys() == whole.values.keys()
    for key, values in whole.values.items():
        np.testing.assert_array_equal(block.values[key], values[rows], err_msg=key)
    for fact in FACTS:
        np.testing.assert_array_equal(getattr(block, fact), getattr(whole, fact)[rows],
                                      err_msg=fact)


@examples(40, 150, collections(), conventions, st.data())
def test_blocks_scored_alone_give_the_whole_query_sets_figures(collection, choice, data):
    judgments, lists = collection
    query_set, aligned, whole = whole_and_prepared(judgments, lists, choice)
    n = len(query_set.query_ids)
    cutoffs = sorted(set(data.draw(st.lists(st.integers(1, 60), min_size=1, max_size=6)))
                     | {aligned.width, 1000})
    expected = whole.figures(cutoffs)
    # contiguous blocks of random sizes, as a block-by-block driver reads them
    edges = sorted(set(data.draw(st.lists(st.integers(0, n), max_size=4))) | {0, n})
    for start, stop in zip(edges, edges[1:], strict=False):
        block = compute(query_set.rows(slice(start, stop)), aligned.rows(slice(start, stop)),
                        choice, ON_REQUEST)
        assert block.width <= aligned.width  # each block as wide as its own longest list + 1
        assert_same_figures(block.figures(cutoffs), expected, slice(start, stop))
    # any set of queries, in any order, as a group-by (Spark's) hands them over
    picked = np.asarray(data.draw(st.permutations(range(n))), dtype=np.int64)[
        : data.draw(st.integers(0, n))]
    alone = compute(query_set.rows(picked), aligned.rows(picked), choice, ON_REQUEST)
    assert_same_figures(alone.figures(cutoffs), expected, picked)


def test_a_query_reads_only_its_own_judgments():
    """Another query's labels (more relevant ids, higher grades, a longer list) change
    nothing of this query's figures, but ERR's and the C/W/L measures': their scale is the
    highest grade of the whole qrels (tests/metrics/core/test_more_measures.py), carried on
    every row of the labels."""
    choice = Conventions(n_resamples=10)
    alone = {"q1": {"a": 2, "b": 1, "c": 0}}
    lists = {"q1": ["c", "a", "x", "b"]}
    crowded = alone | {"q2": {f"d{i}": 3 for i in range(40)}}
    _, _, first = whole_and_prepared(alone, lists, choice)
    _, _, second = whole_and_prepared(crowded, lists | {"q2": [f"d{i}" for i in range(50)]},
                                      choice)
    cutoffs = [1, 2, 4, 10, 100]
    ours, theirs = first.figures(cutoffs), second.figures(cutoffs)
    assert set(ON_REQUEST) - {"IPrec"} < set(ours.values)
    # ERR, and the C/W/L measures' gains, read the highest grade of the whole qrels
    scaled = {m.key for m in CATALOGUE if "{max_grade}" in m.note}
    assert "ERR" in scaled
    for key in ours.values.keys() - scaled:
        np.testing.assert_array_equal(ours.values[key][0], theirs.values[key][0], err_msg=key)


def test_figures_are_the_scores_at_those_cutoffs():
    judgments = {"q1": {"a": 3, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}}
    lists = {"q1": ["b", "x", "a", "a"], "q2": ["y"], "q3": ["d"]}
    choice = Conventions(n_resamples=10)
    _, _, scores = whole_and_prepared(judgments, lists, choice)
    figures = scores.figures([1, 3, 7, 500])
    for k in (1, 3, 7, 500):
        for key, values in scores.at(k).items():
            np.testing.assert_array_equal(figures.at(k)[key], values, err_msg=f"{key}@{k}")
    np.testing.assert_array_equal(figures.hits[:, 1], scores.hits[:, 2])
    np.testing.assert_array_equal(figures.list_length, [4, 1, 1])
    np.testing.assert_array_equal(figures.repeats, [1, 0, 0])
    with pytest.raises(ValueError, match="K = 2 is not among the cutoffs scored: 1, 3, 7, 500"):
        figures.at(2)
    with pytest.raises(ValueError, match="k must be an integer from 1 to 1,000,000"):
        scores.figures([0])


def test_a_blocks_figures_travel_as_an_arrow_table_keyed_by_query():
    judgments = {"q1": {"a": 3, "b": 1}, "q2": {"c": 1}}
    lists = {"q1": ["b", "x", "a"], "q2": ["y", "c"]}
    query_set, _, scores = whole_and_prepared(judgments, lists, Conventions(n_resamples=10))
    table = scores.figures([2, 10]).table(query_set.query_ids)
    assert isinstance(table, pa.Table)
    assert table.column("query_id").to_pylist() == ["q1", "q2"]
    assert table.column("nDCG@10").to_pylist() == pytest.approx(
        scores.at(10)["nDCG"].tolist())
    assert table.column("P@2").to_pylist() == [0.5, 0.5]
    assert table.column("list_length").to_pylist() == [3, 2]


def test_the_driver_is_the_kernel_over_one_block_then_aggregation():
    """evaluate()'s per-query figures are the kernel's over the whole query set, and its
    means are the means of those figures over the scored queries."""
    judgments = {"q1": {"a": 3, "b": 1}, "q2": {"c": 1}, "q3": {"d": 0}, "q4": {"e": 2}}
    lists = {"q1": ["b", "x", "a"], "q2": ["y", "c"], "q3": ["d"], "q4": []}
    choice = Conventions(n_resamples=50)
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], 3, choice)
    _, _, kernel = whole_and_prepared(judgments, lists, choice, wanted=())
    run = evaluation.run("run")
    for key, values in kernel.at(3).items():
        np.testing.assert_array_equal(run.scores.at(3)[key], values, err_msg=key)
        if key in run.summary:
            assert run.summary[key].mean == pytest.approx(values[evaluation.scored].mean())
    assert run.repeats == int(kernel.repeats[evaluation.scored].sum())


def test_a_run_of_stored_columns_reads_as_the_gather_does():
    # Curves.columns copies a run of stored columns as one slice: the same values and type
    # as picking the columns one by one, and past the width still the closed form
    from metrics.core.kernel import Curves, Tail

    stored = np.arange(24, dtype=float).reshape(4, 6)
    plain = Curves(stored)
    tailed = Curves(stored, Tail("K", np.array([1.0, 2.0, 3.0, 4.0])))
    for curves in (plain, tailed):
        for columns in ([1, 2, 3], [0, 1, 2, 3, 4, 5], [2, 4], [3]):
            got = curves.columns(np.array(columns))
            np.testing.assert_array_equal(got, stored[:, columns])
            assert got.dtype == np.float64 and got.flags.c_contiguous
    past = tailed.columns(np.array([4, 5, 6, 7]))
    np.testing.assert_array_equal(past[:, :2], stored[:, 4:6])
    np.testing.assert_array_equal(past[:, 2:], np.array([1.0, 2.0, 3.0, 4.0])[:, None]
                                  / np.array([7.0, 8.0]))
    hits = Curves(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert hits.columns(np.array([0, 1])).dtype == np.int32
