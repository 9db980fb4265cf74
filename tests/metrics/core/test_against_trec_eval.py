"""Per-query agreement with pytrec_eval (trec_eval's own code) on random collections.

The collections have graded, zero and negative labels, unjudged ids, tied scores (which
trec_eval breaks by doc_id descending) and queries the run never answers. The files are
written in shuffled line order so the loader's ordering is under test too.

Score precision: the scores here are multiples of 0.5, exact in 32 bits, so trec_eval 10's
doubles (the default, score_precision="double") and pytrec_eval's float32 order them alike;
these tests use the default. tests/metrics/core/test_trec_eval_conventions.py covers scores that
only float32 ties, under score_precision="float32".
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from metrics.core.evaluate import evaluate
from metrics.io import load_qrels, load_run
from metrics.vocabulary.conventions import Conventions

CUTOFFS = (1, 2, 3, 5, 10, 20)
MEASURES = {"P": "P", "R": "recall", "AP": "map_cut", "nDCG": "ndcg_cut"}


def random_collection(seed: int):
    rng = np.random.default_rng(seed)
    pool = [f"doc{i}" for i in range(int(rng.integers(5, 60)))]
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 25))):
        qid = f"q{q}"
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
        qrels[qid] = {d: int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for d in judged}
        if rng.random() < 0.1:
            continue  # a query the run never answers
        returned = rng.choice(
            pool, size=int(rng.integers(1, min(len(pool), 30) + 1)), replace=False
        )
        run[qid] = {d: float(rng.integers(0, 8)) / 2 for d in returned}  # many ties
    return qrels, run


def trec_eval_ndcg(qrels: dict, run: dict) -> dict[str, float]:
    """pytrec_eval's ndcg (the whole list) of every query with a relevant id. A query whose
    judgments are all negative is left out: there pytrec_eval 0.5 at times never returns (its
    gain table holds no grade to rank), and such a query is not scored anyway."""
    judged = {q: docs for q, docs in qrels.items() if any(g > 0 for g in docs.values())}
    found = pytrec_eval.RelevanceEvaluator(judged, {"ndcg"}).evaluate(
        {q: docs for q, docs in run.items() if q in judged})
    return {q: values["ndcg"] for q, values in found.items()}


def write_files(tmp_path, qrels, run, rng):
    qrels_lines = [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]
    run_lines = [f"{q} Q0 {d} 0 {s} tag" for q, docs in run.items() for d, s in docs.items()]
    # shuffle within queries only: the loader keeps queries in first-appearance order
    (tmp_path / "qrels.txt").write_text("\n".join(rng.permutation(qrels_lines)) + "\n")
    (tmp_path / "run.txt").write_text("\n".join(rng.permutation(run_lines)) + "\n")
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.mark.parametrize("against_labels", [False, True], ids=["run alone", "labels="])
@pytest.mark.parametrize("seed", range(40))
def test_per_query_agreement(tmp_path, seed, against_labels):
    """Both ways of loading a run: alone (align matches its ids) and against the labels."""
    qrels, run = random_collection(seed)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    measures = {f"{name}.{','.join(map(str, CUTOFFS))}" for name in MEASURES.values()}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures | {"recip_rank", "map"}).evaluate(
        run
    )
    whole_list = trec_eval_ndcg(qrels, run)

    labels, _ = load_qrels(qrels_path)
    loaded, _ = load_run(run_path, labels=labels if against_labels else None)
    assert (loaded.labels is labels.doc_names) == against_labels
    full = evaluate(labels, [loaded], max(CUTOFFS), Conventions(rr="full", ap="full"))
    # trec_eval's ndcg: the whole list over the IDCG of every judged relevant id, whatever K
    at_k = evaluate(labels, [loaded], max(CUTOFFS), measures=["ndcg"])
    whole = at_k.run("run").curves(at_k.resolve("ndcg").key)
    query_ids = list(at_k.query_set.query_ids)
    scored = at_k.query_set.scored
    compared = 0
    for qid, expected in reference.items():
        row = query_ids.index(qid)
        if not scored[row]:
            continue
        compared += 1
        values = at_k.run("run").scores.values
        for ours, theirs in MEASURES.items():
            for k in CUTOFFS:
                assert values[ours][row, k - 1] == pytest.approx(
                    expected[f"{theirs}_{k}"], abs=1e-9
                ), (qid, ours, k)
        full_values = full.run("run").scores.values
        assert full_values["RR"][row, 0] == pytest.approx(expected["recip_rank"], abs=1e-9)
        assert full_values["AP"][row, 0] == pytest.approx(expected["map"], abs=1e-9)
        for k in (1, *CUTOFFS):
            assert whole[row, k - 1] == pytest.approx(whole_list[qid], abs=1e-9), (qid, k)
    assert compared or not scored.any()
