"""Every per-query figure as one long table (query, run, figure, K, value): what
``--per-query-out FILE.parquet`` writes, from either driver, for tools downstream."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import BinaryIO

import numpy as np
import pyarrow as pa

from metrics.io.writing import replacing
from metrics.vocabulary.columns import PER_QUERY_COLUMNS
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.names import Spec
from metrics.vocabulary.saved import METADATA_KEY

_TYPES = {"query_id": pa.string(), "run": pa.string(), "measure": pa.string(),
          "k": pa.int32(), "value": pa.float64()}
# the long table's columns, in the vocabulary's order (their meanings: PER_QUERY_COLUMNS)
SCHEMA = pa.schema([(name, _TYPES[name]) for name in PER_QUERY_COLUMNS])


def long_table(query_ids: Sequence[str], run: str, specs: Sequence[Spec],
               values: dict[str, np.ndarray], k: int, conventions: Conventions) -> pa.Table:
    """One run's figures: a row per (query, figure), figures in the order of `specs`; K is
    the cutoff the figure was read at (its own when its name fixes one), null for a figure
    of the whole list (RR and AP too while the conventions read them so)."""
    n = len(query_ids)
    ids = pa.array(list(query_ids), pa.string())
    pieces = []
    for spec in specs:
        at = None if spec.reads_whole(conventions) else spec.k(k)
        pieces.append(pa.table([
            ids, pa.array(np.full(n, run, dtype=object), pa.string()),
            pa.array(np.full(n, spec.name(summary=False), dtype=object), pa.string()),
            pa.nulls(n, pa.int32()) if at is None else pa.array(np.full(n, at, np.int32)),
            pa.array(np.asarray(values[spec.key], dtype=float)),
        ], schema=SCHEMA))
    return pa.concat_tables(pieces) if pieces else SCHEMA.empty_table()


def write_long(path: str | os.PathLike | BinaryIO, tables: Iterable[pa.Table],
               about: Mapping | None = None) -> None:
    """The tables, one after the other, as one Parquet file (run and figure names
    dictionary-encoded); a table is written as it comes, so memory holds one. `about`
    (`metrics.core.saved.about`: K, conventions, counts, the sweep) goes in the schema's
    metadata as JSON, so that the file says what its figures were computed under. What a
    path held is replaced only once the file is all written (`metrics.io.writing`); a file
    object open for writing (an upload's buffer) is written as it is."""
    schema = SCHEMA if about is None else SCHEMA.with_metadata(
        {METADATA_KEY: json.dumps(about, allow_nan=False).encode()})
    import pyarrow.parquet as pq  # on use: see metrics.io.parquet._open

    def write(where: str | os.PathLike | BinaryIO) -> None:
        with pq.ParquetWriter(where, schema, use_dictionary=["run", "measure"]) as writer:
            for table in tables:
                writer.write_table(table.replace_schema_metadata(schema.metadata))

    if not isinstance(path, str | os.PathLike):
        write(path)
        return
    with replacing(path) as temporary:
        write(temporary)


__all__ = ["SCHEMA", "long_table", "write_long"]
