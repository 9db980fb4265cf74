"""Reading and writing snapshot files: the JSON text checked against the schema, field by
field, into a typed ``Snapshot``; and a ``Snapshot`` written back as that text.

Every problem is one ValueError naming the file (``source``) and the field:
"monday.json: not a snapshot: run 'bm25': summary.nDCG@5.mean must lie in [0, 1], got 1.5".
Nothing else escapes, whatever the bytes: text that is not UTF-8, JSON nested deeper than
``MAX_DEPTH``, NaN, Infinity, numbers beyond 2**63 and lone surrogates are refused before the
schema is read, naming where they are, and values are quoted short.

Then the figures fingerprint is checked (``metrics.snapshot.integrity``): a mismatch is
refused, and the Snapshot carries its ``verification``. ``key`` defaults to the environment's
``RETRIEVAL_COMPARE_SNAPSHOT_KEY``; pass ``key=None`` for none, or the key itself.
"""

from __future__ import annotations

import json
import os
import reprlib
from collections.abc import Mapping
from typing import Any, NoReturn

from metrics.conventions import Conventions
from metrics.snapshot.comparable import CONVENTION_FIELDS
from metrics.snapshot.integrity import (
    FIELD,
    FROM_ENVIRONMENT,
    UNVERIFIED_NO_KEY,
    UNVERIFIED_OLD,
    Key,
    check,
    resolve_key,
    seal,
)
from metrics.snapshot.schema import (
    FORMAT,
    LEGACY_CONVENTIONS,
    VERSION,
    Figure,
    Header,
    Snapshot,
    SnapshotRun,
    is_number,
    is_time,
    measure_columns,
    score_columns,
    tool_version,
)

__all__ = ["MAX_DEPTH", "as_snapshot", "dumps", "encode", "load", "loads", "parse", "save"]

_RUN_KEYS = ("name", "fingerprint", "summary", "queries", "repeats", "missing_queries",
             "ignored_queries")
MAX_DEPTH = 32  # a snapshot nests 5 levels deep
_INT_LIMIT = 2**63
_KEPT_AS_READ = (UNVERIFIED_OLD, UNVERIFIED_NO_KEY)

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxdict = 4
_short.maxlevel = 2


def show(value: object) -> str:
    """A value quoted in a message: its repr, cut short."""
    return _short.repr(value)


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


def dumps(snapshot: Snapshot | Mapping, *, source: str = "<snapshot>",
          key: Key = FROM_ENVIRONMENT) -> str:
    """A snapshot as the text of its file: what save() writes (a dict is checked first).

    The figures fingerprint is written for what is written: an HMAC under ``key`` (default
    ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` if set), else SHA-256. A snapshot read unverified
    (before fingerprints, or signed with a key not given) keeps the fingerprint it was read
    with, none or that HMAC: writing never turns an unverified snapshot into a verified one.
    """
    key = resolve_key(key)
    typed = as_snapshot(snapshot, source, key=key)
    data = typed.to_dict()
    if typed.verification not in _KEPT_AS_READ:
        seal(data, key)
    return encode(data) + "\n"


def save(snapshot: Snapshot | Mapping, path: str | os.PathLike, *,
         key: Key = FROM_ENVIRONMENT) -> None:
    """Write a snapshot as UTF-8 JSON (checked first, so a bad dict never leaves a bad file)."""
    text = dumps(snapshot, source=os.fspath(path), key=key)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def load(path: str | os.PathLike, *, key: Key = FROM_ENVIRONMENT) -> Snapshot:
    """Read and check a snapshot file; ValueError naming the file on anything else."""
    with open(path, "rb") as handle:
        payload = handle.read()
    return loads(payload, source=os.fspath(path), key=key)


def loads(text: str | bytes, *, source: str = "<snapshot>", key: Key = FROM_ENVIRONMENT
          ) -> Snapshot:
    """A snapshot from JSON text or UTF-8 bytes (an upload's, say), checked like ``load``."""
    fail = _Fail(source)
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            fail(f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
                 f"{error.start})")
    if not isinstance(text, str):
        fail(f"expected JSON text or bytes, got {type(text).__name__}")
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as error:
        fail(f"not valid JSON ({error})")
    except RecursionError:
        fail(f"not valid JSON (nested more than {MAX_DEPTH} levels deep)")
    except ValueError:  # an integer of more digits than Python converts
        fail("not valid JSON (a number with thousands of digits)")
    return parse(data, source, key=key)


