"""Parquet files, directories of them (a partitioned dataset: one run, or one set of labels)
and Arrow tables or pandas DataFrames handed over from Python, read with pyarrow.

The columns are named as a CSV/TSV header names them (`query_id` or `qid`, `doc_id`, `docid`
or `pid`, `grade`, `relevance` or `label`, `rank`, `score`; any case), typed or as text: ids
may be strings (valid UTF-8) or integers, grades and ranks integers (or floats and decimals
that are whole, or integer text), scores numbers. Other columns are not read. Rows are
numbered from 1, across the files of a directory in path order; a bad value is named by its
file and its row within that file.

Before any row is read, every file's footer is checked (``layout``): its columns by role, and
each role's type, which the files of a directory may vary within what the role takes (integer
widths, integers and floats, integers and text) and are then read as one type. Every engine
reads through that check (the in-memory and block readers here, Spark before it starts), so
that a file is refused alike, in one line naming it, whichever engine reads it.

A file is bounded by its data's uncompressed size (from the Parquet footer, before anything
is read) and by the size its columns decode to: a dictionary page may hold one long value
that a million rows repeat, so a small file can decode to gigabytes (``decoded_bound``).
``batches`` streams a file or a directory a slice of rows at a time instead, for the
block-by-block driver, which holds one block of queries at once: each slice it reads at once
is bounded, and row groups of a few rows are read together, whatever the file's layout.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers
from metrics.io.detect import column_roles
from metrics.io.errors import LoadError, show
from metrics.io.streams import MAX_INPUT_BYTES, MAX_INPUT_FLAG, describe_bytes, too_large
from metrics.io.values import casts, first_failure, to_float, to_int

if TYPE_CHECKING:
    import pyarrow.parquet as pq

PARQUET_EXTENSIONS = (".parquet", ".pq", ".parq")
_MAGIC = b"PAR1"
TABLE_NAME = "<table>"  # the name of a table handed over from Python, unless one is given
BATCH_ROWS = 1 << 17  # rows a streamed read hands over at once
Footers = dict  # a file's name -> its parsed footer (pyarrow.parquet.FileMetaData)


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
        if len(self.files) < 2 or line is None:  # one file's, or the whole directory's
            name = self.files[0][0] if len(self.files) == 1 else self.name
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
          read_dictionary: list[str] | None = None,
          footers: Footers | None = None) -> pq.ParquetFile:
    """A Parquet file opened (its footer read), or a LoadError naming it. With `footers`, a
    file's footer is parsed once and kept for its next opening: a file of many row groups has
    a large one (about ten times its bytes once parsed)."""
    import pyarrow.parquet as pq  # imported when a Parquet file is read: pyarrow's
    # file systems come with it (S3, GCS, TLS), 10-15 ms of every command's start-up

    try:
        handle = pq.ParquetFile(where, pre_buffer=pre_buffer, read_dictionary=read_dictionary,
                                metadata=None if footers is None else footers.get(name))
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(name, None, f"not a Parquet file ({_said(exc)})") from None
    if footers is not None:
        footers[name] = handle.metadata
    return handle


def _said(error: Exception) -> str:
    """What pyarrow said, on one line."""
    return " ".join(str(error).split())


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


# --- the layout: every file's columns and their types, checked before a row is read --------

# what each role's column may hold (its type's family), and how a refusal words it
_WHAT = {"query": "query id", "doc": "doc id", "grade": "grade", "rank": "rank",
         "score": "score"}
_NUMBERS = ("integer", "float", "decimal", "text")
_TAKES = {"query": ("text", "integer"), "doc": ("text", "integer"), "grade": _NUMBERS,
          "rank": _NUMBERS, "score": _NUMBERS}
_NOT = {"query": "strings or integers", "doc": "strings or integers", "grade": "integers",
        "rank": "integers", "score": "numbers"}


def _family(kind: pa.DataType) -> str | None:
    """"text", "integer", "float" or "decimal" (a dictionary's values'), None for another
    (16-bit floats too: Spark reads no Parquet FLOAT16, so no engine takes them)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_float16(kind):
        return None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "text"
    return next((family for family, test in (("integer", pa.types.is_integer),
                                             ("float", pa.types.is_floating),
                                             ("decimal", pa.types.is_decimal)) if test(kind)),
                None)


