"""Runs whose lists stop before K: every figure at K then reads empty slots past the run's
last rank (precision counts them as wrong ids, recall and the rest cannot rise). Like an id
mismatch, it is said on every page and command that shows the run, from the run's reading
(its Suggestion), in the words of metrics/vocabulary/readings.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from metrics.core.evaluate import Evaluation
from metrics.vocabulary.readings import short_lists_sentence


@dataclass(frozen=True)
class ShortLists:
    """One run whose every list (over the scored queries) stops before K."""

    run: str
    k: int
    longest: int  # the run's longest list

    @property
    def sentence(self) -> str:
        return short_lists_sentence(self.run, self.k, self.longest)

    def as_dict(self) -> dict:
        return {"run": self.run, "k": self.k, "longest": self.longest,
                "sentence": self.sentence}


def short_lists(evaluation: Evaluation) -> tuple[ShortLists, ...]:
    """Every run of the evaluation cut before its K, in run order (a run without any list is
    an id mismatch, not a short run: it is left to that warning)."""
    return tuple(ShortLists(run.name, evaluation.k, run.suggestion.run_longest)
                 for run in evaluation.runs if run.suggestion.cut)


__all__ = ["ShortLists", "short_lists"]
