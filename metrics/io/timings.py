"""What each query cost under each run: the timings side file (``--timings FILE``, a CSV/TSV
with the header ``query_id,run,latency_ms[,cost][,tokens]``) and the same optional columns
of a CSV/TSV or Parquet run (one value per query, repeated on each of its rows).

Each value is a finite number >= 0; anything else is refused naming the file and its line
(a Parquet file's row). An empty cell is a missing value. A query's values repeated on
several rows must agree (a run's rows, or the side file's rows of one query and run): two
that differ are refused naming both lines; repeated rows of the side file that agree are
counted. The file is read as every loader reads one: bounded by `max_bytes`
(``--max-input-mb``), in memory, as pyarrow columns (no Python loop over its rows).

The column names are declared once in ``metrics.vocabulary.timings``.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from metrics.io.arrow import numbers
from metrics.io.delimited import delimited_table
from metrics.io.detect import Layout, detect
from metrics.io.errors import LoadError, show
from metrics.io.parquet import is_parquet
from metrics.io.reader import LineTooLong
from metrics.io.sources import Source, open_source, source_name
from metrics.io.streams import MAX_INPUT_BYTES, check_max_bytes
from metrics.io.tables import check_line_lengths
from metrics.vocabulary.format import count
from metrics.vocabulary.timings import (
    TIMING_NAMES,
    TIMINGS_HEADER,
    TIMINGS_QUERY,
    TIMINGS_RUN,
    VALUE_PROBLEMS,
)

__all__ = ["RunTimings", "TimingsReport", "load_timings", "run_file_timings"]


@dataclass(frozen=True)
class RunTimings:
    """One run's per-query values: ``query_ids`` (sorted, distinct) and, per column read
    (``latency_ms``, ``cost``, ``tokens``), a float array beside them (NaN: no value for that
    query). ``source`` names the file they came from."""

    run: str
    source: str
    query_ids: tuple[str, ...]
    values: dict[str, np.ndarray] = field(default_factory=dict)

    def column(self, name: str) -> dict[str, float]:
        """query id -> value of one column (queries without one left out)."""
        values = self.values.get(name)
        if values is None:
            return {}
        return {q: float(v) for q, v in zip(self.query_ids, values, strict=True) if v == v}


@dataclass(frozen=True)
class TimingsReport:
    """What a timings file held: rows read, the runs it names, repeated rows (agreeing),
    empty cells, and the columns it ignored."""

    source: str
    rows_read: int
    runs: tuple[str, ...]
    repeated: int = 0
    empty: int = 0
    ignored: tuple[str, ...] = ()
    unit: str = "line"

    def summary(self) -> str:
        parts = [count(self.rows_read, self.unit) + " read",
                 count(len(self.runs), "run") + " (" + ", ".join(self.runs) + ")"]
        if self.repeated:
            parts.append(count(self.repeated, "repeated " + self.unit)
                         + " (the same values again)")
        if self.empty:
            parts.append(count(self.empty, "empty cell") + " (no value)")
        if self.ignored:
            parts.append("columns ignored: " + ", ".join(self.ignored))
        return f"{self.source}: timings: " + ", ".join(parts)


# --------------------------------------------------------------------------- the side file


def load_timings(source: str | os.PathLike | bytes, *, file_name: str | None = None,
                 max_bytes: int = MAX_INPUT_BYTES
                 ) -> tuple[dict[str, RunTimings], TimingsReport]:
    """The side file: a CSV/TSV whose header names query_id (or qid), run and latency_ms,
    and may name cost and tokens (other columns are ignored, and said so). One row per
    (query, run); a row repeated with the same values is counted, with other values
    refused. -> run name -> RunTimings, and the file's report."""
    check_max_bytes(max_bytes)
    src = open_source(source, file_name, max_bytes)
    number, line = src.first_line
    delimiter = "\t" if "\t" in line else ","
    names = [name.strip().strip('"').lower() for name in line.split(delimiter)]
    repeated = next((n for i, n in enumerate(names) if n and n in names[:i]), None)
    if repeated is not None:
        raise src.fail(number, f"the header names the column {show(repeated)} twice")
    query = next((n for n in TIMINGS_QUERY if n in names), None)
    missing = [what for what, found in (
        (" or ".join(TIMINGS_QUERY), query), (TIMINGS_RUN, TIMINGS_RUN in names),
        (TIMING_NAMES[0], TIMING_NAMES[0] in names)) if not found]
    if missing:
        raise src.fail(number, f"a timings header names {TIMINGS_HEADER}; this one lacks "
                       f"{', '.join(missing)} (found {', '.join(map(show, names))})")
    roles = {"query": names.index(query), TIMINGS_RUN: names.index(TIMINGS_RUN)}
    roles |= {name: names.index(name) for name in TIMING_NAMES if name in names}
    ignored = tuple(n for n in names if n not in (query, TIMINGS_RUN, *TIMING_NAMES))
    layout = Layout(delimiter, len(names), roles, number, f"as in the header on line {number}")
    table = _table(src, layout)
    columns = {role: pc.utf8_trim_whitespace(values) for role, values in table.columns.items()}
    lines = table.lines
    for role in ("query", TIMINGS_RUN):
        empty = np.flatnonzero(numbers(pc.binary_length(columns[role])) == 0)
        if len(empty):
            what = "query id" if role == "query" else "run name"
            raise src.fail(int(lines[empty[0]]), f"empty {what}")
    values = {name: _numbers(src.fail, columns[name], lines, name)
              for name in TIMING_NAMES if name in columns}
    runs = np.asarray(columns[TIMINGS_RUN].to_numpy(zero_copy_only=False), dtype=object)
    queries = columns["query"]
    found: dict[str, RunTimings] = {}
    repeats = 0
    for run in sorted(set(runs.tolist())):
        rows = np.flatnonzero(runs == run)
        timings, extra = _per_query(src.fail, run, src.name, queries.take(pa.array(rows)),
                                    lines[rows],
                                    {name: v[rows] for name, v in values.items()})
        found[run] = timings
        repeats += extra
    empty = sum(int(np.isnan(v).sum()) for v in values.values())
    return found, TimingsReport(src.name, len(lines), tuple(found), repeats, empty, ignored)


