"""The measures and the query classes, declared once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

IntervalMethod = Literal["wilson", "bootstrap"]

# --------------------------------------------------------------------------- measures


@dataclass(frozen=True)
class Measure:
    key: str  # per-query key, e.g. "RR" -> "RR@5"
    summary_key: str  # key of the mean, e.g. "MRR" -> "MRR@5"
    name: str
    meaning: str  # one line: what the number is
    certifies: str  # what a good figure vouches for
    silent: str  # what it says nothing about
    rank_aware: bool
    interval: IntervalMethod
    depends_on: tuple[str, ...]  # keys of the sentences (conventions and rules) that change it
    in_summary: bool = True  # DCG and IDCG are per-query explanations, not suite figures
    compared: bool = True  # in a paired comparison unless the user picks the metrics

    def label(self, k: int | str, *, summary: bool = True) -> str:
        return f"{self.summary_key if summary else self.key}@{k}"


INTERVAL_NAMES: dict[str, str] = {
    "wilson": "Wilson interval",
    "bootstrap": "percentile bootstrap interval",
}

MEASURES: tuple[Measure, ...] = (
    Measure(
        "P", "P", "Precision@K",
        "share of the top K slots holding a relevant id (empty slots count as misses)",
        "How much of the window the generator reads is relevant: every slot counts, an empty "
        "one as a miss.",
        "Which relevant ids they are, their order inside the top K, and anything below K.",
        False, "bootstrap", ("precision", "relevance_level"),
    ),
    Measure(
        "R", "R", "Recall@K",
        "share of the query's relevant ids found in the top K",
        "How much of the labelled evidence reaches the window.",
        "The order inside the top K, and evidence nobody labelled. By default a query with more "
        "relevant ids than K cannot reach 1.",
        False, "bootstrap", ("recall_denominator", "relevance_level"),
    ),
    Measure(
        "F1", "F1", "F1@K", "harmonic mean of Precision@K and Recall@K",
        "A balance of precision and recall at the same K.",
        "Which of the two moved, and the order inside the top K.",
        False, "bootstrap", ("precision", "recall_denominator", "relevance_level"),
    ),
    Measure(
        "Hit", "Hit", "Hit@K",
        "1 if at least one relevant id is in the top K; its mean is the share of queries "
        "with a hit",
        "The share of queries with at least one relevant id in the window: the coverage floor.",
        "How many relevant ids came back and where in the window they sit.",
        False, "wilson", ("relevance_level",),
    ),
    Measure(
        "RR", "MRR", "Reciprocal rank",
        "1 / rank of the first relevant id (0 if none); its mean is MRR",
        "How soon the first relevant id arrives; its mean is MRR.",
        "Every relevant id after the first: one hit at rank 1 and noise below still scores 1.",
        True, "bootstrap", ("rr", "relevance_level"),
    ),
    Measure(
        "AP", "MAP", "Average precision",
        "mean of Precision@i over the relevant ranks i, missing relevant ids counting 0; its "
        "mean is MAP",
        "Whether all the relevant ids are packed near the top, charging for those never "
        "retrieved; its mean is MAP.",
        "Grades: it is binary at the relevance level.",
        True, "bootstrap", ("ap", "recall_denominator", "relevance_level"),
    ),
    Measure(
        "DCG", "DCG", "DCG@K", "sum of gain / log2(rank + 1) over the top K",
        "The graded gain the top K collects, discounted by rank.",
        "Anything comparable across queries: it grows with the number of relevant ids.",
        True, "bootstrap", ("gain",), in_summary=False, compared=False,
    ),
    Measure(
        "IDCG", "IDCG", "IDCG@K", "DCG of the best possible order of every judged relevant id",
        "The most DCG the labels allow at K, retrieved or not.",
        "The run: it depends on the labels alone.",
        True, "bootstrap", ("gain",), in_summary=False, compared=False,
    ),
    Measure(
        "nDCG", "nDCG", "nDCG@K", "DCG@K / IDCG@K: graded ranking quality against the ideal order",
        "Graded ranking quality against the best order of every judged relevant id, retrieved "
        "or not.",
        "How much evidence there is in absolute terms (it is a ratio), and any error in the "
        "grades themselves.",
        True, "bootstrap", ("gain",),
    ),
    Measure(
        "CP", "CP", "Context precision@K (RAGAS)",
        "AP normalised by the relevant ids returned in the top K instead of by R",
        "The RAGAS-style context precision: how well the relevant ids that were returned are "
        "ordered.",
        "Relevant ids that never came back: it can be 1 while recall is low. It equals AP@K "
        "only when every relevant id sits within K. A repeated id is credited once, at its "
        "first occurrence (RAGAS gives each occurrence its own verdict).",
        True, "bootstrap", ("relevance_level",),
    ),
    Measure(
        "Judged", "Judged", "Judged@K",
        "share of the ids returned in the top K that carry a label: how far the other figures "
        "can be trusted",
        "How much of the window carries a label, that is how far the other figures can be "
        "trusted.",
        "Quality itself: an unlabelled id scores as non-relevant, so a low Judged@K means the "
        "other figures undercount.",
        False, "bootstrap", ("judged",), compared=False,
    ),
)
MEASURE_BY_KEY: dict[str, Measure] = {m.key: m for m in MEASURES}
SUMMARY_MEASURES: tuple[Measure, ...] = tuple(m for m in MEASURES if m.in_summary)
COMPARED: tuple[str, ...] = tuple(m.key for m in SUMMARY_MEASURES if m.compared)

# --------------------------------------------------------------------------- query classes

QUERY_CLASSES = ("full", "partial", "late_hit", "miss")
CLASS_MEANING = {
    "full": "every relevant id is within the top K",
    "partial": "some but not all relevant ids are within the top K",
    "late_hit": "no relevant id within the top K, but one further down the list",
    "miss": "no relevant id anywhere in the list (or no list for the query)",
    "excluded": "the query has no relevant id, so it cannot be scored",
}
