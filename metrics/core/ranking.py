"""Frozen query set + run -> aligned dense arrays: one row per query, one column per rank.

Query ids arrive integer-coded from the loaders. A run's doc ids are matched to the labelled
ids in one arrow hash pass, or not at all when the run was loaded against these labels
(`load_run(labels=)`), so that a run of a million lines aligns in a fraction of a second.
Rows follow the qrels' query order; columns are padded to `width`, which is at least the
longest list, so every K up to `width` is one slice (and every K past it is closed form, see
metrics.measures).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from metrics.core.kernel import LabelRows
from metrics.io import Qrels, Run
from metrics.io.arrow import index_in


@dataclass(frozen=True, eq=False)
class Judgments:
    """Grades by (query code, doc code). An id judged for one query only, the usual case,
    is found with one gather; the ids judged for several queries by a binary search over
    their sorted (query, doc) keys."""

    n_docs: int
    only_query: np.ndarray  # per doc: the one query it is judged for, -1 when several
    only_grade: np.ndarray  # per doc: its grade there
    shared_keys: np.ndarray  # query * n_docs + doc of the other judgments, sorted
    shared_grades: np.ndarray

    @classmethod
    def of(cls, qrels: Qrels) -> Judgments:
        n_docs = max(len(qrels.doc_names), 1)
        doc, query, grade = qrels.doc_code, qrels.query_code, qrels.grade.astype(np.int64)
        alone = np.bincount(doc, minlength=n_docs)[doc] == 1
        only_query = np.full(n_docs, -1, dtype=np.int64)
        only_query[doc[alone]] = query[alone]
        only_grade = np.zeros(n_docs, dtype=np.int64)
        only_grade[doc[alone]] = grade[alone]
        keys = query[~alone] * n_docs + doc[~alone]
        order = np.argsort(keys, kind="stable")
        return cls(n_docs, only_query, only_grade, keys[order], grade[~alone][order])

    def lookup(self, query: np.ndarray, doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(judged, grade) for each pair of codes; every doc code must index a judged id."""
        owner = self.only_query[doc]
        judged = owner == query
        grade = self.only_grade[doc]
        shared = np.flatnonzero(owner < 0)
        if len(shared):
            keys = query[shared] * self.n_docs + doc[shared]
            at = np.minimum(np.searchsorted(self.shared_keys, keys), len(self.shared_keys) - 1)
            judged[shared] = self.shared_keys[at] == keys
            grade[shared] = self.shared_grades[at]
        return judged, np.where(judged, grade, 0)


@dataclass(frozen=True, eq=False)
class QuerySet:
    """The qrels side, prepared once per (qrels, relevance level) and shared by every run."""

    query_ids: np.ndarray  # object array of str, qrels order
    n_relevant: np.ndarray  # (n_queries,) ids with grade >= relevance level
    ideal: np.ndarray  # (n_queries, max positive judgments) positive grades, descending, 0-padded
    # (n_queries,) ids judged non-relevant: a grade from 0 up to the level (Bpref's N)
    n_nonrelevant: np.ndarray
    # (n_queries,) the highest grade of the whole qrels, on every row (ERR's scale), at least 1
    max_grade: np.ndarray
    relevance_level: int
    _doc_names: pa.Array  # the qrels' distinct doc ids, which Judgments' doc codes index
    _judgments: Judgments

    @property
    def scored(self) -> np.ndarray:
        """Queries with at least one relevant id; the rest are excluded from every average."""
        return self.n_relevant > 0

    @property
    def excluded_ids(self) -> list[str]:
        return [str(q) for q in self.query_ids[~self.scored]]

    def row(self, query_id: str) -> int:
        """The row of a query of the qrels (ValueError naming one that is not there)."""
        rows = np.flatnonzero(self.query_ids == query_id)
        if not len(rows):
            raise ValueError(f"query {query_id!r} is not in the qrels")
        return int(rows[0])

    def rows(self, rows: slice | np.ndarray) -> LabelRows:
        """Some queries' labels (a slice or an index of rows): a block for the kernel."""
        return LabelRows(self.n_relevant[rows], self.ideal[rows], self.n_nonrelevant[rows],
                         self.max_grade[rows])


@dataclass(frozen=True, eq=False)
class AlignedRun:
    """One run on the query set's rows. Padding slots are 0/False everywhere."""

    name: str
    grade: np.ndarray  # (n, width) int64: grade at an id's first occurrence, else 0
    relevant: np.ndarray  # (n, width) bool: first occurrence and grade >= relevance level
    judged: np.ndarray  # (n, width) bool: first occurrence of an id that carries a label
    # (n, width) bool: the slot's id carries a grade >= 0 for its query (repeats too): what
    # judged-only scoring keeps (trec_eval -J reads a negative grade as pooled, not judged)
    graded: np.ndarray
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

    def rows(self, rows: slice | np.ndarray) -> AlignedRun:
        """The lists of some queries (a slice or an index of rows), as wide as their own
        longest list plus one: a block for the kernel."""
        answered = self.answered[rows]
        sliced = {name: getattr(self, name)[rows] for name in _SLOTS}
        width = int(sliced["returned"].sum(axis=1).max(initial=0)) + 1
        return replace(self, answered=answered,
                       **{name: array[:, :width] for name, array in sliced.items()})

    def judged_only(self) -> AlignedRun:
        """The condensed lists (Sakai 2007; trec_eval -J): every id without a grade >= 0 for
        its query removed, repeats of it too, and the ids below moving up; as wide as before."""
        keep = self.returned & self.graded
        if (keep == self.returned).all():
            return self
        queries, slots = np.nonzero(keep)
        column = (np.cumsum(keep, axis=1) - 1)[queries, slots]

        def condensed(array: np.ndarray, empty: int = 0) -> np.ndarray:
            out = np.full(array.shape, empty, dtype=array.dtype)
            out[queries, column] = array[queries, slots]
            return out

        return replace(self, **{name: condensed(getattr(self, name), -1 if name == "row" else 0)
                                for name in _SLOTS})

    def truncated(self, width: int) -> AlignedRun:
        """The first `width` slots only: every figure at K <= width reads the same."""
        if width >= self.width:
            return self
        return replace(self, **{name: getattr(self, name)[:, :width] for name in _SLOTS})

    def padded(self, width: int) -> AlignedRun:
        """The same run with empty slots up to `width` columns (itself when already as wide)."""
        extra = int(width) - self.width
        if extra <= 0:
            return self

        def pad(array: np.ndarray, value: int = 0) -> np.ndarray:
            return np.pad(array, ((0, 0), (0, extra)), constant_values=value)

        return replace(self, **{name: pad(getattr(self, name), -1 if name == "row" else 0)
                                for name in _SLOTS})


