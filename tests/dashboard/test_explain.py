"""The drill-down's rank-by-rank explanation adds up to the engine's own figures, under every
convention, for every run and every scored query of the sample."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard import explain
from metrics import Conventions, load_sample

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
def test_running_totals_reproduce_the_engine(conventions, k, sample_qrels):
    evaluation = load_sample(k, conventions)
    for query_id in evaluation.scored_ids:
        q = explain.query_row(evaluation, query_id)
        ideal = explain.ideal_table(evaluation, sample_qrels, query_id)
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
            assert x.ap_numerator / x.ap_denominator == pytest.approx(at_k["AP"])
            assert (x.cp_numerator / x.hits if x.hits else 0.0) == pytest.approx(at_k["CP"])
            assert x.totals == {key: at_k[key] for key in x.totals}
            assert x.first_relevant_rank == run.scores.first_relevant_rank[q]


def test_ideal_list_includes_relevant_ids_never_returned(sample, sample_qrels):
    ideal = explain.ideal_table(sample, sample_qrels, "q06")  # the complete miss
    assert ideal["doc_id"].tolist() == ["d51", "d52"]
    assert ideal["rank in baseline"].isna().all()
    q09 = explain.ideal_table(sample, sample_qrels, "q09")
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
    movement = explain.rank_movement(sample, "baseline", "reranked", "q03", 10).set_index(
        "doc_id")
    assert movement.loc["d21", ["before", "after", "climbed"]].tolist() == [6, 1, 5]
    assert movement.loc["d21", "moved"] == "lifted into the top K"
    assert movement.loc["d23", "judged"] == "not relevant"
    assert movement.loc["d92", "moved"] == "noise pushed out of the top K"
    assert movement.loc["d90", "judged"] == "unjudged" and pd.isna(movement.loc["d90", "grade"])
    assert list(movement.index[:3]) == ["d21", "d23", "d22"]  # the candidate's order
    sentence = explain.movement_sentence(movement.reset_index(), "reranked", 5)
    assert "lifted 2 (d21, d22) relevant id(s) into the top 5" in sentence
    assert "pushed 2 (d92, d93) out" in sentence


def test_rank_movement_keeps_relevant_ids_that_were_never_returned(sample):
    for q in sample.scored_ids:
        movement = explain.rank_movement(sample, "baseline", "bm25", q, 1)
        relevant = {d for d, g in explain.query_grades(sample, q).items() if g >= 1}
        assert relevant <= set(movement["doc_id"])
        shallow = movement[(movement["before"] <= 1) | (movement["after"] <= 1)]
        assert len(shallow) >= 1
