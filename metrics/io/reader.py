"""pyarrow's CSV reader, set up to split a file into lines or into columns: no Python loop
over the lines. What the table readers return: columns by role and each row's source line."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from metrics.io.arrow import from_numbers, numbers
from metrics.io.detect import Layout
from metrics.io.sources import COMMENT

MAX_LINE_BYTES = 16 << 20  # the longest line a TREC or CSV/TSV file may hold
_BLOCK = 1 << 20  # pyarrow's block size (its default); a longer line is read again


class LineTooLong(Exception):
    """A line longer than MAX_LINE_BYTES; `read_table` names the file and the line."""


@dataclass(frozen=True, eq=False)
class Table:
    """Columns by role (strings) and the 1-based source line of each row."""

    columns: dict[str, pa.Array]
    lines: np.ndarray
    comments: int = 0  # comment lines skipped
    wide_lines: int = 0  # lines whose fields beyond the layout's were ignored


def read_lines(data: bytes | pa.Buffer) -> pa.Array:
    """One string per physical line (empty lines kept, so row i is line i + 1)."""
    table = _read(
        data,
        {"column_names": ["line"]},
        # \x01 never occurs (refused as binary), so each line is one field
        pacsv.ParseOptions(delimiter="\x01", quote_char=False, ignore_empty_lines=False),
        pacsv.ConvertOptions(column_types={"line": pa.string()}),
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
    return _read(
        data,
        {
            "column_names": names, "skip_rows": 1 if layout.header_line else 0,
            "use_threads": "invalid_row_handler" not in parse,  # row numbers need one thread
        },
        pacsv.ParseOptions(
            delimiter=delimiter, quote_char='"' if layout.delimiter else False, **parse
        ),
        pacsv.ConvertOptions(
            column_types=dict.fromkeys(wanted, pa.string()), include_columns=wanted
        ),
    )


def _read(
    data: bytes | pa.Buffer, read: dict, parse: pacsv.ParseOptions,
    convert: pacsv.ConvertOptions,
) -> pa.Table:
    """pyarrow's read_csv. A line longer than its block fails there ("straddling object");
    it is read again in blocks that hold the longest line, up to MAX_LINE_BYTES."""
    block = _BLOCK
    while True:
        try:
            return pacsv.read_csv(
                pa.BufferReader(data), read_options=pacsv.ReadOptions(block_size=block, **read),
                parse_options=parse, convert_options=convert,
            )
        except pa.ArrowInvalid as exc:
            if "straddl" not in str(exc) or block > _BLOCK:
                raise
        longest = int(line_lengths(data).max())
        if longest > MAX_LINE_BYTES:
            raise LineTooLong(longest) from None
        block = 1 << (longest + 1).bit_length()  # a line fits a block, whatever its offset


def line_lengths(data: bytes | pa.Buffer) -> np.ndarray:
    """The length in bytes of each line, its newline left out."""
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == ord("\n"))
    ends = np.r_[ends, len(data)] if not len(ends) or ends[-1] != len(data) - 1 else ends
    return np.diff(np.r_[-1, ends]) - 1


def pick(table: pa.Table, layout: Layout) -> dict[str, pa.Array]:
    return {role: table.column(f"c{i}").combine_chunks() for role, i in layout.columns.items()}
