"""Parquet files, directories of them (a partitioned dataset: one run, or one set of labels)
and Arrow tables or pandas DataFrames handed over from Python, read with pyarrow.

The columns are named as a CSV/TSV header names them (`query_id` or `qid`, `doc_id`, `docid`
or `pid`, `grade`, `relevance` or `label`, `rank`, `score`; any case), typed or as text: ids
may be strings or integers, grades and ranks integers (or floats that are whole, or integer
text), scores numbers. Other columns are not read. Rows are numbered from 1, across the files
of a directory in path order; a bad value is named by its file and its row within that file.

A file is bounded by its data's uncompressed size (from the Parquet footer, before anything
is read); ``batches`` streams a file or a directory a slice of rows at a time instead, for
the block-by-block driver, which holds one block of queries at once.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers
from metrics.io.detect import column_roles
from metrics.io.errors import LoadError, show
from metrics.io.streams import describe_bytes, too_large
from metrics.io.values import to_float, to_int

if TYPE_CHECKING:
    import pyarrow.parquet as pq

PARQUET_EXTENSIONS = (".parquet", ".pq", ".parq")
_MAGIC = b"PAR1"
TABLE_NAME = "<table>"  # the name of a table handed over from Python, unless one is given
BATCH_ROWS = 1 << 17  # rows a streamed read hands over at once


def is_table(source: object) -> bool:
    """An Arrow table or record batch, a pandas DataFrame, or any object that exports an
    Arrow stream (polars, DuckDB results)."""
    return isinstance(source, pa.Table | pa.RecordBatch) or _is_frame(source) or hasattr(
        source, "__arrow_c_stream__")


def _is_frame(source: object) -> bool:
    return type(source).__module__.startswith("pandas") and hasattr(source, "columns")


def is_parquet(source: object, file_name: str | None = None) -> bool:
    """A directory, a path or a name ending in a Parquet extension, or bytes (or a regular
    file) that start with Parquet's magic number."""
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source[:4]) == _MAGIC or _named_parquet(file_name)
    if not isinstance(source, str | os.PathLike):
        return False
    path = os.fspath(source)
    if os.path.isdir(path) or _named_parquet(file_name or path):
        return True
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == _MAGIC
    except OSError:
        return False


def _named_parquet(name: str | None) -> bool:
    return bool(name) and name.lower().endswith(PARQUET_EXTENSIONS)


@dataclass(frozen=True, eq=False)
class Columnar:
    """A Parquet source or a table, read: its columns by role (as stored, typed) and each
    row's number; it names a bad row as a source does a bad line (``fail``)."""

    name: str
    format: str  # "parquet" or "arrow"
    columns: dict[str, pa.Array]  # role -> column
    lines: np.ndarray  # 1-based row numbers
    # a directory's files: (name, rows before it), so that a row is named in its own file
    files: tuple[tuple[str, int], ...] = field(default=())
    unit = "row"  # what the load report's line numbers count

    def fail(self, line: int | None, problem: str) -> LoadError:
        if line is None or len(self.files) < 2:
            name = self.files[0][0] if self.files else self.name
            return LoadError(name, line, problem, "row")
        at = bisect_right([before for _, before in self.files], line - 1) - 1
        name, before = self.files[at]
        return LoadError(name, line - before, problem, "row")


@dataclass(frozen=True)
class _Files:
    """The Parquet files of a source, each with what it is called in messages."""

    name: str
    files: tuple[tuple[str, object], ...]  # (name in messages, path or buffer)


