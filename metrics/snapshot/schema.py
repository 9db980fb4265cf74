"""The snapshot's schema: frozen, typed objects, read from (and checked against) a JSON value
field by field (``parse``), and written back to it key for key (``to_dict``, ``encode``).

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

A figure is keyed by its label under the snapshot's K and conventions (`Spec.label`). Snapshots
written before labels followed the conventions keyed RR and AP read over the full list (rr or
ap = full) as read at K ("MRR@10", "RR@10" where the label is now "MRR", "RR"); they are read
as they are, and a figure is looked up under its label, else under that older one
(`Snapshot.column`, `Snapshot.figure`). Written back, such a snapshot keeps its own keys, so
its bytes and its figures fingerprint stay the same.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.snapshot.comparable import (
    CONVENTION_FIELDS,
    Basis,
    differences,
    evaluation_basis,
    refusal,
)
from metrics.snapshot.contract import to_dict
from metrics.snapshot.fingerprint import evaluation_fingerprints
from metrics.snapshot.integrity import (
    CHECKED,
    FIELD,
    FROM_ENVIRONMENT,
    NOT_WRITTEN,
    Key,
    check,
    resolve_key,
    seal,
)
from metrics.stats.validate import is_number
from metrics.vocabulary import COMPARED, MEASURE_BY_KEY, MEASURES
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.format import json_escaped
from metrics.vocabulary.measures import READ
from metrics.vocabulary.names import Spec, default_spec, parse_measure

FORMAT = "retrieval-compare snapshot"
VERSION = 1
DISTRIBUTION = "retrieval-compare"
# what a snapshot that predates a convention was scored under
LEGACY_CONVENTIONS = {"score_precision": "float32", "empty_queries": "exclude"}


def tool_version() -> str:
    """The installed version of the retrieval-compare distribution ('unknown' if not installed)."""
    from importlib import metadata  # on use: 20 ms of imports only a snapshot needs

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

        Keys are summary labels ("nDCG@10", "MRR@10") of the measure keys (or specs: a figure
        asked for by name) asked for (default the family ``compare`` tests). ValueError if a
        query id has no figure here, or this snapshot scored a query ``query_ids`` leaves out.
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
        for key in metrics or COMPARED:
            spec = key if isinstance(key, Spec) else default_spec(MEASURE_BY_KEY[key])
            column = self.column(chosen, spec)
            if column is None:
                raise ValueError(f"snapshot run {chosen.name!r} lacks per-query "
                                 f"{self.label(spec, summary=False)} figures")
            scores[self.label(spec)] = np.asarray(column, dtype=float)[order]
        return scores

    def label(self, spec: Spec, *, summary: bool = True) -> str:
        """A figure's label under this snapshot's K and conventions: its key here."""
        return spec.label(self.k, self.conventions, summary=summary)

    def column(self, run: SnapshotRun, spec: Spec) -> tuple | None:
        """A run's per-query figures of `spec`, under its label or the one a snapshot written
        before labels followed the conventions gave it; None when it holds neither."""
        for label in _labels(spec, self.k, self.conventions, summary=False):
            if label in run.per_query:
                return run.per_query[label]
        return None

    def figure(self, run: SnapshotRun, spec: Spec) -> Figure | None:
        """A run's summary figure of `spec`, as `column` finds a per-query one."""
        for label in _labels(spec, self.k, self.conventions, summary=True):
            if label in run.summary:
                return run.summary[label]
        return None


def _some(ids: list[str], limit: int = 5) -> str:
    return ", ".join(ids[:limit]) + (" ..." if len(ids) > limit else "")


def _labels(spec: Spec, k: int, conventions: Conventions, *, summary: bool) -> tuple[str, ...]:
    """The figure's label, then the one a snapshot written before labels followed the
    conventions gave it when that differs: a figure read over the whole list by the rr or
    ap convention was labelled as read at K ("MRR@10" for today's "MRR")."""
    label = spec.label(k, conventions, summary=summary)
    settled = spec.settled(k, conventions)
    if spec.measure.at_k and settled.reads_whole(conventions) and READ not in settled.given:
        return label, f"{label}@{k}"
    return (label,)


