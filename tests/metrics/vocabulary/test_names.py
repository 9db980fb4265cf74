"""Measure names as people type them: ir_measures' syntax, trec_eval's names and this tool's
labels, read into one spec each; a bad name refused with the closest known names."""

from __future__ import annotations

import pytest

from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.measures import CATALOGUE, STANDARD_RECALL
from metrics.vocabulary.names import (
    NAME_EXAMPLES,
    default_spec,
    parse_measure,
    recall_spec,
    trec_eval_name,
)

# name -> (its key among an evaluation's figures, its label at K = 5)
READ = {
    "nDCG@10": ("nDCG@10", "nDCG@10"),
    "P@5": ("P@5", "P@5"),
    "R@1000": ("R@1000", "R@1000"),
    "AP": ("AP", "MAP@5"),
    "AP@100": ("AP@100", "MAP@100"),
    "RR@10": ("RR@10", "MRR@10"),
    "P(rel=2)@5": ("P(rel=2)@5", "P(rel=2)@5"),
    "nDCG(dcg=exp-log2)@10": ("nDCG(dcg=exp-log2)@10", "nDCG(dcg=exp-log2)@10"),
    "AP(judged_only=True)": ("AP(judged_only=True)", "MAP(judged_only=True)@5"),
    "RBP(p=0.8)": ("RBP(p=0.8)", "RBP(p=0.8)@5"),
    "RBP": ("RBP(p=0.8)", "RBP(p=0.8)@5"),  # p stated, at its default
    "ERR@20": ("ERR@20", "ERR@20"),
    "Rprec": ("Rprec", "Rprec"),
    "Bpref": ("Bpref", "Bpref"),
    "infAP": ("infAP", "infAP"),
    "IPrec@0.5": ("IPrec@0.5", "IPrec@0.5"),
    "Success@10": ("Success@10", "Success@10"),
    "NumRelRet": ("NumRelRet", "NumRelRet"),
    "MRR@10": ("RR@10", "MRR@10"),
    "ndcg@10": ("nDCG@10", "nDCG@10"),  # case aside, when one measure is left
    # trec_eval's names
    "ndcg_cut_10": ("nDCG@10", "nDCG@10"),
    "map": ("AP(read=full)", "MAP(read=full)"),
    "recip_rank": ("RR(read=full)", "MRR(read=full)"),
    "ndcg": ("nDCG(read=full)", "nDCG(read=full)"),  # trec_eval's: the whole list
    "P_5": ("P@5", "P@5"),
    "recall_100": ("R@100", "R@100"),
    "map_cut_20": ("AP@20", "MAP@20"),
    "success_10": ("Success@10", "Success@10"),
    "iprec_at_recall_0.50": ("IPrec@0.5", "IPrec@0.5"),
    "bpref": ("Bpref", "Bpref"),
    "num_ret": ("NumRet", "NumRet"),
    "num_rel": ("NumRel", "NumRel"),
    "num_rel_ret": ("NumRelRet", "NumRelRet"),
}


@pytest.mark.parametrize("name", list(READ))
def test_names_read_as_the_figure_they_name(name):
    spec = parse_measure(name)
    conventions = Conventions()
    assert (spec.key, spec.label(5, conventions)) == READ[name]
    # a label reads back as the same figure
    assert parse_measure(spec.label(5, conventions)).settled(5, conventions) == spec.settled(
        5, conventions)


def test_every_example_the_help_shows_reads():
    for name in NAME_EXAMPLES:
        parse_measure(name)


def test_every_measure_reads_by_its_own_names():
    for measure in CATALOGUE:
        for spelling in measure.spellings:
            at = "@0.5" if measure.key == "IPrec" else ""
            assert parse_measure(spelling + at).measure is measure, spelling


