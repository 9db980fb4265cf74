"""Method notes in the project's words: what each figure certifies and what it stays silent
about, the conventions with their alternatives, and the honest limits of seed 000.

Pure (no streamlit), so that a report can print the same notes. Names, meanings and convention
sentences come from the engine (measure registry, Conventions.sentences()); only the prose the
engine does not hold is written here.
"""

from __future__ import annotations

import dataclasses

from metrics import Conventions

# measure key -> (what the figure certifies, what it stays silent about)
READINGS = {
    "P": (
        "How much of the window the generator reads is relevant: every slot counts, an empty "
        "one as a miss.",
        "Which relevant ids they are, their order inside the top K, and anything below K.",
    ),
    "R": (
        "How much of the labelled evidence reaches the window.",
        "The order inside the top K, and evidence nobody labelled. By default a query with more "
        "relevant ids than K cannot reach 1.",
    ),
    "F1": (
        "A balance of precision and recall at the same K.",
        "Which of the two moved, and the order inside the top K.",
    ),
    "Hit": (
        "The share of queries with at least one relevant id in the window: the coverage floor.",
        "How many relevant ids came back and where in the window they sit.",
    ),
    "RR": (
        "How soon the first relevant id arrives; its mean is MRR.",
        "Every relevant id after the first: one hit at rank 1 and noise below still scores 1.",
    ),
    "AP": (
        "Whether all the relevant ids are packed near the top, charging for those never "
        "retrieved; its mean is MAP.",
        "Grades: it is binary at the relevance level.",
    ),
    "nDCG": (
        "Graded ranking quality against the best order of every judged relevant id, retrieved "
        "or not.",
        "How much evidence there is in absolute terms (it is a ratio), and any error in the "
        "grades themselves.",
    ),
    "CP": (
        "The RAGAS-style context precision: how well the relevant ids that were returned are "
        "ordered.",
        "Relevant ids that never came back: it can be 1 while recall is low. It equals AP@K "
        "only when every relevant id sits within K.",
    ),
    "Judged": (
        "How much of the window carries a label, that is how far the other figures can be "
        "trusted.",
        "Quality itself: an unlabelled id scores as non-relevant, so a low Judged@K means the "
        "other figures undercount.",
    ),
}

LIMITS = (
    "Every figure trusts the relevance labels. An incomplete judged pool undercounts recall "
    "and can misplace IDCG; labels written by a model judge carry that judge's error rate into "
    "the score.",
    "A figure is tied to its K, its label set, its query set and the day it was run. "
    "Re-scoring one frozen query set later is how retrieval drift is read; a single run cannot "
    "show drift.",
    "Under the default denominator recall never falls as K grows while precision tends to, so "
    "a gain quoted without its K is not evidence. Compare runs only on the same queries at the "
    "same K.",
    "The averages weigh every query equally: a suite dominated by queries with a single "
    "relevant id reads differently from one with many relevant ids per query.",
    "Intervals widen fast below a few dozen queries; nine queries certify very little, which "
    "is why every mean is shown with its band.",
    "A multi-hop or agentic retriever has no single top K: score the union of what it pulled "
    "and say so.",
    "These are ranked-list figures of the retrieval step only: they say nothing about the "
    "answer a model writes from the window.",
)

# the conventions a user can switch, in the sidebar's order: field -> sentence key
SWITCHES = {
    "recall_denominator": "recall_denominator",
    "gain": "gain",
    "rr": "rr",
    "ap": "ap",
    "order": "order",
}
FIXED = ("precision", "relevance_level", "interval", "judged", "edge_rules")


def alternatives(field: str, choices: tuple[str, ...]) -> dict[str, str]:
    """The sentence the engine prints for each choice of one convention."""
    return {
        choice: Conventions(**{field: choice}).sentences()[SWITCHES[field]] for choice in choices
    }


def default_choice(field: str) -> str:
    return {f.name: f.default for f in dataclasses.fields(Conventions)}[field]
