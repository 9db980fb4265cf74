"""K past every list: closed form, memory that follows the data, ceilings.

The arrays stop one column past the longest list; every K beyond is closed form (IDCG keeps
growing up to the query's positive grades, min(R, K) up to R, P@K and F1@K for ever). Each
figure there must equal what explicit padding up to K gives (the engine before the closed
form), and pytrec_eval's at cutoffs far past the lists.
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import explain_run, load_sample
from metrics.core.evaluate import evaluate
from metrics.core.kernel import Curves, Tail, compute
from metrics.io import load_qrels, load_run
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import MAX_K, MAX_SWEEP, check_sweep
from tests.marks import examples
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_against_trec_eval import random_collection, write_files
from tests.metrics.core.test_properties import collections, conventions

PER_QUERY = ("hits", "noise", "recall_denominator", "ap_denominator")


@examples(40, 150, collections(), conventions, st.integers(0, 40), st.integers(1, 25))
def test_every_figure_past_the_lists_equals_explicit_padding(collection, choice, extra, k):
    judgments, lists = collection
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], k, choice)
    run = evaluation.run("run")
    scores = run.scores
    longest = int(run.aligned.list_length.max(initial=0))
    assert scores.width == longest + 1
    cutoff = scores.width + extra
    padded = compute(evaluation.query_set, run.aligned.padded(cutoff), choice)
    assert padded.width == cutoff
    for key, curves in scores.values.items():
        np.testing.assert_array_equal(curves[:, :cutoff], padded.values[key].view(np.ndarray),
                                      err_msg=key)
        np.testing.assert_array_equal(scores.at(cutoff)[key], padded.values[key][:, -1])
    for name in PER_QUERY:
        ours, theirs = getattr(scores, name), getattr(padded, name)
        np.testing.assert_array_equal(ours[:, :cutoff], theirs.view(np.ndarray), err_msg=name)
    np.testing.assert_array_equal(scores.first_relevant_rank, padded.first_relevant_rank)
    # the summary at a K past the lists is the mean of those per-query figures
    far = evaluate(make_qrels(judgments), [make_run(lists)], cutoff, choice)
    scored = far.scored
    for key, interval in far.run("run").summary.items():
        values = padded.values[key][scored, -1]
        assert interval.mean == pytest.approx(values.mean() if len(values) else 0.0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(collections(), conventions)
def test_past_every_list_and_label_only_p_and_f1_still_move(collection, choice):
    """Beyond max(longest list, most positive grades) every figure is constant but P@K =
    hits / K and F1@K = 2 hits / (R + K); the largest K is read like any other."""
    judgments, lists = collection
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], MAX_K, choice)
    scores = evaluation.run("run").scores
    settled = max(scores.width, evaluation.query_set.ideal.shape[1])
    at, far = scores.at(settled), scores.at(MAX_K)
    hits = scores.hits[:, settled - 1].astype(float)
    relevant = evaluation.query_set.n_relevant
    np.testing.assert_array_equal(far["P"], hits / MAX_K)
    np.testing.assert_array_equal(far["F1"], 2 * hits / (relevant + MAX_K))
    for key in ("R", "Hit", "RR", "AP", "DCG", "IDCG", "nDCG", "CP", "Judged"):
        np.testing.assert_array_equal(far[key], at[key], err_msg=key)
    np.testing.assert_array_equal(scores.recall_denominator[:, MAX_K - 1], relevant)
    # IDCG over every positive grade, retrieved or not
    full = [sum(g / np.log2(i + 2) for i, g in enumerate(sorted(
        (max(g, 0) if choice.gain == "linear" else 2.0 ** max(g, 0) - 1
         for g in docs.values() if g > 0), reverse=True))) for docs in judgments.values()]
    np.testing.assert_allclose(far["IDCG"], full, rtol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_pytrec_eval_agrees_far_past_the_lists(tmp_path, seed):
    """Lists of at most 30 ids, cutoffs up to 1,000: P_K keeps dividing by K, nDCG and
    recall settle, map_cut_K keeps its numerator."""
    cutoffs = (31, 64, 200, 1000)
    qrels, run = random_collection(seed)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    names = {"P": "P", "R": "recall", "AP": "map_cut", "nDCG": "ndcg_cut"}
    measures = {f"{name}.{','.join(map(str, cutoffs))}" for name in names.values()}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    labels, _ = load_qrels(qrels_path)
    loaded, _ = load_run(run_path)
    evaluation = evaluate(labels, [loaded], max(cutoffs))
    scores = evaluation.run("run").scores
    assert scores.width <= 31  # lists of 30 ids at most
    ids = list(evaluation.query_set.query_ids)
    for qid, expected in reference.items():
        row = ids.index(qid)
        if not evaluation.query_set.scored[row]:
            continue
        for k in cutoffs:
            at = scores.at(k)
            for ours, theirs in names.items():
                assert at[ours][row] == pytest.approx(expected[f"{theirs}_{k}"], abs=1e-9), (
                    qid, ours, k)


def test_memory_follows_the_data_not_k():
    judgments = {f"q{i}": {f"d{j}": 1 + j % 3 for j in range(i % 7)} for i in range(50)}
    lists = {f"q{i}": [f"d{j}" for j in range(0, 20, 1 + i % 3)] for i in range(50)}
    qrels, run = make_qrels(judgments), make_run(lists)
    tracemalloc.start()
    try:
        evaluation = evaluate(qrels, [run], MAX_K, sweep=(MAX_K - 99, MAX_K))
        evaluation.sweep_means("run")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert evaluation.run("run").scores.width == 21
    assert peak < 20 * 2**20  # padding to K would take 50 x 1e6 x 8 bytes per array


def test_k_and_the_sweep_have_ceilings():
    qrels, run = make_qrels({"q": {"a": 1}}), make_run({"q": ["a", "b"]})
    with pytest.raises(ValueError, match=r"k must be an integer from 1 to 1,000,000.*got 1000001"):
        evaluate(qrels, [run], MAX_K + 1)
    with pytest.raises(ValueError, match="sweep"):
        evaluate(qrels, [run], 5, sweep=(1, MAX_SWEEP + 1))
    with pytest.raises(ValueError, match="sweep"):
        evaluate(qrels, [run], 5, sweep=(MAX_K, MAX_K + 1))
    check_sweep(MAX_K - MAX_SWEEP + 1, MAX_K)  # the widest sweep at the largest K is allowed
    scores = evaluate(qrels, [run], 5).run("run").scores
    with pytest.raises(ValueError, match="MAX_K"):
        scores.at(MAX_K + 1)
    with pytest.raises(IndexError, match="MAX_K"):
        scores.values["P"][0, MAX_K]


def test_a_sweep_far_past_the_lists_reads_the_closed_form():
    qrels = make_qrels({"q1": {"a": 1, "b": 2}, "q2": {"c": 1}})
    run = make_run({"q1": ["a", "x", "b"], "q2": ["y", "c"]})
    evaluation = evaluate(qrels, [run], 5, sweep=(999_991, MAX_K))
    means = evaluation.sweep_means("run")
    k = np.arange(999_991, MAX_K + 1)
    np.testing.assert_array_equal(means["k"], k)
    np.testing.assert_allclose(means["P"], (2 / k + 1 / k) / 2, rtol=1e-12)
    np.testing.assert_array_equal(means["R"], np.ones(10))
    assert {row[1] for row in evaluation.sweep_intervals()} == set(k.tolist())


def test_curves_read_like_arrays_within_the_width_and_past_it():
    stored = np.array([[0.5, 1 / 3], [0.0, 0.5]])
    curves = Curves(stored, Tail("K", np.array([1.0, 1.0])))  # hits / K past the width
    assert curves[0, 1] == stored[0, 1] and curves[1, -1] == 0.5  # negative: numpy's meaning
    assert curves[0, 3] == 0.25 and curves[1, 9] == 0.1
    np.testing.assert_array_equal(curves[:, 4], [0.2, 0.2])
    np.testing.assert_array_equal(curves[1, :4], [0.0, 0.5, 1 / 3, 0.25])
    np.testing.assert_array_equal(curves[np.array([True, False]), 1:5:2], [[1 / 3, 0.25]])
    np.testing.assert_array_equal(curves[0, np.array([4, 0, 4])], [0.2, 0.5, 0.2])
    np.testing.assert_array_equal(curves[np.array([True, False])], stored[:1])  # stored only
    assert type(curves * 2) is np.ndarray and type(curves[:, :1]) is np.ndarray
    assert type(curves.sum()) is not Curves
    again = pickle.loads(pickle.dumps(curves))
    assert again[0, 3] == 0.25
    constant = Curves(np.array([[1, 2]]))
    assert constant[0, 999] == 2 and constant[0, 1:4].tolist() == [2, 2, 2]


def test_explanation_and_suggestion_at_a_k_past_the_lists():
    k = 1_000
    evaluation = load_sample(k)
    run = evaluation.runs[0]
    at = run.scores.at(k)
    x = explain_run(evaluation, run, "q01")
    q = list(evaluation.query_set.query_ids).index("q01")
    assert x.totals == {key: float(at[key][q]) for key in x.totals}
    assert len(x.ranks) == run.scores.width  # the rank table stops one past the lists
    scored = evaluation.scored
    assert run.suggestion.current_precision == pytest.approx(at["P"][scored].mean())
    assert run.suggestion.current_recall == pytest.approx(at["R"][scored].mean())
    assert run.summary["P"].mean == pytest.approx(at["P"][scored].mean())


def test_default_sweep_still_ends_at_the_longest_list():
    evaluation = load_sample(50, Conventions(n_resamples=20))
    assert evaluation.sweep_range == (1, 10)
    assert len(evaluation.sweep_means("baseline")["k"]) == 10


def test_many_labels_do_not_widen_the_arrays_and_idcg_keeps_growing():
    """One query with 5,000 positive grades and lists of 3 ids: the arrays stay 4 wide, while
    IDCG@K and min(R, K) keep growing up to K = 5,000, as explicit padding gives."""
    judgments = {"big": {f"d{i}": 1 + i % 2 for i in range(5_000)}, "small": {"a": 1}}
    lists = {"big": ["d1", "x", "d0"], "small": ["a"]}
    choice = Conventions(recall_denominator="min", n_resamples=20)
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], 4_000, choice)
    run = evaluation.run("run")
    assert run.scores.width == 4
    padded = compute(evaluation.query_set, run.aligned.padded(6_000), choice)
    for k in (5, 100, 2_500, 4_000, 4_999, 5_000, 5_001, 6_000):
        for key, values in run.scores.at(k).items():
            np.testing.assert_array_equal(values, padded.values[key][:, k - 1], err_msg=key)
    idcg = run.scores.values["IDCG"][0, :6_000]
    assert idcg[4_999] > idcg[3_999] > idcg[3] and idcg[5_999] == idcg[4_999]
    assert run.scores.recall_denominator[0, 2_999] == 3_000