def _type_problem(role: str, kind: pa.DataType) -> str | None:
    """Why a role's column cannot be read from this type (None: it can)."""
    if _family(kind) in _TAKES[role]:
        return None
    if pa.types.is_float16(_values(kind)):
        return (f"the {_WHAT[role]} column holds 16-bit floats, which not every engine reads "
                "(Spark does not): write 32- or 64-bit ones")
    return f"the {_WHAT[role]} column holds {kind}, not {_NOT[role]}"


@dataclass(frozen=True)
class Layout:
    """A Parquet source or a table, checked before any row is read: each file's column for
    every role, its type there, and the one type each role is read as (metrics.io.parquet's
    docstring). What every engine reads through."""

    name: str
    format: str  # "parquet" or "arrow"
    files: tuple[str, ...]  # each file's name in messages
    rows: tuple[int, ...]  # each file's rows
    roles: tuple[dict[str, str], ...]  # per file: role -> its column as stored
    stored: tuple[dict[str, pa.DataType], ...]  # per file: role -> that column's type
    types: dict[str, pa.DataType]  # role -> the type it is read as

    @property
    def named(self) -> Columnar:
        """What names its rows (a Columnar without columns), as a whole read names them."""
        if self.format == "arrow":
            return Columnar(self.name, "arrow", {}, np.zeros(0, np.int64))
        before = np.cumsum((0, *self.rows[:-1])).tolist()
        return Columnar(self.name, "parquet", {}, np.zeros(0, np.int64),
                        tuple(zip(self.files, before, strict=True)))

    def casts(self, index: int) -> dict[str, pa.DataType]:
        """The roles file `index` types otherwise than they are read, and the type each is
        read as."""
        return {role: kind for role, kind in self.types.items()
                if self.stored[index][role] != kind}


def layout(source: object, file_name: str | None, kind: str,
           footers: Footers | None = None) -> Layout:
    """A Parquet source (a file, a directory, an upload's bytes) or a table, checked from its
    schemas alone (every file's footer, no data): a LoadError naming the file when a role's
    column is missing, named twice, of a type the role does not take, or typed by a
    directory's files in ways that cannot be read as one column. `footers`: each file's
    footer parsed once, for the reads that follow (``_open``)."""
    if is_table(source):
        return _table_layout(as_table(source), file_name or TABLE_NAME, kind)
    return _files_layout(_files(source, file_name), kind, footers)


def _files_layout(files: _Files, kind: str, footers: Footers | None) -> Layout:
    return _file_layout(files.name, [(name, _open(name, where, pre_buffer=False,
                                                  footers=footers))
                                     for name, where in files.files], kind)


def _table_layout(table: pa.Table, name: str, kind: str) -> Layout:
    return _layout(name, [(name, table.schema)], (table.num_rows,), kind, "arrow")


def _file_layout(name: str, opened: list[tuple[str, pq.ParquetFile]], kind: str) -> Layout:
    checked = _layout(name, [(file, handle.schema_arrow) for file, handle in opened],
                      tuple(handle.metadata.num_rows for _, handle in opened), kind)
    for (file, handle), roles in zip(opened, checked.roles, strict=True):
        _whole(file, handle, roles)
    return checked


def _whole(file: str, handle: pq.ParquetFile, roles: dict[str, str]) -> None:
    """Every row group's role columns hold a value (or a null) for each of its rows, as its
    footer says: a damaged file is refused here, alike on every engine, not read as columns
    of different lengths (pyarrow's message then depends on how it is read)."""
    metadata = handle.metadata
    leaf = {metadata.schema.column(i).path: i for i in range(metadata.num_columns)}
    columns = [(role, leaf[column]) for role, column in roles.items() if column in leaf]
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for role, i in columns:
            values = group.column(i).num_values
            if values != group.num_rows:
                raise LoadError(file, None, f"damaged: row group {g + 1} holds "
                                f"{group.num_rows:,} rows but {values:,} values of its "
                                f"{_WHAT[role]} column")


