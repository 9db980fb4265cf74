"""Load qrels and runs (TREC, BEIR TSV, CSV/TSV, JSONL; optionally gzipped) with a load report.

A malformed file is rejected as a whole: `LoadError` (a `ValueError`) with the one-line
message `FILE, line N: problem`. Valid lines that are not used are listed in the report.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import json
import os
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.arrow import from_numbers, index_in, numbers, strings

QRELS_FORMATS = ("trec", "beir", "csv", "jsonl")
RUN_FORMATS = ("trec", "csv", "jsonl")
RUN_ORDERS = ("score", "rank")
UPLOAD_NAME = "<upload>"

# Extensions stripped from a file name to name its run (`baseline.run.gz` -> `baseline`).
_RUN_EXTENSIONS = {
    ".gz", ".run", ".txt", ".trec", ".res", ".out", ".tsv", ".csv", ".jsonl", ".ndjson", ".json",
}
# Control bytes no text file holds; \x01 also serves the line reader as its no-delimiter.
_BINARY_BYTES = (b"\x00", b"\x01")
_BLANK = " \t\r\f\v"  # ASCII whitespace other than the newline: what a blank line may hold
_SPLIT_WS = re.compile(r"[ \t\r\f\v]+")
_NON_BLANK = re.compile(r"[^ \t\r\f\v\n]")
# Two patterns, not one with (?:\A|\n): the alternation makes the scan ten times slower.
_LEADING_BLANK_LINE = re.compile(rb"[ \t\r\f\v]*\n")
_INNER_BLANK_LINE = re.compile(rb"\n[ \t\r\f\v]*\n")
_INTEGER = r"^[+-]?[0-9]+$"
_JSON_TYPES = {
    dict: "an object", list: "an array", str: "a string", int: "an integer",
    float: "a number", bool: "a boolean", type(None): "null",
}


class LoadError(ValueError):
    """A file that cannot be loaded; the message is one line, `FILE, line N: problem`."""

    def __init__(self, source: str, line: int | None, problem: str) -> None:
        self.source, self.line, self.problem = source, line, problem
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {problem}")


class _CodedRows:
    """The per-row query id strings of a Qrels or Run, built from the codes when asked for."""

    @cached_property
    def query(self) -> np.ndarray:
        return self.query_ids[self.query_code]


@dataclass(frozen=True, eq=False)
class Qrels(_CodedRows):
    """The frozen query set and its judgments, one row per unique (query, doc) pair.

    Ids are kept as integer codes into tables of distinct values, so that aligning a run
    matches each distinct id once (in arrow) instead of hashing a million Python strings;
    `query` and `doc` give the per-row strings when they are asked for.
    """

    source: str
    query_ids: np.ndarray  # every query, first-appearance order (those without judgments too)
    query_code: np.ndarray  # int64 per row, into query_ids
    doc_code: np.ndarray  # int64 per row, into doc_names
    doc_names: pa.Array  # distinct doc ids (arrow strings)
    grade: np.ndarray  # int64
    line: np.ndarray  # int64, 1-based source line of each row

    @classmethod
    def from_rows(cls, source, query_ids, query, doc, grade, line) -> Qrels:
        query_ids = np.asarray(query_ids, dtype=object)
        doc_code, doc_names = _encode(doc)
        return cls(source, query_ids, index_in(list(query), query_ids), doc_code, doc_names,
                   np.asarray(grade, dtype=np.int64), np.asarray(line, dtype=np.int64))

    @cached_property
    def doc(self) -> np.ndarray:
        return strings(self.doc_names)[self.doc_code]



@dataclass(frozen=True, eq=False)
class Run(_CodedRows):
    """Ranked lists: rows grouped by query (first-appearance order), best rank first.

    A repeated doc id stays in its slot; the report lists it. Query ids are integer codes,
    doc ids one arrow string column; `query` and `doc` give the per-row strings. A run
    loaded against labels also holds, per row, its id's position among the labels' doc ids,
    so that aligning it to those labels is integer work.
    """

    name: str
    source: str
    query_ids: np.ndarray  # the run's queries, in row order (distinct)
    query_code: np.ndarray  # int64 per row, into query_ids; non-decreasing
    doc_ids: pa.Array  # per row (arrow strings)
    line: np.ndarray  # int64, 1-based source line of each row
    labels: pa.Array | None = None  # the Qrels.doc_names that label_code points into
    label_code: np.ndarray | None = None  # int64 per row, into labels; -1: not labelled

    @classmethod
    def from_lists(cls, name: str, lists: dict[str, list[str]], source: str | None = None) -> Run:
        """A run from {query: [ids in rank order]}, lines numbered in that order."""
        query = [q for q, docs in lists.items() for _ in docs]
        doc = [d for docs in lists.values() for d in docs]
        query_code, query_ids = _encode(query)
        return cls(name, source or name, strings(query_ids), query_code,
                   pa.array(doc, pa.string()), np.arange(1, len(doc) + 1, dtype=np.int64))

    def labelled_by(self, qrels: Qrels) -> Run:
        """The same run with each row's position among the qrels' doc ids (one hash pass)."""
        run = replace(self, labels=qrels.doc_names, label_code=self.codes_in(qrels.doc_names))
        run.__dict__.update(self._computed())
        return run

    def codes_in(self, doc_names: pa.Array) -> np.ndarray:
        """Per row: the position of its id among doc_names, -1 where absent; already known
        when the run was loaded against those labels."""
        if self.labels is doc_names:
            return self.label_code
        return index_in(self.doc_ids, doc_names)

    @cached_property
    def doc(self) -> np.ndarray:
        return strings(self.doc_ids)

    @cached_property
    def repeats(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows that repeat an id higher in their query's list, and the row of its first
        occurrence; computed once, for the load report and for alignment."""
        return repeated_ids(self.query_code, self.doc_ids)

    def renamed(self, name: str) -> Run:
        """The same run under another name, keeping what was already computed from it."""
        run = replace(self, name=name)
        run.__dict__.update(self._computed())
        return run

    def _computed(self) -> dict[str, object]:
        return {key: value for key, value in self.__dict__.items() if key in _RUN_CACHE}

    @cached_property
    def repeat(self) -> np.ndarray:
        """Per row: the id already appeared higher in the same query's list."""
        mask = np.zeros(len(self.line), dtype=bool)
        mask[self.repeats[0]] = True
        return mask


