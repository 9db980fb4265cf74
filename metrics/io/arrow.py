"""pyarrow <-> numpy through buffers, so that the command line never imports pandas.

pyarrow imports pandas, when it is installed, the first time it converts an array to or from
numpy or builds a scalar from a Python value: about 0.3 s, a sixth of a whole command-line
run on a million-line run file. These helpers cover what the loaders and the alignment
convert (flat integer, float and boolean arrays; distinct string tables) without that import.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _raw(array: pa.Array) -> np.ndarray:
    """The values buffer as numpy, null slots included (their values are arbitrary)."""
    dtype = np.dtype(array.type.to_pandas_dtype())
    values = np.frombuffer(array.buffers()[1], dtype=dtype, count=array.offset + len(array))
    return values[array.offset :]


def numbers(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A null-free integer, float or boolean arrow array as numpy (read-only where zero-copy)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        raise ValueError(f"numbers() takes arrays without nulls, got {array.null_count}")
    if pa.types.is_boolean(array.type):  # booleans are bit-packed in arrow
        return _raw(pc.cast(array, pa.uint8())).view(bool)
    return _raw(array)


def positions(found: pa.Array) -> np.ndarray:
    """int64 positions from an arrow index array whose nulls mean "absent": -1 there."""
    values = _raw(found).astype(np.int64)
    if found.null_count:
        values[~numbers(pc.is_valid(found))] = -1
    return values


def from_numbers(values: np.ndarray) -> pa.Array:
    """A numeric numpy array as an arrow array, sharing its memory."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)]
    )


def strings(names: pa.Array) -> np.ndarray:
    """An arrow string array as a numpy object array of str."""
    return np.array(names.to_pylist(), dtype=object)


def index_in(values: Sequence[str] | pa.Array, table: Sequence[str] | pa.Array) -> np.ndarray:
    """Position of each value in table (distinct strings), -1 where absent.

    Two arrow arrays are matched in one arrow hash pass (the million-id case); anything
    else (query ids, small lists) through a dict, which needs no conversion to arrow.
    """
    if isinstance(values, pa.Array) and isinstance(table, pa.Array):
        return positions(pc.index_in(values, value_set=table.cast(values.type)))
    if isinstance(table, pa.Array):
        table = table.to_pylist()
    if isinstance(values, pa.Array):
        values = values.to_pylist()
    position = {name: i for i, name in enumerate(table)}
    return np.fromiter((position.get(v, -1) for v in values), dtype=np.int64, count=len(values))
