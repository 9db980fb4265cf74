"""The paired comparison of an Evaluation's runs: the per-query figures a comparison reads,
taken from the evaluation (scored first when it does not show them yet) and handed to the
paired tests of ``metrics.stats.comparison``; and the figure a gate, a choice or a flag names
at the K compared (``metric_spec``, ``metric_key``, ``metric_label``).

Below decide, explain and snapshot, which all compare runs (each candidate against a
baseline, each slice alone, live runs against a snapshot's figures)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.stats.comparison import Comparison, compare
from metrics.vocabulary import COMPARED
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.names import Spec, parse_measure

__all__ = ["DEFAULT_COMPARED", "compare_evaluation", "comparison_settings",
           "drawn_as_the_summary", "figures_of", "metric_key", "metric_label", "metric_spec"]

# the family compared by default: every summary measure at K except Judged@K, which says how
# far the labels reach, not how good the ranking is; the user's picks replace it
DEFAULT_COMPARED = COMPARED  # declared in the vocabulary


def comparison_settings(conventions: Conventions) -> dict[str, Any]:
    """What every comparison of an evaluation takes from its conventions: the interval's
    level and method, the bootstrap resamples and the seed (the same draws as the
    summary's). Every front end compares with these, so that one pair gives one p on every
    page and file."""
    return dict(confidence_level=conventions.confidence_level,
                n_resamples=conventions.n_resamples, rng=conventions.seed,
                interval_method=conventions.interval_method)


def drawn_as_the_summary(evaluation: Evaluation, options: dict[str, Any]) -> dict[str, Any]:
    """``compare``'s options with what the evaluation's conventions set filled in where not
    given (comparison_settings; an rng of None is the seed). A comparison on the evaluation
    thus resamples its queries as the summary, a slice and the leaderboard do, whichever
    caller asks (the command line, the dashboard, the report, a script)."""
    drawn = comparison_settings(evaluation.conventions) | options
    if drawn.get("rng") is None:
        drawn["rng"] = evaluation.conventions.seed
    return drawn


def compare_evaluation(
    evaluation: Evaluation,
    *,
    baseline: str | None = None,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str | Spec] | None = None,
    queries: np.ndarray | None = None,
    **options: Any,
) -> Comparison:
    """Compare runs of one Evaluation at its K; metrics are measure keys ("nDCG", "RR", ...)
    or any name a figure is asked by ("MRR@10", "P(rel=2)@5", "Rprec", trec_eval's "map"),
    scored first when the evaluation does not show them yet, and appear in the Comparison
    under their labels ("nDCG@10", "MRR@10"). `queries`, a mask over the scored queries,
    compares on those only (a slice). The options are ``compare``'s; the interval's level and
    method, the resamples and the seed default to the evaluation's conventions
    (``drawn_as_the_summary``)."""
    baseline = baseline or evaluation.run_names[0]
    evaluation, keys = figures_of(evaluation, metrics)
    labels = {key: evaluation.label(key) for key in keys}
    names = [baseline, *(candidates or [n for n in evaluation.run_names if n != baseline])]
    chosen = np.ones(len(evaluation.scored_ids), dtype=bool) if queries is None else queries
    scores = {}
    for name in names:
        values = evaluation.per_query_scores(name)
        scores[name] = {labels[key]: values[key][chosen] for key in keys}
    return compare(
        baseline,
        scores,
        [q for q, kept in zip(evaluation.scored_ids, chosen, strict=True) if kept],
        candidates=names[1:],
        metrics=list(labels.values()),
        **drawn_as_the_summary(evaluation, options),
    )


def figures_of(evaluation: Evaluation, metrics: Sequence[str | Spec] | None
               ) -> tuple[Evaluation, tuple[str, ...]]:
    """The evaluation with the figures `metrics` names scored (names, keys, labels or specs;
    default the compared family), and their keys in order, each once. A decision is made at
    the evaluation's K: a name's cutoff, if given, must be that K."""
    if not metrics:
        return evaluation, DEFAULT_COMPARED
    specs = [m if isinstance(m, Spec) else metric_spec(m, evaluation.k, evaluation.conventions)
             for m in metrics]
    evaluation = evaluation.with_measures(specs)
    return evaluation, tuple(dict.fromkeys(evaluation.resolve(s).key for s in specs))


def metric_spec(label: str, k: int, conventions: Conventions) -> Spec:
    """The figure a gate or a choice names at the K compared, under the conventions in force:
    'nDCG@10' or 'nDCG' -> nDCG, 'MRR@10' -> RR read at K (under rr=full too: a cutoff is
    read at), 'MRR' -> RR as the conventions read it, 'P(rel=2)@10' -> P(rel=2), 'Rprec'. A
    cutoff, if given, must be that K."""
    spec = parse_measure(label)
    if spec.cutoff is not None and spec.cutoff != k:
        raise ValueError(f"{label!r} names K = {spec.cutoff}, but the comparison is at K = {k}")
    return spec.settled(k, conventions)


def metric_key(label: str, k: int, conventions: Conventions) -> str:
    """'nDCG@10' or 'nDCG' -> 'nDCG'; 'MRR@10' -> 'RR'; 'P(rel=2)@10' -> 'P(rel=2)': the key
    of the figure `metric_spec` reads."""
    return metric_spec(label, k, conventions).key


def metric_label(label: str, k: int, conventions: Conventions) -> str:
    """'MRR' -> 'MRR@10' (or 'MRR' while RR is read over the full list), 'nDCG@10' ->
    'nDCG@10', 'Rprec' -> 'Rprec': the label at K of the figure `metric_spec` reads."""
    return metric_spec(label, k, conventions).label(k, conventions)
