"""An optional queries file: each query's text, and facets to split the figures by.

Formats, detected from the first non-blank line (or named by `format`):
- "tsv": `query_id<TAB>text` lines without a header (MS MARCO). Nothing is unquoted: a text
  keeps its quotes as written, so each line must hold exactly one tab.
- "csv": CSV, or TSV when the header line holds a tab, whose header names `query_id` (or
  `qid`) and `text` (or `query`, as PyTerrier names it); every other column is a facet.
  Cells may be quoted as in RFC 4180 (`"say ""hi"" now"`); a quote that breaks that rule, or a
  quoted cell that runs past the end of its line, is an error naming the line.
- "beir": BEIR's queries.jsonl, `{"_id": ..., "text": ..., "metadata": {...}}`.
- "jsonl": `{"query_id": ..., "text": ..., ...}`, one object a line.
In both JSON formats the keys of a `metadata` object, and every other key, are facets; a
key given both inside `metadata` and beside it is an error. A nested value (a list or an
object) is kept as its JSON text, keys sorted, so that equal values fall in one category.

Rules: a query id is given once (a query has one text): a repeat is an error naming both
lines. A text must be a non-blank string and is kept verbatim (escaping is the viewer's
job); ids and delimited facet cells are trimmed of surrounding whitespace. A facet's value
is missing (None) when it is absent, null or blank; a facet whose present values all read
as finite numbers holds numbers (int where written as one), any other holds strings (a JSON
`true` as "true"). Every query read is kept: none is dropped, so `queries_report` can say
which ones the query set does not hold.

Bounds, as the qrels and run readers have them: the file's bytes (`max_bytes`, after gzip
expansion), a line's (MAX_LINE_BYTES, with the same message), the lines a file may hold
(MAX_QUERY_LINES, so that ten million tiny records are refused before they become ten
million Python objects), and a delimited cell's length (the csv module's field limit); a
file too large for memory anyway is a one-line `LoadError` naming it.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from metrics.io.errors import LoadError, check_choice, show
from metrics.io.jsonl import json_id, json_object, json_value
from metrics.io.rows import Qrels
from metrics.io.sources import Source, open_source, source_name
from metrics.io.streams import MAX_INPUT_BYTES, MAX_INPUT_FLAG, check_max_bytes
from metrics.io.tables import check_line_lengths
from metrics.vocabulary.format import count, listing
from metrics.vocabulary.numeric import is_number

QUERIES_FORMATS = ("tsv", "csv", "beir", "jsonl")
REPORT_FIRST = 10  # ids a report lists of each kind: enough to see a pattern, short to read
# Lines a queries file may hold: twice the million queries a query set is scored at. Each
# query read becomes some 300 bytes of Python objects, so this keeps a file under 1 GB.
MAX_QUERY_LINES = 2_000_000

_ID_NAMES = ("query_id", "qid")
_TEXT_NAMES = ("text", "query")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
# a JSON escape of half a surrogate pair decodes to a string that is not Unicode text
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

Value = str | int | float | None
_Record = tuple[int, str, str, dict[str, object]]  # line, id, text, raw facet values


@dataclass(frozen=True, eq=False)
class Queries:
    """Query texts and facets, in file order; `facets[name][i]` belongs to `ids[i]`."""

    source: str
    format: str  # one of QUERIES_FORMATS
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    facets: dict[str, tuple[Value, ...]]  # name -> one value per query, None where missing
    lines: tuple[int, ...]  # the source line of each query

    def __len__(self) -> int:
        return len(self.ids)

    @cached_property
    def position(self) -> dict[str, int]:
        """Each id's index in `ids`."""
        return {query: i for i, query in enumerate(self.ids)}

    def text(self, query_id: str) -> str | None:
        """The query's text; None for a query the file does not give."""
        at = self.position.get(query_id)
        return None if at is None else self.texts[at]


