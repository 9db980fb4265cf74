"""Every worked figure of the seeds, to the precision the seeds print."""

from __future__ import annotations

import pytest

from metrics.core.evaluate import evaluate
from metrics.vocabulary.conventions import Conventions
from tests.metrics.builders import make_qrels, make_run


def scores_at(judgments, lists, k, **conventions):
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], k, Conventions(**conventions))
    return evaluation, evaluation.per_query_scores("run")


# seed 000: six retrieved ids with grades 3, 2, 3, 0, 1, 2 in rank order
NDCG_LIST = {"q": ["a", "b", "c", "z", "e", "f"]}
NDCG_GRADES = {"a": 3, "b": 2, "c": 3, "z": 0, "e": 1, "f": 2}


def test_seed000_ndcg_worked_example():
    _, at6 = scores_at({"q": NDCG_GRADES}, NDCG_LIST, 6)
    assert at6["DCG"][0] == pytest.approx(6.861, abs=5e-4)
    assert at6["IDCG"][0] == pytest.approx(7.141, abs=5e-4)
    assert at6["nDCG"][0] == pytest.approx(0.961, abs=5e-4)


def test_seed000_ndcg_with_unretrieved_relevant_ids():
    grades = NDCG_GRADES | {"never1": 3, "never2": 2}
    _, at6 = scores_at({"q": grades}, NDCG_LIST, 6)
    assert at6["DCG"][0] == pytest.approx(6.861, abs=5e-4)
    assert at6["IDCG"][0] == pytest.approx(8.740, abs=5e-4)
    assert at6["nDCG"][0] == pytest.approx(0.785, abs=5e-4)


def test_seed000_exponential_gain_changes_nothing_for_binary_labels():
    judgments = {"q": {"a": 1, "c": 1, "x": 1}}
    _, linear = scores_at(judgments, NDCG_LIST, 6)
    _, exponential = scores_at(judgments, NDCG_LIST, 6, gain="exponential")
    assert exponential["nDCG"][0] == pytest.approx(linear["nDCG"][0], abs=1e-12)
    _, graded = scores_at({"q": NDCG_GRADES}, NDCG_LIST, 6, gain="exponential")
    assert graded["DCG"][0] == pytest.approx(
        7 + 3 / 1.5849625 + 7 / 2 + 1 / 2.5849625 + 3 / 2.8073549, abs=1e-6
    )


def ranks_list(relevant_ranks, length=10, tag="x"):
    return [
        f"{tag}rel{r}" if r in relevant_ranks else f"{tag}noise{r}" for r in range(1, length + 1)
    ]


def test_seed000_map_worked_example():
    first = ranks_list({1, 3, 6, 9, 10}, tag="a")
    second = ranks_list({2, 5, 7}, tag="b")
    judgments = {
        "q1": {d: 1 for d in first if "rel" in d},
        "q2": {d: 1 for d in second if "rel" in d},
    }
    evaluation, at10 = scores_at(judgments, {"q1": first, "q2": second}, 10)
    assert at10["AP"][0] == pytest.approx(0.622, abs=5e-4)
    assert at10["AP"][1] == pytest.approx(0.443, abs=5e-4)
    assert evaluation.run("run").summary["AP"].mean == pytest.approx(0.533, abs=5e-4)


def test_seed003_langcopilot_list():
    judgments = {"q": {"doc3": 1, "doc5": 1, "doc10": 1}}
    _, at5 = scores_at(judgments, {"q": ["doc2", "doc5", "doc3", "doc8", "doc7"]}, 5)
    assert at5["P"][0] == pytest.approx(0.40)
    assert at5["R"][0] == pytest.approx(0.67, abs=5e-3)
    assert at5["Hit"][0] == 1
    assert at5["RR"][0] == pytest.approx(0.50)
    assert at5["AP"][0] == pytest.approx(0.39, abs=5e-3)
    assert at5["nDCG"][0] == pytest.approx(0.53, abs=5e-3)
    assert at5["DCG"][0] == pytest.approx(1.1309, abs=5e-5)
    assert at5["IDCG"][0] == pytest.approx(2.1309, abs=5e-5)


PASTRY_RUN = {"q": ["donut", "bagel", "muffin", "croissant"]}


def test_seed003_weaviate_pastry_precision_recall():
    _, at4 = scores_at({"q": {"donut": 1, "muffin": 1, "scone": 1}}, PASTRY_RUN, 4)
    assert at4["P"][0] == pytest.approx(0.5)
    assert at4["R"][0] == pytest.approx(2 / 3)


def test_seed003_weaviate_pastry_map():
    _, at4 = scores_at({"q": {"donut": 1, "muffin": 1}}, PASTRY_RUN, 4)
    assert at4["AP"][0] == pytest.approx(0.8333, abs=5e-5)


def test_seed003_weaviate_jam_graded_ndcg():
    judgments = {"q": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}}
    _, at4 = scores_at(judgments, {"q": ["pretzel", "bagel", "muffin", "donut"]}, 4)
    assert at4["nDCG"][0] == pytest.approx(0.467239, abs=5e-7)
    assert at4["P"][0] == pytest.approx(0.75)
    assert at4["R"][0] == pytest.approx(0.5)
    assert at4["RR"][0] == pytest.approx(0.5)
