"""How alike two runs' top K are: the words of the overlap figures (Jaccard, rank-biased
overlap, the relevant ids one run finds and the other misses, the recall a fusion of the two
could reach), their edge cases and JSON keys. Pure words and numbers; metrics/overlap.py
computes the figures.

Two runs with the same mean can find the same relevant ids or different ones; only the
second pair is worth fusing, and only overlap says which it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Persistence of the rank-biased overlap's reader: the probability of going on from one
# depth to the next. 0.9 is the paper's example and the usual choice for a top 10.
DEFAULT_PERSISTENCE = 0.9
PERSISTENCE_MEANING = (
    "p, the persistence, is the chance that a reader comparing the two lists goes on from one "
    "depth to the next: the smaller p, the more the top ranks weigh. It is a choice in (0, 1), "
    f"{DEFAULT_PERSISTENCE:g} by default."
)
RBO_REFERENCE = ("Webber, Moffat and Zobel (2010), A similarity measure for indefinite "
                 "rankings, ACM TOIS 28(4)")


@dataclass(frozen=True)
class OverlapMeasure:
    key: str  # the JSON key of the mean; per-query values and bounds share it
    name: str  # a short label, {k} the cutoff
    meaning: str  # one sentence: what the number is


# in the order of the JSON row; "a" is the earlier run of the pair, "b" the later
OVERLAP_MEASURES: tuple[OverlapMeasure, ...] = (
    OverlapMeasure(
        "jaccard", "Jaccard@{k}",
        "The ids both runs return in their top K, as a share of the ids either returns there "
        "(|A ∩ B| / |A ∪ B|); the order inside the top K does not count.",
    ),
    OverlapMeasure(
        "rbo", "RBO@{k}",
        "Rank-biased overlap of the two top K lists: the agreement |A ∩ B| / d of their first "
        "d ids, averaged over every depth d with weights that fall by the persistence p, "
        f"extrapolated as {RBO_REFERENCE} define RBO_EXT for lists of unequal length "
        "(section 4.2, equation 32).",
    ),
    OverlapMeasure(
        "unique_relevant_a", "Relevant only in A@{k}",
        "The relevant ids in A's top K that B's top K lacks, as a share of the query's "
        "relevant ids: |relevant ∩ A \\ B| / R.",
    ),
    OverlapMeasure(
        "unique_relevant_b", "Relevant only in B@{k}",
        "The relevant ids in B's top K that A's top K lacks, as a share of the query's "
        "relevant ids: |relevant ∩ B \\ A| / R.",
    ),
    OverlapMeasure(
        "hybrid_ceiling", "Hybrid ceiling@{k}",
        "The relevant ids in either top K, as a share of the query's relevant ids "
        "(|relevant ∩ (A ∪ B)| / R): the recall a perfect fusion of the two could reach "
        "reading both top K, 2K ids at most.",
    ),
)
OVERLAP_BY_KEY = {m.key: m for m in OVERLAP_MEASURES}
# column headers where K is said once above the table (the drill-down's one query)
SHORT_NAMES = {"jaccard": "Jaccard", "rbo": "RBO", "unique_relevant_a": "Only in A",
               "unique_relevant_b": "Only in B", "hybrid_ceiling": "Hybrid ceiling"}
OVERLAP_KEYS = tuple(m.key for m in OVERLAP_MEASURES)
PAIR_KEYS = ("a", "b")  # the pair's run names in a JSON row
LOW, HIGH = "_low", "_high"  # after a measure's key: its interval's bounds in a JSON row

OVERLAP_RULES = {
    "top_k": "A run's top K is its first K rank slots; a list shorter than K is read as it "
    "is, never padded with ids it did not return.",
    "lists": "The lists compared are those the evaluation scored: under judged-only scoring "
    "the condensed lists, and without the ids equal to their query id when those are "
    "dropped.",
    "repeats": "A repeated id counts once, at its first occurrence: the top K list is the "
    "distinct ids of the first K slots in the order they first appear, so RBO reads the "
    "repeat's slot as if the ids below moved up (never an id from below K).",
    "rbo_depth": "RBO reads the two top K lists and nothing below them; when one holds fewer "
    "ids than the other (a shorter list, or repeats), it is extrapolated as the paper's "
    "equation 32 does: the shorter list's unseen ids are taken to agree as its seen ones "
    "did, so a list that is a prefix of the other scores 1.",
    "empty": "When neither run returns an id for a query, the two top K are identical and "
    "Jaccard and RBO are 1; when only one does, they share nothing and both are 0.",
    "denominator": "R is the query's relevant ids (grade at or above the relevance level), "
    "retrieved or not, whatever the recall denominator convention: with min(R, K) the "
    "hybrid ceiling, read at 2K, could pass 1.",
    "queries": "Means run over the evaluation's scored queries: a query without a relevant "
    "id is left out, as from every mean; when the empty-queries convention scores such "
    "queries 0, they are averaged too, with 0 for the relevant-id figures (R = 0) and their "
    "Jaccard and RBO as they are.",
    "pairs": "Every unordered pair of runs is read once, A the earlier run as listed and B "
    "the later; Jaccard, RBO and the hybrid ceiling are symmetric, the two unique figures "
    "swap.",
    "intervals": "Each mean has the bootstrap interval of the summary: the same resampled "
    "queries (the conventions' seed and resamples) for every pair and figure, read by the "
    "interval convention (percentile by default).",
}


# The dashboard compares at most this many runs pair by pair (120 pairs): every pair's
# per-query figures are kept, so their number, not only the queries, sets the memory.
MAX_RUNS_COMPARED = 16


def runs_compared_sentence(compared: int, shown: int) -> str:
    """Said when the dashboard reads fewer runs than are shown."""
    pairs = compared * (compared - 1) // 2
    return (f"Overlap reads the first {compared:,} of the {shown:,} runs shown ({pairs:,} "
            f"pairs): every pair is kept with its figures on every query, so the pairs are "
            f"capped. Hide or reorder runs in the sidebar to compare others.")


def label(key: str, k: int, a: str = "A", b: str = "B") -> str:
    """A figure's short label at K, the pair's runs named: 'Relevant only in bm25@10'."""
    name = OVERLAP_BY_KEY[key].name.format(k=k)
    return name.replace("only in A", f"only in {a}").replace("only in B", f"only in {b}")


def top_weight(depth: int, p: float) -> float:
    """The share of RBO's weight that its first `depth` ranks carry (the paper's equation 21):
    0.86 for the top 10 at p = 0.9."""
    if depth < 1:
        return 0.0
    tail = sum(p**i / i for i in range(1, depth))
    return 1 - p ** (depth - 1) + (1 - p) / p * depth * (math.log(1 / (1 - p)) - tail)


def persistence_sentence(p: float, k: int) -> str:
    """'At p = 0.9 the first 10 ranks carry 86% of RBO's weight.'"""
    return (f"At p = {p:g} the first {k:,} rank{'' if k == 1 else 's'} carry "
            f"{round(100 * top_weight(k, p)):d}% of RBO's weight.")
