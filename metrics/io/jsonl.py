"""JSONL: one JSON object a line, `{"query_id": ..., "relevant": [ids] | {id: grade}}` for
qrels and `{"query_id": ..., "retrieved": [ids]}` for a run (one file may carry both)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from metrics.io.errors import LoadError, show
from metrics.io.parsed import Rows
from metrics.io.report import ReportLine
from metrics.io.sources import Source

_JSON_TYPES = {
    dict: "an object", list: "an array", str: "a string", int: "an integer",
    float: "a number", bool: "a boolean", type(None): "null",
}


def json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def json_value(value: object) -> str:
    """A JSON value for a message: its type, and the value when that says more."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return f"{json_type(value)} {show(value)}"


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class DuplicateKey(ValueError):
    pass


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    # json.loads would keep the last of two equal keys silently.
    record = dict(pairs)
    if len(record) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        raise DuplicateKey(next(key for key, _ in pairs if counts[key] > 1))
    return record


def json_object(src: Source, number: int, line: str) -> dict:
    """One line's JSON object, or the loader's one-line error naming the file and line."""
    try:
        record = json.loads(line, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise src.fail(number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except DuplicateKey as exc:
        raise src.fail(number, f"JSON object repeats the key {show(str(exc))}") from None
    except RecursionError:
        raise src.fail(number, "JSON nested too deeply") from None
    except ValueError as exc:  # Python's limit on the digits of an integer
        digits = sys.get_int_max_str_digits()
        problem = f"number too long (over {digits:,} digits)"
        if "digits" not in str(exc):
            problem = f"not valid JSON ({exc})"
        raise src.fail(number, problem) from None
    if not isinstance(record, dict):
        raise src.fail(number, f"expected a JSON object, got {json_type(record)}")
    return record


def _json_records(src: Source, field_name: str, kind: str) -> list[tuple[int, str, object]]:
    """(line, query id, value of `field_name`) for each record."""
    records = []
    for number, line in src.numbered_lines():
        record = json_object(src, number, line)
        if "query_id" not in record:
            raise src.fail(number, "JSON record has no 'query_id'")
        if field_name not in record:
            other = {"retrieved": ("relevant", "qrels", "the qrels, not as a run"),
                     "relevant": ("retrieved", "run", "a run, not as the qrels")}.get(field_name)
            if other and other[0] in record:  # the other kind's file, in the wrong box
                raise LoadError(src.name, number, f"JSON record has no {field_name!r}, needed "
                                f"for {kind}, but has {other[0]!r}: it looks like a JSONL "
                                f"{other[1]} file; give it as {other[2]}", belongs=other[1])
            raise src.fail(number, f"JSON record has no {field_name!r}, needed for {kind}")
        query = json_id(src, number, record["query_id"], "query_id")
        records.append((number, query, record[field_name]))
    return records


def json_id(src: Source, number: int, value: object, where: str) -> str:
    # JSON integers are accepted as ids; anything else that is not a string is refused.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise src.fail(number, f"{where} must be a string id, got {json_value(value)}")
    if not value:
        raise src.fail(number, f"{where} is an empty id")
    return value


def _json_ids(src: Source, number: int, values: list, where: str) -> list[str]:
    if set(map(type, values)) <= {str} and "" not in values:  # the common case, checked fast
        return values
    return [json_id(src, number, value, where) for value in values]


def _first_records(
    src: Source, records: list[tuple[int, str, list]], field_name: str
) -> tuple[list[tuple[int, str, list]], list[ReportLine]]:
    """One record per query: an identical repeat is dropped, a different one is an error."""
    kept: dict[str, tuple[int, str, list]] = {}
    dropped = []
    for number, query, items in records:
        if query not in kept:
            kept[query] = (number, query, items)
        elif kept[query][2] == items:
            dropped.append(ReportLine(number, f"identical duplicate of line {kept[query][0]}"))
        else:
            raise src.fail(
                number,
                f"query {show(query)} was already given on line {kept[query][0]} "
                f"with a different {field_name!r}",
            )
    return list(kept.values()), dropped


def _json_rows(src: Source, field_name: str, kind: str, items_of: Callable) -> Rows:
    """One row per item of each record's list; `items_of(number, value)` checks the list."""
    records = [(n, q, items_of(n, value)) for n, q, value in _json_records(src, field_name, kind)]
    kept, dropped = _first_records(src, records, field_name)
    _utf8(src, [q for _, q, _ in kept], [n for n, _, _ in kept])
    items = [item for _, _, record_items in kept for item in record_items]
    sizes = [len(record_items) for _, _, record_items in kept]
    return Rows(
        query=np.repeat(np.array([q for _, q, _ in kept], dtype=object), sizes),
        doc=items,
        line=np.repeat(np.array([n for n, _, _ in kept], dtype=np.int64), sizes),
        lines_read=len(records),
        query_ids=np.array([q for _, q, _ in kept], dtype=object),
        query_lines=[n for n, _, _ in kept],
        dropped=dropped,
    )


def jsonl_qrels(src: Source) -> Rows:
    notes = []

    def relevant(number: int, value: object) -> list[tuple[str, int]]:
        pairs = _json_relevant(src, number, value)
        repeated = sorted(doc for doc, count in Counter(doc for doc, _ in pairs).items()
                          if count > 1)
        if repeated:
            notes.append(f"line {number}: {', '.join(map(repr, repeated))} listed more than "
                         "once in 'relevant'; counted once")
        return list(dict(pairs).items())

    rows = _json_rows(src, "relevant", "qrels", relevant)  # rows.doc holds (doc, grade) pairs
    rows.grade = np.array([grade for _, grade in rows.doc], dtype=np.int64)
    rows.doc = _utf8(src, [doc for doc, _ in rows.doc], rows.line)
    rows.notes = notes
    return rows


def _json_relevant(src: Source, number: int, value: object) -> list[tuple[str, int]]:
    """(doc, grade) pairs from a list of ids (grade 1 each) or an object {id: grade}."""
    if isinstance(value, list):
        return [(doc, 1) for doc in _json_ids(src, number, value, "'relevant'")]
    if isinstance(value, dict):
        for doc, grade in value.items():
            if not isinstance(grade, int) or isinstance(grade, bool):
                raise src.fail(
                    number, f"grade of {show(doc)} must be an integer, got {json_value(grade)}"
                )
            if not _INT64_MIN <= grade <= _INT64_MAX:
                raise src.fail(number, f"grade {show(grade)} of {show(doc)} is too large")
            json_id(src, number, doc, "'relevant'")
        return list(value.items())
    raise src.fail(
        number,
        f"'relevant' must be a list of ids or an object {{id: grade}}, got {json_type(value)}",
    )


def jsonl_run(src: Source) -> Rows:
    def retrieved(number: int, value: object) -> list[str]:
        if not isinstance(value, list):
            raise src.fail(number, f"'retrieved' must be a list of ids, got {json_type(value)}")
        return _json_ids(src, number, value, "'retrieved'")

    rows = _json_rows(src, "retrieved", "a run", retrieved)
    rows.doc = _utf8(src, rows.doc, rows.line)
    listed = set(rows.query.tolist())
    rows.notes = [
        f"line {number}: query {query!r} retrieved nothing"
        for number, query in zip(rows.query_lines, rows.query_ids, strict=True)
        if query not in listed
    ]
    return rows


def _utf8(src: Source, ids: list[str], lines: np.ndarray | list[int]) -> pa.Array:
    """The ids as arrow strings. A JSON escape of half a surrogate pair ("\\ud800") gives
    a string that is not Unicode text: named with its line."""
    try:
        return pa.array(ids, pa.string())
    except UnicodeEncodeError:
        bad = next(i for i, value in enumerate(ids) if not encodes(value))
        raise src.fail(
            int(lines[bad]), f"id {show(ids[bad])} is not valid UTF-8 (a lone surrogate escape)"
        ) from None


def encodes(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