def _layout(name: str, schemas: list[tuple[str, pa.Schema]], rows: tuple[int, ...], kind: str,
            fmt: str = "parquet") -> Layout:
    """The roles of every file (refused when they differ from the first file's: the files of
    a directory are one table), then each column's type, then the type each role is read as."""
    found = [_roles(file, schema, kind, fmt) for file, schema in schemas[:1]]
    for file, schema in schemas[1:]:
        mine = _roles(file, schema, kind, fmt)
        if mine.keys() != found[0].keys():
            raise LoadError(file, None, f"holds the columns {sorted(mine.values())}, not those "
                            f"of {schemas[0][0]} ({sorted(found[0].values())})")
        found.append(mine)
    stored = []
    for (file, schema), mine in zip(schemas, found, strict=True):
        typed = {role: schema.field(column).type for role, column in mine.items()}
        problem = next(filter(None, (_type_problem(role, t) for role, t in typed.items())), None)
        if problem is not None:
            raise LoadError(file, None, problem, "row")
        stored.append(typed)
    files = tuple(file for file, _ in schemas)
    types = {role: _read_as(role, files, [typed[role] for typed in stored])
             for role in found[0]}
    return Layout(name, fmt, files, rows, tuple(found), tuple(stored), types)


def _read_as(role: str, files: tuple[str, ...], kinds: list[pa.DataType]) -> pa.DataType:
    """The one type a role's column is read as when a directory's files type it otherwise:
    ids as text (integers written out); scores as text when some file holds text (a number's
    text reads back as that number); grades and ranks as text when some file holds text and
    the others integers (written out as a CSV cell holds them: a float's text is not the same
    in every engine, 2.0 or 2, so text beside floats is refused), int64 when every file
    holds integers (decimal128(20, 0) with a uint64 among them, which int64 cannot hold),
    else float64."""
    if all(kind == kinds[0] for kind in kinds):
        return kinds[0]
    families = [_family(kind) for kind in kinds]
    if role in ("query", "doc") or (role == "score" and "text" in families):
        return pa.string()
    if "text" in families:
        text = families.index("text")
        other = next((i for i, f in enumerate(families) if f not in ("text", "integer")), None)
        if other is not None:
            raise LoadError(files[other], None, f"the {_WHAT[role]} column holds "
                            f"{kinds[other]} where {files[text]} holds text ({kinds[text]}): "
                            "the files of a directory are one table, and text and fractions "
                            "are not read as one column")
        return pa.string()
    if all(f == "integer" for f in families):
        wide = any(_values(kind) == pa.uint64() for kind in kinds)
        return pa.decimal128(20, 0) if wide else pa.int64()
    return pa.float64()


def _values(kind: pa.DataType) -> pa.DataType:
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def as_read(column: pa.Array, kind: pa.DataType | None) -> pa.Array:
    """A column read as `kind` (a type `Layout.casts` gives: the cast cannot fail; None: as
    stored): an integer past 2^53 read as a float rounds, as its text would."""
    if kind is None:
        return column
    column = _decoded(column)
    if column.type == kind:
        return column
    return column.cast(kind, safe=not pa.types.is_floating(kind))


# --- read whole ---------------------------------------------------------------------------


