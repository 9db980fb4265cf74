"""Frozen snapshots of an evaluation: a typed ``Snapshot`` that owns its schema and its
comparability rule, fingerprints, drift, and comparison against a snapshot.

One job per module:

- ``fingerprint``: SHA-256 of the qrels and of each run over canonical rows, not file bytes;
- ``comparable``: the rule: same query set and labels, same K, same conventions;
- ``schema``: the typed objects (``Snapshot``, ``SnapshotRun``, ``Header``, ``Figure``);
- ``parse``: the file's text checked into a ``Snapshot`` (``loads``, ``load``) and written
  back key for key (``dumps``, ``save``);
- ``drift``: drift rows over snapshots; ``compare``: live runs against a snapshot's run.

Figures are comparable only over the same query set, labels, K and conventions: drift rows
and comparisons against a snapshot refuse anything else with a ValueError that says what
differs. Pure: json, hashlib and numpy; no pandas, streamlit or altair.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from metrics.snapshot.compare import (
    check_comparable,
    compare_with_snapshot,
    mismatches,
    snapshot_scores,
)
from metrics.snapshot.drift import drift_rows
from metrics.snapshot.fingerprint import evaluation_fingerprints, fingerprint_qrels, fingerprint_run
from metrics.snapshot.parse import dumps, load, loads, save
from metrics.snapshot.schema import (
    DISTRIBUTION,
    FORMAT,
    LEGACY_CONVENTIONS,
    VERSION,
    Figure,
    Header,
    Snapshot,
    SnapshotRun,
    created_minute,
    tool_version,
)

if TYPE_CHECKING:
    from metrics.evaluate import Evaluation

__all__ = [
    "DISTRIBUTION",
    "FORMAT",
    "LEGACY_CONVENTIONS",
    "VERSION",
    "Figure",
    "Header",
    "Snapshot",
    "SnapshotRun",
    "check_comparable",
    "compare_with_snapshot",
    "created_minute",
    "drift_rows",
    "dumps",
    "evaluation_fingerprints",
    "fingerprint_qrels",
    "fingerprint_run",
    "load",
    "loads",
    "mismatches",
    "save",
    "snapshot_scores",
    "to_snapshot",
    "tool_version",
]


def to_snapshot(
    evaluation: Evaluation,
    *,
    label: str | None = None,
    created: str | _dt.datetime | None = None,
) -> dict:
    """``Snapshot.from_evaluation(...)`` as its JSON dict: ``metrics.contract.to_dict`` plus
    fingerprints and a snapshot header, plain JSON types only, floats identical to the last
    bit after ``save`` and ``load``."""
    return Snapshot.from_evaluation(evaluation, label=label, created=created).to_dict()
