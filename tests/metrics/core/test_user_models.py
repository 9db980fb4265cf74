"""The user-model measures (issue 51, section 2) against their reference implementations,
per query, through ir_measures' own providers:

- INST, INSQ, NERR10 and NERR11 against cwl_eval (``ir_measures.cwl_eval``: the C/W/L
  framework's authors' code, which reads a list to depth 1,000 and scales grades to [0, 1]
  between min_rel and max_rel);
- Compat against ir_measures' ``compat`` provider (Clarke, Vtyurina and Smucker's code).

Random collections (test_more_measures' collection): graded, zero and negative labels,
unjudged ids, tied scores, repeats, queries the run never answers and queries with no
relevant id. Both references sort a run by score alone (stably, in the order the run holds
its ids), where this tool breaks a tie as trec_eval does (doc id descending); the references
are handed this tool's order as distinct scores, so both read the same lists. A repeat is a
slot holding an id nobody judged here: the reference's run carries a fresh unjudged id in
its place.
"""

from __future__ import annotations

import logging

import ir_measures
import numpy as np
import pytest

from metrics.core.evaluate import evaluate
from metrics.core.kernel import compute
from metrics.core.prepared import prepare
from metrics.io import load_qrels, load_run
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.names import parse_measure
from tests.marks import thorough_after
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_more_measures import collection

# cwl_eval warns of grades outside [min_rel, max_rel]: clipped, as here
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)

# this tool's name -> the reference's measure, given the qrels' highest grade
CWL = {
    "INST": lambda top: ir_measures.INST(T=1.0, max_rel=top),
    "INST(T=3)": lambda top: ir_measures.INST(T=3.0, max_rel=top),
    "INST(T=0.5,max_rel=2)": lambda top: ir_measures.INST(T=0.5, max_rel=2),
    "INSQ": lambda top: ir_measures.INSQ(T=1.0, max_rel=top),
    "INSQ(T=2,min_rel=1,max_rel=3)": lambda top: ir_measures.INSQ(T=2.0, min_rel=1,
                                                                   max_rel=3),
    "NERR10": lambda top: ir_measures.NERR10(p=0.9, max_rel=top),
    "NERR10(p=0.5,max_rel=1)": lambda top: ir_measures.NERR10(p=0.5, max_rel=1),
    "NERR11": lambda top: ir_measures.NERR11(T=1.0, max_rel=top),
    "NERR11(T=4)": lambda top: ir_measures.NERR11(T=4.0, max_rel=top),
}
COMPAT = {
    "Compat": ir_measures.Compat(p=0.95),
    "Compat(p=0.8)": ir_measures.Compat(p=0.8),
    "Compat(p=0.5)": ir_measures.Compat(p=0.5),
}


def as_this_tool_orders(run: dict[str, dict[str, float]]) -> list:
    """The reference's run in this tool's order (score descending, then doc id descending, as
    trec_eval), each id given a distinct score so that the reference keeps that order."""
    docs = []
    for qid, scores in run.items():
        ordered = sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
        docs += [ir_measures.ScoredDoc(qid, doc, float(len(ordered) - i))
                 for i, (doc, _) in enumerate(ordered)]
    return docs


def scored(tmp_path, seed: int, names):
    qrels, lines, reference = collection(seed)
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    labels, _ = load_qrels(tmp_path / "qrels.txt")
    run, _ = load_run(tmp_path / "run.txt", labels=labels)
    evaluation = evaluate(labels, [run], 10, measures=list(names))
    judged = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return qrels, judged, as_this_tool_orders(reference), evaluation


def largest_difference(evaluation, name: str, found) -> float:
    ids = list(evaluation.query_set.query_ids)
    spec = parse_measure(name)
    curves = evaluation.runs[0].curves(spec.settled(evaluation.k, evaluation.conventions).key)
    column = spec.k(evaluation.k) - 1  # a figure of the whole list reads the same anywhere
    worst, compared = 0.0, 0
    for metric in found:
        worst = max(worst, abs(curves[ids.index(metric.query_id), column] - metric.value))
        compared += 1
    assert compared, name
    return worst


@pytest.mark.parametrize("seed", thorough_after(range(40), 10))
def test_cwl_measures_equal_cwl_eval_per_query(tmp_path, seed):
    qrels, judged, run, evaluation = scored(tmp_path, seed, CWL)
    top = max(max(max(docs.values(), default=0) for docs in qrels.values()), 1)
    for name, reference in CWL.items():
        found = ir_measures.cwl_eval.iter_calc([reference(top)], judged, run)
        assert largest_difference(evaluation, name, found) <= 1e-12, name