def read_columnar(source: object, file_name: str | None, kind: str, max_bytes: int) -> Columnar:
    """A Parquet file, a directory of them, or a table, read whole: its columns by role."""
    if is_table(source):
        table = as_table(source)
        name = file_name or TABLE_NAME
        roles = _table_layout(table, name, kind).roles[0]
        columns = {role: table.column(column).combine_chunks() for role, column in roles.items()}
        return Columnar(name, "arrow", columns, np.arange(1, table.num_rows + 1, dtype=np.int64))
    files = _files(source, file_name)
    opened = [(name, _open(name, where)) for name, where in files.files]
    size = sum(f.metadata.row_group(i).total_byte_size
               for _, f in opened for i in range(f.metadata.num_row_groups))
    if size > max_bytes:
        raise too_large(files.name, max_bytes, f"holds {describe_bytes(size)} of data "
                        "uncompressed, beyond")
    checked = _file_layout(files.name, opened, kind)
    budget = max_bytes
    for (name, handle), (_, where), mine in zip(opened, files.files, checked.roles, strict=True):
        budget -= decoded_bound(name, where, handle, list(mine.values()), budget)
    parts, starts, before = {}, [], 0
    for index, (name, handle) in enumerate(opened):
        mine, casts = checked.roles[index], checked.casts(index)
        table = _read(name, handle, list(mine.values()))
        for role, column in mine.items():
            chunks = table.column(column).chunks
            parts.setdefault(role, []).extend(as_read(chunk, casts.get(role))
                                              for chunk in chunks)
        starts.append((name, before))
        before += table.num_rows
    columns = {role: _combined(chunks) for role, chunks in parts.items()}
    return Columnar(files.name, "parquet", columns, np.arange(1, before + 1, dtype=np.int64),
                    tuple(starts))


def _read(name: str, handle: pq.ParquetFile, columns: list[str]) -> pa.Table:
    try:
        return handle.read(columns=columns)
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(name, None, f"cannot read it ({_said(exc)})") from None


def _combined(chunks: list[pa.Array]) -> pa.Array:
    if not chunks:
        return pa.array([], pa.string())
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
            rows: int = BATCH_ROWS, dictionary: bool = False,
            max_bytes: int = MAX_INPUT_BYTES, footers: Footers | None = None) -> Iterator[Batch]:
    """A Parquet file, a directory or a table, read `rows` rows at a time (only the
    columns of `roles`, default every role found): memory holds one batch. `dictionary`:
    Parquet string columns come dictionary-encoded, as stored (no string per row is built:
    half the time for a query column read alone). What is read at once (a batch of a large
    row group, or consecutive small row groups together) decodes to at most `max_bytes`, or
    the file is refused before it is read (``decoded_bound``). `footers`: each file's footer
    as parsed by an earlier read of the same source, kept for the next (``_open``)."""
    if is_table(source):
        table = as_table(source)
        name = file_name or TABLE_NAME
        checked = _table_layout(table, name, kind)
        found, named = checked.roles[0], checked.named
        wanted = {role: found[role] for role in roles or found if role in found}
        for start in range(0, table.num_rows, rows):
            piece = table.slice(start, rows)
            yield Batch({role: piece.column(c).combine_chunks() for role, c in wanted.items()},
                        start + 1, named)
        return
    files = _files(source, file_name)
    checked = _files_layout(files, kind, footers)
    named = checked.named
    before = 0
    for index, (name, where) in enumerate(files.files):
        # the footer parsed once when `footers` keeps it; without pre-buffering: its read
        # cache keeps every row group read so far until the file is closed (a streamed run
        # would end up held whole, compressed; apache/arrow#39808)
        handle = _open(name, where, pre_buffer=False, footers=footers)
        found, casts = checked.roles[index], checked.casts(index)
        wanted = {role: found[role] for role in roles or found if role in found}
        columns = list(wanted.values())
        as_stored = None  # opened when a large row group's strings are read as stored
        try:
            for groups in _reads(name, where, handle, columns, rows, max_bytes):
                together = len(groups) > 1  # small row groups: one dictionary, built here
                if dictionary and not together:
                    as_stored = as_stored or _open(
                        name, where, pre_buffer=False, footers={name: handle.metadata},
                        read_dictionary=[c for role, c in wanted.items() if role not in casts])
                    read = as_stored.iter_batches(batch_size=rows, row_groups=groups,
                                                  columns=columns)
                else:
                    read = handle.iter_batches(batch_size=rows, row_groups=groups,
                                               columns=columns)
                encode = dictionary and together
                for batch in read:
                    yield Batch({role: _as_wanted(batch.column(c), casts.get(role), encode)
                                 for role, c in wanted.items()},
                                before + 1, named)
                    before += batch.num_rows
        except (pa.ArrowException, OSError) as exc:
            raise LoadError(name, None, f"cannot read it ({_said(exc)})") from None