# --------------------------------------------------------------------------- a run's columns


def run_file_timings(source: str | os.PathLike | bytes, run: str, *,
                     file_name: str | None = None, format: str = "auto",
                     max_bytes: int = MAX_INPUT_BYTES) -> RunTimings | None:
    """The optional latency_ms, cost and tokens columns of a CSV/TSV or Parquet run (None
    when it has none, or is a TREC or JSONL run): one value per query, repeated on each of
    its rows, where the rows of a query must agree (refused naming both lines otherwise).
    The file is read again, only those columns and the query's."""
    check_max_bytes(max_bytes)
    if not isinstance(source, str | os.PathLike | bytes | bytearray | memoryview):
        return None  # a table handed over from Python: its timings come as a side file
    if is_parquet(source, file_name) or format == "parquet":
        return _parquet_timings(source, run, file_name)
    if not _may_name_timings(source):
        return None
    src = open_source(source, file_name, max_bytes)
    if detect(src, "run", format) != "csv":
        return None
    number, line = src.first_line
    delimiter = "\t" if "\t" in line else ","
    names = [name.strip().strip('"').lower() for name in line.split(delimiter)]
    wanted = [name for name in TIMING_NAMES if name in names]
    query = next((n for n in TIMINGS_QUERY if n in names), None)
    if not wanted or query is None:
        return None
    roles = {"query": names.index(query)} | {name: names.index(name) for name in wanted}
    layout = Layout(delimiter, len(names), roles, number, f"as in the header on line {number}")
    table = _table(src, layout)
    queries = pc.utf8_trim_whitespace(table.columns["query"])
    values = {name: _numbers(src.fail, pc.utf8_trim_whitespace(table.columns[name]),
                             table.lines, name) for name in wanted}
    timings, _ = _per_query(src.fail, run, src.name, queries, table.lines, values,
                            repeated_rows=False)
    return timings


