"""The choices a ranked-list figure depends on, each with the sentence shown beside it.

Defaults follow trec_eval (seed 000): recall and AP divide by every relevant id, DCG uses
the linear gain, RR and AP are read at K, a grade >= 1 is relevant, TREC runs are ordered
by score descending then doc_id descending, intervals at the 95% level.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

DEFAULT_SEED = 20_080_101  # fixed so that a rerun reproduces every bootstrap interval exactly
DEFAULT_RESAMPLES = 1_000

RecallDenominator = Literal["all", "min"]
Gain = Literal["linear", "exponential"]
ReadAt = Literal["cutoff", "full"]
RunOrder = Literal["score", "rank"]

CHOICES = {  # the first of each is the default
    "recall_denominator": ("all", "min"),
    "gain": ("linear", "exponential"),
    "rr": ("cutoff", "full"),
    "ap": ("cutoff", "full"),
    "order": ("score", "rank"),
}


@dataclass(frozen=True)
class Conventions:
    """Every switchable choice; validated on construction so a bad value fails early."""

    recall_denominator: RecallDenominator = "all"
    gain: Gain = "linear"
    rr: ReadAt = "cutoff"
    ap: ReadAt = "cutoff"
    relevance_level: int = 1
    order: RunOrder = "score"
    confidence_level: float = 0.95
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        for field, allowed in CHOICES.items():
            value = getattr(self, field)
            if value not in allowed:
                raise ValueError(f"{field} must be one of {', '.join(allowed)}, got {value!r}")
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            raise ValueError(f"relevance_level must be an integer, got {self.relevance_level!r}")
        if not 0 < self.confidence_level < 1:
            raise ValueError(
                f"confidence_level must lie strictly between 0 and 1, got {self.confidence_level!r}"
            )
        if self.n_resamples < 1:
            raise ValueError(f"n_resamples must be at least 1, got {self.n_resamples!r}")

    def as_dict(self) -> dict:
        return asdict(self)

    def sentences(self) -> dict[str, str]:
        """One sentence per choice, in the words printed beside the numbers."""
        level = self.relevance_level
        percent = (
            f"{self.confidence_level:.0%}"
            if (self.confidence_level * 100).is_integer()
            else f"{self.confidence_level:.1%}"
        )
        return {
            "precision": "Precision@K divides by K even when fewer than K ids came back "
            "(trec_eval P_K): an empty slot costs what a wrong id would.",
            "recall_denominator": (
                "Recall@K and AP@K divide by every relevant id R (trec_eval recall_K, map_cut_K): "
                "a query with more relevant ids than K cannot score 1."
                if self.recall_denominator == "all"
                else "Recall@K and AP@K divide by min(R, K), the most relevant ids that fit in K "
                "(R-precision style)."
            ),
            "gain": (
                "DCG gain is the grade itself (linear, as trec_eval and scikit-learn)."
                if self.gain == "linear"
                else "DCG gain is 2^grade - 1 (exponential, Burges et al. 2005)."
            )
            + " IDCG ranks every judged relevant id, retrieved or not.",
            "rr": (
                "RR is read at K: a first relevant id below rank K scores 0."
                if self.rr == "cutoff"
                else "RR is read over the full list (trec_eval recip_rank), whatever K is."
            ),
            "ap": (
                "AP is read at K (trec_eval map_cut_K)."
                if self.ap == "cutoff"
                else "AP is read over the full list (trec_eval map), whatever K is."
            ),
            "relevance_level": f"A grade >= {level} counts as relevant for the binary metrics; "
            "nDCG uses the raw grades, and a grade <= 0 gives no gain.",
            "order": (
                "TREC runs are ordered by score descending, ties by doc_id descending (trec_eval)."
                if self.order == "score"
                else "TREC runs are ordered by their rank column."
            ),
            "interval": f"Intervals at {percent}: Wilson score for Hit@K (the query is the trial); "
            f"percentile bootstrap over queries for the rest, {self.n_resamples:,} resamples, "
            f"seed {self.seed}.",
            "judged": "Judged@K is the share of the ids returned within the top K that carry a "
            "label (0 when none came back); a repeat is not counted as judged.",
            "edge_rules": "A query with no relevant id is excluded from every average and counted; "
            "a repeated id keeps its slot but only its first occurrence can score; a query the "
            "run never answered scores 0.",
        }