def load_queries(
    source: str | os.PathLike | bytes, *, file_name: str | None = None, format: str = "auto",
    max_bytes: int = MAX_INPUT_BYTES,
) -> Queries:
    """Read a queries file (see the module's docstring for the formats and rules).

    `source`, `file_name` and `max_bytes` are read as `load_qrels` reads them: a path (`-`
    for standard input) or an upload's bytes, gzip by extension or content, bounded.
    Raises `LoadError` (`FILE, line N: problem`) for a malformed line, an empty file, a
    header without query_id or text, or a query id given twice.
    """
    check_choice("format", format, ("auto", *QUERIES_FORMATS))
    check_max_bytes(max_bytes)
    try:
        src = open_source(source, file_name, max_bytes)
        _check_bounds(src)
        fmt = _detect(src) if format == "auto" else format
        if fmt == "tsv":
            records = _tsv_records(src)
        elif fmt == "csv":
            records = _csv_records(src)
        else:
            fmt, records = _json_records(src, None if fmt == "json" else fmt)
        return _queries(src, fmt, records)
    except MemoryError:
        raise LoadError(
            source_name(source, file_name), None,
            f"too large to load in memory (a lower max_bytes, {MAX_INPUT_FLAG}, refuses it "
            "before reading it all)",
        ) from None


def _check_bounds(src: Source) -> None:
    """Lines past MAX_QUERY_LINES, or one past MAX_LINE_BYTES, refused before parsing."""
    lines = src.raw.count(b"\n") + (not src.raw.endswith(b"\n"))
    if lines > MAX_QUERY_LINES:
        raise src.fail(None, f"{lines:,} lines, over the {MAX_QUERY_LINES:,} limit for a "
                       "queries file (one query a line)")
    check_line_lengths(src)


def _detect(src: Source) -> str:
    """"json" (BEIR or not: the first record tells), "csv" (a header), or "tsv"."""
    number, line = src.first_line
    if line.startswith(("{", "[")):  # "[": a JSON array gets a JSON error
        return "json"
    names = {name.lower() for name in _header_cells(line)}
    if names & {*_ID_NAMES, *_TEXT_NAMES}:
        return "csv"
    if "\t" in line:
        return "tsv"
    raise src.fail(
        number,
        f"cannot detect the format from {show(line)}: expected query_id<TAB>text lines, "
        "a CSV/TSV header naming query_id and text, or a JSON object per line",
    )


def _header_cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line], delimiter=_delimiter(line), skipinitialspace=True), [])
    except csv.Error:  # a cell beyond the csv module's size limit: no header holds one
        return []


def _delimiter(header: str) -> str:
    return "\t" if "\t" in header else ","


# --- delimited -------------------------------------------------------------------------


def _tsv_records(src: Source) -> list[_Record]:
    records = []
    for number, line in src.numbered_lines():
        fields = line.split("\t")
        if len(fields) != 2:
            raise src.fail(
                number, f"expected 2 tab-separated columns (query_id, text), got {len(fields)}"
            )
        query = _cell_id(src, number, fields[0])
        records.append((number, query, _text(src, number, query, fields[1]), {}))
    return records


def _csv_records(src: Source) -> list[_Record]:
    header_line, header = src.first_line
    delimiter = _delimiter(header)
    names = [name.strip() for name in _cells(src, header_line, header, delimiter)]
    id_at, text_at = _header_columns(src, header_line, header, names)
    facet_at = [(i, name) for i, name in enumerate(names) if i not in (id_at, text_at)]
    records = []
    for number, line in src.numbered_lines():
        if number <= header_line:
            continue
        cells = _cells(src, number, line, delimiter)
        if len(cells) != len(names):
            raise src.fail(
                number,
                f"expected {len(names)} columns (as in the header on line {header_line}), "
                f"got {len(cells)}",
            )
        query = _cell_id(src, number, cells[id_at])
        text = _text(src, number, query, cells[text_at])
        records.append((number, query, text, {name: cells[i] for i, name in facet_at}))
    if not records:
        raise src.fail(None, "no data lines (only a header)")
    return records


