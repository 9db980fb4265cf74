"""The conventions in force for one evaluation, validated against the vocabulary.

What each choice means, its label, sentence and flag are declared in metrics.vocabulary; this
is only the frozen value object that carries the choices through the engine. Defaults follow
trec_eval 10 (seed 000) except where the seed rules otherwise (queries without a relevant id).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from metrics import vocabulary

DEFAULT_SEED: int = vocabulary.CONVENTION_BY_FIELD["seed"].default
DEFAULT_RESAMPLES: int = vocabulary.CONVENTION_BY_FIELD["n_resamples"].default
CHOICES = vocabulary.CHOICES

RecallDenominator = Literal["all", "min"]
Gain = Literal["linear", "exponential"]
ReadAt = Literal["cutoff", "full"]
RunOrder = Literal["score", "rank"]
ScorePrecision = Literal["double", "float32"]
EmptyQueries = Literal["exclude", "zero"]
IdenticalIds = Literal["keep", "drop"]
Unjudged = Literal["nonrelevant", "drop"]
IntervalMethod = Literal["percentile", "bca"]


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
    score_precision: ScorePrecision = "double"
    empty_queries: EmptyQueries = "exclude"
    identical_ids: IdenticalIds = "keep"
    unjudged: Unjudged = "nonrelevant"
    interval_method: IntervalMethod = "percentile"

    def __post_init__(self) -> None:
        for field, allowed in CHOICES.items():
            value = getattr(self, field)
            if value not in allowed:
                raise ValueError(f"{field} must be one of {', '.join(allowed)}, got {value!r}")
        for field in ("relevance_level", "n_resamples", "seed"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{field} must be an integer, got {value!r}")
        if self.relevance_level < 1:
            # a grade of 0 or less is judged non-relevant in this data model
            raise ValueError(
                f"relevance_level must be at least 1, got {self.relevance_level!r}: a grade "
                "of 0 or less is judged non-relevant"
            )
        if not 0 < self.confidence_level < 1:
            raise ValueError(
                f"confidence_level must lie strictly between 0 and 1, got {self.confidence_level!r}"
            )
        if self.n_resamples < 1:
            raise ValueError(f"n_resamples must be at least 1, got {self.n_resamples!r}")
        if self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")

    def as_dict(self) -> dict:
        return asdict(self)

    def sentences(self) -> dict[str, str]:
        """One sentence per choice and rule, in the words printed beside the numbers."""
        return vocabulary.sentences(self)

    def in_words(self, *, everything: bool = False) -> list[str]:
        """The choices in force, a few words each, for a one-line summary."""
        return vocabulary.in_words(self, everything=everything)
