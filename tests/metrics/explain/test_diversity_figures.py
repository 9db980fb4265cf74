"""The diversity measures written out for one query (the drill-down's arithmetic): the
subtopics each rank covers with their novelty discount, and terms over a denominator that
give the engine's figure."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import Qrels, SubtopicQrels, Subtopics, evaluate, load_run
from metrics.explain.figures import explain_figures
from tests.metrics.core.test_diversity import _collection
from tests.metrics.explain.test_figures import assert_written_out

ASKED = ["alpha_nDCG@10", "alpha_nDCG(alpha=0.3)@3", "ERR_IA@1", "ERR_IA@10", "nERR_IA@5",
         "NRBP", "NRBP(alpha=0.75,beta=0.8)", "P_IA@5", "AP_IA", "StRecall@3"]


def _evaluation(rows, run_text: bytes, k: int = 5):
    best: dict[tuple[str, str], int] = {}
    for q, _, d, g in rows:
        best[q, d] = max(best.get((q, d), g), g)
    queries = list(dict.fromkeys(q for q, *_ in rows))
    qrels = Qrels.from_rows("qrels", queries, [q for q, _ in best], [d for _, d in best],
                            list(best.values()), list(range(1, len(best) + 1)))
    run, _ = load_run(run_text, file_name="run.txt")
    return evaluate(qrels, [run], k, measures=ASKED,
                    subtopics=Subtopics(SubtopicQrels.from_rows(rows)))


@pytest.mark.parametrize("seed", range(6))
def test_written_out_gives_the_engines_figures(seed):
    rows, run_text = _collection(np.random.default_rng(seed))
    assert_written_out(_evaluation(rows, run_text))


def test_the_ranks_subtopics_and_novelty_discount_are_stated():
    rows = [("q", "A", "d1", 1), ("q", "A", "d2", 1), ("q", "B", "d2", 1), ("q", "B", "d3", 1)]
    evaluation = _evaluation(rows, b"q Q0 d1 1 3 r\nq Q0 d3 2 2 r\nq Q0 d2 3 1 r\n")
    said = {x.label: x.sentence for x in explain_figures(evaluation, evaluation.runs[0], "q")}
    ndcg = said["alpha_nDCG(alpha=0.5)@10"]
    assert "rank 1 covers A: gain 1" in ndcg
    assert "rank 3 covers A (seen 1×: 0.500), B (seen 1×: 0.500): gain 1" in ndcg
    assert "gains 2.000 + 0.500 + 0.500 at ranks 1, 2" in ndcg
    assert "rank 1 first covers A; rank 2 first covers B" in said["StRecall@3"]
    assert "A: 0.833, B: 0.583" in said["AP_IA"]
