"""--unjudged drop: judged-only scoring (condensed lists, Sakai 2007; trec_eval -J). Checked
against scoring the lists with every unjudged id removed by a plain loop, and against
pytrec_eval's judged_docs_only_flag on random collections."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from metrics import Conventions, evaluate, load_qrels, load_run
from metrics.cli import main
from metrics.vocabulary import SUMMARY_MEASURES
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_against_trec_eval import random_collection, write_files


def collection(seed: int):
    """Lists full of unjudged ids, with repeats (of judged and unjudged ids alike)."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(40)]
    judgments = {f"q{i}": {str(d): int(rng.integers(-1, 4))
                           for d in rng.choice(docs, 8, replace=False)} for i in range(15)}
    lists = {}
    for q in judgments:
        picked = list(rng.choice(docs, int(rng.integers(1, 15)), replace=False))
        picked += list(rng.choice(picked, int(rng.integers(0, 3))))  # repeats
        lists[q] = [str(d) for d in rng.permutation(picked)]
    return judgments, lists


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 5, 20])
def test_dropping_equals_scoring_the_lists_without_unjudged_ids(seed, k):
    judgments, lists = collection(seed)
    qrels = make_qrels(judgments)
    dropped = evaluate(qrels, [make_run(lists, name="r")], k, Conventions(unjudged="drop"))
    judged_only = {q: [d for d in docs if judgments[q].get(d, -1) >= 0]
                   for q, docs in lists.items()}
    expected = evaluate(qrels, [make_run(judged_only, name="r")], k)
    for m in SUMMARY_MEASURES:
        assert dropped.runs[0].summary[m.key] == expected.runs[0].summary[m.key], m.key
    per_query = dropped.per_query_scores("r")
    for key, values in expected.per_query_scores("r").items():
        np.testing.assert_array_equal(per_query[key], values, err_msg=key)
    as_read = evaluate(qrels, [make_run(lists, name="r")], k)
    assert as_read.runs[0].summary["Judged"].mean < 1  # the collection has unjudged ids


@pytest.mark.parametrize("seed", range(25))
def test_agrees_with_pytrec_eval_judged_docs_only(tmp_path, seed):
    qrels, run = random_collection(seed)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    measures = {"P.1,5,10", "recall.5,10", "ndcg_cut.5,10", "map_cut.5,10"}
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, measures, judged_docs_only_flag=True).evaluate(run)
    labels, _ = load_qrels(qrels_path)
    loaded, _ = load_run(run_path, labels=labels)
    names = {"P": "P", "R": "recall", "nDCG": "ndcg_cut", "AP": "map_cut"}
    compared = 0
    for k in (5, 10):
        evaluation = evaluate(labels, [loaded], k, Conventions(unjudged="drop"))
        ids = list(evaluation.query_set.query_ids)
        values = evaluation.run("run").scores.at(k)
        for qid, theirs in reference.items():
            row = ids.index(qid)
            if not evaluation.scored[row]:
                continue
            for ours, name in names.items():
                assert values[ours][row] == pytest.approx(theirs[f"{name}_{k}"], abs=1e-12), (
                    qid, ours, k)
                compared += 1
    assert compared > 0


def test_the_load_report_counts_the_ids_left_out(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 x 1 9 r\nq1 Q0 d1 2 8 r\nq2 Q0 d2 1 9 r\nq2 Q0 y 2 8 r\n")
    assert main(["--qrels", str(qrels), "--run", str(run), "--k", "1",
                 "--unjudged", "drop", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "judged only: 2 retrieved ids without a grade >= 0 for their query, in 2 queries" in err
    assert '"P@1":{"mean":1.0' in out  # d1 moved up to rank 1
    assert main(["--qrels", str(qrels), "--run", str(run), "--k", "1", "--format", "json"]) == 0
    assert '"P@1":{"mean":0.5' in capsys.readouterr().out
    assert "judged ids only" in " ".join(Conventions(unjudged="drop").in_words())
    with pytest.raises(ValueError, match="unjudged must be one of nonrelevant, drop"):
        Conventions(unjudged="skip")


@pytest.mark.parametrize(("unjudged", "empty_queries"),
                         [("nonrelevant", "exclude"), ("drop", "exclude"), ("drop", "zero")])
def test_one_figure_by_query_is_evaluate_s(unjudged, empty_queries):
    """figure_by_query (what the weight search reads per weight) scores as evaluate does,
    under the conventions that change which ids and queries count."""
    from metrics.core.evaluate import figure_by_query

    judgments, lists = collection(4)
    judgments["q_empty"] = {"d1": 0}
    qrels = make_qrels(judgments)
    runs = [make_run(lists, name="a"), make_run({q: ids[::-1] for q, ids in lists.items()},
                                                name="b")]
    conventions = Conventions(unjudged=unjudged, empty_queries=empty_queries)
    evaluation = evaluate(qrels, runs, 5, conventions)
    for key in ("nDCG", "AP", "RR", "P"):
        table, ids, label = figure_by_query(qrels, runs, 5, key, conventions)
        assert ids == evaluation.scored_ids and label == evaluation.label(key, summary=False)
        for column, run in enumerate(runs):
            assert table[:, column].tolist() == evaluation.per_query_scores(
                run.name)[key].tolist(), (key, run.name)
    with pytest.raises(ValueError, match="'Rprec' is not among the figures"):
        figure_by_query(qrels, runs, 5, "Rprec", conventions)
