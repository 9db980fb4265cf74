"""What to label next: per query, the unjudged ids in the top K of any run, in the order a
labeller should grade them (the words and the rules are in metrics/vocabulary/labelling.py);
and grades given by hand: merged into a copy of the qrels (never into the loaded ones),
written as TREC qrels, and the evaluation scored again with them to show what they change.

Everything is read from the evaluation's aligned arrays, which already say of each slot
whether it holds an id, repeats one above it, or is judged for its query (a grade <= 0
included). A candidate is a returned, first-occurrence, unjudged slot in the top K of a chosen
query. Only those slots' doc ids are read, and dictionary-encoded in arrow, so that the same id
from two runs gets one code; Python strings are built for the distinct ids only (what
`Run.docs_at` would build for every candidate slot costs more than the rest together).
Grouping by (query, id), the counts, the ranks and the order are numpy work over the
candidates: some 0.1 million of them for 5 runs x 5,000 queries at K=10.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.core.evaluate import Evaluation, RunEvaluation, evaluate
from metrics.core.kernel import SUMMARY_MEASURES
from metrics.core.prepared import lists_as_read
from metrics.io.arrow import from_numbers, numbers, strings
from metrics.io.errors import LoadError
from metrics.io.rows import Qrels
from metrics.io.spreadsheet import csv_cell
from metrics.io.trec import unwritable
from metrics.stats.validate import is_number
from metrics.vocabulary.cutoffs import check_k
from metrics.vocabulary.format import count, listing, trec_column_problem, zero_as_written
from metrics.vocabulary.labelling import (
    BEST_RANK,
    COLUMNS,
    DOC_ID,
    MEAN_RANK,
    MEAN_RANK_DECIMALS,
    PRIORITY,
    QUERY_ID,
    RANKED_BY,
    RANKED_BY_JOIN,
    RUNS,
    TREC_WRITABLE,
    rescored_sentence,
    to_label_sentence,
)

# what the TREC readers split a line at, or refuse as binary (metrics.io.trec, io.streams)


@dataclass(frozen=True, eq=False)
class ToLabel:
    """The unjudged ids, one row per (query, id), in labelling order (ORDER_RULE)."""

    k: int
    run_names: tuple[str, ...]  # the chosen runs, in the order given
    queries_checked: int  # the queries whose top K was read
    query_id: np.ndarray  # (n,) str
    doc_id: np.ndarray  # (n,) str
    query_index: np.ndarray  # (n,) int64: the query's row in the query set
    ranks: np.ndarray  # (n, len(run_names)) int64: rank in each run's top K, 0 when not there
    runs: np.ndarray  # (n,) int64: how many chosen runs rank the id in their top K
    best_rank: np.ndarray  # (n,) int64: the smallest of those ranks
    mean_rank: np.ndarray  # (n,) float64: their mean
    ranked_by: np.ndarray  # (n,) str: those runs' names, joined

    def __len__(self) -> int:
        return len(self.doc_id)

    @property
    def queries(self) -> int:
        """How many queries hold at least one unjudged id."""
        return len(np.unique(self.query_index))

    def columns(self) -> dict[str, list]:
        """The rows as COLUMNS name them, column by column (what the CSV writes)."""
        values = {
            PRIORITY: list(range(1, len(self) + 1)),
            QUERY_ID: self.query_id.tolist(),
            DOC_ID: self.doc_id.tolist(),
            RUNS: self.runs.tolist(),
            BEST_RANK: self.best_rank.tolist(),
            MEAN_RANK: [f"{mean:.{MEAN_RANK_DECIMALS}f}" for mean in self.mean_rank.tolist()],
            RANKED_BY: self.ranked_by.tolist(),
        }
        return {name: values[name] for name in COLUMNS}


def to_label(
    evaluation: Evaluation,
    *,
    k: int | None = None,
    runs: Sequence[str] | None = None,
    queries: Iterable[str] | None = None,
) -> ToLabel:
    """The unjudged ids in the top `k` (default the evaluation's K) of the `runs` named
    (default every run) on `queries` (default the scored ones, within the evaluation's filter
    when it has one; given, exactly those, scored or not: labelling a query without a relevant
    id can bring it into the means)."""
    k = check_k(evaluation.k if k is None else k)
    chosen = _chosen_runs(evaluation, runs)
    wanted = _chosen_queries(evaluation, queries)

    query, rank, run_of, docs = [], [], [], []
    for j, run in enumerate(chosen):
        # judged-only scoring condensed the lists: the ids it left out are the ones to label
        a = lists_as_read(run, evaluation.query_set, evaluation.conventions.unjudged)
        candidate = a.returned[:, :k] & ~a.repeat[:, :k] & ~a.judged[:, :k] & wanted[:, None]
        q, slot = np.nonzero(candidate)
        query.append(q)
        rank.append(slot + 1)
        run_of.append(np.full(len(q), j))
        docs.append(run.run.doc_ids.take(from_numbers(a.row[q, slot])).cast(pa.string()))
    query, rank, run_of = (np.concatenate(x).astype(np.int64) for x in (query, rank, run_of))
    encoded = pc.dictionary_encode(pa.concat_arrays(docs))
    code = numbers(encoded.indices).astype(np.int64)

    # one group per (query, id): one integer key, one sort
    pair = query * max(len(encoded.dictionary), 1) + code
    order = np.argsort(pair, kind="stable")
    pair, query, rank, run_of, code = (x[order] for x in (pair, query, rank, run_of, code))
    first = np.ones(len(pair), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    starts = np.flatnonzero(first)
    ranks = np.zeros((len(starts), len(chosen)), dtype=np.int64)
    # a run holds an id once per query (repeats were left out): one cell per candidate
    ranks[np.cumsum(first) - 1, run_of] = rank
    n_runs = np.diff(np.append(starts, len(pair)))
    if len(starts):
        best, total = np.minimum.reduceat(rank, starts), np.add.reduceat(rank, starts)
    else:
        best = total = np.zeros(0, dtype=np.int64)
    query, code = query[starts], code[starts]

    # for the same number of runs, the mean rank orders as the sum does: exact integers
    priority = np.lexsort((_string_order(encoded.dictionary)[code], query, total, best,
                           -n_runs))
    query_ids = evaluation.query_set.query_ids
    return ToLabel(
        k=k,
        run_names=tuple(run.name for run in chosen),
        queries_checked=int(wanted.sum()),
        query_id=np.asarray(query_ids[query[priority]], dtype=object),
        doc_id=strings(encoded.dictionary)[code[priority]],
        query_index=query[priority],
        ranks=ranks[priority],
        runs=n_runs[priority],
        best_rank=best[priority],
        mean_rank=total[priority] / n_runs[priority],
        ranked_by=_ranked_by(ranks[priority] > 0, [run.name for run in chosen]),
    )


def summary(result: ToLabel) -> str:
    """'412 unjudged ids in the top 10 of 3 runs across 87 queries; labelling them firms up
    every figure at K.'"""
    return to_label_sentence(len(result), k=result.k, runs=len(result.run_names),
                             queries=result.queries, checked=result.queries_checked)


# --- writers -------------------------------------------------------------------------------


def to_csv(result: ToLabel) -> str:
    """The list as CSV: a header of COLUMNS, one line per id in labelling order, every cell
    through csv_safe. RFC 4180 line ends, so a cell holding a line break is quoted."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    columns = result.columns()
    writer.writerow([csv_cell(name) for name in columns])
    writer.writerows([csv_cell(cell) for cell in row] for row in zip(*columns.values(),
                                                                     strict=True))
    return out.getvalue()


def trec_unwritable(result: ToLabel) -> list[tuple[str, str]]:
    """The (query id, doc id) rows a TREC qrels line cannot hold (TREC_WRITABLE), in
    labelling order: check before offering `to_qrels_template`."""
    rows = np.flatnonzero(unwritable(result.query_id, first=True) | unwritable(result.doc_id))
    return list(zip(result.query_id[rows].tolist(), result.doc_id[rows].tolist(), strict=True))


def to_qrels_template(result: ToLabel, evaluation: Evaluation | None = None) -> str:
    """The list as TREC qrels lines to grade, 'query_id 0 doc_id ' with the grade column
    empty, in the query set's order and then labelling order (QRELS_TEMPLATE).

    An id a TREC line cannot hold raises ValueError naming it and why, rather than being
    skipped: a template that silently drops an id is one the labeller never labels. Given
    the `evaluation` the list was drawn from, a LoadError names the run file and the line
    it was read from too. Such ids are listed by `trec_unwritable`, and written by
    `to_csv`."""
    bad = trec_unwritable(result)
    if bad:
        query, doc = bad[0]
        problem = (f"{count(len(bad), 'unjudged id')} cannot be written as TREC qrels, the "
                   f"first {doc!r} of query {query!r}: {_trec_problem(query, doc)}. "
                   f"{TREC_WRITABLE}")
        where = None if evaluation is None else _read_at(evaluation, result, query, doc)
        if where is None:
            raise ValueError(problem)
        source, line, unit = where
        raise LoadError(source, line, problem, unit)
    order = np.argsort(result.query_index, kind="stable")
    return "".join(f"{query} 0 {doc} \n" for query, doc in zip(
        result.query_id[order].tolist(), result.doc_id[order].tolist(), strict=True))


# --- helpers -------------------------------------------------------------------------------


def _chosen_runs(evaluation: Evaluation, names: Sequence[str] | None) -> list[RunEvaluation]:
    if names is None:
        return list(evaluation.runs)
    if isinstance(names, str):
        raise ValueError(f"runs must be a sequence of run names, not one string ({names!r})")
    names = list(names)
    if not names:
        raise ValueError("runs must name at least one run")
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {names}")
    return [evaluation.run(name) for name in names]  # an unknown name raises there


def _chosen_queries(evaluation: Evaluation, queries: Iterable[str] | None) -> np.ndarray:
    """A bool mask over the query set."""
    if queries is None:
        return evaluation.scored
    if isinstance(queries, str):
        raise ValueError(f"queries must be an iterable of query ids, not one string "
                         f"({queries!r})")
    row = {str(query): i for i, query in enumerate(evaluation.query_set.query_ids)}
    queries = list(queries)
    unknown = [query for query in queries if query not in row]
    if unknown:
        raise ValueError(f"{count(len(unknown), 'query')} not in the query set: "
                         f"{listing(unknown)}")
    mask = np.zeros(len(row), dtype=bool)
    mask[[row[query] for query in queries]] = True
    return mask


def _string_order(names: pa.Array) -> np.ndarray:
    """Each string's place in sorted order: arrow sorts UTF-8 bytes, which is code point
    order, the order Python compares str in."""
    place = np.empty(len(names), dtype=np.int64)
    place[numbers(pc.sort_indices(names))] = np.arange(len(names))
    return place


def _ranked_by(member: np.ndarray, names: list[str]) -> np.ndarray:
    """Per row, the names of the runs `member` (rows x runs) marks, joined: built once per
    distinct set of runs (a handful), not once per row. Rows are grouped by a lexsort of the
    columns, which takes any number of runs (a bit mask would stop at 63)."""
    if not len(member):
        return np.zeros(0, dtype=object)
    order = np.lexsort(member.T)
    grouped = member[order]
    new = np.ones(len(member), dtype=bool)
    new[1:] = (grouped[1:] != grouped[:-1]).any(axis=1)
    which = np.empty(len(member), dtype=np.int64)
    which[order] = np.cumsum(new) - 1
    joined = [RANKED_BY_JOIN.join(name for name, on in zip(names, row, strict=True) if on)
              for row in grouped[new].tolist()]
    return np.asarray(joined, dtype=object)[which]


def _trec_problem(query: str, doc: str) -> str | None:
    """Why a TREC qrels line cannot hold the pair, the id named (None: it can), by the rule
    of every TREC file written (`format.trec_column_problem`)."""
    for what, text, first in (("the query id", query, True), ("the doc id", doc, False)):
        why = trec_column_problem(str(text), first=first)
        if why is not None:
            return f"{what} {why}"
    return None


def _read_at(evaluation: Evaluation, result: ToLabel, query: str,
             doc: str) -> tuple[str, int, str] | None:
    """Where a listed pair was read: the file, line and unit of the first run that ranks it
    (None when no run of the evaluation holds it)."""
    row = int(np.flatnonzero((result.query_id == query) & (result.doc_id == doc))[0])
    for name, rank in zip(result.run_names, result.ranks[row].tolist(), strict=True):
        if rank:
            found = evaluation.run(name)
            at = found.run.row_of(query, doc)
            if at is not None:
                unit = found.report.unit if found.report is not None else "line"
                return found.run.source, int(found.run.line[at]), unit
    return None


# --- grades given by hand ------------------------------------------------------------------

Grades = Mapping[tuple[str, str], int]  # (query id, doc id) -> grade


def _checked_grades(qrels: Qrels, grades: Grades) -> list[tuple[str, str, int]]:
    """The grades as (query, doc, grade), checked: a known query, an integer grade, an
    unjudged pair (a judged one keeps the qrels' grade: nothing overrides a file silently)."""
    queries = {str(q) for q in qrels.query_ids}
    judged = set(zip(qrels.query_ids[qrels.query_code].tolist(), qrels.doc.tolist(),
                     strict=True))
    out = []
    for (query, doc), grade in grades.items():
        if query not in queries:
            raise ValueError(f"query {query!r} is not in the qrels")
        if not is_number(grade, integer=True):
            raise ValueError(f"the grade of {doc!r} for query {query!r} must be an integer, "
                             f"got {grade!r}")
        if (query, doc) in judged:
            raise ValueError(f"{doc!r} is judged for query {query!r} already: its grade is "
                             "the qrels' (change it in the file)")
        out.append((str(query), str(doc), int(grade)))
    return out


def merge_labels(qrels: Qrels, grades: Grades) -> Qrels:
    """A new Qrels: the loaded judgments, then `grades` ((query, doc) -> grade, each for an
    unjudged pair), as new rows numbered after the file's lines. `qrels` is left as it is."""
    added = _checked_grades(qrels, grades)
    query_ids = qrels.query_ids.tolist()
    query = qrels.query_ids[qrels.query_code].tolist() + [q for q, _, _ in added]
    doc = qrels.doc.tolist() + [d for _, d, _ in added]
    grade = qrels.grade.tolist() + [g for _, _, g in added]
    last = int(qrels.line.max(initial=0))
    line = qrels.line.tolist() + list(range(last + 1, last + 1 + len(added)))
    return Qrels.from_rows(f"{qrels.source} + {count(len(added), 'label')}", query_ids, query,
                           doc, grade, line)


def labels_qrels(grades: Grades) -> str:
    """The grades as TREC qrels lines, 'query_id 0 doc_id grade', in the order given (an id
    a TREC line cannot hold raises ValueError naming it: TREC_WRITABLE)."""
    return "".join(_trec_line(query, doc, grade) for (query, doc), grade in grades.items())


def merged_qrels(qrels: Qrels, grades: Grades) -> str:
    """The loaded judgments then the grades, as TREC qrels lines (MERGED_FILE)."""
    merged = merge_labels(qrels, grades)
    return "".join(_trec_line(query, doc, int(grade)) for query, doc, grade in zip(
        merged.query_ids[merged.query_code].tolist(), merged.doc.tolist(),
        merged.grade.tolist(), strict=True))


def _trec_line(query: str, doc: str, grade: int) -> str:
    problem = _trec_problem(str(query), str(doc))
    if problem is not None:
        raise ValueError(f"{doc!r} of query {query!r} cannot be written as TREC qrels: "
                         f"{problem}. {TREC_WRITABLE}")
    return f"{query} 0 {doc} {grade}\n"


@dataclass(frozen=True, eq=False)
class Rescored:
    """The evaluation with the loaded qrels (`before`) and with the grades added (`after`):
    same runs, K and conventions, and the same filter."""

    before: Evaluation
    after: Evaluation
    labels: int

    def rows(self) -> list[dict]:
        """One row per (run, summary measure): its mean before and after, and the change."""
        return [{"run": old.name, "metric": m.key, "before": old.summary[m.key].mean,
                 "after": new.summary[m.key].mean,
                 "difference": new.summary[m.key].mean - old.summary[m.key].mean}
                for old, new in zip(self.before.runs, self.after.runs, strict=True)
                for m in SUMMARY_MEASURES]

    @property
    def changed_queries(self) -> list[str]:
        """The queries scored under both whose figure changed on some measure in some run."""
        before, after = self.before, self.after
        both = before.scored & after.scored
        changed = np.zeros(len(both), dtype=bool)
        for old, new in zip(before.runs, after.runs, strict=True):
            a, b = old.scores.at(before.k), new.scores.at(after.k)
            for m in SUMMARY_MEASURES:
                changed |= ~np.isclose(a[m.key], b[m.key])
        changed |= before.scored != after.scored  # a query newly scored (or no longer)
        return [str(q) for q in before.query_set.query_ids[changed]]

    @property
    def means_changed(self) -> int:
        """The rows whose change is not zero as written (three decimals): what the table
        shows as moved."""
        return sum(zero_as_written(row["difference"]) != 0 for row in self.rows())

    @property
    def sentence(self) -> str:
        return rescored_sentence(self.labels, len(self.changed_queries),
                                 len(self.after.scored_ids), self.means_changed,
                                 len(self.rows()))


def rescore(evaluation: Evaluation, grades: Grades) -> Rescored:
    """The evaluation scored again with `grades` added to its qrels: the same runs (their
    lists as loaded), K, conventions and filter. What the grades would change, without
    changing the loaded qrels."""
    merged = merge_labels(evaluation.qrels, grades)
    after = evaluate(merged, [run.run for run in evaluation.runs], evaluation.k,
                     evaluation.conventions, sweep=evaluation.sweep_range)
    if evaluation.within is not None:
        rows = {str(q): i for i, q in enumerate(after.query_set.query_ids)}
        mask = np.zeros(len(rows), dtype=bool)
        mask[[rows[str(q)] for q in evaluation.query_set.query_ids[evaluation.within.mask]]] = (
            True)
        after = after.restricted(mask, evaluation.within.description)
    return Rescored(evaluation, after, len(grades))