_RUN_CACHE = ("query", "doc", "repeats", "repeat")  # Run's cached properties


@dataclass(frozen=True)
class ReportLine:
    line: int
    reason: str


@dataclass(frozen=True)
class LoadReport:
    """What a load read and what it did not use.

    `lines_read` counts non-blank data lines: a header line is not counted, and a JSONL
    record is one line. Invariant: lines_read == lines_used + len(dropped); a repeat is
    used, since it keeps its rank slot.
    """

    source: str
    kind: str  # "qrels" or "run"
    format: str
    lines_read: int
    lines_used: int
    dropped: tuple[ReportLine, ...]
    repeats: tuple[ReportLine, ...]
    notes: tuple[str, ...] = ()

    def with_dropped(self, extra: Iterable[ReportLine]) -> LoadReport:
        """A new report in which each of `extra` is one more used line now dropped."""
        extra = tuple(extra)
        if len(extra) > self.lines_used:
            raise ValueError(
                f"cannot drop {len(extra)} lines from {self.source}: only {self.lines_used} used"
            )
        dropped = tuple(sorted(self.dropped + extra, key=lambda r: r.line))
        return replace(self, dropped=dropped, lines_used=self.lines_used - len(extra))

    def summary(self) -> str:
        parts = [
            _count(self.lines_read, "line") + " read",
            f"{self.lines_used} used",
            f"{len(self.dropped)} dropped",
        ]
        if self.kind == "run":
            parts.append(_count(len(self.repeats), "repeat"))
        return f"{self.source}: " + ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# --- source: path or bytes, gzip, UTF-8 --------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Source:
    name: str
    raw: bytes  # decompressed; no BOM, no CR, no trailing blank lines
    text: str

    def fail(self, line: int | None, problem: str) -> LoadError:
        return LoadError(self.name, line, problem)

    @cached_property
    def first_line(self) -> tuple[int, str]:
        """(line number, text) of the first non-blank line, which decides the format."""
        start = _NON_BLANK.search(self.text).start()
        begin = self.text.rfind("\n", 0, start) + 1
        end = self.text.find("\n", start)
        line = self.text[begin : end if end >= 0 else len(self.text)]
        return self.text.count("\n", 0, begin) + 1, line.strip(_BLANK)

    @cached_property
    def has_blank_lines(self) -> bool:
        return bool(_LEADING_BLANK_LINE.match(self.raw) or _INNER_BLANK_LINE.search(self.raw))

    def numbered_lines(self) -> Iterable[tuple[int, str]]:
        """Non-blank lines with their 1-based numbers (JSONL: one record a line)."""
        for number, line in enumerate(self.text.split("\n"), 1):
            if line.strip(_BLANK):
                yield number, line


def _open(source: str | os.PathLike | bytes, name: str | None) -> _Source:
    if isinstance(source, bytes | bytearray | memoryview):
        name = name or UPLOAD_NAME
        raw = bytes(source)
    else:
        path = os.fspath(source)
        name = name or os.path.basename(path) or path
        raw = _read_path(path, name)
    raw = _gunzip(raw, name)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    if b"\r" in raw:  # universal newlines: CRLF and a lone CR each end one line
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    raw = _trim_trailing_blank_lines(raw)
    text = _decode(raw, name)
    if not _NON_BLANK.search(text):
        raise LoadError(name, None, "empty file (no data lines)")
    return _Source(name, raw, text)


