"""The snapshot's schema: frozen, typed objects, read from (and checked against) the JSON
layout and written back to it key for key.

The layout is the JSON contract of ``metrics.snapshot.contract.to_dict`` (K, conventions, query set,
and per run its summary, per-query figures, sweep, suggestion and diagnosis) with three
additions: a ``snapshot`` header (format, version, tool version, timestamp, label and, last,
the figures fingerprint of ``metrics.snapshot.integrity``), the query set's fingerprint
(``query_set.fingerprint``) and each run's fingerprint (``runs[i].fingerprint``).
``Snapshot.to_dict`` writes the keys in the order ``to_snapshot`` always wrote them, so a file
read and written again is the same bytes.

A Snapshot carries how it was read (``verification``, ``verified``): "verified", "hmac
verified", "unverified: written before figures fingerprints", "unverified: signed with a key
that is not available"; built by hand, "unverified: not read from a snapshot file".

Snapshots written before the ``score_precision`` and ``empty_queries`` conventions existed
carry neither: they read as ``"float32"`` (what made their figures) and ``"exclude"``.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

import numpy as np

from metrics.conventions import Conventions
from metrics.decide.compare import DEFAULT_COMPARED
from metrics.snapshot.comparable import (
    Basis,
    differences,
    evaluation_basis,
    refusal,
)
from metrics.snapshot.contract import to_dict
from metrics.snapshot.fingerprint import evaluation_fingerprints
from metrics.snapshot.integrity import CHECKED, FROM_ENVIRONMENT, NOT_WRITTEN, Key
from metrics.vocabulary import MEASURE_BY_KEY, MEASURES

if TYPE_CHECKING:
    from metrics.core.evaluate import Evaluation


FORMAT = "retrieval-compare snapshot"
VERSION = 1
DISTRIBUTION = "retrieval-compare"
# what a snapshot that predates a convention was scored under
LEGACY_CONVENTIONS = {"score_precision": "float32", "empty_queries": "exclude"}


def tool_version() -> str:
    """The installed version of the retrieval-compare distribution ('unknown' if not installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def created_minute(header: Mapping | Header) -> str:
    """When a snapshot was made, from its header, to the minute: '2024-05-01 09:00'."""
    created = header.created if isinstance(header, Header) else header.get("created", "")
    return str(created)[:16].replace("T", " ")


def _timestamp(created: str | _dt.datetime | None) -> str:
    if created is None:
        created = _dt.datetime.now(_dt.UTC)
    if isinstance(created, _dt.datetime):
        if created.tzinfo is None:
            raise ValueError(f"created must carry a time zone, got naive {created.isoformat()}")
        return created.isoformat(timespec="seconds")
    if not is_time(created):
        raise ValueError(f"created must be a datetime or an ISO 8601 string, got {created!r}")
    return created


def is_time(value: object) -> bool:
    """An ISO 8601 time (``datetime.fromisoformat`` reads it)."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return False
    try:
        _dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Header:
    """The ``snapshot`` object: what wrote the file, when, the user's note, and the figures
    fingerprint the file was read with (None before there were any; not part of equality)."""

    created: str  # ISO 8601 with a time zone
    label: str | None = None
    tool_version: str | None = None
    tool: str | None = DISTRIBUTION
    format: str = FORMAT
    version: int = VERSION
    figures_fingerprint: str | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        out = {"format": self.format, "version": self.version, "tool": self.tool,
               "tool_version": self.tool_version, "created": self.created, "label": self.label}
        if self.figures_fingerprint is not None:
            out["figures_fingerprint"] = self.figures_fingerprint
        return out


@dataclass(frozen=True)
class Figure:
    """One summary figure: its mean and interval (every one a score in [0, 1])."""

    mean: float
    low: float
    high: float
    interval: str  # the method: "wilson", "bootstrap", ...

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "interval": self.interval}


@dataclass(frozen=True)
class SnapshotRun:
    """One run of a snapshot: its fingerprint, summary and per-query figures.

    ``per_query`` holds every per-query column but the id, in the file's order (``class``,
    ``repeats``, ``P@5``, ...), one value per entry of ``query_ids``. ``details`` keeps the
    descriptive parts (suggestion, diagnosis, sweep) as read, to write them back unchanged.
    """

    name: str
    fingerprint: str
    summary: Mapping[str, Figure]  # summary label ("MRR@5") -> figure
    query_ids: tuple[str, ...]
    per_query: Mapping[str, tuple]
    repeats: int | None = None
    missing_queries: tuple[str, ...] | None = None
    ignored_queries: tuple[str, ...] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.repeats is not None:
            out["repeats"] = self.repeats
        for key in ("missing_queries", "ignored_queries"):
            if getattr(self, key) is not None:
                out[key] = list(getattr(self, key))
        out["summary"] = {label: figure.as_dict() for label, figure in self.summary.items()}
        columns = list(self.per_query)
        rows = zip(*self.per_query.values(), strict=True) if columns else [()] * len(self.query_ids)
        out["queries"] = [
            {"query_id": query, **dict(zip(columns, values, strict=True))}
            for query, values in zip(self.query_ids, rows, strict=True)
        ]
        out |= copy.deepcopy(dict(self.details))
        out["fingerprint"] = self.fingerprint
        return out


@dataclass(frozen=True)
class Snapshot:
    """A frozen evaluation: its header, K, conventions, query set and runs' figures.

    Built by ``Snapshot.from_evaluation``, read by ``metrics.snapshot.loads``/``load`` (which
    check the schema and the figures fingerprint), written by ``dumps``/``save``. Owns the
    comparability rule (``mismatches``, ``check_comparable``) and pairs its figures to live
    query ids (``scores``). ``verification`` says how its figures were checked when read
    (not part of equality); ``verified`` is True only for "verified" and "hmac verified".
    """

    header: Header
    k: int
    conventions: Conventions
    query_set_fingerprint: str
    runs: tuple[SnapshotRun, ...]
    excluded_ids: tuple[str, ...] = ()
    n_queries: int | None = None  # every query of the query set
    n_scored: int | None = None
    sentences: Mapping[str, str] | None = None  # the conventions in words, as written
    verification: str = field(default=NOT_WRITTEN, compare=False)

    @classmethod
    def from_evaluation(
        cls,
        evaluation: Evaluation,
        *,
        label: str | None = None,
        created: str | _dt.datetime | None = None,
        key: Key = FROM_ENVIRONMENT,
    ) -> Snapshot:
        """The Evaluation frozen: ``created`` defaults to now (UTC, seconds); ``label`` (e.g.
        "before the index rebuild") to None. Its figures fingerprint is an HMAC under ``key``
        (default ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` if set), else SHA-256."""
        from metrics.snapshot.codec import encode, parse
        from metrics.snapshot.integrity import resolve_key, seal

        if evaluation.within is not None:  # its fingerprints name the whole query set
            raise ValueError(f"a snapshot freezes the whole query set, not a filtered part "
                             f"({evaluation.scope}): snapshot the unfiltered evaluation")

        fingerprints = evaluation_fingerprints(evaluation)
        data = to_dict(evaluation)
        data["query_set"]["fingerprint"] = fingerprints["qrels"]
        for run in data["runs"]:
            run["fingerprint"] = fingerprints["runs"][run["name"]]
        header = Header(_timestamp(created), label, tool_version())
        key = resolve_key(key)
        # one pass through the encoder: tuples become lists, numpy scalars are caught here
        plain = json.loads(encode({"snapshot": header.as_dict(), **data}))
        return parse(seal(plain, key), "<evaluation>", key=key)

    @property
    def verified(self) -> bool:
        """Its figures matched their fingerprint when read ("verified" or "hmac verified")."""
        return self.verification in CHECKED

    @property
    def scored_ids(self) -> tuple[str, ...]:
        return self.runs[0].query_ids

    @property
    def run_names(self) -> list[str]:
        return [run.name for run in self.runs]

    @property
    def basis(self) -> Basis:
        return Basis(self.k, self.conventions, self.query_set_fingerprint)

    def to_dict(self) -> dict[str, Any]:
        """The JSON layout (plain types, keys in the order the file holds them)."""
        conventions: dict[str, Any] = self.conventions.as_dict()
        if self.sentences is not None:
            conventions["sentences"] = dict(self.sentences)
        query_set: dict[str, Any] = {}
        if self.n_queries is not None:
            query_set["queries"] = self.n_queries
        if self.n_scored is not None:
            query_set["scored"] = self.n_scored
        query_set["excluded"] = list(self.excluded_ids)
        query_set["fingerprint"] = self.query_set_fingerprint
        return {"snapshot": self.header.as_dict(), "k": self.k, "conventions": conventions,
                "query_set": query_set, "runs": [run.to_dict() for run in self.runs]}

    def describe(self, position: int | None = None) -> str:
        """'the snapshot of 2024-05-01 09:00 ('May')', and '(#2)' given its position."""
        label = self.header.label
        what = f"the snapshot of {created_minute(self.header)}" + (f" ({label!r})" if label else "")
        return what if position is None else f"{what} (#{position + 1})"

    def run(self, name: str | None = None) -> SnapshotRun:
        """The run named ``name``, or the first (its baseline); ValueError naming the others."""
        if name is None:
            return self.runs[0]
        for run in self.runs:
            if run.name == name:
                return run
        raise ValueError(
            f"the snapshot has no run named {name!r}; it has: {', '.join(self.run_names)}"
        )

    def mismatches(
        self,
        other: Snapshot | Evaluation,
        *,
        names: tuple[str, str] | None = None,
        flags: bool = True,
    ) -> list[str]:
        """Why ``other`` cannot be set beside this snapshot: one sentence per difference in
        query-set fingerprint, K or a convention; empty when comparable. ``names`` say how to
        call the two (default "the first snapshot" / "this snapshot", or "the snapshot" / "this
        evaluation"); ``flags`` adds the command-line flag that sets each."""
        if isinstance(other, Snapshot):
            return differences(self.basis, other.basis,
                               names or ("the first snapshot", "this snapshot"), flags=flags)
        return differences(self.basis, evaluation_basis(other),
                           names or ("the snapshot", "this evaluation"), flags=flags)

    def check_comparable(self, other: Snapshot | Evaluation, *, flags: bool = True) -> None:
        """Raise ValueError listing every mismatch; return None if comparable."""
        problems = self.mismatches(other, flags=flags)
        if problems:
            second = other.describe() if isinstance(other, Snapshot) else "this evaluation"
            raise ValueError(refusal(
                f"cannot compare {second} with {self.describe()}", problems,
                "Figures compare only over the same query set and labels, at the same K, "
                "under the same conventions."))

    def scores(
        self,
        query_ids: Sequence[str],
        *,
        run: str | None = None,
        metrics: Sequence[str] | None = None,
    ) -> dict[str, np.ndarray]:
        """A run's per-query figures at K, paired to ``query_ids`` (in that order).

        Keys are summary labels ("nDCG@10", "MRR@10") of the measure keys asked for (default
        the family ``compare`` tests). ValueError if a query id has no figure here, or this
        snapshot scored a query ``query_ids`` leaves out.
        """
        chosen = self.run(run)
        position = {query: i for i, query in enumerate(chosen.query_ids)}
        ids = [str(q) for q in query_ids]
        missing = [q for q in ids if q not in position]
        extra = sorted(set(position) - set(ids))
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"no figure for {len(missing)} scored queries ({_some(missing)})")
            if extra:
                parts.append(f"figures for {len(extra)} queries not scored here ({_some(extra)})")
            raise ValueError(f"snapshot run {chosen.name!r} does not pair: " + "; ".join(parts))
        order = [position[q] for q in ids]
        scores = {}
        for key in metrics or DEFAULT_COMPARED:
            measure = MEASURE_BY_KEY[key]
            column = chosen.per_query.get(measure.label(self.k, summary=False))
            if column is None:
                raise ValueError(f"snapshot run {chosen.name!r} lacks per-query "
                                 f"{measure.label(self.k, summary=False)} figures")
            scores[measure.label(self.k)] = np.asarray(column, dtype=float)[order]
        return scores


def _some(ids: list[str], limit: int = 5) -> str:
    return ", ".join(ids[:limit]) + (" ..." if len(ids) > limit else "")


def score_columns(k: int) -> frozenset[str]:
    """The per-query columns that are scores in [0, 1] (DCG and IDCG are not)."""
    return frozenset(m.label(k, summary=False) for m in MEASURES if m.in_summary)


def measure_columns(k: int) -> frozenset[str]:
    return frozenset(m.label(k, summary=False) for m in MEASURES)


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)

