"""One query's rows of a run or a qrels file, read in bounded memory: what a view needs to
explain one query when the evaluation was opened from its saved figures (the lists are not in
memory, and a 200 MB run is not read whole to show one query).

Parquet (a file, a directory of files, or an upload's bytes): only the row groups whose
statistics (min and max of the query column) can hold the query are read, and only that
query's rows are kept. TREC, CSV/TSV and JSONL text (gzipped too): the file is scanned a line
at a time and only the query's lines are kept (with a CSV header), so memory holds one line
and the query's rows. The rows kept then go through the same loader as a whole file
(`load_run`, `load_qrels`: the same order, repeats and checks); a loader error names the line
of the original file.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers
from metrics.io.detect import detect, layout_of
from metrics.io.errors import LoadError, show
from metrics.io.loaders import load_qrels, load_run, run_name_of
from metrics.io.parquet import Footers, as_read, is_parquet, layout, read_row_groups
from metrics.io.rows import Qrels, Run
from metrics.io.sources import Source, source_name
from metrics.io.streams import MAX_INPUT_BYTES

HEAD_BYTES = 1 << 16  # read to tell the format and the layout (the header) of a text file
MAX_LINE_BYTES = 1 << 20  # a longer line is refused (a line is held whole while scanned)


def load_query_run(source: str | os.PathLike | bytes, query_id: str, *,
                   file_name: str | None = None, order: str = "score",
                   score_precision: str = "double", run_name: str | None = None,
                   max_bytes: int = MAX_INPUT_BYTES) -> Run | None:
    """One query's list of a run file (a path or an upload's bytes), ordered as `load_run`
    orders a whole file; None when the run has no row for the query. `max_bytes` bounds the
    query's rows kept."""
    kept = _query_rows(source, query_id, "run", file_name, max_bytes)
    if kept is None:
        return None
    piece, name, lines = kept
    run_name = run_name or run_name_of(name)
    with _lines_of(name, lines):
        return load_run(piece, file_name=_plain(name, lines), order=order,
                        score_precision=score_precision, run_name=run_name)[0]


def load_query_qrels(source: str | os.PathLike | bytes, query_id: str, *,
                     file_name: str | None = None,
                     max_bytes: int = MAX_INPUT_BYTES) -> Qrels | None:
    """One query's judgments of a qrels file; None when the file judges nothing for it."""
    kept = _query_rows(source, query_id, "qrels", file_name, max_bytes)
    if kept is None:
        return None
    piece, name, lines = kept
    with _lines_of(name, lines):
        return load_qrels(piece, file_name=_plain(name, lines))[0]


def _query_rows(source, query_id: str, kind: str, file_name: str | None, max_bytes: int):
    """(the rows kept: an Arrow table or text bytes, the file's name, where each kept row was
    in the original: its line, or for Parquet its file and row), or None when nothing is
    kept."""
    name = source_name(source, file_name)
    if is_parquet(source, file_name):
        table, rows = _parquet_rows(source, name, query_id, kind, max_bytes)
        if table.nbytes > max_bytes:
            raise LoadError(name, None, f"query {show(query_id)} holds more than "
                            f"{max_bytes >> 20:,} MB of rows")
        return None if table.num_rows == 0 else (table, name, rows)
    text, lines = _text_rows(source, name, query_id, kind, max_bytes)
    return None if not lines else (text, name, lines)


# --- Parquet: row groups told by their statistics ------------------------------------------

# each role's column as the kept rows name it: the names a CSV header gives
_HEADER = {"query": "query_id", "doc": "doc_id", "grade": "grade", "rank": "rank",
           "score": "score"}


def _parquet_rows(source, name: str, query_id: str, kind: str,
                  max_bytes: int) -> tuple[pa.Table, list[tuple[str, int]]]:
    """The query's rows of every file (each role's column read as the whole read reads it,
    metrics.io.parquet.layout; what is read bounded by `max_bytes` as it decodes), and each
    one's file and row there."""
    footers: Footers = {}  # each footer parsed once, for the check and the read
    checked = layout(source, name, kind, footers)
    wanted = [_typed_id(query_id, typed["query"]) for typed in checked.stored]

    def groups(index: int, handle) -> list[int]:
        """The row groups whose statistics may hold the query."""
        if wanted[index] is None:  # an integer column cannot hold this id
            return []
        at = handle.schema_arrow.get_field_index(checked.roles[index]["query"])
        metadata = handle.metadata
        return [g for g in range(metadata.num_row_groups)
                if _may_hold(metadata.row_group(g).column(at), wanted[index])]

    pieces, places = [], []
    for index, handle, read, table in read_row_groups(source, name, checked, groups, max_bytes,
                                                       footers):
        roles, casts = checked.roles[index], checked.casts(index)
        column, typed = roles["query"], checked.stored[index]["query"]
        metadata = handle.metadata
        starts = np.cumsum([0] + [metadata.row_group(g).num_rows
                                  for g in range(metadata.num_row_groups)])
        rows = np.concatenate([np.arange(metadata.row_group(g).num_rows) + starts[g]
                               for g in read]) + 1
        keep = pc.equal(table[column], pa.scalar(wanted[index], typed)).fill_null(False)
        places += [(checked.files[index], int(row)) for row in rows[numbers(keep)]]
        table = table.filter(keep)
        pieces.append(pa.table({_HEADER[role]: as_read(table[role_column], casts.get(role))
                                for role, role_column in roles.items()}))
    if not pieces:
        return pa.table({"query_id": pa.array([], pa.string())}), []
    return pa.concat_tables(pieces), places


