"""One query's figures written out (metrics.explain, metrics.movement) add up to the engine's
own figures, under every convention, for every run and every scored query: on the sample and
on runs whose lists have unequal lengths."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metrics import Conventions, evaluate, load_sample
from metrics.core.kernel import discount
from metrics.explain import movement
from metrics.explain import query as explain
from metrics.vocabulary import CHOICES
from tests.metrics.builders import make_qrels, make_run

CONVENTIONS = {
    "default": Conventions(),
    "exponential, min(R, K)": Conventions(gain="exponential", recall_denominator="min"),
    "full list": Conventions(rr="full", ap="full"),
    "full list, min(R, K)": Conventions(ap="full", recall_denominator="min"),
    "grade >= 2": Conventions(relevance_level=2),
}


def cases():
    for name, conventions in CONVENTIONS.items():
        for k in (1, 3, 5, 10):
            yield pytest.param(conventions, k, id=f"{name}, K={k}")


@pytest.mark.parametrize(("conventions", "k"), list(cases()))
def test_running_totals_reproduce_the_engine(conventions, k):
    evaluation = load_sample(k, conventions)
    for query_id in evaluation.scored_ids:
        q = explain.query_row(evaluation, query_id)
        ideal = explain.ideal_table(evaluation, query_id)
        for run in evaluation.runs:
            x = explain.explain_run(evaluation, run, query_id)
            at_k = {key: values[q, k - 1] for key, values in run.scores.values.items()}
            ranks = x.ranks
            assert len(ranks) == k
            # the displayed per-rank arithmetic adds up to the engine's DCG at every rank
            assert np.allclose(ranks["gain / discount"].cumsum(), ranks["DCG"])
            assert ranks["DCG"].iloc[-1] == pytest.approx(at_k["DCG"])
            # the ideal list's own gains add up to the engine's IDCG@K
            within = ideal[ideal["within K"]]
            assert within["gain / discount"].sum() == pytest.approx(at_k["IDCG"])
            if len(within):
                assert within["IDCG"].iloc[-1] == pytest.approx(at_k["IDCG"])
            # AP and context precision from the shown precisions
            assert x.ap_denominator > 0  # scored queries have a relevant id
            assert x.ap_terms.sum() / x.ap_denominator == pytest.approx(at_k["AP"])
            assert (x.cp_terms.sum() / x.hits if x.hits else 0.0) == pytest.approx(at_k["CP"])
            assert x.totals == {key: at_k[key] for key in x.totals}
            assert x.first_relevant_rank == run.scores.first_relevant_rank[q]


def test_ideal_list_includes_relevant_ids_never_returned(sample):
    ideal = explain.ideal_table(sample, "q06")  # the complete miss
    assert ideal["doc_id"].tolist() == ["d51", "d52"]
    assert ideal["rank in baseline"].isna().all()
    q09 = explain.ideal_table(sample, "q09")
    assert len(q09) == 6 and q09["grade"].is_monotonic_decreasing


def test_repeat_and_statuses_on_q10(sample):
    ranks = explain.explain_run(sample, sample.run("baseline"), "q10").ranks
    assert ranks["doc_id"].tolist()[:2] == ["d05", "d05"]
    assert ranks["status"].tolist()[:2] == ["relevant", "repeat"]
    assert ranks["label"].tolist()[:2] == ["3 · relevant", "repeat"]
    assert ranks["gain"].iloc[1] == 0
    assert set(ranks["status"]) <= set(explain.STATUSES)


def test_sentences_explain_the_seed_cases(sample):
    q09 = explain.explain_run(sample, sample.run("baseline"), "q09")
    assert q09.sentences["ndcg"] == "nDCG@5 = DCG@5 / IDCG@5 = 1.923 / 7.141 = 0.269"
    assert "AP = (0.500 + 0.500) / 6 = 0.167" in q09.sentences["ap"]
    assert "they differ because AP divides by 6" in q09.sentences["ap_vs_cp"]
    q03 = explain.explain_run(sample, sample.run("baseline"), "q03")
    assert q03.sentences["rr"].startswith("First relevant id at rank 6, below K = 5")
    assert "both are 0" in q03.sentences["ap_vs_cp"]
    q07 = explain.explain_run(sample, sample.run("baseline"), "q07")
    assert "they agree here" in q07.sentences["ap_vs_cp"]


def test_full_list_reading_is_explained():
    evaluation = load_sample(5, Conventions(rr="full", ap="full"))
    q03 = explain.explain_run(evaluation, evaluation.run("baseline"), "q03")
    assert "read over the full list" in q03.sentences["rr"]
    assert "below rank 5" in q03.sentences["ap_vs_cp"]


def test_whole_list_depth_and_unknown_query(sample):
    longest = explain.list_length(sample, "q01")
    assert len(explain.explain_run(sample, sample.runs[0], "q01", longest).ranks) == longest
    with pytest.raises(ValueError, match="not in the qrels"):
        explain.query_row(sample, "nope")


def test_rank_movement_says_what_the_candidate_did(sample):
    moved = movement.rank_movement(sample, "baseline", "reranked", "q03", 10).set_index(
        "doc_id")
    assert moved.loc["d21", ["before", "after", "climbed"]].tolist() == [6, 1, 5]
    assert moved.loc["d21", "moved"] == "lifted into the top K"
    assert moved.loc["d23", "judged"] == "not relevant"
    assert moved.loc["d92", "moved"] == "noise pushed out of the top K"
    assert moved.loc["d90", "judged"] == "unjudged" and pd.isna(moved.loc["d90", "grade"])
    assert list(moved.index[:3]) == ["d21", "d23", "d22"]  # the candidate's order
    sentence = movement.movement_sentence(moved.reset_index(), "reranked", 5)
    assert "lifted 2 relevant ids (d21, d22) into the top 5" in sentence
    assert "pushed 2 (d92, d93) out" in sentence


@pytest.mark.parametrize("lifted,words", [
    ([], "lifted no relevant id into the top 5 and pushed none out of it"),
    (["d1"], "lifted 1 relevant id (d1) into the top 5 and pushed none out of it"),
    (["d1", "d2", "d3"], "lifted 3 relevant ids (d1, d2, d3) into the top 5"),
])
def test_the_movement_sentence_is_english_for_none_one_and_many(lifted, words):
    """'lifted none relevant id(s)' read as a slip: each count is written as English."""
    frame = pd.DataFrame({"doc_id": [*lifted, "n1"],
                          "moved": [movement.MOVES[True, False, True]] * len(lifted)
                          + [movement.MOVES[False, True, False]]})
    sentence = movement.movement_sentence(frame, "reranked", 5)
    assert words in sentence
    assert "promoted no non-relevant or unjudged id into the top 5 and pushed 1 (n1) out." in (
        sentence)
    assert "(s)" not in sentence and "none relevant" not in sentence


def test_rank_movement_keeps_relevant_ids_that_were_never_returned(sample):
    for q in sample.scored_ids:
        moved = movement.rank_movement(sample, "baseline", "bm25", q, 1)
        relevant = {d for d, g in movement.query_grades(sample, q).items() if g >= 1}
        assert relevant <= set(moved["doc_id"])
        shallow = moved[(moved["before"] <= 1) | (moved["after"] <= 1)]
        assert len(shallow) >= 1


# ----------------------------------------------------------------- lists of unequal length

UNEQUAL_QRELS = {
    "a": {"a1": 3, "a2": 1, "a3": 2, "a4": 1, "a5": 2, "x": 0},
    "b": {"b1": 1, "b2": 2},
    "c": {"c1": 2, "c2": 2, "c3": 1, "c4": 1},
    "d": {"d1": 1},
}
UNEQUAL_RUNS = {
    # long, short, repeated and missing lists, so min(R, list length) differs from min(R, K)
    "long": {"a": ["x", "a1", "n1", "a2", "n2", "n3", "a3", "a3", "n4", "a4", "n5", "a5"],
             "b": ["n1", "b2"], "c": ["c1"], "d": ["n1", "n2", "n3", "d1"]},
    "short": {"a": ["a2"], "b": ["b1", "n1", "n2", "n3", "n4", "n5", "n6", "b2"],
              "c": ["n1", "c4", "c3", "n2", "c1"]},
}
EVERY_COMBINATION = [
    Conventions(**dict(zip(fields, values, strict=True)), relevance_level=level)
    for fields in [("recall_denominator", "gain", "rr", "ap")]
    for values in itertools.product(*(CHOICES[f] for f in fields))
    for level in (1, 2)
]


@pytest.mark.parametrize("conventions", EVERY_COMBINATION,
                         ids=lambda c: "-".join(str(v) for v in c.as_dict().values())[:40])
@pytest.mark.parametrize("k", [1, 3, 5, 20])
def test_stated_terms_recompute_the_engine_on_unequal_lists(conventions, k):
    """The drill-down's equations: the terms and denominators an explanation states
    recompute the engine's figure to 1e-12 (the reported bug: AP under --ap full and
    --recall-denominator min divided by min(R, the list's length) while the explanation
    stated min(R, K))."""
    qrels = make_qrels(UNEQUAL_QRELS)
    runs = [make_run(lists, name) for name, lists in UNEQUAL_RUNS.items()]
    evaluation = evaluate(qrels, runs, k, conventions)
    for query_id in evaluation.scored_ids:
        for run in evaluation.runs:
            x = explain.explain_run(evaluation, run, query_id)
            t = x.totals
            assert abs(x.dcg_terms.sum() - t["DCG"]) < 1e-12
            assert abs(t["DCG"] / t["IDCG"] - t["nDCG"]) < 1e-12
            ap = x.ap_terms.sum() / x.ap_denominator if x.ap_denominator else 0.0
            assert abs(ap - t["AP"]) < 1e-12
            cp = x.cp_terms.sum() / x.cp_denominator if x.cp_denominator else 0.0
            assert abs(cp - t["CP"]) < 1e-12
            assert abs((1 / x.rr_rank if x.rr_rank else 0.0) - t["RR"]) < 1e-12
            # the sentence states the same denominator the engine used
            if x.ap_denominator:
                assert f") / {x.ap_denominator:g} = {t['AP']:.3f}" in x.sentences["ap"]


def test_full_list_ap_with_min_denominator_states_the_list_length():
    qrels = make_qrels(UNEQUAL_QRELS)
    runs = [make_run(lists, name) for name, lists in UNEQUAL_RUNS.items()]
    evaluation = evaluate(qrels, runs, 20, Conventions(ap="full", recall_denominator="min"))
    x = explain.explain_run(evaluation, evaluation.run("short"), "a")
    # R = 5 relevant ids but the list holds one id: the engine divides by min(5, 1) = 1
    assert x.ap_denominator == 1
    assert x.sentences["ap"].startswith("AP = (1.000) / 1 = 1.000")
    assert "min(R, the length of this run's list)" in x.sentences["ap"]


def test_query_figures_are_the_per_query_values_at_k(sample):
    from metrics.explain.query import query_figures

    frame = query_figures(sample, "q03")
    assert list(frame["run"]) == sample.run_names
    for run in sample.runs:
        values = sample.per_query_scores(run.name)
        i = sample.scored_ids.index("q03")
        row = frame[frame["run"] == run.name].iloc[0]
        for key in ("P", "R", "nDCG", "AP", "RR", "Hit", "CP", "Judged"):
            assert row[key] == values[key][i]
        assert row["class"] == run.classes[i]


def test_query_figures_carry_the_figures_asked_for_each_at_its_own_cutoff(sample):
    from metrics.explain.query import query_figures

    more = sample.with_measures(["Rprec", "ERR@10", "RBP(p=0.8)"])
    frame = query_figures(more, "q03").set_index("run")
    i = more.scored_ids.index("q03")
    for run in more.runs:
        values = more.per_query_scores(run.name)
        for key in ("Rprec", "ERR@10", "RBP(p=0.8)", "RBPresid(p=0.8)"):
            spec = more.resolve(key)
            assert frame.loc[run.name, spec.key] == values[spec.key][i], (run.name, key)
    assert more.resolve("ERR@10").key in frame.columns and "nDCG" in frame.columns


def test_side_by_side_aligns_two_lists_and_says_where_each_id_sits_in_the_other(sample):
    from metrics.explain.movement import side_by_side
    from metrics.explain.query import first_ranks, query_row

    frame = side_by_side(sample, "baseline", "reranked", "q03", depth=7)
    assert list(frame["rank"]) == list(range(1, 8))
    q = query_row(sample, "q03")
    a, b = first_ranks(sample.run("baseline"), q), first_ranks(sample.run("reranked"), q)
    for row in frame.itertuples(index=False):
        assert a[row.a_doc] == row.rank or a[row.a_doc] < row.rank  # first occurrence
        assert (b.get(row.a_doc) if b.get(row.a_doc) else None) == (
            None if row.a_in_b is pd.NA else row.a_in_b)
        assert (a.get(row.b_doc) if a.get(row.b_doc) else None) == (
            None if row.b_in_a is pd.NA else row.b_in_a)
    assert frame["a_label"].iloc[1] == "unjudged" and not frame["a_judged"].iloc[1]


def test_side_by_side_leaves_an_empty_slot_none_never_nan():
    """A list shorter than the depth: its slots past the end hold no id. A string column
    (pandas 3 infers one) made them nan, which the drill-down showed as an id 'nan' with a
    grade control of its own."""
    from metrics.explain.movement import side_by_side

    qrels = make_qrels({"q": {"a": 1}})
    evaluation = evaluate(qrels, [make_run({"q": ["a", "x"]}, name="short"),
                                  make_run({"q": ["x", "a", "y", "z"]}, name="long")], 4)
    frame = side_by_side(evaluation, "short", "long", "q")
    assert list(frame["a_doc"]) == ["a", "x", None, None]
    assert list(frame["a_label"][2:]) == ["no id", "no id"]


def test_a_querys_contributions_sum_to_the_mean_difference(sample):
    from metrics.explain.movement import query_contribution

    total = None
    for query in sample.scored_ids:
        frame = query_contribution(sample, "baseline", "reranked", query).set_index("metric")
        total = frame["contribution"] if total is None else total + frame["contribution"]
    assert np.allclose(total, frame["mean difference"])
    with pytest.raises(ValueError, match="not scored"):
        query_contribution(sample, "baseline", "reranked", "q08")


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_the_tables_divide_by_the_engine_s_discount_to_the_bit(gain):
    """The rank tables and the ideal list show the discount DCG, IDCG and nDCG divide by
    (metrics.core.kernel.discount), so their running sums are the engine's floats exactly."""
    evaluation = load_sample(10, Conventions(gain=gain))
    for query_id in evaluation.scored_ids:
        q = explain.query_row(evaluation, query_id)
        ideal = explain.ideal_table(evaluation, query_id)
        np.testing.assert_array_equal(ideal["discount"], np.log2(ideal["rank"] + 1.0))
        np.testing.assert_array_equal(ideal["gain / discount"].cumsum(), ideal["IDCG"])
        for run in evaluation.runs:
            ranks = explain.explain_run(evaluation, run, query_id).ranks
            np.testing.assert_array_equal(ranks["discount"], discount(len(ranks)))
            np.testing.assert_array_equal(ranks["gain / discount"].cumsum(), ranks["DCG"])
            assert ranks["DCG"].iloc[-1] == run.scores.values["DCG"][q, 9]
