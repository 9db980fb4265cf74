"""Subtopic qrels and intent probabilities: the diversity track's judgments, read beside the
ordinary qrels.

Subtopic qrels are the TREC Web track diversity format, `query_id subtopic_id doc_id grade`
separated by whitespace (as ndeval reads them), or the same columns under a CSV/TSV header
(`query_id,subtopic_id,doc_id,grade`) or in Parquet. Intent probabilities, when a file gives
them, are `query_id subtopic_id probability` (whitespace, or a CSV/TSV header of those names);
without one every subtopic of a query weighs the same, as ndeval weighs them.

Both are read as the qrels are: a bounded stream (`max_bytes` after gzip expansion), UTF-8,
blank lines and '#' comment lines skipped, and a malformed line refused with a `LoadError`
naming the file, the line and what was wrong: a wrong count of columns, a grade that is not
an integer or lies outside the grades allowed, one (query, subtopic, doc) with two grades, a
probability that is not a number in [0, 1], or one (query, subtopic) given two
probabilities. An identical duplicate line is dropped and reported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers, strings
from metrics.io.codes import encode, encode_blocks
from metrics.io.errors import LoadError, check_choice, show
from metrics.io.parquet import is_parquet, is_table
from metrics.io.reader import kept_lines, read_lines
from metrics.io.report import LoadReport, ReportLine
from metrics.io.sources import Source, open_source
from metrics.io.streams import MAX_INPUT_BYTES, check_max_bytes
from metrics.io.values import to_float, to_int
from metrics.vocabulary.numeric import MAX_GRADE, MIN_GRADE, grade_problem

SUBTOPIC_FORMATS = ("trec", "csv", "parquet")
# the columns of each file, in the order the whitespace format holds them
SUBTOPIC_COLUMNS = ("query_id", "subtopic_id", "doc_id", "grade")
INTENT_COLUMNS = ("query_id", "subtopic_id", "probability")
Input = str | os.PathLike | bytes | object


@dataclass(frozen=True, eq=False)
class SubtopicQrels:
    """Subtopic judgments, one row per distinct (query, subtopic, doc); ids as codes."""

    source: str
    query_ids: np.ndarray  # distinct query ids, first-appearance order (object array of str)
    query_code: np.ndarray  # int64 per row, into query_ids
    subtopic_ids: np.ndarray  # distinct subtopic ids (object array of str)
    subtopic_code: np.ndarray  # int64 per row, into subtopic_ids
    doc_names: pa.Array  # distinct doc ids (arrow strings)
    doc_code: np.ndarray  # int64 per row, into doc_names
    grade: np.ndarray  # int64 per row
    line: np.ndarray  # int64 per row, 1-based source line

    @classmethod
    def from_rows(cls, rows, source: str = "subtopic qrels") -> SubtopicQrels:
        """From (query_id, subtopic_id, doc_id, grade) tuples, lines numbered in order (tests
        and callers holding judgments in Python)."""
        rows = list(rows)
        query = [str(r[0]) for r in rows]
        subtopic = [str(r[1]) for r in rows]
        doc = [str(r[2]) for r in rows]
        grade = np.asarray([int(r[3]) for r in rows], dtype=np.int64)
        return _coded(source, query, subtopic, pa.array(doc, pa.string()), grade,
                      np.arange(1, len(rows) + 1, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class IntentProbabilities:
    """How likely each subtopic of a query is, one row per (query, subtopic)."""

    source: str
    query_id: np.ndarray  # object array of str, per row
    subtopic_id: np.ndarray  # object array of str, per row
    probability: np.ndarray  # float64 per row, in [0, 1]
    line: np.ndarray  # int64 per row

    @classmethod
    def from_rows(cls, rows, source: str = "intent probabilities") -> IntentProbabilities:
        rows = list(rows)
        return cls(source, np.asarray([str(r[0]) for r in rows], dtype=object),
                   np.asarray([str(r[1]) for r in rows], dtype=object),
                   np.asarray([float(r[2]) for r in rows], dtype=np.float64),
                   np.arange(1, len(rows) + 1, dtype=np.int64))


def _coded(source: str, query, subtopic, doc: pa.Array, grade: np.ndarray,
           line: np.ndarray) -> SubtopicQrels:
    query_code, query_names = encode_blocks(query)
    subtopic_code, subtopic_names = encode(subtopic)
    doc_code, doc_names = encode(doc)
    return SubtopicQrels(source, strings(query_names), query_code, strings(subtopic_names),
                         subtopic_code, doc_names, doc_code, grade, line)


# --------------------------------------------------------------------------- reading


def load_subtopic_qrels(source: Input, *, file_name: str | None = None, format: str = "auto",
                        max_bytes: int = MAX_INPUT_BYTES) -> tuple[SubtopicQrels, LoadReport]:
    """Read subtopic qrels (see the module's docstring for the formats and the checks)."""
    check_choice("format", format, ("auto", *SUBTOPIC_FORMATS))
    check_max_bytes(max_bytes)
    src, fmt, columns, lines, report_rows = _columns(source, file_name, format, max_bytes,
                                                    SUBTOPIC_COLUMNS, "subtopic qrels")
    grade = to_int(src, columns["grade"], lines, "grade")
    outside = np.flatnonzero((grade < MIN_GRADE) | (grade > MAX_GRADE))
    if len(outside):
        row = outside[np.argmin(lines[outside])]
        raise src.fail(int(lines[row]), grade_problem(int(grade[row])))
    judged = _coded(src.name, columns["query_id"], columns["subtopic_id"],
                    columns["doc_id"], grade, lines)
    keys = np.stack([judged.query_code, judged.subtopic_code, judged.doc_code], axis=1)
    keep, dropped = _distinct(src, keys, grade, lines, lambda row: (
        f"query {show(judged.query_ids[judged.query_code[row]])} subtopic "
        f"{show(judged.subtopic_ids[judged.subtopic_code[row]])} doc "
        f"{show(judged.doc_names[int(judged.doc_code[row])].as_py())}"), "grade")
    if not keep.all():
        judged = SubtopicQrels(judged.source, judged.query_ids, judged.query_code[keep],
                               judged.subtopic_ids, judged.subtopic_code[keep],
                               judged.doc_names, judged.doc_code[keep], grade[keep],
                               lines[keep])
    return judged, _report(src, "subtopic qrels", fmt, report_rows, dropped)


def load_intent_probabilities(source: Input, *, file_name: str | None = None,
                              format: str = "auto", max_bytes: int = MAX_INPUT_BYTES,
                              ) -> tuple[IntentProbabilities, LoadReport]:
    """Read intent probabilities, `query_id subtopic_id probability` a line: each a number
    from 0 to 1; a query's probabilities are scaled to sum to 1 over its subtopics that hold
    a relevant id when they are used (see `metrics.core.diversity`)."""
    check_choice("format", format, ("auto", *SUBTOPIC_FORMATS))
    check_max_bytes(max_bytes)
    src, fmt, columns, lines, report_rows = _columns(source, file_name, format, max_bytes,
                                                    INTENT_COLUMNS, "intent probabilities")
    probability = to_float(src, columns["probability"], lines, "probability")
    bad = np.flatnonzero(~((probability >= 0) & (probability <= 1)))
    if len(bad):
        row = bad[np.argmin(lines[bad])]
        raise src.fail(int(lines[row]), f"probability {probability[row].item()!r} is not a number "
                                        "from 0 to 1")
    query, subtopic = strings(columns["query_id"]), strings(columns["subtopic_id"])
    query_code, _ = encode(columns["query_id"])
    subtopic_code, _ = encode(columns["subtopic_id"])
    keys = np.stack([query_code, subtopic_code], axis=1)
    keep, dropped = _distinct(src, keys, probability, lines, lambda row: (
        f"query {show(query[row])} subtopic {show(subtopic[row])}"), "probability")
    return (IntentProbabilities(src.name, query[keep], subtopic[keep], probability[keep],
                                lines[keep]),
            _report(src, "intent probabilities", fmt, report_rows, dropped))


def _columns(source: Input, file_name: str | None, format: str, max_bytes: int,
             names: tuple[str, ...], kind: str):
    """(source, format, columns by name as arrow strings, their lines, lines read)."""
    if format == "parquet" or (format == "auto" and (is_table(source)
                                                     or is_parquet(source, file_name))):
        return _columnar(source, file_name, max_bytes, names, kind)
    src = open_source(source, file_name, max_bytes)
    data, lines, comments = kept_lines(src.raw, comments=True)
    text = read_lines(data)
    first = text[0].as_py() if len(text) else ""
    fmt = format
    if fmt == "auto":
        fmt = "csv" if _header(first) == list(names) or (
            set(_header(first)) & {"query_id", "subtopic_id"}) else "trec"
    if fmt == "csv":
        return (src, fmt, *_delimited(src, text, lines, first, names, kind), len(lines))
    tokens = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(text))
    counts = numbers(pc.list_value_length(tokens))
    lines = np.asarray(lines, dtype=np.int64)
    ragged = np.flatnonzero(counts != len(names))
    if len(ragged):
        raise src.fail(int(lines[ragged[0]]), f"expected {len(names)} columns "
                       f"({' '.join(names)}), got {int(counts[ragged[0]])}")
    flat = tokens.flatten()
    columns = {name: flat.take(pa.array(np.arange(len(counts)) * len(names) + i))
               for i, name in enumerate(names)}
    return src, fmt, columns, lines, len(lines)


