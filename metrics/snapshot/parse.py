"""Reading and writing snapshot files: the JSON text checked against the schema, field by
field, into a typed ``Snapshot``; and a ``Snapshot`` written back as that text.

Every schema problem is one ValueError naming the file (``source``) and the field:
"monday.json: not a snapshot: run 'bm25': summary.nDCG@5.mean must lie in [0, 1], got 1.5".
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, NoReturn

from metrics.conventions import Conventions
from metrics.snapshot.comparable import CONVENTION_FIELDS
from metrics.snapshot.schema import (
    FORMAT,
    LEGACY_CONVENTIONS,
    VERSION,
    Figure,
    Header,
    Snapshot,
    SnapshotRun,
    is_number,
    measure_columns,
    score_columns,
    tool_version,
)

__all__ = ["as_snapshot", "dumps", "encode", "load", "loads", "parse", "save"]

_RUN_KEYS = ("name", "fingerprint", "summary", "queries", "repeats", "missing_queries",
             "ignored_queries")


class _Fail:
    def __init__(self, source: str) -> None:
        self.source = source

    def __call__(self, problem: str) -> NoReturn:
        raise ValueError(f"{self.source}: not a snapshot: {problem}")


def encode(data: Mapping) -> str:
    """Compact JSON of plain types (no NaN): the text of a snapshot file, newline aside."""
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise ValueError(f"snapshot is not plain JSON: {error}") from None


def dumps(snapshot: Snapshot | Mapping, *, source: str = "<snapshot>") -> str:
    """A snapshot as the text of its file: what save() writes (a dict is checked first)."""
    return encode(as_snapshot(snapshot, source).to_dict()) + "\n"


def save(snapshot: Snapshot | Mapping, path: str | os.PathLike) -> None:
    """Write a snapshot as UTF-8 JSON (checked first, so a bad dict never leaves a bad file)."""
    text = dumps(snapshot, source=os.fspath(path))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def load(path: str | os.PathLike) -> Snapshot:
    """Read and check a snapshot file; ValueError naming the file on anything else."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return loads(text, source=os.fspath(path))


def loads(text: str | bytes, *, source: str = "<snapshot>") -> Snapshot:
    """A snapshot from JSON text (an upload's bytes, say), checked like ``load``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{source}: not a snapshot: not valid JSON ({error})") from None
    return parse(data, source)


def as_snapshot(item: Snapshot | Mapping, source: str = "snapshot") -> Snapshot:
    """A Snapshot as it is, or a snapshot's JSON dict parsed and checked."""
    return item if isinstance(item, Snapshot) else parse(item, source)