def _reads(name: str, where: object, handle: pq.ParquetFile, columns: list[str], rows: int,
           max_bytes: int) -> Iterator[list[int]]:
    """The file's row groups as they are read at once: a row group of `rows` rows or more on
    its own (read `rows` rows at a time), smaller consecutive ones together up to `rows` rows,
    so that a file written a row per row group is read as one written in large ones. Each
    read is bounded before it is made (``decoded_bound``)."""
    metadata = handle.metadata
    groups: list[int] = []
    held = 0
    for group in range(metadata.num_row_groups):
        count = metadata.row_group(group).num_rows
        if groups and held + count > rows:
            decoded_bound(name, where, handle, columns, max_bytes, groups=groups, at_once=rows)
            yield groups
            groups, held = [], 0
        groups.append(group)
        held += count
    if groups:
        decoded_bound(name, where, handle, columns, max_bytes, groups=groups, at_once=rows)
        yield groups


def stream_bound(max_bytes: int) -> int:
    """What one read of a streamed source (``batches``) may decode to under --max-input-mb
    `max_bytes`: never below the default, since a lower bound keeps a whole file out of
    memory, which a stream never holds."""
    return max(max_bytes, MAX_INPUT_BYTES)


def bounded_layout(source: object, file_name: str | None, kind: str, max_bytes: int, *,
                   rows: int = BATCH_ROWS, footers: Footers | None = None) -> Layout:
    """``layout``, and every read ``batches`` would make of the source (`rows` rows at a
    time, small row groups together) bounded before it is made (``decoded_bound`` within
    ``stream_bound(max_bytes)``), no row read: what an engine that reads the files itself
    (Spark) checks first, so that a file whose rows decode past the bound (a dictionary
    page's one long value that every row repeats) is refused as the block engine refuses
    it, with its line, before a JVM holds it."""
    checked = layout(source, file_name, kind, footers)
    if is_table(source):
        return checked
    for index, (name, where) in enumerate(_files(source, file_name).files):
        handle = _open(name, where, pre_buffer=False, footers=footers)
        for _ in _reads(name, where, handle, list(checked.roles[index].values()), rows,
                        stream_bound(max_bytes)):
            pass
    return checked