def _typed_id(query_id: str, typed: pa.DataType):
    if pa.types.is_integer(typed):
        try:
            return int(query_id)
        except ValueError:
            return None
    return query_id


def _may_hold(chunk, wanted) -> bool:
    """Whether a row group's column chunk may hold the value (no statistics: it may)."""
    stats = chunk.statistics
    if stats is None or not stats.has_min_max:
        return True
    low, high = stats.min, stats.max
    if isinstance(low, bytes):
        low, high = low.decode("utf-8", "replace"), high.decode("utf-8", "replace")
    try:
        return low <= wanted <= high
    except TypeError:
        return True


# --- text: a streamed scan ------------------------------------------------------------------


def _text_rows(source, name: str, query_id: str, kind: str,
               max_bytes: int) -> tuple[bytes, list[int]]:
    """The query's lines (and a CSV/TSV header) as one text, and each one's line number."""
    with _opened(source) as handle:
        head = handle.read(HEAD_BYTES)
        handle.seek(0)
        fmt, matches = _matcher(_head_source(head, name), kind, query_id)
        kept, lines, size = [], [], 0
        for number, line in _numbered(handle, name):
            if number <= matches.header_line or matches(line):
                kept.append(line)
                lines.append(number)
                size += len(line)
                if size > max_bytes:
                    raise LoadError(name, number, f"query {show(query_id)} holds more than "
                                    f"{max_bytes >> 20:,} MB of lines")
    if len(lines) <= matches.header_line:  # the header alone: no line of this query
        return b"", []
    return b"".join(kept), lines


class _Matcher:
    """Tells a line of the query from the others, as the format's layout places the id."""

    def __init__(self, query_id: str, fmt: str, delimiter: str | None, column: int,
                 header_line: int) -> None:
        self.query_id, self.fmt, self.delimiter, self.column = query_id, fmt, delimiter, column
        self.header_line = header_line
        self.needle = query_id.encode()

    def __call__(self, line: bytes) -> bool:
        if self.needle not in line:  # most lines: no decoding, no split
            return False
        text = line.decode("utf-8", "replace").strip()
        if self.fmt == "jsonl":
            try:
                record = json.loads(text)
            except ValueError:
                return True  # the loader names the bad line
            return isinstance(record, dict) and str(record.get("query_id")) == self.query_id
        fields = text.split(self.delimiter) if self.delimiter else text.split()
        if len(fields) <= self.column:
            return False
        return fields[self.column].strip().strip('"') == self.query_id


def _matcher(head: Source, kind: str, query_id: str) -> tuple[str, _Matcher]:
    fmt = detect(head, kind, "auto")
    if fmt == "jsonl":
        return fmt, _Matcher(query_id, fmt, None, 0, 0)
    layout = layout_of(head, kind, fmt)
    return fmt, _Matcher(query_id, fmt, layout.delimiter, layout.columns["query"],
                         layout.header_line)


def _head_source(head: bytes, name: str) -> Source:
    cut = head if len(head) < HEAD_BYTES else head[: head.rfind(b"\n") + 1] or head
    text = cut.decode("utf-8", "replace").replace("\r", "")
    if text.startswith("\ufeff"):
        text = text[1:]
    return Source(name, text.encode())


@contextmanager
def _opened(source) -> Iterator:
    """The source as a binary stream, gunzipped when it is gzip."""
    raw = (io.BytesIO(bytes(source)) if isinstance(source, bytes | bytearray | memoryview)
           else open(os.fspath(source), "rb"))  # noqa: SIM115 (closed below)
    with raw:
        magic = raw.read(2)
        raw.seek(0)
        if magic != b"\x1f\x8b":
            yield raw
            return
        with gzip.GzipFile(fileobj=raw) as handle:
            yield handle


def _numbered(handle, name: str) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), 1):
        if len(line) > MAX_LINE_BYTES:
            raise LoadError(name, number, f"a line of more than {MAX_LINE_BYTES >> 20} MB")
        yield number, line if line.endswith(b"\n") else line + b"\n"


@contextmanager
def _lines_of(name: str, lines: list[int] | list[tuple[str, int]] | None) -> Iterator[None]:
    """A loader error on the rows kept names the line of the original file (for Parquet, the
    file of a directory and its row there)."""
    try:
        yield
    except LoadError as error:
        if lines is None:
            raise
        place = (lines[error.line - 1] if error.line is not None
                 and 1 <= error.line <= len(lines) else None)
        if isinstance(place, tuple):
            raise LoadError(*place, error.problem, "row", belongs=error.belongs) from None
        raise LoadError(name, place, error.problem, belongs=error.belongs) from None


def _plain(name: str, lines: list[int] | None) -> str:
    """The name the kept text is loaded under: a gzipped file's lines are kept unzipped."""
    return name[:-3] if lines is not None and name.endswith(".gz") else name


__all__ = ["load_query_qrels", "load_query_run"]