def _header(line: str) -> list[str]:
    separator = "\t" if "\t" in line else ","
    return [field.strip() for field in line.split(separator)]


def _delimited(src: Source, text: pa.Array, lines: np.ndarray, first: str,
               names: tuple[str, ...], kind: str):
    """The columns of a CSV/TSV file under a header naming them (any order, others ignored)."""
    header = _header(first)
    missing = [name for name in names if name not in header]
    if missing:
        raise src.fail(int(lines[0]) if len(lines) else None,
                       f"the {kind} header must name {', '.join(names)}; "
                       f"{', '.join(missing)} missing from {show(first)}")
    separator = "\t" if "\t" in first else ","
    fields = pc.split_pattern(text[1:], separator)
    counts = numbers(pc.list_value_length(fields))
    body_lines = np.asarray(lines[1:], dtype=np.int64)
    ragged = np.flatnonzero(counts != len(header))
    if len(ragged):
        raise src.fail(int(body_lines[ragged[0]]),
                       f"expected {len(header)} fields as the header has, got "
                       f"{int(counts[ragged[0]])}")
    if not len(body_lines):
        raise src.fail(None, "no data rows")
    flat = fields.flatten()
    columns = {}
    for name in names:
        at = header.index(name)
        values = flat.take(pa.array(np.arange(len(counts)) * len(header) + at))
        columns[name] = pc.utf8_trim_whitespace(values)
    empty = np.flatnonzero(numbers(pc.binary_length(columns["query_id"])) == 0)
    if len(empty):
        raise src.fail(int(body_lines[empty[0]]), "empty query id")
    return columns, body_lines