def _as_wanted(column: pa.Array, kind: pa.DataType | None, encode: bool) -> pa.Array:
    """A streamed column read as `kind` (``as_read``), or with `encode` its strings
    dictionary-encoded, as a dictionary read gives them."""
    if kind is not None:
        return as_read(column, kind)
    if encode and (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return pc.dictionary_encode(column)
    return column


def source_files(source: object, file_name: str | None) -> tuple[tuple[str, object], ...]:
    """Each file of a Parquet source, in the order its rows are numbered: (its name in
    messages, its path or buffer)."""
    return _files(source, file_name).files


def read_row_groups(source: object, file_name: str | None, checked: Layout,
                    pick: Callable[[int, pq.ParquetFile], list[int]], max_bytes: int,
                    footers: Footers | None = None,
                    ) -> Iterator[tuple[int, pq.ParquetFile, list[int], pa.Table]]:
    """Each file of a source `checked` by ``layout`` (its index there and its handle), the
    row groups `pick(index, handle)` chooses of it, and their role columns read, once their
    decoded size is known to be within `max_bytes` (``decoded_bound``); files of which it
    picks none are skipped. The columns come as stored (``Layout.casts`` gives their type)."""
    for index, (name, where) in enumerate(_files(source, file_name).files):
        handle = _open(name, where, footers=footers)
        groups = pick(index, handle)
        if not groups:
            continue
        columns = list(checked.roles[index].values())
        decoded_bound(name, where, handle, columns, max_bytes, groups=groups)
        try:
            table = handle.read_row_groups(groups, columns=columns)
        except (pa.ArrowException, OSError) as exc:
            raise LoadError(name, None, f"cannot read it ({_said(exc)})") from None
        yield index, handle, groups, table


# --- the decoded size: bounded before anything is read --------------------------------------

_WIDTHS = {"BOOLEAN": 1, "INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}
_OFFSET = 4  # bytes a string takes beside its characters once read (its offset)


@dataclass(eq=False)
class _Chunk:
    """One column chunk of a row group and a bound on the bytes it decodes to, read whole or
    `rows` rows at a time; `loose` when its strings come from a dictionary page, so that the
    bound can be narrowed by reading that page (``decoded_bound``)."""

    group: int
    column: str  # as stored: what a dictionary read names
    rows: int  # rows read at once
    whole: bool  # read whole (else `rows` at a time)
    stored: int  # its uncompressed size, from the footer
    bound: int
    loose: bool = False
    probed: bool = False


def decoded_bound(name: str, where: object, handle: pq.ParquetFile, columns: Sequence[str],
                  limit: int, *, groups: Sequence[int] | None = None,
                  at_once: int | None = None) -> int:
    """A bound on the bytes `columns` of the file (or of its row groups `groups`, read
    together) take once read, `at_once` rows at a time when given; a LoadError naming the
    file when it passes `limit`.

    The footer gives every bound but one: a fixed-width value decodes to its width, plain
    strings to their stored bytes (a read of some rows of a row group: their share); but a
    string a dictionary page holds may be repeated by every row (a 2 KB file can decode to
    gigabytes). Where the footer's bounds pass `limit`, such a chunk's dictionary is read
    (one row read in dictionary form brings the whole page) and its longest value bounds each
    row's; where that still passes, the chunk's rows are counted in dictionary form (the
    dictionary and an index a row, never the strings they stand for). A string column
    written with shared prefixes (DELTA_BYTE_ARRAY) is bounded by its stored bytes a row."""
    quick = _row_group_bound(handle, columns, groups, at_once)
    if quick is not None and quick <= limit:
        return quick
    chunks = _chunks(handle, columns, groups, at_once)
    total = sum(chunk.bound for chunk in chunks)
    loose = [chunk for chunk in chunks if chunk.loose]
    if total > limit and loose:
        probe = _open(name, where, pre_buffer=False, footers={name: handle.metadata},
                      read_dictionary=sorted({chunk.column for chunk in loose}))
        for narrowed in (_longest_value, _counted):
            for chunk in sorted(loose, key=lambda c: -c.bound):
                if total <= limit:
                    break
                try:
                    bound = min(narrowed(probe, chunk), chunk.bound)
                except (pa.ArrowException, OSError) as exc:  # a damaged dictionary page
                    raise LoadError(name, None, f"cannot read it ({_said(exc)})") from None
                total -= chunk.bound - bound
                chunk.bound = bound
    if total > limit:  # without `limit=`: no other engine reads it, whatever its size
        raise LoadError(name, None, f"decodes to as much as {total / 2**20:,.1f} MB once read "
                        f"(a string value its rows repeat), beyond the "
                        f"{describe_bytes(limit)} limit ({MAX_INPUT_FLAG})")
    return total


def _row_group_bound(handle: pq.ParquetFile, columns: Sequence[str],
                     groups: Sequence[int] | None, at_once: int | None) -> int | None:
    """A first, looser bound from each row group's size alone (no column chunk looked at):
    every string may repeat a value as long as the row group's data, every fixed-width value
    is as wide as the widest. Enough for a file of many small row groups; None for a nested
    column (its values are not its rows)."""
    metadata = handle.metadata
    schema = metadata.schema
    strings = fixed = 0
    for i in range(len(schema)):
        leaf = schema.column(i)
        if any(leaf.path.startswith(c + ".") for c in columns):
            return None
        if leaf.path not in columns:
            continue
        if leaf.physical_type == "BYTE_ARRAY":
            strings += 1
        else:
            fixed += _WIDTHS.get(leaf.physical_type) or leaf.length
    total = 0
    for group in range(metadata.num_row_groups) if groups is None else groups:
        row_group = metadata.row_group(group)
        rows = row_group.num_rows if at_once is None else min(row_group.num_rows, at_once)
        stored = row_group.total_byte_size
        total += strings * (stored + rows * (stored + _OFFSET)) + rows * fixed
    return total


def _chunks(handle: pq.ParquetFile, columns: Sequence[str], groups: Sequence[int] | None,
            at_once: int | None) -> list[_Chunk]:
    """Each column chunk of `columns` in the row groups, bounded from the footer."""
    metadata = handle.metadata
    schema = metadata.schema
    leaves = [(i, schema.column(i)) for i in range(len(schema))
              if any(schema.column(i).path == c or schema.column(i).path.startswith(c + ".")
                     for c in columns)]
    found = []
    for group in range(metadata.num_row_groups) if groups is None else groups:
        row_group = metadata.row_group(group)
        for index, leaf in leaves:
            chunk = row_group.column(index)
            values = max(row_group.num_rows, chunk.num_values)
            rows = values if at_once is None else min(values, at_once)
            # a read of some of the rows holds its share of the plainly written values
            stored = -(-chunk.total_uncompressed_size * rows // max(values, 1))
            kind = chunk.physical_type
            plain = _Chunk(group, leaf.path, rows, at_once is None or rows == values, stored,
                           stored)
            if kind in _WIDTHS or kind == "FIXED_LEN_BYTE_ARRAY":
                width = _WIDTHS.get(kind) or leaf.length
                plain.bound = rows * width
            elif chunk.has_dictionary_page or "DELTA_BYTE_ARRAY" in chunk.encodings:
                # any row may repeat a value as long as the chunk's stored bytes
                plain.bound = stored + rows * (chunk.total_uncompressed_size + _OFFSET)
                plain.loose = chunk.has_dictionary_page and leaf.path in columns
            elif "DELTA_LENGTH_BYTE_ARRAY" in chunk.encodings:  # lengths stored apart
                plain.bound = stored + rows * _OFFSET
            found.append(plain)
    return found


def _longest_value(probe: pq.ParquetFile, chunk: _Chunk) -> int:
    """The chunk's bound from its dictionary page's longest value: the values read from its
    dictionary are at most that long, the others (written plainly) at most its stored bytes."""
    first = next(probe.iter_batches(batch_size=1, row_groups=[chunk.group],
                                    columns=[chunk.column]), None)
    if first is None or not pa.types.is_dictionary(first.column(0).type):
        return chunk.bound
    chunk.probed = True
    longest = pc.max(pc.binary_length(first.column(0).dictionary)).as_py() or 0
    return chunk.stored + chunk.rows * (longest + _OFFSET)


def _counted(probe: pq.ParquetFile, chunk: _Chunk) -> int:
    """The chunk's bytes counted in dictionary form: all of them (read whole), or the most
    one read of `chunk.rows` rows holds."""
    if not chunk.probed:
        return chunk.bound
    most = total = 0
    for batch in probe.iter_batches(batch_size=BATCH_ROWS if chunk.whole else chunk.rows,
                                    row_groups=[chunk.group], columns=[chunk.column]):
        column = batch.column(0)
        lengths = pc.binary_length(column.dictionary).take(column.indices)
        size = (pc.sum(lengths).as_py() or 0) + len(column) * _OFFSET
        most, total = max(most, size), total + size
    return total if chunk.whole else most


# --- values ---------------------------------------------------------------------------------


def _first_null(src, column: pa.Array, lines: np.ndarray, what: str) -> None:
    if column.null_count:
        row = int(np.argmin(numbers(pc.is_valid(column))))
        raise src.fail(int(lines[row]), f"no {what} (a null)")


def ids(src, column: pa.Array, lines: np.ndarray, role: str) -> pa.Array:
    """Query or doc ids as strings (integers written out), refusing nulls, empty ids and
    text that is not UTF-8 (a Parquet file's strings are stored unchecked): the first row
    holding any of them, so that a file read a slice at a time is refused on the same row."""
    column = _decoded(column)
    problem = _type_problem(role, column.type)
    if problem is not None:
        raise src.fail(None, problem)
    found = []  # (row, problem): the first row of each kind of bad id
    if column.null_count:
        found.append((int(np.argmin(numbers(pc.is_valid(column)))), f"no {role} id (a null)"))
    if _family(column.type) == "text" and not _utf8(column):
        row = first_failure(column, _utf8)
        found.append((row, _not_utf8(column, row, role)))
    column = column.cast(pa.string())
    empty = np.flatnonzero(numbers(pc.fill_null(pc.equal(pc.binary_length(column), 0), False)))
    if len(empty):
        found.append((int(empty[0]), f"empty {role} id"))
    if found:
        row, problem = min(found)
        raise src.fail(int(lines[row]), problem)
    return column


def check_ids(src, column: pa.Array, lines: np.ndarray, role: str) -> None:
    """``ids``'s refusals, without writing the ids out when none applies (a dictionary's
    values are checked, not each row's): what a first pass over a query column needs."""
    values = column.dictionary if pa.types.is_dictionary(column.type) else column
    text = _family(values.type) == "text"  # integers are never empty, always UTF-8
    if (column.null_count or _type_problem(role, values.type) is not None
            or (text and not _utf8(values))
            or (text and len(values) and pc.min(pc.binary_length(values)).as_py() == 0)):
        ids(src, column, lines, role)  # refused there, with its row (or a value unused)


def _not_utf8(column: pa.Array, row: int, role: str) -> str:
    """An id that is not UTF-8, named by its first bad byte."""
    raw = column.cast(pa.binary() if pa.types.is_string(column.type)
                      else pa.large_binary())[row].as_py()
    try:
        raw.decode("utf-8")
        at = 0
    except UnicodeDecodeError as error:
        at = error.start
    return (f"{role} id {show(raw[:40])} is not valid UTF-8 "
            f"(byte 0x{raw[at]:02x} at byte {at + 1})")


def _utf8(column: pa.Array) -> bool:
    try:
        column.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _decoded(column: pa.Array) -> pa.Array:
    return column.dictionary_decode() if pa.types.is_dictionary(column.type) else column


def integers(src, column: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Grades or ranks: integers, whole floats or decimals, or integer text (as a CSV cell
    is read), within int64."""
    column = _decoded(column)
    _first_null(src, column, lines, what)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return to_int(src, column.cast(pa.string()), lines, what)
    if pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        try:
            return numbers(column.cast(pa.int64()))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            row = first_failure(column, casts(pa.int64()))
            value = column[row].as_py()  # an int (a uint64's) or a Decimal
            problem = (f"{what} {int(value)} is too large" if value == int(value)
                       else f"{what} must be an integer, got {show(float(value))}")
            raise src.fail(int(lines[row]), problem) from None
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
    raise src.fail(None, _type_problem(what, kind))


def floats(src, column: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Scores: numbers (or number text), never NaN; an integer past 2^53 rounds, as its
    text does."""
    column = _decoded(column)
    _first_null(src, column, lines, what)
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return to_float(src, column.cast(pa.string()), lines, what)
    problem = _type_problem(what, kind)
    if problem is not None:
        raise src.fail(None, problem)
    values = numbers(as_read(column, pa.float64()))
    bad = np.flatnonzero(np.isnan(values))
    if len(bad):
        raise src.fail(int(lines[bad[0]]), f"{what} must be a number, got nan")
    return values


__all__ = ["BATCH_ROWS", "Batch", "Columnar", "Footers", "Layout", "PARQUET_EXTENSIONS",
           "TABLE_NAME", "as_read", "as_table", "batches", "bounded_layout", "check_ids",
           "decoded_bound",
           "floats", "ids", "integers", "is_parquet", "is_table", "layout", "named_roles",
           "read_columnar", "read_row_groups", "source_files", "stream_bound"]
