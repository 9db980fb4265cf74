"""The best run per metric, and the runs that are not significantly worse than it: the marks
summary tables carry (as ranx's tables do), stated with their test and correction.

Per metric the best run is the one with the highest mean (runs within TIE_TOLERANCE of it
share the place); every other run is compared with it, query by query, by the paired
randomization test, and all those p-values, over every metric, are adjusted as one family.
A run whose adjusted p is at or above alpha, or that is not below the best, is "not
significantly worse". The words are in metrics/vocabulary/leaderboard.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.core.compare import compare_evaluation, figures_of
from metrics.core.evaluate import Evaluation
from metrics.stats import corrections, validate
from metrics.stats.comparison import CORRECTIONS, DEFAULT_PERMUTATIONS
from metrics.vocabulary.comparisons import ALPHA, DEFAULT_CORRECTION
from metrics.vocabulary.conventions import check_permutations
from metrics.vocabulary.leaderboard import BEST_MARK, EVEN_MARK, MARKS_SENTENCE, TIE_TOLERANCE


@dataclass(frozen=True)
class BestMarks:
    """Per metric label, each run's mark: BEST_MARK, EVEN_MARK (not significantly worse than
    the best) or ""."""

    marks: dict[str, dict[str, str]]
    correction: str
    alpha: float
    n_comparisons: int

    def mark(self, metric: str, run: str) -> str:
        return self.marks.get(metric, {}).get(run, "")

    @property
    def sentence(self) -> str:
        return MARKS_SENTENCE.format(best=BEST_MARK, even=EVEN_MARK, alpha=f"{self.alpha:g}",
                                     correction=CORRECTIONS[self.correction],
                                     n=f"{self.n_comparisons:,}")


def best_marks(evaluation: Evaluation, metrics: Sequence[str] | None = None, *,
               correction: str = DEFAULT_CORRECTION, alpha: float = ALPHA,
               n_permutations: int = DEFAULT_PERMUTATIONS) -> BestMarks:
    """The marks for every metric (keys or labels; default the compared measures), each run
    tested against the best with the conventions' seed, one correction over all of them."""
    corrections.check_correction(correction)
    alpha = validate.check_fraction("alpha", alpha)
    n_permutations = check_permutations(n_permutations)
    evaluation, keys = figures_of(evaluation, metrics)
    names = evaluation.run_names
    tested, marks = [], {}
    for key in keys:
        label = evaluation.label(key)
        means = np.array([run.summary[key].mean for run in evaluation.runs])
        top = means.max() if len(means) else 0.0
        best = [n for n, m in zip(names, means, strict=True) if m >= top - TIE_TOLERANCE]
        marks[label] = {name: BEST_MARK if name in best else "" for name in names}
        others = [n for n in names if n not in best]
        if others and len(evaluation.scored_ids) >= 2:
            comparison = compare_evaluation(
                evaluation, baseline=best[0], candidates=others, metrics=[key],
                correction="none", n_permutations=n_permutations,
                rng=evaluation.conventions.seed)
            tested += [(label, t) for t in comparison.tests]
    adjusted = corrections.adjust(np.array([t.p_randomization for _, t in tested]), correction)
    for (label, test), p in zip(tested, adjusted, strict=True):
        if p >= alpha or test.difference >= -TIE_TOLERANCE:
            marks[label][test.candidate] = EVEN_MARK
    return BestMarks(marks, correction, alpha, len(tested))
