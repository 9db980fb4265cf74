"""The measures scored on request, checked against references per query.

- Rprec, Bpref, infAP, Success@K and the counts against pytrec_eval (trec_eval's own code),
  and the interpolated precisions against it where trec_eval 9's rounding of the level's
  count of relevant ids (pytrec_eval's) and trec_eval 10.0's agree; against a plain loop
  written from trec_eval 10.0's source at every level. Random collections with graded, zero
  and negative labels, unjudged ids, tied scores, repeats, queries the run never answers and
  queries with no relevant id; under the default conventions, at relevance level 2 and on
  judged-only lists (trec_eval -l 2, -J).
- ERR against a plain loop written from Chapelle et al. (2009), RBP from Moffat and Zobel
  (2008), and RBP's residual against brute force: every unknown id of the list, and every
  empty slot up to K, made relevant.

pytrec_eval takes a run as {doc: score}, so it cannot hold a repeat; this tool scores a
repeat as a slot that holds an id nobody judged, so the reference's run carries a fresh
unjudged id in its place (its score is unique, so the tie order is the same). Judged-only
lists keep a repeat of a judged id, which no trec_eval run can: that reading has none.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from metrics.core.evaluate import evaluate
from metrics.core.kernel import compute
from metrics.core.prepared import prepare
from metrics.io import load_qrels, load_run
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.measures import STANDARD_RECALL
from tests.marks import thorough_after
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_against_trec_eval import random_collection
from tests.metrics.core.test_unjudged import collection as unjudged_collection

ON_REQUEST = ("Rprec", "Bpref", "infAP", "IPrec", "Success", "ERR", "RBP", "RBPresid", "NumRet",
              "NumRel", "NumRelRet")
# ours -> pytrec_eval's, per query
WHOLE_LIST = {"Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP", "NumRet": "num_ret",
              "NumRel": "num_rel", "NumRelRet": "num_rel_ret"}
SUCCESS_AT = (1, 5, 10)
READINGS = {
    "default": (Conventions(), {}),
    "level 2": (Conventions(relevance_level=2), {"relevance_level": 2}),
    "judged only": (Conventions(unjudged="drop"), {"judged_docs_only_flag": True}),
}


def collection(seed: int, *, repeats: bool = True):
    """qrels and a run as lines (test_against_trec_eval's collection, repeats added), and the
    reference's run (repeats as fresh unjudged ids)."""
    qrels, run = random_collection(seed)
    rng = np.random.default_rng(seed + 1000)
    lines, reference = [], {}
    for qid, scores in run.items():
        reference[qid] = dict(scores)
        lines += [f"{qid} Q0 {d} 0 {score} tag" for d, score in scores.items()]
        for i, d in enumerate(rng.choice(list(scores), size=int(rng.integers(0, 3) * repeats))):
            score = scores[d] - 0.25 - i / 64  # below its first occurrence, tied with nothing
            lines.append(f"{qid} Q0 {d} 0 {score} tag")
            reference[qid][f"repeat{i}_{d}"] = score
    return qrels, rng.permutation(lines), reference


def scored(tmp_path, seed, conventions):
    # judged-only lists keep a repeat of a judged id as a slot, where trec_eval -J would
    # drop the fresh unjudged id standing for it: no repeats there
    qrels, lines, reference = collection(seed, repeats=conventions.unjudged != "drop")
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    labels, _ = load_qrels(tmp_path / "qrels.txt")
    run, _ = load_run(tmp_path / "run.txt", labels=labels)
    evaluation = evaluate(labels, [run], 10, conventions,
                          measures=["Rprec", "Bpref", "infAP", "NumRet", "NumRel", "NumRelRet",
                                    *(f"IPrec@{x}" for x in STANDARD_RECALL),
                                    *(f"Success@{k}" for k in SUCCESS_AT)])
    return qrels, reference, evaluation


def lround_count(level: float, r: int) -> int:
    """trec_eval 10.0: lround(level * R); trec_eval 9 (and pytrec_eval): (long)(x + 0.9)."""
    return int(math.floor(level * r + 0.5))


def trec_eval_10_iprec(relevant: list[bool], r: int, level: float) -> float:
    """trec_eval 10.0's m_iprec_at_recall.c, one level, as a plain loop."""
    needed = lround_count(level, r)
    found = sum(relevant)
    if needed > found:
        return 0.0
    best, so_far = (found / len(relevant) if relevant else 0.0), found
    for i in range(len(relevant), 0, -1):
        if so_far == 0:
            break
        best = max(best, so_far / i)
        if relevant[i - 1]:
            if so_far == needed:
                return best
            so_far -= 1
    return best


@pytest.mark.parametrize("reading", list(READINGS))
@pytest.mark.parametrize("seed", thorough_after(range(60), 12))
def test_agrees_with_pytrec_eval_per_query(tmp_path, seed, reading):
    conventions, options = READINGS[reading]
    qrels, reference_run, evaluation = scored(tmp_path, seed, conventions)
    measures = {"Rprec", "bpref", "infAP", "iprec_at_recall", "num_ret", "num_rel",
                "num_rel_ret", "success.1,5,10"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(
        reference_run)
    ids = list(evaluation.query_set.query_ids)
    run = evaluation.runs[0]
    compared = 0
    for qid, theirs in reference.items():
        row = ids.index(qid)
        values = {key: float(run.curves(key)[row, 0]) for key in run.asked}
        for ours, name in WHOLE_LIST.items():
            assert values[ours] == pytest.approx(theirs[name], abs=1e-12), (qid, ours)
        for k in SUCCESS_AT:
            assert run.curves("Success@1")[row, k - 1] == theirs[f"success_{k}"], (qid, k)
        r = int(evaluation.query_set.n_relevant[row])
        for level in STANDARD_RECALL:
            expected = theirs[f"iprec_at_recall_{level:.2f}"]
            if math.isnan(expected):  # a list judged-only scoring left empty: 0 / 0 there
                assert values[f"IPrec@{level:g}"] == 0.0
            elif lround_count(level, r) == int(level * r + 0.9):  # both roundings agree
                assert values[f"IPrec@{level:g}"] == pytest.approx(expected, abs=1e-12), (
                    qid, level)
                compared += 1
        compared += len(WHOLE_LIST) + len(SUCCESS_AT)
    assert compared or not reference


@pytest.mark.parametrize("seed", range(8))
def test_interpolated_precision_is_trec_eval_10s_at_every_level(tmp_path, seed):
    _, _, evaluation = scored(tmp_path, seed, Conventions())
    run = evaluation.runs[0]
    a = run.aligned
    for row in range(len(evaluation.query_set.query_ids)):
        length = int(a.list_length[row])
        relevant = [bool(x) for x in a.relevant[row, :length]]
        r = int(evaluation.query_set.n_relevant[row])
        for level in STANDARD_RECALL:
            expected = trec_eval_10_iprec(relevant, r, level) if length else 0.0
            assert run.curves(f"IPrec@{level:g}")[row, 0] == pytest.approx(expected), (row,
                                                                                     level)


# --------------------------------------------------------------------------- ERR and RBP


def small_collection(seed: int):
    """test_unjudged's lists (graded and negative labels, unjudged ids, repeats), a grade of
    4 somewhere and a query without a list."""
    judgments, lists = unjudged_collection(seed)
    judgments["q0"] = judgments["q0"] | {"d39": 4}
    return judgments | {"empty": {"d1": 1}}, lists | {"empty": []}


def err_loop(grades: list[int], max_grade: int, k: int) -> float:
    """Chapelle, Metzler, Zhang and Grinspan (2009), Algorithm 2: the cascade, rank by rank."""
    err, p = 0.0, 1.0
    for rank, grade in enumerate(grades[:k], 1):
        stop = (2 ** max(grade, 0) - 1) / 2 ** max_grade
        err += p * stop / rank
        p *= 1 - stop
    return err


def rbp_loop(relevant: list[bool], p: float, k: int) -> float:
    """Moffat and Zobel (2008), equation 2: (1 - p) sum of p^(i - 1) over relevant ranks."""
    return (1 - p) * sum(p ** i for i, rel in enumerate(relevant[:k]) if rel)


def first_grades(judgments: dict[str, int], docs: list[str]) -> tuple[list[int], list[bool]]:
    """Each slot's grade as scored (a repeat and an unjudged id give nothing), and whether
    the slot is unknown: an id with no grade of 0 or more, not a repeat."""
    seen, grades, unknown = set(), [], []
    for doc in docs:
        repeat = doc in seen
        seen.add(doc)
        grade = judgments.get(doc)
        grades.append(0 if repeat or grade is None else grade)
        unknown.append(not repeat and (grade is None or grade < 0))
    return grades, unknown


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_err_and_rbp_agree_with_loops_from_the_papers(seed, p):
    judgments, lists = small_collection(seed)
    qrels = make_qrels(judgments)
    top = max(max(g.values(), default=0) for g in judgments.values())
    evaluation = evaluate(qrels, [make_run(lists)], 5, measures=[f"RBP(p={p})", "ERR"])
    run = evaluation.runs[0]
    ids = list(evaluation.query_set.query_ids)
    for q, docs in lists.items():
        row = ids.index(q)
        grades, _ = first_grades(judgments[q], docs)
        relevant = [g >= 1 for g in grades]
        for k in (1, 3, 5, 10, 25, 1000):
            assert run.curves("ERR")[row, k - 1] == pytest.approx(
                err_loop(grades, max(top, 1), k), abs=1e-12), (q, k)
            assert run.curves(f"RBP(p={p:g})")[row, k - 1] == pytest.approx(
                rbp_loop(relevant, p, k), abs=1e-12), (q, k)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_residual_is_what_making_every_unknown_id_relevant_adds(seed, p):
    """Brute force: the list with every unknown id relevant and padded with relevant ids up
    to K scores RBP + residual at K."""
    judgments, lists = small_collection(seed)
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], 5,
                          measures=[f"RBP(p={p})"])
    run = evaluation.runs[0]
    ids = list(evaluation.query_set.query_ids)
    for q, docs in lists.items():
        row = ids.index(q)
        grades, unknown = first_grades(judgments[q], docs)
        for k in (1, 2, 5, 10, 40, 1000):
            best = [g >= 1 or u for g, u in zip(grades, unknown, strict=True)]
            best += [True] * max(k - len(best), 0)  # the slots past the list's end
            rbp = run.curves(f"RBP(p={p:g})")[row, k - 1]
            residual = run.curves(f"RBPresid(p={p:g})")[row, k - 1]
            assert rbp + residual == pytest.approx(rbp_loop(best, p, k), abs=1e-12), (q, k)
            assert residual >= -1e-15