def _table(src: Source, layout: Layout):
    """The delimited columns the layout names, a line over the one-line bound refused naming
    it (as the run and qrels readers refuse it)."""
    try:
        table = delimited_table(src, layout)
    except LineTooLong:
        check_line_lengths(src)
        raise  # not reached: the reader found a line the lengths do not show
    if not len(table.lines):
        raise src.fail(None, "no data lines (only a header)")
    return table


def _may_name_timings(source: object) -> bool:
    """Whether a run's first 64 KiB (gunzipped) mention a timing column: a run file without
    one (a TREC run, most CSV runs) is then not read a second time."""
    head = b""
    try:
        if isinstance(source, bytes | bytearray | memoryview):
            head = bytes(source[:1 << 16])
            if head[:2] == b"\x1f\x8b":
                with gzip.GzipFile(fileobj=io.BytesIO(bytes(source))) as file:
                    head = file.read(1 << 16)
        elif os.fspath(source) != "-":
            with open(source, "rb") as file:
                head = file.read(1 << 16)
            if head[:2] == b"\x1f\x8b":
                with gzip.open(source, "rb") as file:
                    head = file.read(1 << 16)
        else:
            return False  # standard input is read once, by the run's loader
    except (OSError, EOFError, gzip.BadGzipFile):
        return True  # let the reader say what is wrong
    first = head.split(b"\n", 1)[0].lower()
    return any(name.encode() in first for name in TIMING_NAMES)


def _parquet_timings(source: object, run: str, file_name: str | None) -> RunTimings | None:
    name = source_name(source, file_name) if isinstance(source, str | os.PathLike | bytes) \
        else (file_name or "table")
    where = pa.BufferReader(bytes(source)) if isinstance(source, bytes | bytearray) else source
    try:
        schema = pq.read_schema(where) if not os.path.isdir(str(where)) \
            else pq.ParquetDataset(where).schema
    except (OSError, TypeError, pa.ArrowInvalid):
        return None
    names = {column.lower(): column for column in schema.names}
    wanted = [column for column in TIMING_NAMES if column in names]
    query = next((n for n in TIMINGS_QUERY if n in names), None)
    if not wanted or query is None:
        return None
    if isinstance(where, pa.BufferReader):
        where = pa.BufferReader(bytes(source))
    table = pq.read_table(where, columns=[names[query], *(names[c] for c in wanted)])

    def fail(row: int | None, problem: str) -> LoadError:
        return LoadError(name, row, problem, "row")

    rows = np.arange(1, table.num_rows + 1, dtype=np.int64)
    queries = pc.cast(table.column(names[query]).combine_chunks(), pa.string())
    values = {}
    for column in wanted:
        data = table.column(names[column]).combine_chunks()
        if pa.types.is_integer(data.type) or pa.types.is_floating(data.type) \
                or pa.types.is_decimal(data.type):
            as_float = pc.cast(data, pa.float64()).to_numpy(zero_copy_only=False)
            values[column] = _checked(fail, np.asarray(as_float, dtype=float), rows, column,
                                      data)
        else:
            values[column] = _numbers(fail, pc.cast(data, pa.string()), rows, column)
    timings, _ = _per_query(fail, run, name, queries, rows, values, repeated_rows=False,
                            unit="row")
    return timings


# --------------------------------------------------------------------------- values


