"""The bundled sample holds every figure seed 000 states about it."""

from __future__ import annotations

import pytest

from metrics.core.sample import load_sample
from metrics.vocabulary.conventions import Conventions


@pytest.fixture(scope="module")
def baseline():
    evaluation = load_sample(k=5)
    return evaluation, evaluation.run("baseline")


def by_query(evaluation, run_name, key):
    frame = evaluation.per_query()
    frame = frame[frame.run == run_name].set_index("query_id")
    return frame[key]


def test_nine_scored_and_q08_excluded(baseline):
    evaluation, _ = baseline
    assert len(evaluation.scored_ids) == 9
    assert evaluation.excluded_ids == ["q08"]


def test_recall_and_hit_at_5(baseline):
    _, run = baseline
    assert run.summary["R"].mean == pytest.approx(0.676, abs=5e-4)
    hit = run.summary["Hit"]
    assert hit.mean == pytest.approx(7 / 9)
    assert (round(hit.low, 3), round(hit.high, 3)) == (0.453, 0.937)
    assert hit.method == "wilson"


def test_query_classes(baseline):
    evaluation, _ = baseline
    classes = by_query(evaluation, "baseline", "class")
    assert sorted(classes[classes == "full"].index) == ["q01", "q02", "q05", "q07", "q10"]
    assert sorted(classes[classes == "partial"].index) == ["q04", "q09"]
    assert classes["q06"] == "miss"
    assert classes["q03"] == "late_hit"
    assert by_query(evaluation, "baseline", "first_relevant_rank")["q03"] == 6


def test_named_queries(baseline):
    evaluation, _ = baseline
    ap = by_query(evaluation, "baseline", "AP")
    assert ap["q07"] == pytest.approx(1.0)
    assert ap["q02"] == pytest.approx(1 / 3)
    recall = by_query(evaluation, "baseline", "R")
    assert recall["q04"] == pytest.approx(0.75)
    assert recall["q09"] == pytest.approx(1 / 3)
    assert by_query(evaluation, "baseline", "P")["q10"] == pytest.approx(0.4)
    assert by_query(evaluation, "baseline", "repeats")["q10"] == 1


def test_min_denominator_for_q09():
    evaluation = load_sample(k=5, conventions=Conventions(recall_denominator="min"))
    assert by_query(evaluation, "baseline", "R")["q09"] == pytest.approx(0.4)


def test_hit_at_10_in_the_sweep(baseline):
    evaluation, _ = baseline
    sweep = evaluation.sweep()
    row = sweep[(sweep.run == "baseline") & (sweep.k == 10)]
    assert row["Hit"].item() == pytest.approx(8 / 9)


def test_sample_has_three_runs_over_one_query_set(baseline):
    evaluation, _ = baseline
    assert evaluation.run_names == ["baseline", "reranked", "bm25"]
    reranked = evaluation.run("reranked").summary["nDCG"].mean
    assert reranked > evaluation.run("baseline").summary["nDCG"].mean
