"""Properties every ranked-list figure must keep, on random collections (hypothesis)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import strategies as st

from metrics.core.evaluate import evaluate, evaluate_prepared, prepare
from metrics.vocabulary.conventions import Conventions
from tests.marks import examples
from tests.metrics.builders import make_qrels, make_run

DOCS = [f"d{i}" for i in range(12)]


@st.composite
def collections(draw):
    n_queries = draw(st.integers(1, 6))
    judgments, lists = {}, {}
    for q in range(n_queries):
        judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=8))
        judgments[f"q{q}"] = judged
        lists[f"q{q}"] = draw(st.lists(st.sampled_from(DOCS), max_size=15))
    return judgments, lists


conventions = st.builds(
    Conventions,
    recall_denominator=st.sampled_from(["all", "min"]),
    gain=st.sampled_from(["linear", "exponential"]),
    rr=st.sampled_from(["cutoff", "full"]),
    ap=st.sampled_from(["cutoff", "full"]),
    relevance_level=st.integers(1, 3),
    n_resamples=st.just(20),
)


def all_values(judgments, lists, choice, k=20):
    """Every measure at K = 1..k: the stored columns, then the closed form past them."""
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], k, choice)
    values = evaluation.run("run").scores.values
    return evaluation, {key: curves[:, :k] for key, curves in values.items()}


@examples(40, 150, collections(), conventions)
def test_every_score_lies_in_unit_interval(collection, choice):
    _, values = all_values(*collection, choice)
    for key, array in values.items():
        if key in ("DCG", "IDCG"):
            assert (array >= 0).all()
            continue
        assert ((array >= 0) & (array <= 1 + 1e-12)).all(), key


@examples(40, 150, collections())
def test_recall_never_falls_as_k_grows_under_the_default_denominator(collection):
    _, values = all_values(*collection, Conventions(n_resamples=20))
    for key in ("R", "Hit", "DCG", "IDCG"):
        assert (np.diff(values[key], axis=1) >= -1e-12).all(), key


@examples(40, 150, collections(), st.sampled_from(["linear", "exponential"]))
def test_ndcg_is_one_on_the_ideal_order(collection, gain):
    judgments, _ = collection
    ideal = {
        q: sorted((d for d, g in docs.items() if g > 0), key=lambda d: -docs[d])
        for q, docs in judgments.items()
    }
    evaluation, values = all_values(judgments, ideal, Conventions(gain=gain, n_resamples=20))
    has_gain = evaluation.query_set.ideal[:, 0] > 0
    np.testing.assert_allclose(values["nDCG"][has_gain], 1.0, atol=1e-12)


@examples(40, 150, collections(), st.data(), conventions)
def test_repeats_never_raise_a_score(collection, data, choice):
    judgments, lists = collection
    repeated = {}
    for q, docs in lists.items():
        docs = list(docs)
        if docs:
            original = data.draw(st.integers(0, len(docs) - 1))
            # a repeat comes after the id's first occurrence, wherever below it
            docs.insert(data.draw(st.integers(original + 1, len(docs))), docs[original])
        repeated[q] = docs
    _, before = all_values(judgments, lists, choice, k=20)
    _, after = all_values(judgments, repeated, choice, k=20)
    for key in before:
        if key in ("IDCG", "CP"):
            # the ideal list does not depend on the run; CP divides by the relevant ids
            # inside K, so anything pushing one out of K can raise it (see the test below)
            continue
        assert (after[key] <= before[key] + 1e-12).all(), key


def test_missing_query_scores_zero_and_excluded_query_is_counted():
    judgments = {"q1": {"a": 1}, "q2": {"b": 2}, "q3": {"c": 0}}
    evaluation = evaluate(make_qrels(judgments), [make_run({"q1": ["a"], "zz": ["a"]})], 5)
    run = evaluation.run("run")
    assert evaluation.excluded_ids == ["q3"]
    assert run.missing_queries == ("q2", "q3")
    assert run.aligned.ignored_queries == ("zz",)
    frame = evaluation.per_query().set_index("query_id")
    assert frame.loc["q2", ["P", "R", "RR", "AP", "nDCG", "CP"]].sum() == 0
    assert frame.loc["q2", "class"] == "miss"
    assert run.summary["R"].mean == 0.5


def test_precision_divides_by_k_even_for_short_lists():
    evaluation = evaluate(make_qrels({"q": {"a": 1}}), [make_run({"q": ["a"]})], 5)
    assert evaluation.per_query_scores("run")["P"][0] == 0.2
    assert evaluation.per_query_scores("run")["Judged"][0] == 1.0


def test_relevance_level_changes_binary_metrics_but_not_ndcg_gains():
    judgments = {"q": {"a": 1, "b": 3}}
    lists = {"q": ["a", "b"]}
    low = evaluate(make_qrels(judgments), [make_run(lists)], 2).per_query_scores("run")
    high = evaluate(
        make_qrels(judgments), [make_run(lists)], 2, Conventions(relevance_level=2)
    ).per_query_scores("run")
    assert (low["P"][0], high["P"][0]) == (1.0, 0.5)
    assert low["nDCG"][0] == high["nDCG"][0]


def test_context_precision_differs_from_ap_when_relevant_ids_fall_outside_k():
    judgments = {"q": {"a": 1, "b": 1, "c": 1}}
    values = evaluate(make_qrels(judgments), [make_run({"q": ["x", "a", "y"]})], 3)
    at3 = values.per_query_scores("run")
    assert at3["CP"][0] == 0.5  # precision 1/2 at the one relevant rank, over 1 returned
    assert abs(at3["AP"][0] - 0.5 / 3) < 1e-12


def test_context_precision_can_rise_when_a_repeat_pushes_a_relevant_id_out_of_k():
    judgments = {"q": {"a": 1, "b": 1}}
    plain = evaluate(make_qrels(judgments), [make_run({"q": ["a", "x", "b"]})], 3)
    repeated = evaluate(make_qrels(judgments), [make_run({"q": ["a", "a", "x", "b"]})], 3)
    assert plain.per_query_scores("run")["CP"][0] < repeated.per_query_scores("run")["CP"][0]
    assert plain.per_query_scores("run")["AP"][0] > repeated.per_query_scores("run")["AP"][0]


def test_full_list_ap_under_min_denominator_ignores_the_other_runs():
    judgments = {"q": {f"r{i}": 1 for i in range(12)}, "p": {"r0": 1}}
    alone = make_run({"q": [f"r{i}" for i in range(10)]}, name="alone")
    longer = make_run({"q": [f"x{i}" for i in range(30)]}, name="longer")
    choice = Conventions(ap="full", recall_denominator="min")
    solo = evaluate(make_qrels(judgments), [alone], 5, choice).per_query_scores("alone")
    both = evaluate(make_qrels(judgments), [alone, longer], 5, choice).per_query_scores("alone")
    assert solo["AP"][0] == both["AP"][0] == 1.0  # 10 relevant of a 10-id list: min(12, 10)


def test_prepared_runs_rescore_like_a_fresh_evaluation():

    qrels = make_qrels({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}})
    runs = [make_run({"q1": ["b", "x", "a"], "q2": ["c"]})]
    prepared = prepare(qrels, runs)
    for k in (1, 2, 7):
        choice = Conventions(gain="exponential", rr="full")
        fresh = evaluate(qrels, runs, k, choice).summary()
        assert evaluate_prepared(prepared, k, choice).summary().equals(fresh)
    with pytest.raises(ValueError, match="relevance level 1, not 2"):
        evaluate_prepared(prepared, 3, Conventions(relevance_level=2))


def test_evaluations_of_one_prepared_share_its_aligned_runs():
    """Each K or convention scores the prepared arrays as they are: no evaluation keeps a
    padded copy of them (10 MB a run on 5,000 queries x 100 ids)."""
    qrels = make_qrels({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}})
    runs = [make_run({"q1": ["b", "x", "a"], "q2": ["c"]}, name="long"),
            make_run({"q1": ["a"]}, name="short")]
    prepared = prepare(qrels, runs)
    for k in (1, 5):
        evaluation = evaluate_prepared(prepared, k)
        for run, aligned in zip(evaluation.runs, prepared.aligned, strict=True):
            assert run.aligned is aligned


@examples(25, 100, collections(), conventions, st.integers(1, 25))
def test_an_evaluation_regained_from_another_gain_equals_one_scored_afresh(collection, choice,
                                                                         k):
    """evaluate_prepared(regain=) under the other gain: every figure the same as scoring
    afresh (the snapshot holds each one, per query too), the figures no gain changes the very
    arrays of the evaluation it came from, DCG, IDCG and nDCG scored again."""
    from metrics.core.kernel import GAIN_KEYS
    from metrics.snapshot.contract import to_dict

    judgments, lists = collection
    prepared = prepare(make_qrels(judgments), [make_run(lists, name="a"),
                                               make_run(dict(reversed(lists.items())),
                                                        name="b")],
                       relevance_level=choice.relevance_level)
    other = dataclasses.replace(
        choice, gain="linear" if choice.gain == "exponential" else "exponential")
    before = evaluate_prepared(prepared, k, other)
    regained = evaluate_prepared(prepared, k, choice, regain=before)
    fresh = evaluate_prepared(prepared, k, choice)
    assert to_dict(regained) == to_dict(fresh)
    for run, was, anew in zip(regained.runs, before.runs, fresh.runs, strict=True):
        for key, curves in run.scores.values.items():
            np.testing.assert_array_equal(curves[:, : k + 3], anew.scores.values[key][:, : k + 3])
            assert (curves is was.scores.values[key]) == (key not in GAIN_KEYS), key


def test_regain_is_ignored_unless_only_the_gain_differs():
    """Another choice beside the gain, or runs prepared again: scored afresh, same figures."""
    from metrics.core.kernel import GAIN_KEYS

    qrels = make_qrels({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}})
    runs = [make_run({"q1": ["b", "x", "a"], "q2": ["c", "a"]})]
    prepared = prepare(qrels, runs)
    linear = evaluate_prepared(prepared, 2, Conventions(gain="linear"))
    for choice, source in ((Conventions(gain="exponential", rr="full"), prepared),
                           (Conventions(gain="exponential"), prepare(qrels, runs))):
        regained = evaluate_prepared(source, 2, choice, regain=linear)
        assert regained.summary().equals(evaluate_prepared(source, 2, choice).summary())
        values, was = regained.run("run").scores.values, linear.run("run").scores.values
        assert not any(values[key] is was[key] for key in values if key not in GAIN_KEYS)