def parse(data: object, source: str) -> Snapshot:
    """The typed Snapshot of a JSON value; ValueError naming ``source`` and the field."""
    fail = _Fail(source)
    if not isinstance(data, Mapping):
        fail("expected a JSON object")
    header = _header(data.get("snapshot"), fail)
    k = data.get("k")
    if not _is_int(k) or k < 1:
        fail(f"k must be a positive integer, got {k!r}")
    conventions, sentences = _conventions(data.get("conventions"), fail)
    query_set = data.get("query_set")
    if not isinstance(query_set, Mapping) or not isinstance(query_set.get("fingerprint"), str):
        fail("no query_set fingerprint")
    counts = {}
    for key in ("queries", "scored"):
        value = query_set.get(key)
        if value is not None and (not _is_int(value) or value < 0):
            fail(f"query_set.{key} must be a count, got {value!r}")
        counts[key] = value
    excluded = _ids(query_set.get("excluded", []), "query_set.excluded", fail)
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        fail("no runs")
    parsed = tuple(_run(i, run, k, fail) for i, run in enumerate(runs))
    if counts["scored"] is not None:
        for run in parsed:
            if len(run.query_ids) != counts["scored"]:
                fail(f"run {run.name!r}: queries holds {len(run.query_ids)} rows, "
                     f"query_set.scored says {counts['scored']}")
    return Snapshot(header, k, conventions, query_set["fingerprint"], parsed, excluded,
                    counts["queries"], counts["scored"], sentences)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ids(value: object, where: str, fail: _Fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        fail(f"{where} must be a list of ids, got {value!r}")
    return tuple(value)


def _header(header: object, fail: _Fail) -> Header:
    if not isinstance(header, Mapping) or header.get("format") != FORMAT:
        fail(f'no "snapshot" header with format "{FORMAT}"')
    version = header.get("version")
    if not _is_int(version):
        fail(f"snapshot version must be an integer, got {version!r}")
    if version > VERSION:
        fail(
            f"written in snapshot format {version} by {header.get('tool')} "
            f"{header.get('tool_version')}; this is {tool_version()}, which reads up to {VERSION}"
        )
    created = header.get("created")
    if not isinstance(created, str) or not created:
        fail(f"snapshot.created must be an ISO 8601 time, got {created!r}")
    for key in ("label", "tool", "tool_version"):
        if header.get(key) is not None and not isinstance(header[key], str):
            fail(f"snapshot.{key} must be a string or null, got {header[key]!r}")
    return Header(created, header.get("label"), header.get("tool_version"), header.get("tool"),
                  FORMAT, version)


def _conventions(conventions: object, fail: _Fail) -> tuple[Conventions, dict | None]:
    if not isinstance(conventions, Mapping):
        fail("no conventions")
    values = LEGACY_CONVENTIONS | {n: conventions[n] for n in CONVENTION_FIELDS if n in conventions}
    missing = [name for name in CONVENTION_FIELDS if name not in values]
    if missing:
        fail(f"conventions lack {', '.join(missing)}")
    try:
        typed = Conventions(**values)
    except (TypeError, ValueError) as error:
        fail(f"conventions: {error}")
    sentences = conventions.get("sentences")
    if sentences is not None and not (
        isinstance(sentences, Mapping) and all(isinstance(v, str) for v in sentences.values())
    ):
        fail("conventions.sentences must be an object of sentences")
    return typed, None if sentences is None else dict(sentences)


def _run(i: int, run: object, k: int, fail: _Fail) -> SnapshotRun:
    if not isinstance(run, Mapping) or not isinstance(run.get("name"), str):
        fail(f"run {i + 1} has no name")
    name = run["name"]
    for key in ("summary", "queries", "fingerprint"):
        if key not in run:
            fail(f"run {name!r} has no {key}")

    def bad(problem: str) -> NoReturn:
        fail(f"run {name!r}: {problem}")

    if not isinstance(run["fingerprint"], str):
        bad(f"fingerprint must be a string, got {run['fingerprint']!r}")
    repeats = run.get("repeats")
    if repeats is not None and (not _is_int(repeats) or repeats < 0):
        bad(f"repeats must be a count, got {repeats!r}")
    lists = {key: None if run.get(key) is None else _ids(run[key], f"run {name!r}: {key}", fail)
             for key in ("missing_queries", "ignored_queries")}
    query_ids, per_query = _queries(run["queries"], k, bad)
    details = {key: value for key, value in run.items() if key not in _RUN_KEYS}
    return SnapshotRun(name, run["fingerprint"], _summary(run["summary"], bad), query_ids,
                       per_query, repeats, lists["missing_queries"], lists["ignored_queries"],
                       details)


def _summary(summary: object, bad) -> dict[str, Figure]:
    if not isinstance(summary, Mapping):
        bad(f"summary must be an object keyed by metric, got {summary!r}")
    figures = {}
    for label, figure in summary.items():
        if not isinstance(figure, Mapping):
            bad(f"summary.{label} must be an object (mean, low, high, interval), got {figure!r}")
        for key in ("mean", "low", "high"):
            _score(figure.get(key), f"summary.{label}.{key}", bad)
        if not isinstance(figure.get("interval"), str):
            bad(f"summary.{label}.interval must name the method, got {figure.get('interval')!r}")
        figures[label] = Figure(figure["mean"], figure["low"], figure["high"], figure["interval"])
    return figures


def _score(value: Any, where: str, bad) -> None:
    if not is_number(value):
        bad(f"{where} must be a number, got {value!r}")
    if not 0 <= value <= 1:
        bad(f"{where} must lie in [0, 1], got {value!r}")


def _queries(rows: object, k: int, bad) -> tuple[tuple[str, ...], dict[str, tuple]]:
    if not isinstance(rows, list) or not all(
        isinstance(row, Mapping) and isinstance(row.get("query_id"), str) for row in rows
    ):
        bad("queries must be objects with a query_id")
    query_ids = tuple(row["query_id"] for row in rows)
    if len(set(query_ids)) != len(query_ids):
        seen: set[str] = set()
        twice = next(q for q in query_ids if q in seen or seen.add(q))
        bad(f"queries holds query_id {twice!r} more than once")
    columns = [key for key in rows[0] if key != "query_id"] if rows else []
    for row in rows:
        if row.keys() != {"query_id", *columns}:
            bad(f"queries: the row of {row['query_id']!r} has other fields than the first row")
    per_query = {column: tuple(row[column] for row in rows) for column in columns}
    scores, measures = score_columns(k), measure_columns(k)
    for column, values in per_query.items():
        if column in measures:
            for query, value in zip(query_ids, values, strict=True):
                if column in scores:
                    _score(value, f"queries[{query!r}].{column}", bad)
                elif not is_number(value) or value < 0:
                    bad(f"queries[{query!r}].{column} must be a number >= 0, got {value!r}")
    return query_ids, per_query