def _cells(src: Source, number: int, line: str, delimiter: str) -> list[str]:
    # strict: a stray quote is refused rather than silently dropped from the text
    try:
        return next(csv.reader([line], delimiter=delimiter, strict=True, skipinitialspace=True))
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            problem = ("a quoted cell runs past the end of the line (line breaks in cells are "
                       "not supported)")
        elif "field larger than field limit" in str(exc):
            problem = (f"a cell longer than {csv.field_size_limit():,} characters, the limit "
                       "for one cell")
        else:
            problem = (f"malformed quotes ({exc}): quote a cell that holds '\"' whole and "
                       'double its quotes, as in "say ""hi"" now"')
        raise src.fail(number, problem) from None


def _header_columns(src: Source, number: int, header: str, names: list[str]) -> tuple[int, int]:
    """The positions of the id and text columns; a header must name each once."""
    lowered = [name.lower() for name in names]
    for i, name in enumerate(lowered):
        if not name:
            raise src.fail(number, f"the header's column {i + 1} has no name")
        if name in lowered[:i]:
            raise src.fail(number, f"the header names the column {show(names[i])} twice")
    found = []
    for role, aliases in (("query_id", _ID_NAMES), ("text", _TEXT_NAMES)):
        given = [name for name in aliases if name in lowered]
        if not given:
            raise src.fail(
                number,
                f"header lacks a {' or '.join(aliases)} column (found {show(header, 60)})",
            )
        if len(given) > 1:
            raise src.fail(
                number, f"the header names the {role} column twice: " + " and ".join(given)
            )
        found.append(lowered.index(given[0]))
    return found[0], found[1]


def _cell_id(src: Source, number: int, cell: str) -> str:
    query = cell.strip()
    if not query:
        raise src.fail(number, "empty query id")
    return query


def _text(src: Source, number: int, query: str, text: str) -> str:
    if not text.strip():
        raise src.fail(number, f"query {show(query)} has an empty text")
    return text


# --- JSON ------------------------------------------------------------------------------


def _json_records(src: Source, fmt: str | None) -> tuple[str, list[_Record]]:
    """The records of a BEIR or JSONL file; with `fmt` None, the first record's id key
    ("_id" or "query_id") names the format and every record must use it."""
    id_key = {"beir": "_id", "jsonl": "query_id"}.get(fmt)
    records = []
    for number, line in src.numbered_lines():
        record = _json_object(src, number, line)
        if id_key is None:
            id_key = "_id" if "_id" in record else "query_id"
            if id_key not in record:
                raise src.fail(number, "JSON record has no 'query_id' (or '_id', as in BEIR)")
        if id_key not in record:
            raise src.fail(number, f"JSON record has no {id_key!r}")
        if "text" not in record:
            raise src.fail(number, "JSON record has no 'text'")
        query = json_id(src, number, record.pop(id_key), id_key)
        text = record.pop("text")
        if not isinstance(text, str):
            raise src.fail(number, f"'text' must be a string, got {json_value(text)}")
        records.append((number, query, _text(src, number, query, text),
                        _json_facets(src, number, record)))
    return ("beir" if id_key == "_id" else "jsonl"), records


