"""Ids as integer codes, and the rows that repeat a (query, doc) pair seen earlier."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import from_numbers, numbers


def encode(values: np.ndarray | pa.Array | list) -> tuple[np.ndarray, pa.Array]:
    """Integer codes in first-appearance order and the arrow array of distinct strings."""
    values = values if isinstance(values, pa.Array) else pa.array(values, pa.string())
    encoded = pc.dictionary_encode(values.cast(pa.string()))
    return numbers(encoded.indices).astype(np.int64), encoded.dictionary


def encode_blocks(values: np.ndarray | pa.Array | list) -> tuple[np.ndarray, pa.Array]:
    """encode for a column whose equal values stand together in blocks (a query column):
    only the first value of each block is hashed, which saves a pass over a million ids."""
    values = values if isinstance(values, pa.Array) else pa.array(values, pa.string())
    if len(values) < 2:
        return encode(values)
    values = values.cast(pa.string())
    changed = numbers(pc.not_equal(values[1:], values[:-1]))
    starts = np.flatnonzero(np.r_[True, changed])
    block_codes, names = encode(values.take(from_numbers(starts)))
    return np.repeat(block_codes, np.diff(np.r_[starts, len(values)])), names


def repeated_pairs(query: np.ndarray, doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose (query, doc) codes occurred earlier, and the row of that first occurrence."""
    empty = np.zeros(0, dtype=np.int64)
    if not len(doc):
        return empty, empty
    # only an id listed more than once anywhere can repeat: sort those rows alone
    candidates = np.flatnonzero(np.bincount(doc)[doc] > 1)
    if not len(candidates):
        return empty, empty
    keys = query[candidates] * (int(doc.max()) + 1) + doc[candidates]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    repeats = first[inverse] != np.arange(len(keys))
    return candidates[repeats], candidates[first[inverse[repeats]]]


def repeated_ids(query: np.ndarray, doc_ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """repeated_pairs for a run's doc id strings: one stable arrow sort by (query, id) puts
    equal pairs side by side, cheaper than hashing a million ids into codes."""
    empty = np.zeros(0, dtype=np.int64)
    if len(doc_ids) < 2:
        return empty, empty
    table = pa.table({"query": from_numbers(query), "doc": doc_ids})
    order = numbers(pc.sort_indices(table, sort_keys=[("query", "ascending"),
                                                      ("doc", "ascending")])).astype(np.int64)
    docs = doc_ids.take(from_numbers(order))
    queries = query[order]
    same = numbers(pc.equal(docs[1:], docs[:-1])) & (queries[1:] == queries[:-1])
    later = np.flatnonzero(same) + 1  # sorted positions holding a repeat
    if not len(later):
        return empty, empty
    start = np.r_[True, ~same]  # each run of equal pairs starts at its first occurrence
    first = order[np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))]
    rows = order[later]
    by_row = np.argsort(rows)
    return rows[by_row], first[later][by_row]