def score_columns(k: int, conventions: Conventions) -> frozenset[str]:
    """The per-query columns that are scores in [0, 1] (DCG and IDCG are not), under their
    labels and those of older snapshots."""
    return frozenset(label for m in MEASURES if m.in_summary
                     for label in _labels(default_spec(m), k, conventions, summary=False))


def measure_columns(k: int, conventions: Conventions) -> frozenset[str]:
    return frozenset(label for m in MEASURES
                     for label in _labels(default_spec(m), k, conventions, summary=False))


# --------------------------------------------------------------------------- reading a JSON value

_RUN_KEYS = ("name", "fingerprint", "summary", "queries", "repeats", "missing_queries",
             "ignored_queries")


MAX_DEPTH = 32  # a snapshot nests 5 levels deep


_INT_LIMIT = 2**63


_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = 4
_short.maxlevel = 2


def show(value: object) -> str:
    """A value quoted in a message: its repr, cut short."""
    return _short.repr(value)


class Refusal:
    """Raise the one ValueError of a snapshot that fails its schema, naming its source."""

    def __init__(self, source: str) -> None:
        self.source = source

    def __call__(self, problem: str) -> NoReturn:
        raise ValueError(f"{self.source}: not a snapshot: {problem}")


def encode(data: Mapping) -> str:
    """Compact JSON of plain types (no NaN): the text of a snapshot file, newline aside;
    every character no output writes as it is (a line separator, a bidirectional override,
    DEL, C1) written as its JSON escape (`format.json_escaped`), the same value read back."""
    try:
        return json_escaped(json.dumps(data, ensure_ascii=False, allow_nan=False,
                                       separators=(",", ":")))
    except (TypeError, ValueError) as error:
        raise ValueError(f"snapshot is not plain JSON: {error}") from None


def parse(data: object, source: str, *, key: Key = FROM_ENVIRONMENT,
          allow_unsigned: bool = False) -> Snapshot:
    """The typed Snapshot of a JSON value; ValueError naming ``source`` and the field.

    Checked in order: plain JSON (depth, numbers, text), the schema, the figures
    fingerprint (a mismatch is refused; the result carries its ``verification``)."""
    fail = Refusal(source)
    secret = resolve_key(key)
    _plain_json(data, fail)
    if not isinstance(data, Mapping):
        fail("expected a JSON object")
    header = _header(data.get("snapshot"), fail)
    k = data.get("k")
    if not is_number(k, integer=True) or k < 1:
        fail(f"k must be a positive integer, got {show(k)}")
    conventions, sentences = _conventions(data.get("conventions"), fail)
    query_set = data.get("query_set")
    if not isinstance(query_set, Mapping) or not isinstance(query_set.get("fingerprint"), str):
        fail("no query_set fingerprint")
    counts = {}
    for name in ("queries", "scored"):
        value = query_set.get(name)
        if value is not None and (not is_number(value, integer=True) or value < 0):
            fail(f"query_set.{name} must be a count, got {show(value)}")
        counts[name] = value
    excluded = _ids(query_set.get("excluded", []), "query_set.excluded", fail)
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        fail("no runs")
    parsed = tuple(_run(i, run, k, conventions, fail) for i, run in enumerate(runs))
    if counts["scored"] is not None:
        for run in parsed:
            if len(run.query_ids) != counts["scored"]:
                fail(f"run {show(run.name)}: queries holds {len(run.query_ids)} rows, "
                     f"query_set.scored says {counts['scored']}")
    verification = check(data, secret, source, allow_unsigned=allow_unsigned)
    return Snapshot(header, k, conventions, query_set["fingerprint"], parsed, excluded,
                    counts["queries"], counts["scored"], sentences, verification)


def _name(text: str) -> str:
    """A key from the file, in a message: cut short, on one line."""
    return show(text)[1:-1]


def _where(path: tuple) -> str:
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
    return _name(text.removeprefix(".") or "the document")