def test_a_parameter_equal_to_the_convention_in_force_reads_as_the_default_figure():
    conventions = Conventions(relevance_level=2, gain="exponential")
    assert parse_measure("P(rel=2)@5").settled(5, conventions).key == "P"
    assert parse_measure("nDCG(dcg=exp-log2)").settled(5, conventions).key == "nDCG"
    assert parse_measure("P(rel=1)").settled(5, conventions).key == "P(rel=1)"
    said = parse_measure("P(rel=1)").words(conventions)
    assert said == ["relevant from grade 1"]
    assert parse_measure("P(rel=2)").conventions(Conventions()).relevance_level == 2
    assert parse_measure("AP(judged_only=True)").conventions(Conventions()).unjudged == "drop"


@pytest.mark.parametrize("name, conventions, expected", [
    ("P", Conventions(), "P_5"),
    ("R", Conventions(), "recall_5"),
    ("R", Conventions(recall_denominator="min"), None),  # trec_eval's divides by R
    ("nDCG", Conventions(), "ndcg_cut_5"),
    ("nDCG", Conventions(gain="exponential"), None),
    ("AP", Conventions(), "map_cut_5"),
    ("AP", Conventions(ap="full"), "map"),
    ("map", Conventions(), "map"),
    ("RR", Conventions(), None),
    ("RR", Conventions(rr="full"), "recip_rank"),
    ("Hit", Conventions(), "success_5"),
    ("P(rel=2)", Conventions(), None),
    ("IPrec@0.3", Conventions(), "iprec_at_recall_0.30"),
    ("NumRelRet", Conventions(), "num_rel_ret"),
    ("ERR", Conventions(), None),
    ("F1", Conventions(), None),
])
def test_trec_eval_names(name, conventions, expected):
    assert trec_eval_name(parse_measure(name), 5, conventions) == expected


@pytest.mark.parametrize("name, message", [
    ("nDGC@10", "did you mean nDCG@10?"),
    ("Bperf", "did you mean Bpref?"),
    ("ndcg_cut10", "did you mean ndcg_cut_10"),
    ("BLEU", "unknown metric 'BLEU'; known measures: P, R, F1"),
    ("P(rell=2)@5", "P has no parameter 'rell' (did you mean rel?); its parameters: rel, "
                    "judged_only"),
    ("P(rel=0)@5", "rel must be an integer from 1 to 1,000,000, got '0'"),
    ("P(rel=two)", "rel must be an integer from 1 to 1,000,000, got 'two'"),
    # past any grade: the relevance level's own bound (it once reached the conventions,
    # which refused it without naming the measure)
    ("P(rel=4611686018427387904)@5", "rel must be an integer from 1 to 1,000,000, got "
                                     "'4611686018427387904'"),
    ("nDCG(dcg=exp)", "dcg must be one of log2, exp-log2, got 'exp'"),
    ("AP(judged_only=maybe)", "judged_only must be True or False"),
    ("RBP(p=1)", "p must be a number strictly between 0 and 1, got '1'"),
    ("Rprec@5", "Rprec reads the whole list, so it takes no cutoff after @"),
    ("map@10", None),  # this tool's MAP, at 10: read
    ("IPrec", "IPrec needs a recall level"),
    ("IPrec@1.5", "recall must be a number from 0 to 1, got '1.5'"),
    ("P@0", "the cutoff after @ must be an integer from 1 to 1,000,000, got '0'"),
    ("P(rel=2,rel=3)", "rel is given twice"),
    ("", "a metric name must be text"),
])
def test_a_bad_name_is_refused_naming_it_and_the_closest_names(name, message):
    if message is None:
        assert parse_measure(name).label(5, Conventions()) == "MAP@10"
        return
    with pytest.raises(ValueError) as error:
        parse_measure(name)
    assert message in str(error.value)


def test_specs_of_the_recall_levels_and_the_defaults():
    assert [recall_spec(x).key for x in STANDARD_RECALL[:3]] == ["IPrec@0", "IPrec@0.1",
                                                                 "IPrec@0.2"]
    assert default_spec("RBP").key == "RBP(p=0.8)"
    assert default_spec("nDCG").key == "nDCG"