def _numbers(fail, column: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """A text column as floats: an empty cell is NaN (no value); anything else must read as a
    finite number >= 0, else refused naming its line."""
    empty = numbers(pc.equal(pc.binary_length(column.fill_null("")), 0))
    text = pc.if_else(pa.array(empty), None, column)
    try:
        read = pc.cast(text, pa.float64())
    except pa.ArrowInvalid:
        for index in np.flatnonzero(~empty):
            try:
                pc.cast(column[int(index):int(index) + 1], pa.float64())
            except pa.ArrowInvalid:
                got = show(column[int(index)].as_py())
                raise fail(int(lines[index]), f"{what} " + VALUE_PROBLEMS["number"].format(
                    got=got)) from None
        raise  # not reached: some cell failed the cast
    values = np.asarray(read.to_numpy(zero_copy_only=False), dtype=float)
    return _checked(fail, values, lines, what, column, empty)


def _checked(fail, values: np.ndarray, lines: np.ndarray, what: str, column: pa.Array,
             empty: np.ndarray | None = None) -> np.ndarray:
    """Values refused when NaN (not a number, unless the cell was empty), infinite or
    negative, naming the first such line."""
    empty = np.zeros(len(values), dtype=bool) if empty is None else empty
    null = numbers(pc.is_null(column)) if column.null_count else np.zeros(len(values), bool)
    checks = (("number", np.isnan(values) & ~empty & ~null),
              ("finite", np.isinf(values)),
              ("negative", values < 0))
    for problem, bad in checks:
        if bad.any():
            index = int(np.argmax(bad))
            got = show(column[index].as_py())
            raise fail(int(lines[index]), f"{what} " + VALUE_PROBLEMS[problem].format(got=got))
    return values


def _per_query(fail, run: str, source: str, queries: pa.Array, lines: np.ndarray,
               values: dict[str, np.ndarray], *, repeated_rows: bool = True,
               unit: str = "line") -> tuple[RunTimings, int]:
    """Rows -> one value per query and column; two rows of a query that differ refused,
    naming both. Returns the RunTimings and how many rows repeated a query (when the
    format has one row per query)."""
    encoded = pc.dictionary_encode(queries).combine_chunks() if isinstance(
        queries, pa.ChunkedArray) else pc.dictionary_encode(queries)
    names = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(names.astype(str) if len(names) else names, kind="stable")] = \
        np.arange(len(names))
    inverse = rank[numbers(encoded.indices)]
    ids = np.sort(names.astype(str)) if len(names) else names
    order = np.argsort(inverse, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(inverse[order])) + 1]
    per_query: dict[str, np.ndarray] = {}
    for name, column in values.items():
        ordered = column[order]
        present = ~np.isnan(ordered)
        low = np.minimum.reduceat(np.where(present, ordered, np.inf), starts)
        high = np.maximum.reduceat(np.where(present, ordered, -np.inf), starts)
        differ = np.flatnonzero(low < high)
        if len(differ):
            group = int(differ[0])
            stop = starts[group + 1] if group + 1 < len(starts) else len(ordered)
            rows = order[starts[group]:stop]
            rows = rows[~np.isnan(column[rows])]
            first = rows[0]
            other = rows[np.flatnonzero(column[rows] != column[first])[0]]
            where = f"{unit} {int(lines[first])}"
            raise fail(int(lines[other]), f"{name} {column[other]:g} for query "
                       f"{show(ids[group])} of run {show(run)} differs from {column[first]:g} "
                       f"on {where}: one value per query")
        per_query[name] = np.where(np.isfinite(low), low, np.nan)
    extra = len(queries) - len(ids) if repeated_rows else 0
    return RunTimings(run, source, tuple(ids.tolist()), per_query), extra


def merge_timings(*found: dict[str, RunTimings]) -> dict[str, RunTimings]:
    """Timings from several files, by run; a run's column given by two files is refused."""
    merged: dict[str, RunTimings] = {}
    for timings in found:
        for run, these in timings.items():
            if run not in merged:
                merged[run] = these
                continue
            held = merged[run]
            twice = sorted(set(held.values) & set(these.values))
            if twice:
                raise LoadError(these.source, None, f"run {show(run)}'s {', '.join(twice)} "
                                f"is also given by {held.source}: give each once")
            ids = sorted(set(held.query_ids) | set(these.query_ids))
            index = {q: i for i, q in enumerate(ids)}
            values = {}
            for part in (held, these):
                at = np.array([index[q] for q in part.query_ids], dtype=np.int64)
                for name, column in part.values.items():
                    full = np.full(len(ids), np.nan)
                    full[at] = column
                    values[name] = full
            merged[run] = RunTimings(run, f"{held.source}, {these.source}", tuple(ids), values)
    return merged


def check_runs(timings: dict[str, RunTimings], runs: Sequence[str], source: str) -> None:
    """A run named by the timings but not loaded is refused, naming it and the runs."""
    unknown = [run for run in timings if run not in runs]
    if unknown:
        raise LoadError(source, None, f"timings for run {show(unknown[0])}, which is not "
                        f"loaded; the runs: {', '.join(map(show, runs))}")