def _plain_json(data: object, fail: Refusal) -> None:
    """Refuse what JSON cannot hold or this reader should not recurse into, naming where:
    depth beyond MAX_DEPTH, NaN and Infinity, integers beyond 2**63, keys that are not text,
    lone surrogates, and any other Python type. Iterative: no depth can overflow the stack.
    A quick pass first; only a value it doubts is walked again to say where the problem is."""
    if _is_plain(data):
        return
    stack: list[tuple[object, tuple, int]] = [(data, (), 0)]
    while stack:
        value, path, depth = stack.pop()
        kind = type(value)
        if kind is str:
            if not value.isascii() and not _encodable(value):
                fail(f"{_where(path)} holds text that is not valid Unicode (a lone surrogate)")
        elif kind is float or (kind is not bool and isinstance(value, float)):
            if value - value != 0:
                shown = "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
                fail(f"{_where(path)} is {shown}, which is not a JSON number")
        elif kind is int or (kind is not bool and isinstance(value, int)):
            if not -_INT_LIMIT <= value <= _INT_LIMIT:
                fail(f"{_where(path)} is a number beyond 2**63")
        elif value is None or kind is bool:
            pass
        elif isinstance(value, Mapping | list | tuple):
            if depth >= MAX_DEPTH:
                fail(f"{_where(path)} is nested more than {MAX_DEPTH} levels deep")
            if isinstance(value, Mapping):
                for name, item in value.items():
                    if type(name) is not str or not (name.isascii() or _encodable(name)):
                        fail(f"{_where(path)} has a key that is not valid text: {show(name)}")
                    stack.append((item, (*path, name), depth + 1))
            else:
                stack.extend((item, (*path, i), depth + 1) for i, item in enumerate(value))
        else:
            fail(f"{_where(path)} is a {kind.__name__}, not a JSON value")


