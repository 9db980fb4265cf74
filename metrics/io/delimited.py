"""CSV/TSV and BEIR files: a header names the columns; cells may be quoted and padded."""

from __future__ import annotations

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
        row = _first_invalid_row(data, layout)
        if row is None:
            raise src.fail(None, " ".join(str(exc).split())) from None
        line = row.number if source_lines is None else int(source_lines[row.number - 1])
        raise layout.ragged(src, line, row.actual_columns) from None
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
