"""pyarrow's CSV reader, set up to split a file into lines or into columns: no Python loop
over the lines. What the table readers return: columns by role and each row's source line."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.arrow import from_numbers, numbers
from metrics.io.detect import Layout
from metrics.io.sources import COMMENT


@dataclass(frozen=True, eq=False)
class Table:
    """Columns by role (strings) and the 1-based source line of each row."""

    columns: dict[str, pa.Array]
    lines: np.ndarray
    comments: int = 0  # comment lines skipped
    wide_lines: int = 0  # lines whose fields beyond the layout's were ignored


def read_lines(data: bytes | pa.Buffer) -> pa.Array:
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


def kept_lines(raw: bytes, *, comments: bool) -> tuple[pa.Buffer, np.ndarray, int]:
    """The file without its blank lines (and, given `comments`, without its comment lines):
    the data that is left, the source line of each of its lines, and how many comment lines
    were left out. The fast CSV split can then read what is left."""
    lines = read_lines(raw)
    trimmed = pc.ascii_trim_whitespace(lines)
    keep = pc.cast(pc.binary_length(trimmed), pa.bool_())  # not blank
    skipped = 0
    if comments:
        comment = pc.starts_with(trimmed, pattern=COMMENT)
        skipped = int(numbers(comment).sum())
        keep = pc.and_(keep, pc.invert(comment))
    kept = lines.filter(keep)
    one_list = pa.ListArray.from_arrays(from_numbers(np.array([0, len(kept)], np.int32)), kept)
    # the separator as a one-string array: a Python "\n" would make pyarrow import pandas
    newline = pa.StringArray.from_buffers(
        1, pa.py_buffer(np.array([0, 1], np.int32)), pa.py_buffer(b"\n")
    )
    data = pc.binary_join(one_list, newline)[0].as_buffer()
    return data, np.flatnonzero(numbers(keep)).astype(np.int64) + 1, skipped


def read_csv(data: bytes | pa.Buffer, layout: Layout, delimiter: str, **parse) -> pa.Table:
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


def pick(table: pa.Table, layout: Layout) -> dict[str, pa.Array]:
    return {role: table.column(f"c{i}").combine_chunks() for role, i in layout.columns.items()}
