"""TREC files: columns separated by runs of whitespace, as trec_eval 10.0 reads them.

A line whose first non-blank character is '#' is a comment and skipped ('#' anywhere else
is data: MS MARCO v2.1 segment ids hold one); a run line may carry more than six fields,
of which the first six are read.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import from_numbers, numbers
from metrics.io.detect import Layout
from metrics.io.reader import Table, kept_lines, pick, read_csv, read_lines
from metrics.io.sources import Source
from metrics.vocabulary.format import (
    TREC_COMMENT,
    TREC_SPLIT_CLASS,
    UNSHOWN_CLASS,
    trec_column_problem,
)

# the rule of every TREC column written (format.trec_column_problem) as one of Arrow's regular
# expressions (RE2), so that a column of ids is screened at once; the first column (a query
# id) may not start a comment line either
_UNWRITABLE = f"{TREC_SPLIT_CLASS}|[{UNSHOWN_CLASS}]|^$"
_UNWRITABLE_FIRST = f"{_UNWRITABLE}|^[{''.join(TREC_COMMENT)}]"


def whitespace_table(src: Source, layout: Layout) -> Table:
    # A regular file (one separator character) splits fastest as CSV, its empty lines kept:
    # a blank line then has too few fields and fails the split, so most files (no blank
    # line, no comment, which '#' alone tells) are never scanned for one. Otherwise blank and
    # comment lines are left out first, and the split is tried on what is left; any other
    # file goes through the line splitter, which also names a ragged line.
    data, lines, comments = src.raw, None, 0  # lines: source line of each line of data
    if src.has_comment_lines:
        data, lines, comments = kept_lines(src.raw, comments=True)
    separator = _single_separator(src)
    if separator is not None:
        table = _split(data, layout, separator)
        if table is None and lines is None and src.has_blank_lines:
            data, lines, comments = kept_lines(src.raw, comments=False)
            table = _split(data, layout, separator)
        if table is not None:
            if lines is None:
                lines = np.arange(1, len(table["query"]) + 1, dtype=np.int64)
            return Table(table, lines, comments)
    if lines is None and src.has_blank_lines:
        data, lines, comments = kept_lines(src.raw, comments=False)
    tokens = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(read_lines(data)))
    counts = numbers(pc.list_value_length(tokens))
    if lines is None:
        lines = np.arange(1, len(counts) + 1, dtype=np.int64)
    short = counts < layout.ncols if layout.extra_fields else counts != layout.ncols
    ragged = np.flatnonzero(short)
    if len(ragged):
        raise layout.ragged(src, int(lines[ragged[0]]), int(counts[ragged[0]]))
    # token i of line j is flattened token starts[j] + i (starts[j] = j * ncols, unless
    # some lines are wider)
    flat, starts = tokens.flatten(), np.cumsum(counts, dtype=np.int64) - counts
    columns = {role: flat.take(from_numbers(starts + i)) for role, i in layout.columns.items()}
    wide = int(np.count_nonzero(counts > layout.ncols))
    return Table(columns, lines, comments, wide)


def _split(data, layout: Layout, separator: str) -> dict[str, pa.Array] | None:
    """The columns by role from pyarrow's CSV split, or None where it cannot tell them: a
    line with another count of fields (a blank one among them), or a line of separators
    alone, which splits into empty fields (its query id is empty)."""
    try:
        table = pick(read_csv(data, layout, separator, ignore_empty_lines=False), layout)
    except pa.ArrowInvalid:
        return None
    query = table["query"]
    return None if len(query) and pc.min(pc.binary_length(query)).as_py() == 0 else table


def _single_separator(src: Source) -> str | None:
    # told from the whole file: a blank or comment line may add a separator, never hide one
    separator = "\t" if "\t" in src.first_data_line[1] else " "
    other = b" " if separator == "\t" else b"\t"
    return None if other in src.raw else separator


def unwritable(ids: np.ndarray | pa.Array | pa.ChunkedArray, *, first: bool = False) -> np.ndarray:
    """Which of `ids` one column of a TREC line cannot hold (the line's first when `first`),
    a bool each: Arrow screens the column, and the few it marks are read again by
    `trec_column_problem` itself, so the answer is that rule's whatever Unicode version
    Arrow's character classes follow. A missing id cannot be written."""
    # from a list: Arrow converts a numpy array of Python strings ~20x slower
    column = (ids if isinstance(ids, pa.Array | pa.ChunkedArray)
              else pa.array(np.asarray(ids, dtype=object).tolist(), type=pa.string()))
    column = column.cast(pa.string())
    marked = numbers(pc.fill_null(pc.match_substring_regex(
        column, _UNWRITABLE_FIRST if first else _UNWRITABLE), True)).copy()
    for row in np.flatnonzero(marked).tolist():
        text = column[row].as_py()
        marked[row] = text is None or trec_column_problem(text, first=first) is not None
    return marked
