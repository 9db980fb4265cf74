"""Comparison of live runs against a snapshot run's per-query figures, and the module-level
comparability checks over snapshots (typed or as JSON dicts) and Evaluations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from metrics.compare import DEFAULT_COMPARED, Comparison, compare
from metrics.snapshot.comparable import Basis, differences, evaluation_basis, refusal
from metrics.snapshot.parse import as_snapshot
from metrics.snapshot.schema import Snapshot, created_minute
from metrics.vocabulary import MEASURE_BY_KEY

if TYPE_CHECKING:
    from metrics.evaluate import Evaluation

__all__ = ["check_comparable", "compare_with_snapshot", "mismatches", "snapshot_scores"]


def _side(item: Snapshot | Mapping | Evaluation) -> tuple[Basis, Snapshot | None]:
    if isinstance(item, Snapshot | Mapping):
        snapshot = as_snapshot(item)
        return snapshot.basis, snapshot
    return evaluation_basis(item), None


def mismatches(
    reference: Snapshot | Mapping | Evaluation,
    other: Snapshot | Mapping | Evaluation,
    *,
    names: tuple[str, str] | None = None,
    flags: bool = True,
) -> list[str]:
    """Why two snapshots (or a snapshot and an Evaluation) cannot be set side by side: see
    ``Snapshot.mismatches``. Default names: "the first snapshot" / "this snapshot" for two
    snapshots, else "the snapshot" / "this evaluation"."""
    (first, one), (second, two) = _side(reference), _side(other)
    if names is None:
        if one is not None and two is not None:
            names = ("the first snapshot", "this snapshot")
        else:
            names = tuple("the snapshot" if s is not None else "this evaluation"
                          for s in (one, two))
    return differences(first, second, names, flags=flags)


def check_comparable(
    reference: Snapshot | Mapping | Evaluation,
    other: Snapshot | Mapping | Evaluation,
    *,
    flags: bool = True,
) -> None:
    """Raise ValueError listing every mismatch (see ``mismatches``); return None if comparable."""
    problems = mismatches(reference, other, flags=flags)
    if problems:
        one, two = (as_snapshot(x).describe() if isinstance(x, Snapshot | Mapping)
                    else "this evaluation" for x in (reference, other))
        raise ValueError(refusal(
            f"cannot compare {two} with {one}", problems,
            "Figures compare only over the same query set and labels, at the same K, under "
            "the same conventions."))


def snapshot_scores(
    snapshot: Snapshot | Mapping,
    query_ids: Sequence[str],
    *,
    run: str | None = None,
    metrics: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """``Snapshot.scores`` of a snapshot given typed or as its JSON dict."""
    return as_snapshot(snapshot).scores(query_ids, run=run, metrics=metrics)


def compare_with_snapshot(
    evaluation: Evaluation,
    snapshot: Snapshot | Mapping,
    *,
    run: str | None = None,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    **options,
) -> Comparison:
    """Live runs against a snapshot run's per-query figures as the baseline, paired by query.

    The baseline is the snapshot's run named ``run`` (default its first), named
    "NAME (snapshot DATE)" in the Comparison; the candidates are the Evaluation's runs (default
    all). Refuses (ValueError) a snapshot of another query set or labels, K or conventions.
    ``metrics`` are measure keys; ``options`` go to ``metrics.compare.compare``.
    """
    snapshot = as_snapshot(snapshot)
    snapshot.check_comparable(evaluation)
    keys = tuple(metrics or DEFAULT_COMPARED)
    unknown = [key for key in keys if key not in MEASURE_BY_KEY]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(MEASURE_BY_KEY)}")
    ids = evaluation.scored_ids
    before = snapshot.scores(ids, run=run, metrics=keys)
    baseline = f"{snapshot.run(run).name} (snapshot {created_minute(snapshot.header)})"
    names = list(candidates or evaluation.run_names)
    while baseline in names:
        baseline += "'"
    scores: dict[str, dict[str, np.ndarray]] = {baseline: before}
    for name in names:
        values = evaluation.per_query_scores(name)
        scores[name] = {MEASURE_BY_KEY[key].label(evaluation.k): values[key] for key in keys}
    return compare(baseline, scores, ids, candidates=names, metrics=list(before), **options)