_SLOTS = ("grade", "relevant", "judged", "graded", "repeat", "returned", "row")


def prepare_query_set(qrels: Qrels, *, relevance_level: int = 1) -> QuerySet:
    query_codes = qrels.query_code
    if (query_codes < 0).any():
        raise ValueError(f"{qrels.source}: judgment rows name a query outside query_ids")
    grades = qrels.grade.astype(np.int64)
    n_queries = len(qrels.query_ids)
    n_relevant = np.bincount(
        query_codes[grades >= relevance_level], minlength=n_queries
    ).astype(np.int64)
    judged_below = (grades >= 0) & (grades < relevance_level)
    n_nonrelevant = np.bincount(query_codes[judged_below], minlength=n_queries).astype(np.int64)
    # one scale for every query, kept on each row so that a block carries it
    top = max(int(grades.max(initial=0)), 1)
    return QuerySet(
        query_ids=np.asarray(qrels.query_ids, dtype=object),
        n_relevant=n_relevant,
        ideal=_ideal_grades(query_codes, grades, n_queries),
        relevance_level=relevance_level,
        _doc_names=qrels.doc_names,
        _judgments=Judgments.of(qrels),
        n_nonrelevant=n_nonrelevant,
        max_grade=np.full(n_queries, top, dtype=np.int64),
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


def longest_list(query_set: QuerySet, run: Run) -> int:
    """The most ids the run lists for one query of the query set: `align`'s widest row."""
    query_codes = index_in(run.query_ids, query_set.query_ids)[run.query_code]
    return int(np.bincount(query_codes[query_codes >= 0]).max(initial=0))


def align(query_set: QuerySet, run: Run, *, width: int = 1) -> AlignedRun:
    """Place the run's lists on the query set's rows; run queries absent from the qrels are
    ignored and reported by line."""
    n_queries = len(query_set.query_ids)
    query_of = index_in(run.query_ids, query_set.query_ids)
    query_codes = query_of[run.query_code]
    known = query_codes >= 0
    ignored_queries = tuple(str(q) for q in run.query_ids[query_of < 0])
    if known.all():
        rows, q = np.arange(len(known)), query_codes
    else:
        rows = np.flatnonzero(known)
        q = query_codes[rows]
    if (q[1:] < q[:-1]).any():  # lists not in qrels order: a stable sort keeps the ranks
        order = np.argsort(q, kind="stable")
        rows, q = rows[order], q[order]
    counts = np.bincount(q, minlength=n_queries)
    width = max(int(width), int(counts.max(initial=0)), 1)
    # each row's slot in the flattened dense arrays: row q, column = position in its list
    group_start = np.cumsum(counts) - counts
    cell = np.arange(len(q)) + np.repeat(np.arange(n_queries) * width - group_start, counts)
    first = ~run.repeat[rows]

    # only a row whose id carries some label can be judged, and only its first occurrence
    # scores; a repeat is looked up too, so that judged-only scoring can drop it with its id
    doc_codes = run.codes_in(query_set._doc_names)[rows]
    candidates = np.flatnonzero(doc_codes >= 0)
    found, grades = query_set._judgments.lookup(q[candidates], doc_codes[candidates])
    labelled_cells, grades = cell[candidates[found]], grades[found]
    at_first = first[candidates[found]]
    judged_cells, judged_grades = labelled_cells[at_first], grades[at_first]

    size = n_queries * width
    grade = np.zeros(size, dtype=np.int64)
    grade[judged_cells] = judged_grades
    judged = np.zeros(size, dtype=bool)
    judged[judged_cells] = True
    graded = np.zeros(size, dtype=bool)
    graded[labelled_cells[grades >= 0]] = True
    repeat = np.zeros(size, dtype=bool)
    repeat[cell[~first]] = True
    returned = np.zeros(size, dtype=bool)
    returned[cell] = True
    row = np.full(size, -1, dtype=np.int64)
    row[cell] = rows
    shape = (n_queries, width)
    grade, judged = grade.reshape(shape), judged.reshape(shape)
    return AlignedRun(
        name=run.name,
        grade=grade,
        relevant=judged & (grade >= query_set.relevance_level),
        judged=judged,
        graded=graded.reshape(shape),
        repeat=repeat.reshape(shape),
        returned=returned.reshape(shape),
        row=row.reshape(shape),
        answered=counts > 0,
        ignored_lines=run.line[~known],
        ignored_queries=ignored_queries,
    )