def _files(source: object, file_name: str | None) -> _Files:
    if isinstance(source, bytes | bytearray | memoryview):
        name = file_name or "<upload>"
        return _Files(name, ((name, pa.BufferReader(bytes(source))),))
    path = os.fspath(source)
    name = file_name or os.path.basename(path.rstrip(os.sep)) or path
    if not os.path.exists(path):
        raise LoadError(path, None, "no such file or directory")
    if not os.path.isdir(path):
        return _Files(name, ((name, path),))
    found = sorted(
        os.path.join(root, f) for root, dirs, names in os.walk(path) for f in names
        if not f.startswith(("_", ".")) and not _hidden(os.path.relpath(root, path)))
    if not found:
        raise LoadError(path, None, "is a directory, not a file (and holds no Parquet files)")
    return _Files(name, tuple((os.path.join(name, os.path.relpath(f, path)), f) for f in found))


def _hidden(relative: str) -> bool:
    return any(part.startswith(("_", ".")) for part in relative.split(os.sep) if part != ".")


def _open(name: str, where: object, *, pre_buffer: bool = True,
          read_dictionary: list[str] | None = None) -> pq.ParquetFile:
    import pyarrow.parquet as pq  # imported when a Parquet file is read: pyarrow's
    # file systems come with it (S3, GCS, TLS), 10-15 ms of every command's start-up

    try:
        return pq.ParquetFile(where, pre_buffer=pre_buffer, read_dictionary=read_dictionary)
    except (pa.ArrowInvalid, OSError) as exc:
        raise LoadError(name, None, f"not a Parquet file ({' '.join(str(exc).split())})") from None


def _roles(name: str, schema: pa.Schema, kind: str, fmt: str = "parquet") -> dict[str, str]:
    return named_roles(name, schema.names, kind, fmt)


def named_roles(name: str, columns: Sequence[str], kind: str,
                fmt: str = "parquet") -> dict[str, str]:
    """Role -> the column's name as stored, by the names a CSV header accepts (any case):
    the columns of a Parquet file's schema, a table's, or a Spark DataFrame's. A LoadError
    naming `name` when a role is missing or named twice."""
    columns = list(columns)
    stored = {column.lower(): column for column in columns}
    fail = _Failing(name)
    found = column_roles(fail, None, kind, fmt, [c.lower() for c in columns],
                         lambda missing: f"data lacks column(s) {missing} "
                         f"(found {show(columns, 60)})", "the schema")
    return {role: stored[lowered] for role, lowered in found.items()}


@dataclass(frozen=True)
class _Failing:
    name: str

    def fail(self, line: int | None, problem: str) -> LoadError:
        return LoadError(self.name, line, problem, "row")


def read_columnar(source: object, file_name: str | None, kind: str, max_bytes: int) -> Columnar:
    """A Parquet file, a directory of them, or a table, read whole: its columns by role."""
    if is_table(source):
        table = as_table(source)
        name = file_name or TABLE_NAME
        roles = _roles(name, table.schema, kind, "arrow")
        columns = {role: table.column(column).combine_chunks() for role, column in roles.items()}
        return Columnar(name, "arrow", columns, np.arange(1, table.num_rows + 1, dtype=np.int64))
    files = _files(source, file_name)
    opened = [(name, _open(name, where)) for name, where in files.files]
    size = sum(f.metadata.row_group(i).total_byte_size
               for _, f in opened for i in range(f.metadata.num_row_groups))
    if size > max_bytes:
        raise too_large(files.name, max_bytes, f"holds {describe_bytes(size)} of data "
                        "uncompressed, beyond")
    parts, starts, before = {}, [], 0
    for (name, handle), mine in zip(opened, _file_roles(opened, kind), strict=True):
        table = _read(name, handle, list(mine.values()))
        for role, column in mine.items():
            parts.setdefault(role, []).extend(table.column(column).chunks)
        starts.append((name, before))
        before += table.num_rows
    columns = {role: _combined(chunks) for role, chunks in parts.items()}
    return Columnar(files.name, "parquet", columns, np.arange(1, before + 1, dtype=np.int64),
                    tuple(starts))


