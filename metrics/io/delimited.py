"""CSV/TSV and BEIR files: a header names the columns; cells may be quoted and padded."""

from __future__ import annotations

import csv
import io

import numpy as np
import pyarrow as pa

from metrics.io.detect import Layout
from metrics.io.reader import Table, kept_lines, pick, read_csv
from metrics.io.sources import Source


def delimited_table(src: Source, layout: Layout) -> Table:
    data, source_lines = src.raw, None  # the file line of each line of data, when they differ
    if src.has_blank_lines:
        data, source_lines, _ = kept_lines(src.raw, comments=False)
    if (b"\n" not in data) if source_lines is None else len(source_lines) < 2:
        raise src.fail(None, "no data lines (only a header)")
    try:
        table = read_csv(data, layout, layout.delimiter)
    except pa.ArrowInvalid as exc:
        _refuse_quoted_line_breaks(src, data, source_lines, layout)
        row = _first_invalid_row(data, layout)
        if row is None:
            raise src.fail(None, " ".join(str(exc).split())) from None
        line = row.number if source_lines is None else int(source_lines[row.number - 1])
        raise layout.ragged(src, line, row.actual_columns) from None
    if b'"' in src.raw and table.num_rows != _line_count(src, source_lines) - 1:
        _refuse_quoted_line_breaks(src, data, source_lines, layout)  # a row ran over lines
    if source_lines is None:  # the header is line 1
        return Table(pick(table, layout), np.arange(2, table.num_rows + 2, dtype=np.int64))
    return Table(pick(table, layout), source_lines[1:])


def _first_invalid_row(data: bytes | pa.Buffer, layout: Layout) -> object | None:
    """pyarrow's InvalidRow for the first ragged row (its number counts the header)."""
    found = []

    def stop(row: object) -> str:
        found.append(row)
        return "error"

    try:
        read_csv(data, layout, layout.delimiter, invalid_row_handler=stop)
    except pa.ArrowInvalid:
        pass
    return found[0] if found and found[0].number is not None else None


def _line_count(src: Source, source_lines: np.ndarray | None) -> int:
    if source_lines is not None:
        return len(source_lines)
    return src.raw.count(b"\n") + (not src.raw.endswith(b"\n"))


def _refuse_quoted_line_breaks(
    src: Source, data: bytes | pa.Buffer, source_lines: np.ndarray | None, layout: Layout
) -> None:
    """A quoted cell holding a line break would shift every later line number: refused,
    naming the line where it starts (found with Python's csv module, on the error path)."""
    if b'"' not in src.raw:
        return
    rows = csv.reader(io.StringIO(bytes(data).decode(), newline=""), delimiter=layout.delimiter)
    start = 1
    try:
        for _ in rows:
            if rows.line_num > start:
                break
            start = rows.line_num + 1
        else:
            return
    except csv.Error:  # a quote left open until the end of the file
        pass
    line = start if source_lines is None else int(source_lines[start - 1])
    raise src.fail(line, "a quoted cell runs past the end of the line (line breaks in cells "
                   "are not supported)")
