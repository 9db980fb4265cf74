"""Text columns to numbers: grades and ranks as integers, scores as floats; the first value
that does not convert is named with its line."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import numbers
from metrics.io.errors import show
from metrics.io.sources import Source

INTEGER = r"^[+-]?[0-9]+$"


def first_failure(values: pa.Array, converts: Callable[[pa.Array], bool]) -> int:
    """Index of the first value that fails to convert, by bisection (log n vector calls)."""
    low, high = 0, len(values)  # values[:low] convert; a failure lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if converts(values[low:middle]):
            low = middle
        else:
            high = middle
    return low


def casts(target: pa.DataType) -> Callable[[pa.Array], bool]:
    def converts(values: pa.Array) -> bool:
        try:
            pc.cast(values, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return False
        return True

    return converts


def to_int(src: Source, values: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    """Integers only: '2.0' and '1.5' are refused (trec_eval would truncate silently)."""
    matches = numbers(pc.match_substring_regex(values, INTEGER))
    if not matches.all():
        bad = int(np.argmin(matches))
        got = show(values[bad].as_py())
        raise src.fail(int(lines[bad]), f"{what} must be an integer, got {got}")
    unsigned = pc.utf8_ltrim(values, characters="+")
    try:
        return numbers(pc.cast(unsigned, pa.int64()))
    except pa.ArrowInvalid:
        bad = first_failure(unsigned, casts(pa.int64()))
        raise src.fail(
            int(lines[bad]), f"{what} {show(values[bad].as_py())} is too large"
        ) from None


def to_float(src: Source, values: pa.Array, lines: np.ndarray, what: str) -> np.ndarray:
    try:
        floats = numbers(pc.cast(values, pa.float64()))
        bad = np.flatnonzero(np.isnan(floats))
    except pa.ArrowInvalid:
        bad = [first_failure(values, casts(pa.float64()))]
    if len(bad):
        index = int(bad[0])
        got = show(values[index].as_py())
        raise src.fail(int(lines[index]), f"{what} must be a number, got {got}")
    return floats
