"""What the loaders return: Qrels (the frozen query set) and Run (ranked lists)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pyarrow as pa

from metrics.io.arrow import index_in, strings
from metrics.io.codes import encode, repeated_ids


class _CodedRows:
    """The per-row query id strings of a Qrels or Run, built from the codes when asked for."""

    @cached_property
    def query(self) -> np.ndarray:
        return self.query_ids[self.query_code]


@dataclass(frozen=True, eq=False)
class Qrels(_CodedRows):
    """The frozen query set and its judgments, one row per unique (query, doc) pair.

    Ids are kept as integer codes into tables of distinct values, so that aligning a run
    matches each distinct id once (in arrow) instead of hashing a million Python strings;
    `query` and `doc` give the per-row strings when they are asked for.
    """

    source: str
    query_ids: np.ndarray  # every query, first-appearance order (those without judgments too)
    query_code: np.ndarray  # int64 per row, into query_ids
    doc_code: np.ndarray  # int64 per row, into doc_names
    doc_names: pa.Array  # distinct doc ids (arrow strings)
    grade: np.ndarray  # int64
    line: np.ndarray  # int64, 1-based source line of each row

    @classmethod
    def from_rows(cls, source, query_ids, query, doc, grade, line) -> Qrels:
        query_ids = np.asarray(query_ids, dtype=object)
        doc_code, doc_names = encode(doc)
        return cls(source, query_ids, index_in(list(query), query_ids), doc_code, doc_names,
                   np.asarray(grade, dtype=np.int64), np.asarray(line, dtype=np.int64))

    @cached_property
    def doc(self) -> np.ndarray:
        return strings(self.doc_names)[self.doc_code]

    def docs_at(self, rows: np.ndarray) -> np.ndarray:
        """The doc ids of some rows, without building every row's string (`doc` does)."""
        return strings(self.doc_names.take(pa.array(self.doc_code[rows])))