def _file_roles(opened: list[tuple[str, pq.ParquetFile]], kind: str) -> list[dict[str, str]]:
    """Each file's roles (role -> its column as stored); a file whose roles are not the first
    file's is refused: the files of a directory are one table."""
    first = _roles(opened[0][0], opened[0][1].schema_arrow, kind)
    found = [first]
    for name, handle in opened[1:]:
        mine = _roles(name, handle.schema_arrow, kind)
        if mine.keys() != first.keys():
            raise LoadError(name, None, f"holds the columns {sorted(mine.values())}, not those "
                            f"of {opened[0][0]} ({sorted(first.values())})")
        found.append(mine)
    return found


def _read(name: str, handle: pq.ParquetFile, columns: list[str]) -> pa.Table:
    try:
        return handle.read(columns=columns)
    except (pa.ArrowInvalid, OSError) as exc:
        raise LoadError(name, None, f"cannot read it ({' '.join(str(exc).split())})") from None


def _combined(chunks: list[pa.Array]) -> pa.Array:
    if not chunks:
        return pa.array([], pa.string())
    types = {chunk.type for chunk in chunks}
    if len(types) > 1:  # files of one directory may type a column differently
        chunks = [chunk.cast(pa.string()) if not pa.types.is_string(chunk.type) else chunk
                  for chunk in chunks]
    return pa.chunked_array(chunks).combine_chunks()


def as_table(source: object) -> pa.Table:
    """A table handed over from Python as an Arrow table (a DataFrame without its index)."""
    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pa.RecordBatch):
        return pa.Table.from_batches([source])
    if _is_frame(source):
        return pa.Table.from_pandas(source, preserve_index=False)
    return pa.table(source)


# --- streamed: the block-by-block driver's read ------------------------------------------


@dataclass(frozen=True, eq=False)
class Batch:
    """Some consecutive rows of a streamed source, as stored, and the number of the first."""

    columns: dict[str, pa.Array]
    first_line: int  # 1-based number of the first row
    source: Columnar  # the columns are empty here: it names rows, as a read one does

    @property
    def lines(self) -> np.ndarray:
        count = len(next(iter(self.columns.values())))
        return np.arange(self.first_line, self.first_line + count, dtype=np.int64)


def batches(source: object, file_name: str | None, kind: str, *, roles: tuple[str, ...] = (),
            rows: int = BATCH_ROWS, dictionary: bool = False) -> Iterator[Batch]:
    """A Parquet file, a directory or a table, read `rows` rows at a time (only the
    columns of `roles`, default every role found): memory holds one batch. `dictionary`:
    Parquet string columns come dictionary-encoded, as stored (no string per row is built:
    half the time for a query column read alone)."""
    if is_table(source):
        table = as_table(source)
        name = file_name or TABLE_NAME
        found = _roles(name, table.schema, kind, "arrow")
        wanted = {role: found[role] for role in roles or found if role in found}
        named = Columnar(name, "arrow", {}, np.zeros(0, np.int64))
        for start in range(0, table.num_rows, rows):
            piece = table.slice(start, rows)
            yield Batch({role: piece.column(c).combine_chunks() for role, c in wanted.items()},
                        start + 1, named)
        return
    files = _files(source, file_name)
    # without pre-buffering: its read cache keeps every row group read so far until the file
    # is closed (a streamed run would end up held whole, compressed; apache/arrow#39808)
    opened = [(name, _open(name, where, pre_buffer=False)) for name, where in files.files]
    named = Columnar(files.name, "parquet", {}, np.zeros(0, np.int64),
                     tuple(zip((name for name, _ in opened),
                               np.cumsum([0] + [f.metadata.num_rows for _, f in opened[:-1]]),
                               strict=True)))
    before = 0
    for (name, handle), (_, where) in zip(opened, files.files, strict=True):
        found = _roles(name, handle.schema_arrow, kind)
        wanted = {role: found[role] for role in roles or found if role in found}
        if dictionary:
            handle = _open(name, where, pre_buffer=False, read_dictionary=list(wanted.values()))
        try:
            for batch in handle.iter_batches(batch_size=rows, columns=list(wanted.values())):
                yield Batch({role: batch.column(c) for role, c in wanted.items()},
                            before + 1, named)
                before += batch.num_rows
        except (pa.ArrowInvalid, OSError) as exc:
            raise LoadError(name, None, f"cannot read it ({' '.join(str(exc).split())})") \
                from None


