"""Tabular files (TREC, CSV/TSV, BEIR) to string columns by role, checked for empty ids."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers
from metrics.io.delimited import delimited_table
from metrics.io.detect import Layout
from metrics.io.reader import MAX_LINE_BYTES, LineTooLong, Table, line_lengths
from metrics.io.sources import Source
from metrics.io.streams import describe_bytes
from metrics.io.trec import whitespace_table


def read_table(src: Source, layout: Layout) -> Table:
    """Columns by role (strings) and the source line of each row."""
    try:
        if layout.delimiter is None:
            table = whitespace_table(src, layout)
        else:
            table = delimited_table(src, layout)
    except LineTooLong:
        check_line_lengths(src)
        raise  # not reached: the reader found a line the lengths do not show
    return replace(table, columns=_clean_columns(src, layout, table.columns, table.lines))


def check_line_lengths(src: Source) -> None:
    """The one-line refusal of a source holding a line over MAX_LINE_BYTES, naming it."""
    if len(src.raw) <= MAX_LINE_BYTES:
        return
    lengths = line_lengths(src.raw)
    if lengths.max() <= MAX_LINE_BYTES:
        return
    line = int(np.argmax(lengths > MAX_LINE_BYTES))
    raise src.fail(
        line + 1,
        f"line of {lengths[line]:,} bytes, over the {describe_bytes(MAX_LINE_BYTES)} "
        "limit for one line",
    ) from None


def _clean_columns(
    src: Source, layout: Layout, columns: dict[str, pa.Array], lines: np.ndarray
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