@pytest.mark.parametrize("seed", thorough_after(range(40), 10))
def test_compat_equals_ir_measures_compat_per_query(tmp_path, seed):
    _, judged, run, evaluation = scored(tmp_path, seed, COMPAT)
    for name, reference in COMPAT.items():
        found = ir_measures.compat.iter_calc([reference], judged, run)
        assert largest_difference(evaluation, name, found) <= 1e-12, name


def test_cwl_measures_read_past_the_list_to_depth_1000():
    """A list longer than cwl_eval's depth is read to rank 1,000 only, and a short one as
    1,000 slots (the empty ones gain nothing): the closed form past the list equals it."""
    long = [f"d{i}" for i in range(1200)]
    judgments = {"q": {"d0": 1, "d5": 2, "d1100": 2}, "short": {"a": 2, "b": 1}}
    lists = {"q": long, "short": ["x", "a"]}
    evaluation = evaluate(make_qrels(judgments), [make_run(lists)], 5, measures=list(CWL))
    judged = [ir_measures.Qrel(q, d, g) for q, docs in judgments.items()
              for d, g in docs.items()]
    run = as_this_tool_orders({q: {d: -i for i, d in enumerate(docs)}
                               for q, docs in lists.items()})
    for name, reference in CWL.items():
        found = ir_measures.cwl_eval.iter_calc([reference(2)], judged, run)
        assert largest_difference(evaluation, name, found) <= 1e-12, name


def test_compat_is_1_on_the_ideal_order_and_0_without_a_relevant_id():
    judgments = {"q": {"a": 3, "b": 1, "c": 2, "n": 0}, "none": {"z": 0}}
    prepared = prepare(make_qrels(judgments),
                       [make_run({"q": ["a", "c", "b", "n"], "none": ["z"]})])
    scores = compute(prepared.query_set, prepared.aligned[0], Conventions(), ["Compat"],
                     persistence=0.95)
    np.testing.assert_allclose(scores.values["Compat"][:, 0], [1.0, 0.0])


def test_user_model_figures_lie_in_0_1_and_need_max_rel_above_min_rel():
    judgments = {"q": {"a": 3, "b": 1, "c": 2}}
    qrels, run = make_qrels(judgments), make_run({"q": ["a", "b", "c"]})
    evaluation = evaluate(qrels, [run], 3, measures=[*CWL, *COMPAT])
    for spec in evaluation.asked:
        value = evaluation.runs[0].curves(spec.key)[0, 0]
        assert 0 <= value <= 1, spec.key
    with pytest.raises(ValueError, match="min_rel"):
        evaluate(qrels, [run], 3, measures=["INST(min_rel=3)"])


# NERR8 and NERR9 are read at K: checked at cutoffs inside the lists, past them (the closed
# form) and past cwl_eval's depth
CUTOFFS = (1, 2, 5, 10, 25, 100, 1000, 1500)
AT_K = {"NERR8": ir_measures.NERR8, "NERR9": ir_measures.NERR9}


@pytest.mark.parametrize("seed", thorough_after(range(40), 10))
def test_nerr_at_k_equals_cwl_eval_per_query(tmp_path, seed):
    names = [f"{name}@{k}" for name in AT_K for k in CUTOFFS] + ["NERR8(max_rel=1)@5"]
    qrels, judged, run, evaluation = scored(tmp_path, seed, names)
    top = max(max(max(docs.values(), default=0) for docs in qrels.values()), 1)
    for name, measure in AT_K.items():
        for k in CUTOFFS:
            found = ir_measures.cwl_eval.iter_calc([measure(cutoff=k, max_rel=top)], judged, run)
            assert largest_difference(evaluation, f"{name}@{k}", found) <= 1e-12, (name, k)
    found = ir_measures.cwl_eval.iter_calc([ir_measures.NERR8(cutoff=5, max_rel=1)], judged, run)
    assert largest_difference(evaluation, "NERR8(max_rel=1)@5", found) <= 1e-12


def test_nerr_at_k_reads_any_k_past_the_lists_as_its_columns_would():
    """The closed form past the stored columns equals the sums a wider array would hold."""
    judgments = {"q": {"a": 2, "b": 1}, "r": {"c": 1}}
    narrow = prepare(make_qrels(judgments), [make_run({"q": ["x", "a", "b"], "r": []})])
    scores = compute(narrow.query_set, narrow.aligned[0], Conventions(), ["NERR8", "NERR9"])
    wide = narrow.aligned[0].padded(1200)
    wider = compute(narrow.query_set, wide, Conventions(), ["NERR8", "NERR9"])
    for key in ("NERR8", "NERR9"):
        ks = np.array([1, 3, 4, 10, 999, 1000, 1001, 1200]) - 1
        np.testing.assert_allclose(scores.values[key].columns(ks),
                                   wider.values[key].columns(ks), rtol=1e-13, err_msg=key)