def test_err_reads_the_highest_grade_of_the_whole_qrels():
    """ERR's scale is the collection's: a grade of 2 stops a reader with probability 3/4 when
    2 is the top grade, 3/8 when another query holds a 3."""
    lists = {"q1": ["a"]}
    alone = evaluate(make_qrels({"q1": {"a": 2}}), [make_run(lists)], 1, measures=["ERR"])
    crowded = evaluate(make_qrels({"q1": {"a": 2}, "q2": {"b": 3}}),
                       [make_run(lists | {"q2": []})], 1, measures=["ERR"])
    assert alone.runs[0].curves("ERR")[0, 0] == pytest.approx(3 / 4)
    assert crowded.runs[0].curves("ERR")[0, 0] == pytest.approx(3 / 8)
    assert crowded.query_set.max_grade.tolist() == [3, 3]  # on every row: a block carries it


def test_whole_list_measures_read_the_same_at_every_k():
    judgments = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
    lists = {"q1": ["x", "a", "b", "c"], "q2": ["d"]}
    prepared = prepare(make_qrels(judgments), [make_run(lists)])
    scores = compute(prepared.query_set, prepared.aligned[0], Conventions(), ON_REQUEST)
    figures = scores.figures([1, 2, 7, 100_000])
    for key in ("Rprec", "Bpref", "infAP", "NumRet", "NumRel", "NumRelRet", "IPrec@0.5"):
        values = figures.values[key]
        np.testing.assert_array_equal(values, values[:, :1].repeat(4, axis=1), err_msg=key)
    np.testing.assert_array_equal(figures.values["NumRet"][:, 0], [4, 1])
    np.testing.assert_array_equal(figures.values["NumRelRet"][:, 0], [2, 1])
    # q1: R = 2 (a, c); relevant at ranks 2 and 4, judged non-relevant b at rank 3, N = 1
    assert figures.values["Rprec"][0, 0] == 0.5
    assert figures.values["Bpref"][0, 0] == pytest.approx((1 + (1 - 1 / 1)) / 2)