def parquet_files(source: object, file_name: str | None) -> Iterator[tuple[str, pq.ParquetFile]]:
    """Each Parquet file of a source (a file, a directory, an upload's bytes), opened (its
    footer read, no data), with the name messages give it."""
    for name, where in _files(source, file_name).files:
        yield name, _open(name, where)


def roles_of(source: object, file_name: str | None, kind: str) -> dict[str, str]:
    """The roles a Parquet source or a table holds (role -> column), from its schema (every
    file's, for a directory: refused as the whole read refuses it when they differ)."""
    if is_table(source):
        return _roles(file_name or TABLE_NAME, as_table(source).schema, kind, "arrow")
    opened = list(parquet_files(source, file_name))
    return _file_roles(opened, kind)[0]


# --- values ---------------------------------------------------------------------------------


def _first_null(src, column: pa.Array, lines: np.ndarray, what: str) -> None:
    if column.null_count:
        row = int(np.argmin(numbers(pc.is_valid(column))))
        raise src.fail(int(lines[row]), f"no {what} (a null)")


def ids(src, column: pa.Array, lines: np.ndarray, role: str) -> pa.Array:
    """Query or doc ids as strings (integers written out), refusing nulls and empty ids."""
    _first_null(src, column, lines, f"{role} id")
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
            or pa.types.is_integer(column.type)):
        raise src.fail(None, f"the {role} id column holds {column.type}, not strings or "
                       "integers")
    column = column.cast(pa.string())
    empty = np.flatnonzero(numbers(pc.binary_length(column)) == 0)
    if len(empty):
        raise src.fail(int(lines[empty[0]]), f"empty {role} id")
    return column


def _decoded(column: pa.Array) -> pa.Array:
    return column.dictionary_decode() if pa.types.is_dictionary(column.type) else column


def integers(src, column: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Grades or ranks: integers, whole floats, or integer text (as a CSV cell is read)."""
    column = _decoded(column)
    _first_null(src, column, lines, what)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return to_int(src, column.cast(pa.string()), lines, what)
    if pa.types.is_integer(kind):
        try:
            return numbers(column.cast(pa.int64()))
        except pa.ArrowInvalid:
            row = int(np.argmax(numbers(pc.greater(column, 2**63 - 1))))
            raise src.fail(int(lines[row]), f"{what} {column[row].as_py()} is too large") \
                from None
    if pa.types.is_floating(kind):
        values = numbers(column.cast(pa.float64()))
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~np.isfinite(values) | (values != np.floor(values))
                                 | (np.abs(values) > 2**53))
        if len(bad):
            row = int(bad[0])
            raise src.fail(int(lines[row]),
                           f"{what} must be an integer, got {show(float(values[row]))}")
        return values.astype(np.int64)
    raise src.fail(None, f"the {what} column holds {kind}, not integers")


def floats(src, column: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Scores: numbers (or number text), never NaN."""
    column = _decoded(column)
    _first_null(src, column, lines, what)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return to_float(src, column.cast(pa.string()), lines, what)
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_decimal(kind)):
        raise src.fail(None, f"the {what} column holds {kind}, not numbers")
    values = numbers(column.cast(pa.float64()))
    bad = np.flatnonzero(np.isnan(values))
    if len(bad):
        raise src.fail(int(lines[bad[0]]), f"{what} must be a number, got nan")
    return values


__all__ = ["BATCH_ROWS", "Batch", "Columnar", "PARQUET_EXTENSIONS", "TABLE_NAME", "as_table",
           "batches", "floats", "ids", "integers", "is_parquet", "is_table",
           "named_roles", "read_columnar", "roles_of"]