def _json_object(src: Source, number: int, line: str) -> dict:
    record = json_object(src, number, line)
    if _SURROGATE_ESCAPE.search(line):
        try:
            json.dumps(record, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise src.fail(
                number, "a string is not valid UTF-8 (a lone surrogate escape)"
            ) from None
    return record


def _json_facets(src: Source, number: int, record: dict) -> dict[str, object]:
    """The facets of a record whose id and text were taken out: `metadata`'s keys (an
    object, or null for none) and every other key."""
    facets = dict(record)
    if isinstance(facets.get("metadata", ()), dict | None):  # any other metadata is a facet
        metadata = facets.pop("metadata") or {}
        clash = next((key for key in metadata if key in facets), None)
        if clash is not None:
            raise src.fail(number, f"{show(clash)} is given both in 'metadata' and beside it")
        facets.update(metadata)
    return {key: _json_scalar(value) for key, value in facets.items()}


def _json_scalar(value: object) -> object:
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


# --- the value -------------------------------------------------------------------------


def _queries(src: Source, fmt: str, records: list[_Record]) -> Queries:
    seen: dict[str, int] = {}
    for number, query, _, _ in records:
        if query in seen:
            raise src.fail(
                number, f"query {show(query)} was already given on line {seen[query]} "
                "(a query has one text)",
            )
        seen[query] = number
    names = dict.fromkeys(name for record in records for name in record[3])
    return Queries(
        source=src.name,
        format=fmt,
        ids=tuple(query for _, query, _, _ in records),
        texts=tuple(text for _, _, text, _ in records),
        facets={name: _column([record[3].get(name) for record in records]) for name in names},
        lines=tuple(number for number, _, _, _ in records),
    )


def _column(values: list[object]) -> tuple[Value, ...]:
    """Numbers when every present value reads as a finite number, else strings."""
    values = [_present(value) for value in values]
    as_numbers = [None if value is None else _number(value) for value in values]
    if any(value is not None for value in values) and all(
        number is not None for value, number in zip(values, as_numbers, strict=True)
        if value is not None
    ):
        return tuple(as_numbers)
    return tuple(
        value if value is None or isinstance(value, str) else json.dumps(value)
        for value in values
    )


def _present(value: object) -> object:
    if isinstance(value, str):
        value = value.strip()
        return value or None
    return value


def _number(value: object) -> int | float | None:
    """A finite number that float arithmetic can hold (an integer beyond float range could
    not be binned), or None."""
    if isinstance(value, str):
        if not _NUMBER.fullmatch(value):
            return None
        try:
            value = int(value) if _INTEGER.fullmatch(value) else float(value)
        except ValueError:  # more digits than Python converts
            return None
    return value if is_number(value) else None


# --- the report ------------------------------------------------------------------------


@dataclass(frozen=True)
class QueriesReport:
    """How a queries file meets the query set. Invariants: queries == with_text +
    not_in_qrels; the query set holds with_text + without_text queries."""

    source: str
    queries: int  # read from the file
    with_text: int  # queries of the query set the file gives a text
    not_in_qrels: int  # queries of the file outside the query set: never scored
    not_in_qrels_first: tuple[str, ...]  # the first REPORT_FIRST of them, file order
    without_text: int  # queries of the query set the file does not give
    without_text_first: tuple[str, ...]  # the first REPORT_FIRST of them, query-set order

    def summary(self) -> str:
        parts = [f"{count(self.queries, 'query')} read",
                 f"{count(self.with_text, 'qrels query', 'qrels queries')} with a text"]
        if self.not_in_qrels:
            parts.append(f"{count(self.not_in_qrels, 'query', 'queries')} not in the qrels "
                         f"(never scored): {listing(self.not_in_qrels_first, REPORT_FIRST)}"
                         + _more(self.not_in_qrels, self.not_in_qrels_first))
        if self.without_text:
            parts.append(f"{count(self.without_text, 'qrels query', 'qrels queries')} without "
                         f"a text: {listing(self.without_text_first, REPORT_FIRST)}"
                         + _more(self.without_text, self.without_text_first))
        return f"{self.source}: " + "; ".join(parts)


def _more(total: int, shown: tuple[str, ...]) -> str:
    return f" and {total - len(shown):,} more" if total > len(shown) else ""


def queries_report(queries: Queries, query_set: Qrels | Iterable[str]) -> QueriesReport:
    """Which queries of the file the query set (a Qrels, or its query ids) does not hold,
    and which of its queries have no text; both counted in full, the first few listed."""
    ids = query_set.query_ids if isinstance(query_set, Qrels) else query_set
    ids = [str(query) for query in ids]
    in_set = set(ids)
    outside = [query for query in queries.ids if query not in in_set]
    without = [query for query in ids if query not in queries.position]
    return QueriesReport(
        source=queries.source,
        queries=len(queries),
        with_text=len(ids) - len(without),
        not_in_qrels=len(outside),
        not_in_qrels_first=tuple(outside[:REPORT_FIRST]),
        without_text=len(without),
        without_text_first=tuple(without[:REPORT_FIRST]),
    )
