"""A figure's label: generated from its declaration and the conventions in force, @K only when
it is read at a cutoff, and read back by `parse_measure` as the same figure under the same K
and conventions; two different figures never share one.

The figures are every one the vocabulary can name: names written from the declarations (each
measure's spellings, any of its parameters, a cutoff where it takes one, trec_eval's names),
under random K and random choices of every convention a parameter stands for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import MAX_K
from metrics.vocabulary.measures import CATALOGUE, READ, RECALL
from metrics.vocabulary.names import Spec, label_of, parse_measure, trec_eval_name

SMALL_K = st.integers(1, 12)  # small: a cutoff a name fixes often equals K
K = st.one_of(SMALL_K, st.integers(1, MAX_K))


def _value(parameter) -> st.SearchStrategy:
    if parameter.kind is bool:
        return st.booleans()
    if parameter.kind is str:
        return st.sampled_from(parameter.choices)
    if parameter.kind is int:
        return st.integers(int(parameter.low or 1), 5)
    return st.floats(parameter.low, parameter.high, exclude_min=parameter.strict,
                     exclude_max=parameter.strict, allow_nan=False, allow_infinity=False)


@st.composite
def names(draw) -> str:
    """A name of any figure, as a person may type it."""
    measure = draw(st.sampled_from(CATALOGUE))
    templates = [t for t in (measure.trec_eval, measure.trec_eval_full) if t]
    if templates and draw(st.booleans()):  # trec_eval's spelling
        level = draw(st.sampled_from([i / 10 for i in range(11)]))
        return draw(st.sampled_from(templates)).format(k=draw(SMALL_K), recall=level)
    given = {}
    for parameter in measure.parameters:
        if parameter is RECALL or draw(st.booleans()):
            given[parameter.name] = draw(_value(parameter))
    level = given.pop(RECALL.name, None)
    text = draw(st.sampled_from(measure.spellings))
    if given:
        text += "(" + ",".join(f"{n}={v!r}" if isinstance(v, float) else f"{n}={v}"
                               for n, v in given.items()) + ")"
    if level is not None:
        text += f"@{level!r}"
    elif measure.at_k and given.get(READ) != "full" and draw(st.booleans()):
        text += f"@{draw(SMALL_K)}"
    return text


CONVENTIONS = st.builds(
    Conventions, rr=st.sampled_from(["cutoff", "full"]), ap=st.sampled_from(["cutoff", "full"]),
    gain=st.sampled_from(["linear", "exponential"]), relevance_level=st.integers(1, 3),
    unjudged=st.sampled_from(["nonrelevant", "drop"]),
    recall_denominator=st.sampled_from(["all", "min"]))


@settings(max_examples=400, deadline=None)
@given(names(), K, CONVENTIONS, st.booleans())
def test_a_label_reads_back_as_its_figure(name, k, conventions, summary):
    figure = parse_measure(name)
    label = figure.label(k, conventions, summary=summary)
    assert parse_measure(label).settled(k, conventions) == figure.settled(k, conventions), label
    # one figure, one label, however it was spelled
    assert parse_measure(label).label(k, conventions, summary=summary) == label


@settings(max_examples=400, deadline=None)
@given(names(), K, CONVENTIONS)
def test_a_label_carries_a_cutoff_exactly_when_its_figure_is_read_at_one(name, k, conventions):
    figure = parse_measure(name)
    label = figure.label(k, conventions)
    if RECALL in figure.measure.parameters:  # its @ is the recall level
        return
    whole = figure.reads_whole(conventions)
    assert ("@" in label) == (not whole), label
    if not whole:
        assert label.endswith(f"@{figure.k(k)}")
    # read=full only where the bare name would be read at K; read=cutoff never (the @ says it)
    assert "read=cutoff" not in label
    bare = parse_measure(figure.measure.key).reads_whole(conventions)
    assert ("read=full" in label) == (whole and figure.measure.at_k and not bare), label


@settings(max_examples=400, deadline=None)
@given(names(), names(), K, CONVENTIONS, st.booleans())
def test_two_figures_never_share_a_label(first, second, k, conventions, summary):
    a, b = parse_measure(first), parse_measure(second)
    if a.settled(k, conventions) != b.settled(k, conventions):
        assert (a.label(k, conventions, summary=summary)
                != b.label(k, conventions, summary=summary)), (first, second)


# a figure's name, by K and the reading of RR and AP: (name, rr = ap, K) -> its label
NAMED = {
    ("MRR", "cutoff", 10): "MRR@10",
    ("MRR", "full", 10): "MRR",  # read over the full list: no @K
    ("recip_rank", "full", 10): "MRR",  # the same figure as the default: the same name
    ("RR(read=full)", "full", 10): "MRR",
    ("MRR@10", "full", 10): "MRR@10",  # an explicit cutoff is read at
    ("MRR@5", "full", 10): "MRR@5",
    ("RR(read=cutoff)", "full", 10): "MRR@10",
    ("recip_rank", "cutoff", 10): "MRR(read=full)",  # where MRR alone would be read at K
    ("MAP", "full", 3): "MAP",
    ("map", "full", 3): "MAP",
    ("map", "cutoff", 3): "MAP(read=full)",
    ("AP(judged_only=True)", "full", 3): "MAP(judged_only=True)",
    ("map_cut_20", "full", 3): "MAP@20",
    ("ndcg", "full", 10): "nDCG(read=full)",  # no convention reads nDCG whole
    ("nDCG", "full", 10): "nDCG@10",
    ("ndcg_cut_10", "cutoff", 10): "nDCG@10",
    ("Rprec", "cutoff", 10): "Rprec",
    ("IPrec@0.5", "full", 10): "IPrec@0.5",
}


@pytest.mark.parametrize(("name", "read", "k"), list(NAMED))
def test_labels_follow_the_reading_of_rr_and_ap(name, read, k):
    conventions = Conventions(rr=read, ap=read)
    assert parse_measure(name).label(k, conventions) == NAMED[name, read, k]


def test_the_default_figures_are_named_under_the_conventions():
    full = Conventions(rr="full", ap="full")
    assert [label_of(key, 5, full) for key in ("P", "RR", "AP", "nDCG")] == [
        "P@5", "MRR", "MAP", "nDCG@5"]
    assert [label_of(key, "K", full, summary=False) for key in ("RR", "AP", "Hit")] == [
        "RR", "AP", "Hit@K"]
    assert label_of("RR", 5, Conventions()) == "MRR@5"


def test_a_cutoff_is_read_at_under_either_reading():
    """MRR@10 is RR at rank 10 whatever the convention: scored so, and named so by trec_eval
    (which has no name for it), while MRR follows the convention."""
    full = Conventions(rr="full")
    at_ten = parse_measure("MRR@10")
    assert at_ten.conventions(full).rr == "cutoff" and not at_ten.reads_whole(full)
    assert trec_eval_name(at_ten, 10, full) is None
    assert trec_eval_name(parse_measure("MRR"), 10, full) == "recip_rank"
    assert parse_measure("MRR").conventions(full).rr == "full"
    assert Spec(at_ten.measure).reads_whole(full)