def _read_path(path: str, name: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise LoadError(path, None, "no such file") from None
    except IsADirectoryError:
        raise LoadError(path, None, "is a directory, not a file") from None
    except OSError as exc:
        raise LoadError(name, None, f"cannot read the file ({exc.strerror})") from None


def _gunzip(raw: bytes, name: str) -> bytes:
    if not (name.lower().endswith(".gz") or raw.startswith(b"\x1f\x8b")):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise LoadError(name, None, f"corrupt gzip data ({exc})") from None


def _trim_trailing_blank_lines(raw: bytes) -> bytes:
    # Trailing blank lines shift no line number; dropping them keeps the fast path open.
    end = len(raw)
    while end and raw[end - 1] in b" \t\n\f\v":  # a short walk back, no copy of the file
        end -= 1
    cut = raw.find(b"\n", end) + 1  # keep the newline that ends the last line
    return raw if cut in (0, len(raw)) else raw[:cut]


def _decode(raw: bytes, name: str) -> str:
    offsets = [offset for offset in map(raw.find, _BINARY_BYTES) if offset >= 0]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        offsets.append(exc.start)
    if offsets:  # name the first bad byte, whichever check found it
        offset = min(offsets)
        line, column = _position(raw, offset)
        raise LoadError(
            name, line, f"binary or non-UTF-8 data (byte 0x{raw[offset]:02x} at column {column})"
        )
    return text


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    return raw.count(b"\n", 0, offset) + 1, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1


def _show(value: object, limit: int = 40) -> str:
    """A value for a one-line message: repr, shortened."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _json_value(value: object) -> str:
    """A JSON value for a message: its type, and the value when that says more."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return f"{_json_type(value)} {_show(value)}"


# --- format detection and column layouts -------------------------------------------------


@dataclass(frozen=True)
class _Column:
    role: str  # query, doc, grade, rank or score
    header: str  # the column's name in a CSV/TSV/BEIR header
    required: bool = True
    aliases: tuple[str, ...] = ()  # other names common exports give it (pandas, ir tools)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.header, *self.aliases)

    def describe(self) -> str:
        return " or ".join(self.names)


@dataclass(frozen=True)
class _Layout:
    delimiter: str | None  # None: runs of whitespace (TREC)
    ncols: int
    columns: dict[str, int]  # role -> column index
    header_line: int  # 0 when the format has no header
    expected: str  # what the columns are, for messages


_TREC = {
    "qrels": _Layout(None, 4, {"query": 0, "doc": 2, "grade": 3}, 0, "qid iter docid grade"),
    "run": _Layout(
        None, 6, {"query": 0, "doc": 2, "rank": 3, "score": 4}, 0, "qid Q0 docid rank score tag"
    ),
}
# qrels without the iteration column, as some collections ship them (told by the first line)
_TREC_QRELS_3 = _Layout(None, 3, {"query": 0, "doc": 1, "grade": 2}, 0, "qid docid grade")
_QUERY = _Column("query", "query_id", aliases=("qid",))
_DOC = _Column("doc", "doc_id", aliases=("docid", "pid"))
_HEADERS = {
    ("qrels", "csv"): (_QUERY, _DOC, _Column("grade", "grade", aliases=("relevance", "label"))),
    ("qrels", "beir"): (_Column("query", "query-id"), _Column("doc", "corpus-id"),
                        _Column("grade", "score")),
    ("run", "csv"): (_QUERY, _DOC, _Column("rank", "rank", required=False),
                     _Column("score", "score", required=False)),
}
# A CSV run is ordered by its rank column, or by its scores when it has no rank column.
_ORDER_ROLES = ("rank", "score")
_HEADER_NAMES = {name for spec in _HEADERS.values() for c in spec for name in c.names} - {"score"}
_FORMAT_LABEL = {"csv": "CSV/TSV", "beir": "BEIR"}


def _check_choice(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")


def _detect(src: _Source, kind: str, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    number, line = src.first_line
    if line.startswith(("{", "[")):  # "[" too: a JSON array gets a JSONL error, not a TREC one
        return "jsonl"
    names = set(_header_fields(line)[1])
    for (spec_kind, spec_fmt), spec in _HEADERS.items():
        if spec_kind == kind and names & {n for c in spec if c.required for n in c.names}:
            return spec_fmt
    if names & _HEADER_NAMES:
        raise src.fail(number, f"the header {_show(line)} is not a {kind} header")
    if len(_SPLIT_WS.split(line)) > 1:
        return "trec"
    raise src.fail(
        number,
        f"cannot detect the format from {_show(line)}: expected TREC columns, "
        "a CSV/TSV or BEIR header, or a JSON object per line",
    )


def _header_fields(line: str) -> tuple[str, list[str]]:
    delimiter = "\t" if "\t" in line else ","
    fields = next(csv.reader([line], delimiter=delimiter), [])
    return delimiter, [f.strip().lower() for f in fields]


def _layout(src: _Source, kind: str, fmt: str) -> _Layout:
    if fmt == "trec":
        # three columns ending in a grade; a first line like "# judged by" keeps the
        # four-column layout, so the error points at that line rather than the next
        fields = _SPLIT_WS.split(src.first_line[1])
        three = kind == "qrels" and len(fields) == 3 and re.match(_INTEGER, fields[2])
        return _TREC_QRELS_3 if three else _TREC[kind]
    number, line = src.first_line
    delimiter, names = _header_fields(line)
    spec = _HEADERS[(kind, fmt)]
    found = {c.role: next((n for n in c.names if n in names), None) for c in spec}
    missing = [c.describe() for c in spec if c.required and found[c.role] is None]
    if kind == "run" and not any(found.get(role) for role in _ORDER_ROLES):
        missing.append(" or ".join(_ORDER_ROLES))
    if missing:
        raise src.fail(
            number,
            f"{_FORMAT_LABEL[fmt]} header lacks column(s) {', '.join(missing)} "
            f"(found {_show(line, 60)})",
        )
    columns = {role: names.index(name) for role, name in found.items() if name is not None}
    return _Layout(delimiter, len(names), columns, number, f"as in the header on line {number}")


# --- tables: pyarrow's CSV reader splits the lines; no Python loop over them --------------


def _read_table(src: _Source, layout: _Layout) -> tuple[dict[str, pa.Array], np.ndarray]:
    """Columns by role (strings) and the source line of each row."""
    if layout.delimiter is None:
        columns, lines = _whitespace_table(src, layout)
    else:
        columns, lines = _delimited_table(src, layout)
    return _clean_columns(src, layout, columns, lines), lines


def _whitespace_table(src: _Source, layout: _Layout) -> tuple[dict[str, pa.Array], np.ndarray]:
    # A regular file (one separator character, no blank lines) splits fastest as CSV; any
    # other goes through the line reader, which also names a ragged line.
    separator = _single_separator(src)
    if separator is not None:
        try:
            table = _read_csv(src.raw, layout, separator)
        except pa.ArrowInvalid:
            pass
        else:
            return _pick(table, layout), np.arange(1, table.num_rows + 1, dtype=np.int64)
    lines = pc.ascii_trim_whitespace(_read_lines(src.raw))
    rows = np.flatnonzero(numbers(pc.binary_length(lines)))
    tokens = pc.ascii_split_whitespace(lines.take(from_numbers(rows)))
    counts = numbers(pc.list_value_length(tokens))
    ragged = np.flatnonzero(counts != layout.ncols)
    if len(ragged):
        raise _ragged(src, layout, int(rows[ragged[0]]) + 1, int(counts[ragged[0]]))
    # every line has ncols tokens, so token i of line j is flattened token j * ncols + i
    flat, first = tokens.flatten(), np.arange(len(rows)) * layout.ncols
    columns = {role: flat.take(from_numbers(first + i)) for role, i in layout.columns.items()}
    return columns, (rows + 1).astype(np.int64)


def _single_separator(src: _Source) -> str | None:
    if src.has_blank_lines:
        return None
    separator = "\t" if "\t" in src.first_line[1] else " "
    other = b" " if separator == "\t" else b"\t"
    return None if other in src.raw else separator


def _delimited_table(src: _Source, layout: _Layout) -> tuple[dict[str, pa.Array], np.ndarray]:
    data, numbers = src.raw, None  # numbers: source line of each line of data, when they differ
    if src.has_blank_lines:
        data, numbers = _without_blank_lines(src.raw)
    if (b"\n" not in data) if numbers is None else len(numbers) < 2:
        raise src.fail(None, "no data lines (only a header)")
    try:
        table = _read_csv(data, layout, layout.delimiter)
    except pa.ArrowInvalid as exc:
        row = _first_invalid_row(data, layout)
        if row is None:
            raise src.fail(None, " ".join(str(exc).split())) from None
        line = row.number if numbers is None else int(numbers[row.number - 1])
        raise _ragged(src, layout, line, row.actual_columns) from None
    if numbers is None:  # the header is line 1
        return _pick(table, layout), np.arange(2, table.num_rows + 2, dtype=np.int64)
    return _pick(table, layout), numbers[1:]


def _without_blank_lines(raw: bytes) -> tuple[pa.Buffer, np.ndarray]:
    lines = _read_lines(raw)
    keep = pc.cast(pc.binary_length(pc.ascii_trim_whitespace(lines)), pa.bool_())  # not blank
    kept = lines.filter(keep)
    one_list = pa.ListArray.from_arrays(from_numbers(np.array([0, len(kept)], np.int32)), kept)
    # the separator as a one-string array: a Python "\n" would make pyarrow import pandas
    newline = pa.StringArray.from_buffers(
        1, pa.py_buffer(np.array([0, 1], np.int32)), pa.py_buffer(b"\n")
    )
    data = pc.binary_join(one_list, newline)[0].as_buffer()
    return data, np.flatnonzero(numbers(keep)).astype(np.int64) + 1


def _read_lines(data: bytes) -> pa.Array:
    """One string per physical line (empty lines kept, so row i is line i + 1)."""
    table = pacsv.read_csv(
        pa.BufferReader(data),
        read_options=pacsv.ReadOptions(column_names=["line"]),
        # \x01 never occurs (refused as binary), so each line is one field
        parse_options=pacsv.ParseOptions(
            delimiter="\x01", quote_char=False, ignore_empty_lines=False
        ),
        convert_options=pacsv.ConvertOptions(column_types={"line": pa.string()}),
    )
    return table.column("line").combine_chunks()


def _read_csv(data: bytes | pa.Buffer, layout: _Layout, delimiter: str, **parse) -> pa.Table:
    names = [f"c{i}" for i in range(layout.ncols)]
    wanted = [names[i] for i in layout.columns.values()]
    return pacsv.read_csv(
        pa.BufferReader(data),
        read_options=pacsv.ReadOptions(
            column_names=names, skip_rows=1 if layout.header_line else 0,
            use_threads="invalid_row_handler" not in parse,  # row numbers need one thread
        ),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter, quote_char='"' if layout.delimiter else False, **parse
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(wanted, pa.string()), include_columns=wanted
        ),
    )


def _first_invalid_row(data: bytes | pa.Buffer, layout: _Layout) -> object | None:
    """pyarrow's InvalidRow for the first ragged row (its number counts the header)."""
    found = []

    def stop(row: object) -> str:
        found.append(row)
        return "error"

    try:
        _read_csv(data, layout, layout.delimiter, invalid_row_handler=stop)
    except pa.ArrowInvalid:
        pass
    return found[0] if found and found[0].number is not None else None


def _pick(table: pa.Table, layout: _Layout) -> dict[str, pa.Array]:
    return {role: table.column(f"c{i}").combine_chunks() for role, i in layout.columns.items()}


def _ragged(src: _Source, layout: _Layout, line: int, got: int) -> LoadError:
    return src.fail(line, f"expected {layout.ncols} columns ({layout.expected}), got {got}")


def _clean_columns(
    src: _Source, layout: _Layout, columns: dict[str, pa.Array], lines: np.ndarray
) -> dict[str, pa.Array]:
    if not len(lines):
        raise src.fail(None, "no data lines (only a header)")
    if layout.delimiter is not None:  # CSV cells may be padded: "q1, d1, 2"
        columns = {role: pc.utf8_trim_whitespace(values) for role, values in columns.items()}
    for role in ("query", "doc"):
        empty = np.flatnonzero(numbers(pc.binary_length(columns[role])) == 0)
        if len(empty):
            raise src.fail(int(lines[empty[0]]), f"empty {role} id")
    return columns


def _first_failure(values: pa.Array, converts: Callable[[pa.Array], bool]) -> int:
    """Index of the first value that fails to convert, by bisection (log n vector calls)."""
    low, high = 0, len(values)  # values[:low] convert; a failure lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if converts(values[low:middle]):
            low = middle
        else:
            high = middle
    return low


def _casts(target: pa.DataType) -> Callable[[pa.Array], bool]:
    def converts(values: pa.Array) -> bool:
        try:
            pc.cast(values, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        return True

    return converts


def _to_int(src: _Source, values: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Integers only: '2.0' and '1.5' are refused (trec_eval would truncate silently)."""
    matches = numbers(pc.match_substring_regex(values, _INTEGER))
    if not matches.all():
        bad = int(np.argmin(matches))
        got = _show(values[bad].as_py())
        raise src.fail(int(lines[bad]), f"{what} must be an integer, got {got}")
    unsigned = pc.utf8_ltrim(values, characters="+")
    try:
        return numbers(pc.cast(unsigned, pa.int64()))
    except pa.ArrowInvalid:
        bad = _first_failure(unsigned, _casts(pa.int64()))
        raise src.fail(
            int(lines[bad]), f"{what} {_show(values[bad].as_py())} is too large"
        ) from None


def _to_float(src: _Source, values: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    try:
        floats = numbers(pc.cast(values, pa.float64()))
        bad = np.flatnonzero(np.isnan(floats))
    except pa.ArrowInvalid:
        bad = [_first_failure(values, _casts(pa.float64()))]
    if len(bad):
        index = int(bad[0])
        got = _show(values[index].as_py())
        raise src.fail(int(lines[index]), f"{what} must be a number, got {got}")
    return floats


# --- JSONL ------------------------------------------------------------------------------


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    # json.loads would keep the last of two equal keys silently.
    record = dict(pairs)
    if len(record) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        raise _DuplicateKey(next(key for key, _ in pairs if counts[key] > 1))
    return record


def _json_records(src: _Source, field_name: str, kind: str) -> list[tuple[int, str, object]]:
    """(line, query id, value of `field_name`) for each record."""
    records = []
    for number, line in src.numbered_lines():
        try:
            record = json.loads(line, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise src.fail(number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        except _DuplicateKey as exc:
            raise src.fail(number, f"JSON object repeats the key {_show(str(exc))}") from None
        if not isinstance(record, dict):
            raise src.fail(number, f"expected a JSON object, got {_json_type(record)}")
        if "query_id" not in record:
            raise src.fail(number, "JSON record has no 'query_id'")
        if field_name not in record:
            raise src.fail(number, f"JSON record has no {field_name!r}, needed for {kind}")
        query = _json_id(src, number, record["query_id"], "query_id")
        records.append((number, query, record[field_name]))
    return records


def _json_id(src: _Source, number: int, value: object, where: str) -> str:
    # JSON integers are accepted as ids; anything else that is not a string is refused.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise src.fail(number, f"{where} must be a string id, got {_json_value(value)}")
    if not value:
        raise src.fail(number, f"{where} is an empty id")
    return value


def _json_ids(src: _Source, number: int, values: list, where: str) -> list[str]:
    if set(map(type, values)) <= {str} and "" not in values:  # the common case, checked fast
        return values
    return [_json_id(src, number, value, where) for value in values]


def _first_records(
    src: _Source, records: list[tuple[int, str, list]], field_name: str
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
                f"query {_show(query)} was already given on line {kept[query][0]} "
                f"with a different {field_name!r}",
            )
    return list(kept.values()), dropped


def _json_rows(src: _Source, field_name: str, kind: str, items_of: Callable) -> _Rows:
    """One row per item of each record's list; `items_of(number, value)` checks the list."""
    records = [(n, q, items_of(n, value)) for n, q, value in _json_records(src, field_name, kind)]
    kept, dropped = _first_records(src, records, field_name)
    items = [item for _, _, record_items in kept for item in record_items]
    sizes = [len(record_items) for _, _, record_items in kept]
    return _Rows(
        query=np.repeat(np.array([q for _, q, _ in kept], dtype=object), sizes),
        doc=items,
        line=np.repeat(np.array([n for n, _, _ in kept], dtype=np.int64), sizes),
        lines_read=len(records),
        query_ids=np.array([q for _, q, _ in kept], dtype=object),
        query_lines=[n for n, _, _ in kept],
        dropped=dropped,
    )


def _jsonl_qrels(src: _Source) -> _Rows:
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
    rows.doc = [doc for doc, _ in rows.doc]
    rows.notes = notes
    return rows


def _json_relevant(src: _Source, number: int, value: object) -> list[tuple[str, int]]:
    """(doc, grade) pairs from a list of ids (grade 1 each) or an object {id: grade}."""
    if isinstance(value, list):
        return [(doc, 1) for doc in _json_ids(src, number, value, "'relevant'")]
    if isinstance(value, dict):
        for doc, grade in value.items():
            if not isinstance(grade, int) or isinstance(grade, bool):
                raise src.fail(
                    number, f"grade of {_show(doc)} must be an integer, got {_json_value(grade)}"
                )
            _json_id(src, number, doc, "'relevant'")
        return list(value.items())
    raise src.fail(
        number,
        f"'relevant' must be a list of ids or an object {{id: grade}}, got {_json_type(value)}",
    )


def _jsonl_run(src: _Source) -> _Rows:
    def retrieved(number: int, value: object) -> list[str]:
        if not isinstance(value, list):
            raise src.fail(number, f"'retrieved' must be a list of ids, got {_json_type(value)}")
        return _json_ids(src, number, value, "'retrieved'")

    rows = _json_rows(src, "retrieved", "a run", retrieved)
    listed = set(rows.query.tolist())
    rows.notes = [
        f"line {number}: query {query!r} retrieved nothing"
        for number, query in zip(rows.query_lines, rows.query_ids, strict=True)
        if query not in listed
    ]
    return rows


# --- shared: parsed rows, integer codes, duplicate (query, doc) pairs --------------------


@dataclass(eq=False)
class _Rows:
    """One loader's parsed rows, before the checks that qrels and runs each make."""

    query: np.ndarray | pa.Array | list[str]
    doc: np.ndarray | pa.Array | list
    line: np.ndarray
    lines_read: int
    grade: np.ndarray | None = None  # qrels
    sort_keys: list[tuple[str, object, str]] = field(default_factory=list)  # run, after query
    query_ids: np.ndarray | None = None  # JSONL: every record's query, empty lists included
    query_lines: list[int] = field(default_factory=list)  # JSONL: the line of each of those
    dropped: list[ReportLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _encode(values: np.ndarray | pa.Array | list) -> tuple[np.ndarray, pa.Array]:
    """Integer codes in first-appearance order and the arrow array of distinct strings."""
    values = values if isinstance(values, pa.Array) else pa.array(values, pa.string())
    encoded = pc.dictionary_encode(values.cast(pa.string()))
    return numbers(encoded.indices).astype(np.int64), encoded.dictionary


def _encode_blocks(values: np.ndarray | pa.Array | list) -> tuple[np.ndarray, pa.Array]:
    """_encode for a column whose equal values stand together in blocks (a query column):
    only the first value of each block is hashed, which saves a pass over a million ids."""
    values = values if isinstance(values, pa.Array) else pa.array(values, pa.string())
    if len(values) < 2:
        return _encode(values)
    values = values.cast(pa.string())
    changed = numbers(pc.not_equal(values[1:], values[:-1]))
    starts = np.flatnonzero(np.r_[True, changed])
    block_codes, names = _encode(values.take(from_numbers(starts)))
    return np.repeat(block_codes, np.diff(np.r_[starts, len(values)])), names


def repeated_pairs(query: np.ndarray, doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose (query, doc) codes occurred earlier, and the row of that first occurrence."""
    empty = np.zeros(0, dtype=np.int64)
    if not len(doc):
        return empty, empty
    # only an id listed more than once anywhere can repeat: sort those rows alone
    candidates = np.flatnonzero(np.bincount(doc)[doc] > 1)
    if not len(candidates):
        return empty, empty
    keys = query[candidates] * (int(doc.max()) + 1) + doc[candidates]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    repeats = first[inverse] != np.arange(len(keys))
    return candidates[repeats], candidates[first[inverse[repeats]]]


def repeated_ids(query: np.ndarray, doc_ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """repeated_pairs for a run's doc id strings: one stable arrow sort by (query, id) puts
    equal pairs side by side, cheaper than hashing a million ids into codes."""
    empty = np.zeros(0, dtype=np.int64)
    if len(doc_ids) < 2:
        return empty, empty
    table = pa.table({"query": from_numbers(query), "doc": doc_ids})
    order = numbers(pc.sort_indices(table, sort_keys=[("query", "ascending"),
                                                      ("doc", "ascending")])).astype(np.int64)
    docs = doc_ids.take(from_numbers(order))
    queries = query[order]
    same = numbers(pc.equal(docs[1:], docs[:-1])) & (queries[1:] == queries[:-1])
    later = np.flatnonzero(same) + 1  # sorted positions holding a repeat
    if not len(later):
        return empty, empty
    start = np.r_[True, ~same]  # each run of equal pairs starts at its first occurrence
    first = order[np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))]
    rows = order[later]
    by_row = np.argsort(rows)
    return rows[by_row], first[later][by_row]


def _report(src: _Source, kind: str, fmt: str, rows: _Rows, repeats: list) -> LoadReport:
    return LoadReport(
        source=src.name, kind=kind, format=fmt, lines_read=rows.lines_read,
        lines_used=rows.lines_read - len(rows.dropped),
        dropped=tuple(sorted(rows.dropped, key=lambda r: r.line)),
        repeats=tuple(repeats), notes=tuple(rows.notes),
    )


# --- qrels -----------------------------------------------------------------------------


def load_qrels(
    source: str | os.PathLike | bytes, *, name: str | None = None, format: str = "auto"
) -> tuple[Qrels, LoadReport]:
    """Read relevance judgments: TREC (`qid iter docid grade`, or `qid docid grade` when the
    first line has three columns), BEIR TSV (`query-id corpus-id score`), CSV/TSV with a
    `query_id,doc_id,grade` header, or JSONL (`{"query_id": ..., "relevant": [ids] |
    {id: grade}}`, a list meaning grade 1). `source` is a path or the raw bytes of an upload
    named `name`; gzip is read by extension or content.

    An identical duplicate line is dropped and reported; one (query, doc) pair with two
    grades is an error, as is a grade that is not an integer ('2.0' included).
    """
    _check_choice("format", format, ("auto", *QRELS_FORMATS))
    src = _open(source, name)
    fmt = _detect(src, "qrels", format)
    if fmt == "jsonl":
        rows = _jsonl_qrels(src)
    else:
        columns, lines = _read_table(src, _layout(src, "qrels", fmt))
        grade = _to_int(src, columns["grade"], lines, "grade")
        rows = _Rows(columns["query"], columns["doc"], lines, len(lines), grade=grade)
    return _finish_qrels(src, fmt, rows)


def _finish_qrels(src: _Source, fmt: str, rows: _Rows) -> tuple[Qrels, LoadReport]:
    query_codes, query_names = _encode_blocks(rows.query)
    doc_codes, doc_names = _encode(rows.doc)
    grade, lines = rows.grade, rows.line
    repeats, first = repeated_pairs(query_codes, doc_codes)
    conflict = np.flatnonzero(grade[repeats] != grade[first])
    if len(conflict):
        row, earlier = repeats[conflict[0]], first[conflict[0]]
        query, doc = query_names[query_codes[row]].as_py(), doc_names[doc_codes[row]].as_py()
        raise src.fail(
            int(lines[row]),
            f"query {_show(query)} doc {_show(doc)} "
            f"has grade {grade[row]} here but grade {grade[earlier]} on line {lines[earlier]}",
        )
    rows.dropped += [
        ReportLine(int(lines[row]), f"identical duplicate of line {lines[earlier]}")
        for row, earlier in zip(repeats, first, strict=True)
    ]
    keep = np.ones(len(lines), dtype=bool)
    keep[repeats] = False
    query_ids = strings(query_names)
    if rows.query_ids is not None:  # JSONL: queries with an empty list belong to the set too
        query_codes = index_in(query_ids, rows.query_ids)[query_codes]
        query_ids = np.asarray(rows.query_ids, dtype=object)
    qrels = Qrels(
        source=src.name,
        query_ids=query_ids,
        query_code=query_codes[keep],
        doc_code=doc_codes[keep],
        doc_names=doc_names,
        grade=grade[keep],
        line=lines[keep],
    )
    return qrels, _report(src, "qrels", fmt, rows, [])


# --- runs ------------------------------------------------------------------------------


def load_run(
    source: str | os.PathLike | bytes, *, name: str | None = None, format: str = "auto",
    order: str = "score", run_name: str | None = None, labels: Qrels | None = None,
) -> tuple[Run, LoadReport]:
    """Read a run: TREC (`qid Q0 docid rank score tag`), CSV/TSV with a
    `query_id,doc_id,rank[,score]` header, or JSONL (`{"query_id": ..., "retrieved": [ids]}`).

    A TREC run is ordered like trec_eval when `order="score"`: score descending (compared as
    32-bit floats, as trec_eval stores them), ties by doc id descending as a string; with
    `order="rank"` by the rank column, ties in line order. CSV runs follow their rank column,
    or without one their scores as TREC runs do; JSONL lists keep their own order; `order`
    does not apply to them. The run is named
    `run_name`, by default the file without its extensions (`baseline.run.gz` -> `baseline`).
    Given `labels`, its ids are matched to the labels' doc ids while loading (see
    `Run.labelled_by`), so that aligning the run to those labels does no string work.
    """
    _check_choice("format", format, ("auto", *RUN_FORMATS))
    _check_choice("order", order, RUN_ORDERS)
    src = _open(source, name)
    fmt = _detect(src, "run", format)
    if fmt == "jsonl":
        rows = _jsonl_run(src)
    else:
        columns, lines = _read_table(src, _layout(src, "run", fmt))
        rows = _Rows(columns["query"], columns["doc"], lines, len(lines))
        rows.sort_keys = _run_sort_keys(src, fmt, order, columns, lines)
    run, report = _finish_run(src, fmt, rows, run_name or _run_name(src.name))
    return (run if labels is None else run.labelled_by(labels)), report


def _run_sort_keys(
    src: _Source, fmt: str, order: str, columns: dict[str, pa.Array], lines: np.ndarray
) -> list[tuple[str, object, str]]:
    """Sort keys after the query: (name, values, direction). Scores are checked either way."""
    score = _to_float(src, columns["score"], lines, "score") if "score" in columns else None
    if "rank" in columns and (fmt == "csv" or order == "rank"):
        return [("rank", _to_int(src, columns["rank"], lines, "rank"), "ascending")]
    with np.errstate(over="ignore"):  # a score beyond float32 ties at infinity, as in trec_eval
        score32 = score.astype(np.float32)
    return [("score", score32, "descending"), ("doc", columns["doc"], "descending")]


def _finish_run(src: _Source, fmt: str, rows: _Rows, name: str) -> tuple[Run, LoadReport]:
    query_codes, query_names = _encode_blocks(rows.query)
    doc = rows.doc if isinstance(rows.doc, pa.Array) else pa.array(rows.doc, pa.string())
    keys = [("query", query_codes, "ascending"), *rows.sort_keys]
    table = pa.table({key: _arrow(values) for key, values, _ in keys})
    order = pc.sort_indices(table, sort_keys=[(key, direction) for key, _, direction in keys])
    order = numbers(order).astype(np.int64)  # a stable sort: equal keys keep their line order
    in_order = bool((order[1:] > order[:-1]).all())  # often so: then no copy of the ids
    run = Run(
        name=name,
        source=src.name,
        query_ids=strings(query_names),
        query_code=query_codes[order],
        doc_ids=doc.cast(pa.string()) if in_order else doc.take(from_numbers(order)),
        line=rows.line[order],
    )
    return run, _report(src, "run", fmt, rows, _run_repeats(run))


def _arrow(values: np.ndarray | pa.Array) -> pa.Array:
    return values if isinstance(values, pa.Array) else from_numbers(values)


def _run_repeats(run: Run) -> list[ReportLine]:
    query_codes = run.query_code
    rows, first = run.repeats
    if not len(rows):
        return []
    index = np.arange(len(query_codes))
    starts = np.r_[True, query_codes[1:] != query_codes[:-1]]
    rank = index - np.maximum.accumulate(np.where(starts, index, 0)) + 1
    return [
        ReportLine(
            int(run.line[row]),
            f"repeat of {run.doc_ids[int(row)].as_py()} at rank {rank[row]} "
            f"(first at rank {rank[earlier]}): "
            "keeps its rank slot, scores nothing",
        )
        for row, earlier in zip(rows, first, strict=True)
    ]


def _run_name(file_name: str) -> str:
    stem = os.path.basename(file_name) or file_name
    while True:
        root, extension = os.path.splitext(stem)
        if not root or extension.lower() not in _RUN_EXTENSIONS:
            return stem
        stem = root


__all__ = [
    "LoadError", "LoadReport", "Qrels", "QRELS_FORMATS", "ReportLine", "Run", "RUN_FORMATS",
    "RUN_ORDERS", "load_qrels", "load_run",
]
