"""Do two measures or two K rank the runs the same? Each ordering is the runs by their mean
(best first); between two orderings, Kendall's tau and tau_AP and the pairs of runs that swap
(metrics.stats.agreement). Two label sets' orderings are metrics.context.judge's
label_agreement."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from metrics.core.evaluate import Evaluation
from metrics.stats.agreement import Agreement, agreement

__all__ = ["measure_agreements"]


def _means(evaluation: Evaluation, key: str) -> dict[str, float]:
    return {run.name: run.summary[key].mean for run in evaluation.runs}


def measure_agreements(evaluation: Evaluation, metrics: Sequence[str], *,
                       against: str | None = None) -> list[Agreement]:
    """The orderings of the runs under figures of one evaluation (any names: 'nDCG@10',
    'MRR@10', 'nDCG@100', 'Rprec'), each against `against` when given, else every pair."""
    named = [*metrics, *([against] if against is not None else [])]
    evaluation = evaluation.with_measures(named)
    keys = list(dict.fromkeys(evaluation.resolve(m).key for m in metrics))
    if against is not None:
        reference = evaluation.resolve(against).key
        pairs = [(reference, key) for key in keys if key != reference]
    else:
        pairs = list(combinations(keys, 2))
    return [agreement(evaluation.label(a), evaluation.label(b), _means(evaluation, a),
                      _means(evaluation, b)) for a, b in pairs]
