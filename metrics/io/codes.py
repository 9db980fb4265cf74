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
    """repeated_pairs for a run's doc id strings. Only rows whose (query, id) fingerprint
    another row shares can repeat: those alone are sorted by (query, id), which for a run
    without repeats is a few rows instead of a million strings (85 ms at 10,000 x 100)."""
    empty = np.zeros(0, dtype=np.int64)
    if len(doc_ids) < 2:
        return empty, empty
    if doc_ids.null_count or not pa.types.is_string(doc_ids.type):
        return _sorted_repeats(query, doc_ids)
    prints = _fingerprints(query, doc_ids)
    ordered = np.sort(prints)
    shared = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(shared):
        return empty, empty
    candidates = np.flatnonzero(np.isin(prints, shared))
    rows, first = _sorted_repeats(query[candidates], doc_ids.take(from_numbers(candidates)))
    return candidates[rows], candidates[first]


_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                 0xD6E8FEB86659FD93], dtype=np.uint64)
# the low n bytes of a little-endian word, n = 0..7
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(8)], dtype=np.uint64)


def _fingerprints(query: np.ndarray, doc_ids: pa.Array) -> np.ndarray:
    """Per row a 64-bit mix of its query code and its id's length, first 8 and last 8 bytes:
    equal (query, id) pairs always get equal fingerprints, wherever the bytes lie."""
    offsets = np.frombuffer(doc_ids.buffers()[1], np.int32,
                            count=doc_ids.offset + len(doc_ids) + 1)[doc_ids.offset:]
    data = doc_ids.buffers()[2]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    padded = np.zeros(len(data) + 16, np.uint8)  # 8 bytes each side: every 8-byte read fits
    padded[8 : 8 + len(data)] = data
    # the 8 bytes starting at every byte, as little-endian words (unaligned reads)
    words = np.ndarray((len(padded) - 7,), "<u8", padded, 0, (1,))
    start, end = offsets[:-1].astype(np.int64) + 8, offsets[1:].astype(np.int64) + 8
    length = end - start
    head, tail = words[start], words[end - 8]
    short = np.flatnonzero(length < 8)  # its word's high bytes belong to the next ids
    head[short] &= _LOW_BYTES[length[short]]
    tail[length <= 8] = 0  # the head holds it all
    with np.errstate(over="ignore"):  # the products wrap around, as a hash's should
        head *= _MIX[0]
        tail *= _MIX[1]
        head ^= tail
        head ^= length.astype(np.uint64) * _MIX[2]
        head ^= query.astype(np.uint64) * _MIX[3]
    return head


def _sorted_repeats(query: np.ndarray, doc_ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """repeated_pairs by one stable arrow sort by (query, id), which puts equal pairs side
    by side."""
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