@dataclass(frozen=True, eq=False)
class Run(_CodedRows):
    """Ranked lists: rows grouped by query (first-appearance order), best rank first.

    A repeated doc id stays in its slot; the report lists it. Query ids are integer codes,
    doc ids one arrow string column; `query` and `doc` give the per-row strings. A run
    loaded against labels also holds, per row, its id's position among the labels' doc ids,
    so that aligning it to those labels is integer work. `score` keeps each row's score as
    read (fusion reads it); the row order is the loader's, never re-derived from it.
    """

    name: str
    source: str
    query_ids: np.ndarray  # the run's queries, in row order (distinct)
    query_code: np.ndarray  # int64 per row, into query_ids; non-decreasing
    doc_ids: pa.Array  # per row (arrow strings)
    line: np.ndarray  # int64, 1-based source line of each row
    labels: pa.Array | None = None  # the Qrels.doc_names that label_code points into
    label_code: np.ndarray | None = None  # int64 per row, into labels; -1: not labelled
    score: np.ndarray | None = None  # float64 per row, as read; None: the source had no scores

    @classmethod
    def from_lists(cls, name: str, lists: dict[str, list[str]], source: str | None = None, *,
                   scores: dict[str, list[float]] | None = None) -> Run:
        """A run from {query: [ids in rank order]}, lines numbered in that order; `scores`
        ({query: [one per id]}) are kept as given, not used to order."""
        query = [q for q, docs in lists.items() for _ in docs]
        doc = [d for docs in lists.values() for d in docs]
        query_code, query_ids = encode(query)
        score = None
        if scores is not None:
            uneven = [q for q, docs in lists.items() if len(scores.get(q, ())) != len(docs)]
            if uneven:
                raise ValueError(f"query {uneven[0]!r}: scores must give one value per id")
            score = np.asarray([s for q in lists for s in scores[q]], dtype=np.float64)
        return cls(name, source or name, strings(query_ids), query_code,
                   pa.array(doc, pa.string()), np.arange(1, len(doc) + 1, dtype=np.int64),
                   score=score)

    def labelled_by(self, qrels: Qrels, label_code: np.ndarray | None = None) -> Run:
        """The same run with each row's position among the qrels' doc ids (one hash pass,
        unless `label_code`, `codes_in(qrels.doc_names)`, was found already)."""
        if label_code is None:
            label_code = self.codes_in(qrels.doc_names)
        run = replace(self, labels=qrels.doc_names, label_code=label_code)
        run.__dict__.update(self._computed())
        return run

    def codes_in(self, doc_names: pa.Array) -> np.ndarray:
        """Per row: the position of its id among doc_names, -1 where absent; already known
        when the run was loaded against those labels."""
        if self.labels is doc_names:
            return self.label_code
        return index_in(self.doc_ids, doc_names)

    @cached_property
    def doc(self) -> np.ndarray:
        return strings(self.doc_ids)

    def row_of(self, query: str, doc: str) -> int | None:
        """The first row holding `doc` in `query`'s list (its source line is `line[row]`);
        None when the run ranks no such pair."""
        codes = np.flatnonzero(self.query_ids == query)
        rows = np.flatnonzero(self.query_code == codes[0]) if len(codes) else codes
        hits = np.flatnonzero(self.docs_at(rows) == doc) if len(rows) else rows
        return int(rows[hits[0]]) if len(hits) else None

    def docs_at(self, rows: np.ndarray) -> np.ndarray:
        """The doc ids of some rows, without building every row's string (`doc` does: a
        Python string per row, some 30 MB per 100,000-query run, kept with the run)."""
        return strings(self.doc_ids.take(pa.array(np.asarray(rows, dtype=np.int64))))

    @cached_property
    def repeats(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows that repeat an id higher in their query's list, and the row of its first
        occurrence; computed once, for the load report and for alignment."""
        return repeated_ids(self.query_code, self.doc_ids)

    def without_identical_ids(self) -> tuple[Run, np.ndarray]:
        """The run without the rows whose doc id equals their query id (BEIR's
        ignore_identical_ids: ArguAna and Quora hold each query as a document), the ids below
        each moving up a rank; and the source lines of the rows dropped."""
        # each doc id looked up among the distinct query ids, and compared by code: no query
        # id is written out per row (a numpy text array is as wide as its longest id, every
        # row of it; an arrow take sizes its output by the mean id)
        queries = pa.array([str(q) for q in self.query_ids], pa.string())
        same = index_in(self.doc_ids, queries) == self.query_code
        if not same.any():
            return self, np.zeros(0, dtype=np.int64)
        keep = ~same
        run = replace(self, query_code=self.query_code[keep],
                      doc_ids=self.doc_ids.filter(pa.array(keep)), line=self.line[keep],
                      label_code=None if self.label_code is None else self.label_code[keep],
                      score=None if self.score is None else self.score[keep])
        return run, self.line[same]

    def renamed(self, name: str) -> Run:
        """The same run under another name, keeping what was already computed from it."""
        run = replace(self, name=name)
        run.__dict__.update(self._computed())
        return run

    def _computed(self) -> dict[str, object]:
        return {key: value for key, value in self.__dict__.items() if key in _RUN_CACHE}

    @cached_property
    def repeat(self) -> np.ndarray:
        """Per row: the id already appeared higher in the same query's list."""
        mask = np.zeros(len(self.line), dtype=bool)
        mask[self.repeats[0]] = True
        return mask


_RUN_CACHE = ("query", "doc", "repeats", "repeat")  # Run's cached properties


def mentioned_doc_ids(qrels: Qrels, runs: Sequence[Run]) -> list[str]:
    """Every doc id the labels judge or a run returns, each once (judged first): the texts a
    corpus read must keep. Deduplicated in arrow, not in Python (millions of rows)."""
    import pyarrow.compute as pc

    columns = [qrels.doc_names, *(run.doc_ids for run in runs)]
    return pc.unique(pa.chunked_array(columns, type=pa.string())).to_pylist()
