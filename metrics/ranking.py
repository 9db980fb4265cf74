"""Frozen query set + run -> aligned dense arrays: one row per query, one column per rank.

Ids arrive integer-coded from the loaders and each distinct id is matched once, in arrow,
so that a run of a million lines aligns in a fraction of a second. Rows follow the qrels'
query order; columns are padded to `width`, which is at least the longest list, so every K
up to `width` is one slice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from metrics.arrow import index_in
from metrics.io import Qrels, Run


@dataclass(frozen=True, eq=False)
class QuerySet:
    """The qrels side, prepared once per (qrels, relevance level) and shared by every run."""

    query_ids: np.ndarray  # object array of str, qrels order
    n_relevant: np.ndarray  # (n_queries,) ids with grade >= relevance level
    ideal: np.ndarray  # (n_queries, max positive judgments) positive grades, descending, 0-padded
    relevance_level: int
    _doc_names: pa.Array  # the qrels' distinct doc ids; judgment keys code docs into it
    _sorted_keys: np.ndarray  # query * n_docs + doc code of every judgment, sorted
    _sorted_grades: np.ndarray

    @property
    def scored(self) -> np.ndarray:
        """Queries with at least one relevant id; the rest are excluded from every average."""
        return self.n_relevant > 0

    @property
    def excluded_ids(self) -> list[str]:
        return [str(q) for q in self.query_ids[~self.scored]]


@dataclass(frozen=True, eq=False)
class AlignedRun:
    """One run on the query set's rows. Padding slots are 0/False everywhere."""

    name: str
    grade: np.ndarray  # (n, width) int64: grade at an id's first occurrence, else 0
    relevant: np.ndarray  # (n, width) bool: first occurrence and grade >= relevance level
    judged: np.ndarray  # (n, width) bool: first occurrence of an id that carries a label
    repeat: np.ndarray  # (n, width) bool: the id already appeared higher in the list
    returned: np.ndarray  # (n, width) bool: the slot holds an id
    row: np.ndarray  # (n, width) int64: index of the slot's row in the Run, -1 for padding
    answered: np.ndarray  # (n,) bool: the run has a list for the query
    ignored_lines: np.ndarray  # run lines whose query is not in the qrels
    ignored_queries: tuple[str, ...]

    @property
    def width(self) -> int:
        return self.grade.shape[1]

    @property
    def list_length(self) -> np.ndarray:
        return self.returned.sum(axis=1)

    @property
    def repeats(self) -> np.ndarray:
        return self.repeat.sum(axis=1)


def prepare_query_set(qrels: Qrels, *, relevance_level: int = 1) -> QuerySet:
    query_codes = qrels.query_code
    if (query_codes < 0).any():
        raise ValueError(f"{qrels.source}: judgment rows name a query outside query_ids")
    keys = query_codes * max(len(qrels.doc_names), 1) + qrels.doc_code
    order = np.argsort(keys, kind="stable")
    grades = qrels.grade.astype(np.int64)
    n_queries = len(qrels.query_ids)
    n_relevant = np.bincount(
        query_codes[grades >= relevance_level], minlength=n_queries
    ).astype(np.int64)
    return QuerySet(
        query_ids=np.asarray(qrels.query_ids, dtype=object),
        n_relevant=n_relevant,
        ideal=_ideal_grades(query_codes, grades, n_queries),
        relevance_level=relevance_level,
        _doc_names=qrels.doc_names,
        _sorted_keys=keys[order],
        _sorted_grades=grades[order],
    )


def _ideal_grades(query_codes: np.ndarray, grades: np.ndarray, n_queries: int) -> np.ndarray:
    """Every positive grade of each query, best first: the list IDCG is the DCG of."""
    positive = grades > 0
    q, g = query_codes[positive], grades[positive]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    counts = np.bincount(q, minlength=n_queries)
    ideal = np.zeros((n_queries, max(int(counts.max(initial=0)), 1)), dtype=np.int64)
    ideal[q, _positions(q, counts)] = g
    return ideal


def _positions(group: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """0-based position of each element inside its group, for rows sorted by group."""
    starts = np.cumsum(counts) - counts
    return np.arange(len(group)) - starts[group]


def align(query_set: QuerySet, run: Run, *, width: int = 1) -> AlignedRun:
    """Place the run's lists on the query set's rows; run queries absent from the qrels are
    ignored and reported by line."""
    query_of = index_in(run.query_ids, query_set.query_ids)
    query_codes = query_of[run.query_code]
    known = query_codes >= 0
    ignored_queries = tuple(str(q) for q in run.query_ids[query_of < 0])
    rows = np.flatnonzero(known)
    q = query_codes[rows]
    counts = np.bincount(q, minlength=len(query_set.query_ids))
    # run rows are grouped by query in rank order, so a stable sort keeps the ranks
    order = np.argsort(q, kind="stable")
    rows, q = rows[order], q[order]
    rank = _positions(q, counts)
    width = max(int(width), int(counts.max(initial=0)), 1)
    first = ~run.repeat[rows]

    doc_codes = index_in(run.doc_names, query_set._doc_names)[run.doc_code[rows]]
    keys = q.astype(np.int64) * max(len(query_set._doc_names), 1) + doc_codes
    labelled = (doc_codes >= 0) & first
    grade = np.zeros(len(rows), dtype=np.int64)
    if len(query_set._sorted_keys):
        found = np.searchsorted(query_set._sorted_keys, keys)
        found = np.minimum(found, len(query_set._sorted_keys) - 1)
        labelled &= query_set._sorted_keys[found] == keys
        grade = np.where(labelled, query_set._sorted_grades[found], 0)
    else:
        labelled[:] = False

    shape = (len(query_set.query_ids), width)
    dense = {name: np.zeros(shape, dtype=bool) for name in ("judged", "repeat", "returned")}
    grade_dense = np.zeros(shape, dtype=np.int64)
    row_dense = np.full(shape, -1, dtype=np.int64)
    grade_dense[q, rank] = grade
    dense["judged"][q, rank] = labelled
    dense["repeat"][q, rank] = ~first
    dense["returned"][q, rank] = True
    row_dense[q, rank] = rows
    return AlignedRun(
        name=run.name,
        grade=grade_dense,
        relevant=dense["judged"] & (grade_dense >= query_set.relevance_level),
        judged=dense["judged"],
        repeat=dense["repeat"],
        returned=dense["returned"],
        row=row_dense,
        answered=counts > 0,
        ignored_lines=run.line[~known],
        ignored_queries=ignored_queries,
    )
