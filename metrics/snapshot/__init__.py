"""Frozen snapshots of an evaluation: a typed ``Snapshot`` that owns its schema and its
comparability rule, fingerprints, drift, and comparison against a snapshot.

One job per module:

- ``fingerprint``: SHA-256 of the qrels and of each run over canonical rows, not file bytes;
- ``integrity``: the fingerprint of the snapshot's own figures (SHA-256, or an HMAC-SHA256
  under ``RETRIEVAL_COMPARE_SNAPSHOT_KEY``) and the verification status a snapshot is read
  with;
- ``comparable``: the rule: same query set and labels, same K, same conventions;
- ``schema``: the typed objects (``Snapshot``, ``SnapshotRun``, ``Header``, ``Figure``);
- ``parse``: the file's text checked into a ``Snapshot`` (``loads``, ``load``) and written
  back key for key (``dumps``, ``save``);
- ``drift``: drift rows over snapshots; ``compare``: live runs against a snapshot's run, and
  the note that says when a candidate is the snapshot's own run (``same_run_note``).

Figures are comparable only over the same query set, labels, K and conventions: drift rows
and comparisons against a snapshot refuse anything else with a ValueError that says what
differs. Pure: json, hashlib, hmac and numpy; no pandas, streamlit or altair.

What the figures fingerprint guarantees (``snapshot.figures_fingerprint``, over everything in
the file but itself):

- "sha256:..." catches any change made without recomputing it: an accident, a hand edit, a
  script that zeroes figures. It does not stop a deliberate forger, who can recompute it, or
  delete it (the file then reads "unverified: written before figures fingerprints").
- "hmac-sha256:..." (written when ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` or ``--snapshot-key-file``
  gives a key) cannot be computed without the key: read with the key, "hmac verified" means
  the figures are as a holder of the key wrote them; a wrong key is refused; without the key
  it reads "unverified: signed with a key that is not available". A forger can still swap it
  for a plain SHA-256, which reads "verified", not "hmac verified": only "hmac verified"
  vouches for the key.

Neither proves the engine computed the figures: only that they are unchanged since written.
A snapshot read unverified is never written back as verified.
"""

from __future__ import annotations

import datetime as _dt

from metrics.core.evaluate import Evaluation
from metrics.snapshot.codec import dumps, load, loads, save
from metrics.snapshot.compare import (
    check_comparable,
    compare_with_snapshot,
    mismatches,
    same_run_note,
    same_runs,
    snapshot_scores,
)
from metrics.snapshot.drift import drift_rows
from metrics.snapshot.fingerprint import evaluation_fingerprints, fingerprint_qrels, fingerprint_run
from metrics.snapshot.integrity import (
    FROM_ENVIRONMENT,
    HMAC_VERIFIED,
    KEY_VARIABLE,
    MAX_KEY_BYTES,
    NOT_SIGNED,
    UNVERIFIED_NO_KEY,
    UNVERIFIED_OLD,
    UNVERIFIED_UNSIGNED,
    VERIFIED,
    Key,
    figures_fingerprint,
    snapshot_key,
)
from metrics.snapshot.schema import (
    DISTRIBUTION,
    FORMAT,
    LEGACY_CONVENTIONS,
    MAX_DEPTH,
    VERSION,
    Figure,
    Header,
    Snapshot,
    SnapshotRun,
    created_minute,
    tool_version,
)

__all__ = [
    "DISTRIBUTION",
    "FORMAT",
    "FROM_ENVIRONMENT",
    "HMAC_VERIFIED",
    "KEY_VARIABLE",
    "LEGACY_CONVENTIONS",
    "MAX_DEPTH",
    "MAX_KEY_BYTES",
    "NOT_SIGNED",
    "UNVERIFIED_NO_KEY",
    "UNVERIFIED_OLD",
    "UNVERIFIED_UNSIGNED",
    "VERIFIED",
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
    "figures_fingerprint",
    "fingerprint_qrels",
    "fingerprint_run",
    "load",
    "loads",
    "mismatches",
    "same_run_note",
    "same_runs",
    "save",
    "snapshot_key",
    "snapshot_scores",
    "to_snapshot",
    "tool_version",
]


def to_snapshot(
    evaluation: Evaluation,
    *,
    label: str | None = None,
    created: str | _dt.datetime | None = None,
    key: Key = FROM_ENVIRONMENT,
) -> dict:
    """``Snapshot.from_evaluation(...)`` as its JSON dict: ``metrics.snapshot.contract.to_dict``
    plus fingerprints and a snapshot header, plain JSON types only, floats identical to the last
    bit after ``save`` and ``load``."""
    return Snapshot.from_evaluation(evaluation, label=label, created=created, key=key).to_dict()