def as_snapshot(item: Snapshot | Mapping, source: str = "snapshot", *,
                key: Key = FROM_ENVIRONMENT) -> Snapshot:
    """A Snapshot as it is, or a snapshot's JSON dict parsed and checked."""
    return item if isinstance(item, Snapshot) else parse(item, source, key=key)


def parse(data: object, source: str, *, key: Key = FROM_ENVIRONMENT) -> Snapshot:
    """The typed Snapshot of a JSON value; ValueError naming ``source`` and the field.

    Checked in order: plain JSON (depth, numbers, text), the schema, the figures
    fingerprint (a mismatch is refused; the result carries its ``verification``)."""
    fail = _Fail(source)
    secret = resolve_key(key)
    _plain_json(data, fail)
    if not isinstance(data, Mapping):
        fail("expected a JSON object")
    header = _header(data.get("snapshot"), fail)
    k = data.get("k")
    if not _is_int(k) or k < 1:
        fail(f"k must be a positive integer, got {show(k)}")
    conventions, sentences = _conventions(data.get("conventions"), fail)
    query_set = data.get("query_set")
    if not isinstance(query_set, Mapping) or not isinstance(query_set.get("fingerprint"), str):
        fail("no query_set fingerprint")
    counts = {}
    for name in ("queries", "scored"):
        value = query_set.get(name)
        if value is not None and (not _is_int(value) or value < 0):
            fail(f"query_set.{name} must be a count, got {show(value)}")
        counts[name] = value
    excluded = _ids(query_set.get("excluded", []), "query_set.excluded", fail)
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        fail("no runs")
    parsed = tuple(_run(i, run, k, fail) for i, run in enumerate(runs))
    if counts["scored"] is not None:
        for run in parsed:
            if len(run.query_ids) != counts["scored"]:
                fail(f"run {show(run.name)}: queries holds {len(run.query_ids)} rows, "
                     f"query_set.scored says {counts['scored']}")
    verification = check(data, secret, source)
    return Snapshot(header, k, conventions, query_set["fingerprint"], parsed, excluded,
                    counts["queries"], counts["scored"], sentences, verification)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(text: str) -> str:
    """A key from the file, in a message: cut short, on one line."""
    return show(text)[1:-1]


def _where(path: tuple) -> str:
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
    return _name(text.removeprefix(".") or "the document")


def _plain_json(data: object, fail: _Fail) -> None:
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


def _ids(value: object, where: str, fail: _Fail) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
        fail(f"{where} must be a list of ids, got {show(value)}")
    return tuple(value)


def _header(header: object, fail: _Fail) -> Header:
    if not isinstance(header, Mapping) or header.get("format") != FORMAT:
        fail(f'no "snapshot" header with format "{FORMAT}"')
    version = header.get("version")
    if not _is_int(version):
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
        fail(f"conventions: {_name(str(error))}")
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
            fail(f"run {show(name)} has no {key}")

    def bad(problem: str) -> NoReturn:
        fail(f"run {show(name)}: {problem}")

    if not isinstance(run["fingerprint"], str):
        bad(f"fingerprint must be a string, got {show(run['fingerprint'])}")
    repeats = run.get("repeats")
    if repeats is not None and (not _is_int(repeats) or repeats < 0):
        bad(f"repeats must be a count, got {show(repeats)}")
    lists = {key: None if run.get(key) is None
             else _ids(run[key], f"run {show(name)}: {key}", fail)
             for key in ("missing_queries", "ignored_queries")}
    query_ids, per_query = _queries(run["queries"], k, bad)
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
            _score(figure.get(key), f"summary.{_name(label)}.{key}", bad)
        if not isinstance(figure.get("interval"), str):
            bad(f"summary.{_name(label)}.interval must name the method, "
                f"got {show(figure.get('interval'))}")
        figures[label] = Figure(figure["mean"], figure["low"], figure["high"], figure["interval"])
    return figures


def _score(value: Any, where: str, bad) -> None:
    if not is_number(value):
        bad(f"{where} must be a number, got {show(value)}")
    if not 0 <= value <= 1:
        bad(f"{where} must lie in [0, 1], got {show(value)}")


def _queries(rows: object, k: int, bad) -> tuple[tuple[str, ...], dict[str, tuple]]:
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
    scores, measures = score_columns(k), measure_columns(k)
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
