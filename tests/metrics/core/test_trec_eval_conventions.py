"""The conventions that reproduce trec_eval's published numbers: score_precision="float32"
(trec_eval 9 and pytrec_eval) on scores that differ beyond 32 bits, and empty_queries="zero"
(trec_eval -c's "all" line, queries without a relevant id scored 0)."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from metrics import Conventions, evaluate, load_qrels, load_run

TIE_QRELS = b"q 0 a 1\nq 0 b 0\n"
TIE_RUN = b"q Q0 a 1 1.00000001 t\nq Q0 b 2 1.0 t\n"


def tie_scores(precision: str) -> dict[str, float]:
    conventions = Conventions(score_precision=precision, rr="full")
    qrels, _ = load_qrels(TIE_QRELS, file_name="q.txt")
    run, _ = load_run(TIE_RUN, file_name="r.run", score_precision=precision)
    at_1 = evaluate(qrels, [run], 1, conventions).runs[0].summary
    return {"P": at_1["P"].mean, "RR": at_1["RR"].mean}


def test_the_issue_tie_example_under_each_precision():
    # trec_eval 10.0: P_1 = 1, recip_rank = 1; pytrec_eval (float32): P@1 = 0, RR = 0.5
    assert tie_scores("double") == {"P": 1.0, "RR": 1.0}
    assert tie_scores("float32") == {"P": 0.0, "RR": 0.5}
    reference = pytrec_eval.RelevanceEvaluator(
        {"q": {"a": 1, "b": 0}}, {"P.1", "recip_rank"}
    ).evaluate({"q": {"a": 1.00000001, "b": 1.0}})["q"]
    assert (reference["P_1"], reference["recip_rank"]) == (0.0, 0.5)


def close_scores_collection(seed: int):
    """Scores printed to 10 decimals around 1.0: many pairs tie only as float32."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{i}" for i in range(40)]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 1, 2])) for d in docs[:25]}
        run[f"q{q}"] = {d: float(f"{1 + rng.integers(0, 20) * 1e-8:.10f}") for d in docs}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_float32_agrees_with_pytrec_eval_on_scores_closer_than_32_bits(tmp_path, seed):
    qrels, run = close_scores_collection(seed)
    (tmp_path / "q.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()))
    (tmp_path / "r.run").write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, ds in run.items() for d, s in ds.items()))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "ndcg_cut.10"}).evaluate(run)
    labels, _ = load_qrels(tmp_path / "q.txt")
    differs = False
    for precision in ("float32", "double"):
        loaded, _ = load_run(tmp_path / "r.run", score_precision=precision)
        evaluation = evaluate(labels, [loaded], 10, Conventions(score_precision=precision))
        values = evaluation.runs[0].scores.values
        ids = list(evaluation.query_set.query_ids)
        ours = {q: (values["P"][ids.index(q), 4], values["nDCG"][ids.index(q), 9])
                for q in reference}
        theirs = {q: (r["P_5"], r["ndcg_cut_10"]) for q, r in reference.items()}
        if precision == "float32":
            for q in reference:
                assert ours[q] == pytest.approx(theirs[q], abs=1e-9), q
        else:
            differs = any(ours[q] != pytest.approx(theirs[q], abs=1e-9) for q in reference)
    assert differs  # the collection does exercise ties that only float32 sees


def test_zero_reproduces_trec_eval_c_all_line():
    """trec_eval -c averages over every qrels query, one without a relevant id scoring 0."""
    qrels = {f"q{i}": {"a": 1, "b": 0, "c": 2} for i in range(30)}
    qrels["q30"] = {"a": 0, "b": 0}  # no relevant id
    run = {q: {"a": 3.0, "x": 2.0, "c": 1.0} for q in qrels if q != "q7"}  # q7 unanswered
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "map", "recip_rank"}).evaluate(run)
    trec_eval_c = {m: sum(reference.get(q, {}).get(m, 0.0) for q in qrels) / len(qrels)
                   for m in ("P_5", "map", "recip_rank")}
    lines = "".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items())
    run_lines = "".join(f"{q} Q0 {d} 0 {s} t\n" for q, ds in run.items() for d, s in ds.items())
    labels, _ = load_qrels(lines.encode(), file_name="q.txt")
    loaded, _ = load_run(run_lines.encode(), file_name="r.run")
    zero = evaluate(labels, [loaded], 5, Conventions(empty_queries="zero", rr="full", ap="full"))
    summary = zero.runs[0].summary
    assert summary["P"].mean == pytest.approx(trec_eval_c["P_5"], abs=1e-12)
    assert summary["AP"].mean == pytest.approx(trec_eval_c["map"], abs=1e-12)
    assert summary["RR"].mean == pytest.approx(trec_eval_c["recip_rank"], abs=1e-12)
    assert zero.excluded_ids == [] and zero.empty_ids == ["q30"]


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_zero_scales_every_mean_by_the_scored_share(k, sample):
    """Under zero every mean over N queries, E of them without a relevant id, equals the
    default mean times (N - E) / N (Judged@K aside: a list for such a query has labels)."""
    from metrics import load_sample

    default = load_sample(k)
    zero = load_sample(k, Conventions(empty_queries="zero"))
    n, e = len(zero.scored_ids), len(default.excluded_ids)
    assert e >= 1 and len(zero.excluded_ids) == 0
    for ours, theirs in zip(zero.runs, default.runs, strict=True):
        for key, interval in ours.summary.items():
            if key == "Judged":
                continue
            assert interval.mean == pytest.approx(theirs.summary[key].mean * (n - e) / n)