def _is_plain(data: object) -> bool:
    """True if ``data`` is plain JSON within MAX_DEPTH (no path kept: the quick pass)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind is dict or kind is list:
            if depth >= MAX_DEPTH:
                return False
            if kind is dict:
                for name in value:
                    if type(name) is not str or not (name.isascii() or _encodable(name)):
                        return False
                items = value.values()
            else:
                items = value
            for item in items:
                kind = type(item)
                if kind is float:
                    if item - item != 0:
                        return False
                elif kind is int:
                    if not -_INT_LIMIT <= item <= _INT_LIMIT:
                        return False
                elif kind is str:
                    if not item.isascii() and not _encodable(item):
                        return False
                elif item is not None and kind is not bool:
                    stack.append((item, depth + 1))
        else:
            return False  # a scalar or another type at the top, or a subclass: look closer
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _ids(value: object, where: str, fail: Refusal) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        fail(f"{where} must be a list of ids, got {show(value)}")
    return tuple(value)


def _header(header: object, fail: Refusal) -> Header:
    if not isinstance(header, Mapping) or header.get("format") != FORMAT:
        fail(f'no "snapshot" header with format "{FORMAT}"')
    version = header.get("version")
    if not is_number(version, integer=True):
        fail(f"snapshot version must be an integer, got {show(version)}")
    if version > VERSION:
        fail(
            f"written in snapshot format {version} by {_name(str(header.get('tool')))} "
            f"{_name(str(header.get('tool_version')))}; this is {tool_version()}, which reads "
            f"up to {VERSION}"
        )
    created = header.get("created")
    if not is_time(created):
        fail(f"snapshot.created must be an ISO 8601 time, got {show(created)}")
    for key in ("label", "tool", "tool_version"):
        if header.get(key) is not None and not isinstance(header[key], str):
            fail(f"snapshot.{key} must be a string or null, got {show(header[key])}")
    return Header(created, header.get("label"), header.get("tool_version"), header.get("tool"),
                  FORMAT, version, header.get(FIELD))


def _conventions(conventions: object, fail: Refusal) -> tuple[Conventions, dict | None]:
    if not isinstance(conventions, Mapping):
        fail("no conventions")
    values = LEGACY_CONVENTIONS | {n: conventions[n] for n in CONVENTION_FIELDS if n in conventions}
    missing = [name for name in CONVENTION_FIELDS if name not in values]
    if missing:
        fail(f"conventions lack {', '.join(missing)}")
    try:
        typed = Conventions(**values)
    except (TypeError, ValueError) as error:
        fail(f"conventions: {_name(str(error))}")
    sentences = conventions.get("sentences")
    if sentences is not None and not (
        isinstance(sentences, Mapping) and all(isinstance(v, str) for v in sentences.values())
    ):
        fail("conventions.sentences must be an object of sentences")
    return typed, None if sentences is None else dict(sentences)


def _run(i: int, run: object, k: int, conventions: Conventions, fail: Refusal) -> SnapshotRun:
    if not isinstance(run, Mapping) or not isinstance(run.get("name"), str):
        fail(f"run {i + 1} has no name")
    name = run["name"]
    for key in ("summary", "queries", "fingerprint"):
        if key not in run:
            fail(f"run {show(name)} has no {key}")

    def bad(problem: str) -> NoReturn:
        fail(f"run {show(name)}: {problem}")

    if not isinstance(run["fingerprint"], str):
        bad(f"fingerprint must be a string, got {show(run['fingerprint'])}")
    repeats = run.get("repeats")
    if repeats is not None and (not is_number(repeats, integer=True) or repeats < 0):
        bad(f"repeats must be a count, got {show(repeats)}")
    lists = {key: None if run.get(key) is None
             else _ids(run[key], f"run {show(name)}: {key}", fail)
             for key in ("missing_queries", "ignored_queries")}
    query_ids, per_query = _queries(run["queries"], k, conventions, bad)
    details = {key: value for key, value in run.items() if key not in _RUN_KEYS}
    return SnapshotRun(name, run["fingerprint"], _summary(run["summary"], bad), query_ids,
                       per_query, repeats, lists["missing_queries"], lists["ignored_queries"],
                       details)


def _summary(summary: object, bad) -> dict[str, Figure]:
    if not isinstance(summary, Mapping):
        bad(f"summary must be an object keyed by metric, got {show(summary)}")
    figures = {}
    for label, figure in summary.items():
        if not isinstance(figure, Mapping):
            bad(f"summary.{_name(label)} must be an object (mean, low, high, interval), "
                f"got {show(figure)}")
        for key in ("mean", "low", "high"):
            if _bounded(label):
                _score(figure.get(key), f"summary.{_name(label)}.{key}", bad)
            elif not is_number(figure.get(key)) or figure.get(key) < 0:
                bad(f"summary.{_name(label)}.{key} must be a number >= 0, "
                    f"got {show(figure.get(key))}")
        if not isinstance(figure.get("interval"), str):
            bad(f"summary.{_name(label)}.interval must name the method, "
                f"got {show(figure.get('interval'))}")
        figures[label] = Figure(figure["mean"], figure["low"], figure["high"], figure["interval"])
    return figures


def _bounded(label: object) -> bool:
    """Whether a summary label names a score in [0, 1] (a count does not; a label no measure
    reads is held to [0, 1], as every figure was before the counts)."""
    try:
        return parse_measure(label).measure.bounded
    except ValueError:
        return True


def _score(value: Any, where: str, bad) -> None:
    if not is_number(value):
        bad(f"{where} must be a number, got {show(value)}")
    if not 0 <= value <= 1:
        bad(f"{where} must lie in [0, 1], got {show(value)}")


def _queries(rows: object, k: int, conventions: Conventions,
             bad) -> tuple[tuple[str, ...], dict[str, tuple]]:
    if not isinstance(rows, list) or not all(
        isinstance(row, Mapping) and isinstance(row.get("query_id"), str) for row in rows
    ):
        bad("queries must be objects with a query_id")
    query_ids = tuple(row["query_id"] for row in rows)
    if len(set(query_ids)) != len(query_ids):
        seen: set[str] = set()
        twice = next(q for q in query_ids if q in seen or seen.add(q))
        bad(f"queries holds query_id {show(twice)} more than once")
    columns = [key for key in rows[0] if key != "query_id"] if rows else []
    for row in rows:
        if row.keys() != {"query_id", *columns}:
            bad(f"queries: the row of {show(row['query_id'])} has other fields than the "
                "first row")
    per_query = {column: tuple(row[column] for row in rows) for column in columns}
    scores, measures = score_columns(k, conventions), measure_columns(k, conventions)
    for column, values in per_query.items():
        if column in measures:
            score = column in scores
            for query, value in zip(query_ids, values, strict=True):
                if score:
                    if not (is_number(value) and 0 <= value <= 1):  # the message only if bad
                        _score(value, f"queries[{show(query)}].{_name(column)}", bad)
                elif not is_number(value) or value < 0:
                    bad(f"queries[{show(query)}].{_name(column)} must be a number >= 0, "
                        f"got {show(value)}")
    return query_ids, per_query
