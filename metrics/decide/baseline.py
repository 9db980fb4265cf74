"""Each run against the first: the comparison every output shows unless told otherwise.

`python -m metrics compare`, the LaTeX table's daggers (`--format latex`) and the report of
`python -m dashboard report` all read this one comparison, so that one pair of runs gives one
adjusted p in each. Which figures it tests is decided once: the figures the user picked, else
the compared family the vocabulary declares (`COMPARED`: every summary measure at K but a
count, a residual or Judged@K, which say how much there is, not how good); the correction runs
over every (candidate, figure) of that family; the level, resamples and seed are the
conventions' (`comparison_settings`). The headline reads the primary figure alone
(`metrics.decide.headline`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrics.core.compare import compare_evaluation, comparison_settings
from metrics.core.evaluate import Evaluation
from metrics.stats.comparison import Comparison
from metrics.vocabulary.names import Spec

__all__ = ["baseline_comparison", "picked_at_k"]


def picked_at_k(specs: Sequence[Spec] | None) -> list[str] | None:
    """The keys of the figures picked by name that a comparison at K can test (one whose
    name fixes another K, R@1000, is shown untested); None when nothing was picked: the
    compared family."""
    return [spec.key for spec in specs if spec.cutoff is None] if specs else None


def baseline_comparison(evaluation: Evaluation, metrics: Sequence[str | Spec] | None = None,
                        **options: Any) -> Comparison | None:
    """Every other run against the first on `metrics` (picked figures at K; default the
    compared family), Holm over every (candidate, figure), the conventions' level, resamples
    and seed; `options` go to compare_evaluation (correction, alpha, n_permutations...).
    None when there is nothing to compare: one run, fewer than two scored queries, or
    figures picked of which none is read at K."""
    if len(evaluation.runs) < 2 or len(evaluation.scored_ids) < 2:
        return None
    if metrics is not None and not metrics:
        return None
    settings = comparison_settings(evaluation.conventions) | options
    return compare_evaluation(evaluation, metrics=metrics, **settings)
