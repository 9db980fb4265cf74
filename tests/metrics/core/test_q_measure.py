"""Q-measure (Sakai) against NTCIREVAL's Python port (pyNTCIREVAL, gain = the grade) on random
graded collections, over the whole list and at a cutoff, and on a small example worked by
hand; beta = 0 gives AP; its drill-down terms give the engine's figure."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import Conventions, Qrels, Run, evaluate
from metrics.explain.figures import explain_figures
from tests.metrics.explain.test_figures import assert_written_out

MAX_K = 1000  # past every list: the whole list


def _collection(rng: np.random.Generator):
    judgments, lists = {}, {}
    for q in range(int(rng.integers(1, 5))):
        docs = rng.choice(30, int(rng.integers(1, 15)), replace=False)
        judgments[f"q{q}"] = {f"d{i}": int(rng.integers(0, 4)) for i in docs}
        lists[f"q{q}"] = [f"d{i}" for i in rng.choice(40, int(rng.integers(1, 25)),
                                                        replace=False)]
    return judgments, lists


def _evaluate(judgments, lists, k, measures, conventions=None):
    rows = [(q, d, g) for q, docs in judgments.items() for d, g in docs.items()]
    qrels = Qrels.from_rows("qrels", list(judgments), [r[0] for r in rows],
                            [r[1] for r in rows], [r[2] for r in rows],
                            list(range(1, len(rows) + 1)))
    return evaluate(qrels, [Run.from_lists("r", lists)], k, conventions, measures=measures)


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_ntcireval(seed):
    ntcireval = pytest.importorskip("pyNTCIREVAL.metrics")
    rng = np.random.default_rng(seed)
    judgments, lists = _collection(rng)
    beta = float(rng.choice([1.0, 0.5, 0.0, 2.0]))
    k = int(rng.choice([3, 5, 10]))
    name = "Q" if beta == 1 else f"Q(beta={beta:g})"
    whole = _evaluate(judgments, lists, k, [name])
    # at a cutoff NTCIREVAL divides by min(R, K): recall_denominator=min here
    clipped = _evaluate(judgments, lists, k, [name], Conventions(recall_denominator="min"))
    for evaluation, cutoff in ((whole, None), (clipped, k)):
        curves = evaluation.runs[0].curves(evaluation.asked[0].key)
        for row, query in enumerate(evaluation.query_set.query_ids):
            docs = judgments[query]
            if not any(g > 0 for g in docs.values()):
                continue
            counts = [sum(1 for g in docs.values() if g == level) for level in range(4)]
            measure = ntcireval.QMeasure(counts, [1, 2, 3], beta, cutoff=cutoff)
            expected = measure.compute([(d, docs.get(d, 0)) for d in lists[query]])
            ours = curves[row, (cutoff or MAX_K) - 1]
            assert ours == pytest.approx(expected, abs=1e-12), (query, beta, cutoff)


def test_hand_worked_example():
    """Grades a: 3, b: 2, c: 1 (R = 3; ideal gains 3, 2, 1); the list c, x, a. Rank 1: (1 +
    1) / (1 + 3) = 0.5; rank 3: (2 + 4) / (3 + 6) = 2/3; Q = (0.5 + 2/3) / 3."""
    evaluation = _evaluate({"q": {"a": 3, "b": 2, "c": 1, "x": 0}}, {"q": ["c", "x", "a"]}, 5,
                           ["Q"])
    assert evaluation.runs[0].curves("Q")[0, 4] == pytest.approx((0.5 + 2 / 3) / 3)
    (written,) = explain_figures(evaluation, evaluation.runs[0], "q")
    assert "rank 1: (1 + 1 × 1) / (1 + 1 × 3) = 0.500" in written.sentence
    assert "rank 3: (2 + 1 × 4) / (3 + 1 × 6) = 0.667" in written.sentence


def test_beta_zero_is_ap():
    judgments, lists = _collection(np.random.default_rng(7))
    evaluation = _evaluate(judgments, lists, 10, ["Q(beta=0)"])
    run = evaluation.runs[0]
    q, ap = run.curves(evaluation.asked[0].key), run.curves("AP")  # AP@K (map_cut_K)
    np.testing.assert_allclose(q[:, :30], ap[:, :30], atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_written_out_gives_the_engines_figures(seed):
    judgments, lists = _collection(np.random.default_rng(seed))
    assert_written_out(_evaluate(judgments, lists, 5, ["Q", "Q(beta=0.5)@3"]))
