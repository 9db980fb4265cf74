"""The measures asked for beyond the defaults, written out for one query: the terms and the
denominator each explanation states give the engine's own figure, for every run and scored
query, under several conventions, on the sample and on lists with unjudged, negatively graded
and repeated ids."""

from __future__ import annotations

import pytest

from metrics import Conventions, evaluate, load_sample
from metrics.explain.figures import explain_figures
from metrics.vocabulary.format import figure
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_more_measures import small_collection

ASKED = ["Rprec", "Bpref", "infAP", "IPrec@0", "IPrec@0.5", "IPrec@1", "Success@10", "ERR",
         "ERR@20", "RBP", "RBP(p=0.5)@20", "NumRet", "NumRel", "NumRelRet", "P(rel=2)",
         "nDCG@10", "nDCG(dcg=exp-log2)", "AP(judged_only=True)", "INST", "INST(T=3)",
         "INSQ(T=2)", "NERR10", "NERR11(T=2)", "Compat", "Compat(p=0.8)",
         "NERR8", "NERR9@20", "NERR8(max_rel=1)@2"]
CONVENTIONS = {"default": Conventions(), "grade >= 2": Conventions(relevance_level=2),
               "judged only": Conventions(unjudged="drop"),
               "full list": Conventions(ap="full", rr="full")}


def assert_written_out(evaluation):
    for query_id in evaluation.scored_ids:
        for run in evaluation.runs:
            found = explain_figures(evaluation, run, query_id)
            assert [x.label for x in found] == [evaluation.label(s.key) for s in evaluation.asked]
            for x in found:
                assert x.terms.sum() / x.denominator == pytest.approx(x.value, abs=1e-12), (
                    query_id, x.label)
                assert x.sentence.startswith(x.label)
                written = f"{int(x.value)}" if x.label.startswith("Num") else figure(x.value)
                assert written in x.sentence


@pytest.mark.parametrize("name", list(CONVENTIONS))
@pytest.mark.parametrize("k", [1, 5])
def test_the_sample_written_out_gives_the_engines_figures(name, k):
    assert_written_out(load_sample(k, CONVENTIONS[name]).with_measures(ASKED))


@pytest.mark.parametrize("seed", range(4))
def test_unjudged_negative_and_repeated_ids_written_out(seed):
    judgments, lists = small_collection(seed)
    assert_written_out(evaluate(make_qrels(judgments), [make_run(lists)], 5, measures=ASKED))


def test_a_figure_of_its_own_reading_says_so():
    evaluation = load_sample(5).with_measures(["P(rel=2)"])
    (found,) = explain_figures(evaluation, evaluation.runs[0], "q01")
    assert "own reading (relevant from grade 2)" in found.sentence