def _columnar(source: Input, file_name: str | None, max_bytes: int, names: tuple[str, ...],
              kind: str):
    """A Parquet file (or an Arrow table / pandas frame) holding the named columns."""
    import pyarrow.parquet as pq

    name = file_name or (os.path.basename(os.fspath(source))
                         if isinstance(source, str | os.PathLike) else "table")
    if is_table(source):
        table = source if isinstance(source, pa.Table) else pa.Table.from_pandas(source)
    else:
        if isinstance(source, str | os.PathLike) and os.path.getsize(source) > max_bytes:
            raise LoadError(name, None, f"larger than max_bytes ({max_bytes:,} bytes)")
        try:
            table = pq.read_table(pa.BufferReader(source) if isinstance(source, bytes)
                                  else source, columns=list(names))
        except (pa.ArrowInvalid, KeyError, OSError) as error:
            raise LoadError(name, None, f"cannot read the {kind} columns "
                            f"{', '.join(names)}: {str(error).splitlines()[0]}") from None
    missing = [n for n in names if n not in table.column_names]
    if missing:
        raise LoadError(name, None, f"the {kind} table has no column {', '.join(missing)}")
    if not table.num_rows:
        raise LoadError(name, None, "no data rows")
    columns = {n: pc.cast(table[n].combine_chunks(), pa.string()) for n in names}
    for n in names:
        if columns[n].null_count:
            row = int(np.flatnonzero(columns[n].is_null().to_numpy(zero_copy_only=False))[0])
            raise LoadError(name, row + 1, f"no value in column {n}", "row")
    lines = np.arange(1, table.num_rows + 1, dtype=np.int64)

    class _Where:
        def __init__(self) -> None:
            self.name = name

        def fail(self, line, problem):
            return LoadError(name, line, problem, "row")

    return _Where(), "parquet", columns, lines, table.num_rows


def _distinct(src, keys: np.ndarray, values: np.ndarray, lines: np.ndarray, what,
              noun: str) -> tuple[np.ndarray, list[ReportLine]]:
    """Rows to keep: the first of each key. A repeat with another value is refused; an
    identical one dropped and reported."""
    if not len(keys):
        return np.ones(0, dtype=bool), []
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    earlier = first[inverse]
    repeats = np.flatnonzero(earlier != np.arange(len(keys)))
    conflict = repeats[values[repeats] != values[earlier[repeats]]]
    if len(conflict):
        row = conflict[np.argmin(lines[conflict])]
        raise src.fail(int(lines[row]), f"{what(row)} has {noun} {values[row].item()!r} here but "
                       f"{values[earlier[row]].item()!r} on line {lines[earlier[row]]}")
    keep = np.ones(len(keys), dtype=bool)
    keep[repeats] = False
    return keep, [ReportLine(int(lines[row]), f"identical duplicate of line "
                             f"{lines[earlier[row]]}") for row in repeats]


def _report(src, kind: str, fmt: str, lines_read: int, dropped: list[ReportLine]) -> LoadReport:
    return LoadReport(source=src.name, kind=kind, format=fmt, lines_read=lines_read,
                      lines_used=lines_read - len(dropped),
                      dropped=tuple(sorted(dropped, key=lambda r: r.line)), repeats=(),
                      notes=(), comments=0, wide_lines=0, unit="line" if fmt != "parquet"
                      else "row")
