"""Drift: each run's summary figures over snapshots of one query set, K and conventions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from metrics.snapshot.codec import as_snapshot
from metrics.snapshot.comparable import refusal
from metrics.snapshot.schema import Snapshot
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.names import default_spec

__all__ = ["drift_rows"]


def drift_rows(snapshots: Sequence[Snapshot | Mapping]) -> list[dict]:
    """Each run's summary figures over snapshots of one query set, K and conventions.

    One row per (snapshot, run, summary metric), snapshots in the order given (sort them by
    ``created`` first if that is the order wanted): snapshot (its position), created, label,
    tool_version, run, run_fingerprint, metric (summary key, e.g. "MRR"), label_at_k
    ("MRR@10"), mean, low, high, interval. Refuses (ValueError naming the snapshot and what
    differs) a snapshot whose query-set fingerprint, K or conventions differ from the first's.
    Snapshots may be given typed or as their JSON dicts (checked); an Evaluation is set beside
    them as ``Snapshot.from_evaluation(evaluation)``.
    """
    if isinstance(snapshots, Mapping | Snapshot) or not isinstance(snapshots, Sequence) or (
        not snapshots
    ):
        raise ValueError("drift needs a non-empty list of snapshots")
    typed = [as_snapshot(s, f"snapshot #{i + 1}") for i, s in enumerate(snapshots)]
    reference = typed[0]
    for position, snapshot in enumerate(typed[1:], start=1):
        problems = reference.mismatches(snapshot, names=("the first", "this one"))
        if problems:
            raise ValueError(refusal(
                f"cannot show {snapshot.describe(position)} beside {reference.describe(0)}",
                problems, "Drift is read only over one frozen query set, at one K, under the "
                "same conventions."))
    rows = []
    for position, snapshot in enumerate(typed):
        header = snapshot.header
        for run in snapshot.runs:
            for measure in SUMMARY_MEASURES:
                spec = default_spec(measure)
                label = snapshot.label(spec)
                figure = snapshot.figure(run, spec)
                if figure is None:
                    continue
                rows.append({
                    "snapshot": position,
                    "created": header.created,
                    "label": header.label,
                    "tool_version": header.tool_version,
                    "run": run.name,
                    "run_fingerprint": run.fingerprint,
                    "metric": measure.summary_key,
                    "label_at_k": label,
                    "mean": figure.mean,
                    "low": figure.low,
                    "high": figure.high,
                    "interval": figure.interval,
                })
    return rows
