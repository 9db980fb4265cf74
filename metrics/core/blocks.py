"""evaluate_blocks(qrels, runs, k, conventions) -> BlockEvaluation: the block-by-block driver.

The in-memory driver (`metrics.core.evaluate`) holds every run whole and every query's
figures at every K. This one reads the qrels, then the runs a block of queries at a time (the
qrels' queries in their order, `block_queries` at once), scores each block with the same
kernel, and keeps per query only its figures at K; of the sweep it keeps running sums (the
means, each Wilson figure's hits) and the bootstrap's resampled means, summed block by block
over the same resampled queries (`Resamples.accumulator`). Memory follows the block, the
qrels and n x the default figures, not the runs' rows.

Same numbers: each query's figures are the kernel's whatever block it is scored in; the
summary is computed from the per-query figures at K exactly as `evaluate` computes it; the
sweep's means are the same sequential sums, and its bands read the same resampled queries,
summed block by block as the draw defines them (below the dense draw's bound the kept rows
are multiplied at once, as `evaluate` multiplies them). Tests check the digits.

Runs are read as follows: Parquet (a file or a directory) and tables from Python are
streamed (`metrics.io.parquet.batches`): a first pass reads the query column alone (which
block each row's query falls in, and each list's length); rows grouped by block (a run
written query by query in the qrels' order, or in blocks of it) are then cut as they come;
otherwise each block's rows are first written to a temporary Parquet file of their own
(pyarrow), in row order, and read back a block at a time. Other formats are read whole (their
size bound, `max_bytes`, holds) and cut into blocks in memory. Rows of a query the qrels do
not hold are read, checked and reported as the in-memory loader reports them.

What is read of each run beside its figures is read as `evaluate` reads it: every scored
query's class and repeats at K, and the k suggestion and diagnosis (`run_readings`), from the
suggestion's curves summed block by block over the longest list as read and cut where the
lists as scored end (`metrics.core.diagnosis.KCurves`).

Not here: the figures asked for by name beyond the default ones (`--metric Rprec`), the
drill-down (one query's ranked ids) and BCa intervals (which read every query at every K):
the in-memory driver gives those.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.core.diagnosis import Finding, KCurves, Suggestion, query_classes, run_readings
from metrics.core.evaluate import (
    DEFAULT_PER_QUERY,
    DEFAULT_SUMMARY,
    WithoutLists,
    scored_queries,
)
from metrics.core.files import RunSource, distinct_names, read_run
from metrics.core.kernel import MEASURES, SUMMARY_MEASURES, compute
from metrics.core.prepared import IDENTICAL_REASON, UNJUDGED_NOTE
from metrics.core.ranking import QuerySet, align, prepare_query_set
from metrics.io import LoadReport, Qrels, ReportLine, Run
from metrics.io.arrow import from_numbers, numbers
from metrics.io.loaders import columnar_run, run_name_of
from metrics.io.parquet import (
    Columnar,
    Footers,
    batches,
    check_ids,
    is_parquet,
    is_table,
    layout,
    stream_bound,
)
from metrics.io.streams import MAX_INPUT_BYTES
from metrics.stats.bootstrap import BLOCK_QUERIES, resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.summary import SWEEP_FIGURES, bands_of, bootstrap_table, summaries_of
from metrics.stats.validate import check_count
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k, check_sweep

DEFAULT_BLOCK_QUERIES = 2 * BLOCK_QUERIES  # queries scored at once
IGNORED_REASON = "query is not in the qrels: ignored"


@dataclass(frozen=True, eq=False)
class BlockRun:
    """One run's figures from the block-by-block driver."""

    name: str
    summary: dict[str, Interval]  # summary measure key -> mean and interval at K
    at_k: dict[str, np.ndarray]  # measure key -> the scored queries' figures at K
    sweep_means: dict[str, np.ndarray]  # "k", then each summary measure's name -> means
    sweep_intervals: list[tuple[int, str, float, float]]  # (k, summary key, low, high)
    missing_queries: tuple[str, ...]  # qrels queries the run has no list for (they score 0)
    repeats: int  # repeated ids over the scored queries' lists
    report: LoadReport | None
    classes: np.ndarray  # class at K of each scored query, query-set order
    query_repeats: np.ndarray  # each scored query's repeated ids
    suggestion: Suggestion
    diagnosis: tuple[Finding, ...]
    ignored_queries: tuple[str, ...]  # run queries absent from the qrels, as read


@dataclass(frozen=True, eq=False)
class BlockEvaluation(WithoutLists):
    """What the block-by-block driver gives: the summary at K, the sweep and its bands,
    every scored query's figures and class at K, each run's k suggestion and diagnosis (no
    ranked list is kept)."""

    engine: ClassVar[str] = "blocks"

    k: int
    conventions: Conventions
    sweep_range: tuple[int, int]
    query_ids: np.ndarray  # every query of the qrels, in their order
    scored: np.ndarray  # (n_queries,) bool: the queries every mean runs over
    runs: tuple[BlockRun, ...]
    qrels_report: LoadReport | None = None
    block_queries: int = DEFAULT_BLOCK_QUERIES
    max_grade: int = 1  # the qrels' highest grade (ERR's scale, a note reads it)
    summary_specs: tuple = DEFAULT_SUMMARY
    query_specs: tuple = DEFAULT_PER_QUERY

    def sweep_intervals(self) -> list[tuple[str, int, str, float, float]]:
        """(run, k, summary key, low, high), as `Evaluation.sweep_intervals` gives them."""
        return [(run.name, *row) for run in self.runs for row in run.sweep_intervals]

    def sweep_means(self, name: str) -> dict[str, np.ndarray]:
        """Mean over scored queries of each summary measure at every K of the sweep."""
        return {key: values.copy() for key, values in self.run(name).sweep_means.items()}

    def per_query_scores(self, name: str, k: int | None = None) -> dict[str, np.ndarray]:
        """Scored queries' values at K, keyed by measure key, as
        `Evaluation.per_query_scores` gives them (only K is kept, no other cutoff)."""
        if k not in (None, self.k):
            raise ValueError(f"the block-by-block engine keeps every query's figures at "
                             f"K = {self.k} only, not at {k}")
        return dict(self.run(name).at_k)

    def query_repeats(self, name: str) -> np.ndarray:
        """Each scored query's repeated ids."""
        return self.run(name).query_repeats


# --- the query set, a block at a time -------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Blocks:
    """The qrels cut into blocks of queries, each prepared as a query set of its own (its
    judgments only, so that matching a block's ids hashes the block's judged ids alone);
    ERR's collection-wide highest grade is the whole qrels'."""

    qrels: Qrels
    size: int
    relevance_level: int
    order: np.ndarray  # qrels rows by query
    bounds: np.ndarray  # (n_queries + 1,) where each query's rows start in `order`
    top: int

    @classmethod
    def of(cls, qrels: Qrels, size: int, relevance_level: int) -> _Blocks:
        order = np.argsort(qrels.query_code, kind="stable")
        counts = np.bincount(qrels.query_code, minlength=len(qrels.query_ids))
        bounds = np.r_[0, np.cumsum(counts)]
        top = max(int(qrels.grade.max(initial=0)), 1)
        return cls(qrels, size, relevance_level, order, bounds, top)

    @property
    def count(self) -> int:
        return -(-len(self.qrels.query_ids) // self.size)

    def span(self, index: int) -> tuple[int, int]:
        start = index * self.size
        return start, min(start + self.size, len(self.qrels.query_ids))

    def query_set(self, index: int) -> QuerySet:
        start, stop = self.span(index)
        rows = self.order[self.bounds[start]:self.bounds[stop]]
        docs, local = np.unique(self.qrels.doc_code[rows], return_inverse=True)
        block = Qrels(self.qrels.source, self.qrels.query_ids[start:stop],
                      self.qrels.query_code[rows] - start, local.astype(np.int64),
                      self.qrels.doc_names.take(from_numbers(docs)), self.qrels.grade[rows],
                      self.qrels.line[rows])
        query_set = prepare_query_set(block, relevance_level=self.relevance_level)
        return replace(query_set, max_grade=np.full(stop - start, self.top, dtype=np.int64))


class _Codes:
    """Query ids -> their position in the qrels (-1 for a query the qrels do not hold),
    looked up once per change of query along the rows."""

    def __init__(self, query_ids: np.ndarray) -> None:
        self.position = {str(q): i for i, q in enumerate(query_ids)}
        self.table = pa.array([str(q) for q in query_ids], pa.string())
        self._dictionary: tuple[pa.Array, np.ndarray] | None = None  # the last one looked up

    def of(self, column: pa.Array) -> np.ndarray:
        if isinstance(column, pa.DictionaryArray) and not column.null_count:
            return self._of_dictionary(column)
        column = _strings(column)
        if len(column) < 2:
            return np.array([self.position.get(v, -1) for v in column.to_pylist()], np.int64)
        # a null id (refused when its rows are read, with their row) starts a group of its own
        changed = numbers(pc.fill_null(pc.not_equal(column[1:], column[:-1]), True))
        starts = np.flatnonzero(np.r_[True, changed])
        values = column.take(from_numbers(starts))
        if len(starts) * 8 < len(column):  # grouped: a few lookups
            found = np.array([self.position.get(v, -1) for v in values.to_pylist()], np.int64)
        else:
            found = _positions(pc.index_in(values, value_set=self.table))
        return np.repeat(found, np.diff(np.r_[starts, len(column)]))

    def _of_dictionary(self, column: pa.DictionaryArray) -> np.ndarray:
        """A dictionary-encoded column: each distinct id looked up once (the batches of one
        Parquet row group share their dictionary: looked up once for all of them)."""
        dictionary = column.dictionary
        last = self._dictionary
        if last is None or not last[0].equals(dictionary):
            found = [self.position.get(v, -1) for v in _strings(dictionary).to_pylist()]
            last = self._dictionary = (dictionary, np.array(found, np.int64))
        return last[1][numbers(column.indices).astype(np.int64)]


def _strings(column: pa.Array) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    return column.cast(pa.string()) if not pa.types.is_string(column.type) else column


def _positions(found: pa.Array) -> np.ndarray:
    values = found.fill_null(-1)
    return numbers(values.cast(pa.int64()))


# --- a run, a block at a time ---------------------------------------------------------------


@dataclass(eq=False)
class _Piece:
    """Some rows of one block of a run: columns by role (as stored), their row numbers."""

    columns: dict[str, list[pa.Array]] = field(default_factory=dict)
    lines: list[np.ndarray] = field(default_factory=list)

    def add(self, columns: dict[str, pa.Array], lines: np.ndarray) -> None:
        for role, values in columns.items():
            self.columns.setdefault(role, []).append(values)
        self.lines.append(lines)

    def joined(self) -> tuple[dict[str, pa.Array], np.ndarray]:
        columns = {role: pa.chunked_array(parts).combine_chunks()
                   for role, parts in self.columns.items()}
        return columns, np.concatenate(self.lines) if self.lines else np.zeros(0, np.int64)

    @property
    def empty(self) -> bool:
        return not self.lines or not sum(len(lines) for lines in self.lines)


class _Streamed:
    """A Parquet run (or a table) read a block at a time; see the module's docstring."""

    def __init__(self, spec: RunSource, name: str, codes: _Codes, blocks: _Blocks,
                 precision: str, spill: str, max_bytes: int) -> None:
        self.spec, self.name, self.codes, self.blocks = spec, name, codes, blocks
        self.precision, self.max_bytes = precision, max_bytes
        self.footers: Footers = {}  # each file's footer parsed once, for every pass
        # refused here as on every engine
        checked = layout(spec.source, spec.file_name, "run", self.footers)
        self.roles = tuple(checked.roles[0])
        self.lengths = np.zeros(len(blocks.qrels.query_ids), dtype=np.int64)
        self.grouped, self.rows = self._first_pass()
        if not self.rows:
            raise checked.named.fail(None, "no data rows")
        self.named: Columnar | None = None
        self.parts: list[LoadReport] = []
        self._spill = spill
        self._blocks = self._by_block()

    def _batches(self, roles: tuple[str, ...], *, dictionary: bool = False):
        return batches(self.spec.source, self.spec.file_name, "run", roles=roles,
                       dictionary=dictionary, max_bytes=self.max_bytes,
                       footers=self.footers)

    def _block_of(self, codes: np.ndarray, last: int) -> np.ndarray:
        """The block of each row; a row of a query the qrels do not hold goes with the row
        before it (so that a grouped run stays grouped)."""
        block = np.where(codes >= 0, codes // self.blocks.size, -1)
        known = block >= 0
        index = np.where(known, np.arange(len(block)), -1)
        carried = np.maximum.accumulate(index)
        return np.where(carried >= 0, block[np.maximum(carried, 0)], last)

    def _first_pass(self) -> tuple[bool, int]:
        grouped, last, rows = True, 0, 0
        for batch in self._batches(("query",), dictionary=True):
            # the query ids are refused here, on the row the in-memory reader names
            check_ids(batch.source, batch.columns["query"], batch.lines, "query")
            codes = self.codes.of(batch.columns["query"])
            known = codes[codes >= 0]
            self.lengths += np.bincount(known, minlength=len(self.lengths))
            block = self._block_of(codes, last)
            if len(block):
                grouped &= bool(block[0] >= last) and bool((np.diff(block) >= 0).all())
                last = int(block[-1])
            rows += len(codes)
        return grouped, rows

    def _by_block(self) -> Iterator[tuple[int, _Piece]]:
        return self._cut() if self.grouped else self._spilled()

    def _cut(self) -> Iterator[tuple[int, _Piece]]:
        current, piece, last = 0, _Piece(), 0
        for batch in self._batches(self.roles):
            self.named = batch.source
            block = self._block_of(self.codes.of(batch.columns["query"]), last)
            if not len(block):
                continue
            last = int(block[-1])
            lines = batch.lines
            starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
            for a, b in zip(starts, np.r_[starts[1:], len(block)], strict=True):
                if block[a] != current:
                    yield current, piece
                    current, piece = int(block[a]), _Piece()
                piece.add({role: values.slice(a, b - a) for role, values in
                           batch.columns.items()}, lines[a:b])
        yield current, piece

    def _spilled(self) -> Iterator[tuple[int, _Piece]]:
        """Each block's rows written to a Parquet file of its own, in row order, then read
        back a block at a time (rows of queries outside the qrels: one more file, last)."""
        import pyarrow.parquet as pq  # on use: see metrics.io.parquet._open

        writers: dict[int, pq.ParquetWriter] = {}
        schema = None
        for batch in self._batches(self.roles):
            self.named = batch.source
            codes = self.codes.of(batch.columns["query"])
            block = np.where(codes >= 0, codes // self.blocks.size, self.blocks.count)
            table = pa.table({**{role: _stored(v) for role, v in batch.columns.items()},
                              "__row": from_numbers(batch.lines)})
            schema = schema or table.schema
            table = table.cast(schema) if table.schema != schema else table
            order = np.argsort(block, kind="stable")
            block = block[order]
            table = table.take(from_numbers(order))
            starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
            for a, b in zip(starts, np.r_[starts[1:], len(block)], strict=True):
                index = int(block[a])
                if index not in writers:
                    path = os.path.join(self._spill, f"{id(self)}-{index}.parquet")
                    writers[index] = pq.ParquetWriter(path, schema)
                writers[index].write_table(table.slice(a, b - a))
        for writer in writers.values():
            writer.close()
        for index in sorted(writers):
            path = os.path.join(self._spill, f"{id(self)}-{index}.parquet")
            table = pq.read_table(path)
            os.remove(path)
            piece = _Piece()
            piece.add({role: table.column(role).combine_chunks() for role in self.roles},
                      numbers(table.column("__row").combine_chunks()))
            yield index, piece

    def block(self, index: int) -> Run | None:
        """The run's rows of block `index` as a Run (None without any), checked and ordered
        as the loader orders them; its report part is kept for the run's report."""
        piece = self._next(index)
        if piece is None or piece.empty:
            return None
        columns, lines = piece.joined()
        run, report = columnar_run(self.named, columns, lines, self.name, self.precision)
        self.parts.append(report)  # the report only: the block's rows are let go
        return run

    def _next(self, index: int) -> _Piece | None:
        head = getattr(self, "_head", None)
        if head is None:
            head = next(self._blocks, None)
        while head is not None and head[0] < index:  # a block of no scored query
            head = next(self._blocks, None)
        if head is not None and head[0] == index:
            self._head = None
            return head[1]
        self._head = head
        return None

    def rest(self) -> Run | None:
        """Rows after the last block (queries the qrels do not hold, when spilled)."""
        return self.block(self.blocks.count)

    def report(self) -> LoadReport:
        """The run's load report: its rows, its repeats and notes, over every block."""
        named = self.named
        reports = self.parts
        return LoadReport(
            source=named.name if named else self.name, kind="run",
            format=reports[0].format if reports else "parquet", lines_read=self.rows,
            lines_used=self.rows, dropped=(),
            repeats=tuple(sorted((r for rep in reports for r in rep.repeats),
                                 key=lambda r: r.line)),
            notes=tuple(note for rep in reports for note in rep.notes), unit="row")


def _stored(values: pa.Array) -> pa.Array:
    """A column as spilled: dictionary columns decoded (their dictionaries differ by batch)."""
    return values.dictionary_decode() if pa.types.is_dictionary(values.type) else values


class _Loaded:
    """A run in another format, read whole (within its size bound) and cut into blocks."""

    def __init__(self, run: Run, report: LoadReport, codes: _Codes, blocks: _Blocks) -> None:
        self.run, self.loaded_report, self.blocks, self.name = run, report, blocks, run.name
        position = codes.of(pa.array([str(q) for q in run.query_ids], pa.string()))
        code = position[run.query_code]
        self.lengths = np.bincount(code[code >= 0], minlength=len(blocks.qrels.query_ids))
        block = np.where(code >= 0, code // blocks.size, blocks.count)
        self.order = np.argsort(block, kind="stable")
        self.bounds = np.searchsorted(block[self.order], np.arange(blocks.count + 2))

    def block(self, index: int) -> Run | None:
        rows = self.order[self.bounds[index]:self.bounds[index + 1]]
        if not len(rows):
            return None
        run = self.run
        used, code = np.unique(run.query_code[rows], return_inverse=True)  # the block's own
        return replace(run, query_ids=run.query_ids[used], query_code=code.astype(np.int64),
                       doc_ids=run.doc_ids.take(from_numbers(rows)), line=run.line[rows],
                       labels=None, label_code=None,
                       score=None if run.score is None else run.score[rows])

    def rest(self) -> Run | None:
        return self.block(self.blocks.count)

    def report(self) -> LoadReport:
        """The loader's report, its repeats in row order as a streamed run's are."""
        report = self.loaded_report
        return replace(report, repeats=tuple(sorted(report.repeats, key=lambda r: r.line)))


# --- the driver -------------------------------------------------------------------------------


@dataclass(eq=False)
class _Gathered:
    """What the driver keeps of one run between blocks."""

    at_k: dict[str, list[np.ndarray]] = field(default_factory=dict)
    sums: dict[str, np.ndarray] = field(default_factory=dict)  # sweep: sequential sums
    columns: dict[str, list[np.ndarray]] = field(default_factory=dict)  # a 1-column sweep
    hits: dict[str, np.ndarray] = field(default_factory=dict)  # Wilson figures' hits per K
    missing: list[np.ndarray] = field(default_factory=list)
    repeats: int = 0
    dropped: list[ReportLine] = field(default_factory=list)
    removed: int = 0  # ids judged-only scoring left out, and their queries
    removed_queries: int = 0
    classes: list[np.ndarray] = field(default_factory=list)  # the scored queries'
    query_repeats: list[np.ndarray] = field(default_factory=list)
    answered: int = 0  # scored queries with a list
    longest: int = 0  # the longest list as scored
    ignored: list[str] = field(default_factory=list)  # run queries absent from the qrels
    # the k suggestion's curves (metrics.core.diagnosis.KCurves) over the queries with a
    # relevant id: their lengths, the running sums at K = 1..reach, the values at K
    lengths: list[np.ndarray] = field(default_factory=list)
    curve_sums: dict[str, np.ndarray] = field(default_factory=dict)
    at_k_curves: dict[str, list[np.ndarray]] = field(default_factory=dict)


def _sequential(total: np.ndarray | None, piece: np.ndarray) -> np.ndarray:
    """Column sums added row after row, as numpy adds the rows of a table of two or more
    columns (``mean(axis=0)``): the same floats whatever the blocks."""
    if total is None:
        return np.add.reduce(piece, axis=0) if len(piece) else np.zeros(piece.shape[1])
    return np.add.reduce(np.concatenate([total[None, :], piece]), axis=0)


def evaluate_blocks(
    qrels: Qrels,
    runs: Sequence[RunSource],
    k: int,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
    block_queries: int = DEFAULT_BLOCK_QUERIES,
    qrels_report: LoadReport | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
) -> BlockEvaluation:
    """Score the runs (files, directories or tables, as RunSources) against the qrels a
    block of `block_queries` queries at a time; the figures `evaluate` gives for the summary,
    the sweep (default 1 to the longest list as read) and every query at K."""
    conventions = conventions or Conventions()
    c = conventions
    check_k(k)
    if not runs:
        raise ValueError("give at least one run")
    block_queries = check_count("block_queries", block_queries)
    if c.interval_method != "percentile":
        raise ValueError("the block-by-block engine draws percentile intervals: BCa reads "
                         "every query's figure at every K of the sweep (use the in-memory "
                         "engine)")
    blocks = _Blocks.of(qrels, block_queries, c.relevance_level)
    codes = _Codes(qrels.query_ids)
    names = distinct_names([spec.name or _source_name(spec) for spec in runs])
    with tempfile.TemporaryDirectory(prefix="blocks-") as spill:
        streams = [_open_run(replace(spec, name=name), codes, blocks, c, spill, max_bytes)
                   for spec, name in zip(runs, names, strict=True)]
        lengths = np.max([s.lengths for s in streams], axis=0)
        longest = int(lengths.max(initial=0))
        lo, hi = (1, max(longest, 1)) if sweep is None else check_sweep(*sweep)
        return _score(qrels, streams, names, blocks, k, c, (lo, hi), qrels_report,
                      block_queries, reach=longest + 1, whole_sweep=sweep is None)


def _source_name(spec: RunSource) -> str:
    if is_table(spec.source):
        return spec.file_name or "run"
    if isinstance(spec.source, bytes | bytearray | memoryview):
        return run_name_of(spec.file_name or "run")
    return run_name_of(os.path.basename(os.fspath(spec.source).rstrip(os.sep)))


def _open_run(spec: RunSource, codes: _Codes, blocks: _Blocks, c: Conventions, spill: str,
              max_bytes: int) -> _Streamed | _Loaded:
    fmt = spec.format
    if fmt == "parquet" or (fmt == "auto" and (is_table(spec.source)
                                               or is_parquet(spec.source, spec.file_name))):
        # each read of a stream is bounded (a lower bound than the default does not lower it)
        return _Streamed(spec, spec.name, codes, blocks, c.score_precision, spill,
                         stream_bound(max_bytes))
    run, report = read_run(spec, c, max_bytes=max_bytes)
    return _Loaded(run, report, codes, blocks)


def _score(qrels: Qrels, streams: list, names: list[str], blocks: _Blocks, k: int,
           c: Conventions, sweep: tuple[int, int], qrels_report: LoadReport | None,
           block_queries: int, *, reach: int, whole_sweep: bool) -> BlockEvaluation:
    """Every block of every run scored; `reach` bounds the columns the k suggestion's curves
    are summed over (the longest list as read, plus one: at least the width the lists have
    once scored), `whole_sweep` says the sweep was not asked for (it then ends at the
    longest list as scored, as `evaluate`'s does)."""
    lo, hi = sweep
    query_set = prepare_query_set(qrels, relevance_level=c.relevance_level)
    everyone = scored_queries(query_set, c)
    n = int(everyone.sum())
    resamples = resampled_queries(n, seed=c.seed, n_resamples=c.n_resamples)
    boot = [key for key, _, method in SWEEP_FIGURES if method == "bootstrap"]
    width = (hi - lo + 1)
    at_k_width = bootstrap_table({m.key: np.zeros(1) for m in SUMMARY_MEASURES}).shape[1]
    summed = resamples.accumulator([(at_k_width,)] * len(streams)
                                   + [(width * len(boot),)] * len(streams))
    kept = [_Gathered() for _ in streams]

    def one_run(index: int, query_set: QuerySet, stream, gathered: _Gathered):
        start, stop = blocks.span(index)
        at_k, sweep = _score_block(stream.block(index), stream, query_set,
                                   everyone[start:stop], k, c, lo, hi, gathered, reach)
        return bootstrap_table(at_k), sweep

    def submitted(index: int) -> list[Future]:
        if index >= blocks.count:
            return []
        query_set = blocks.query_set(index)
        return [pool.submit(one_run, index, query_set, stream, gathered)
                for stream, gathered in zip(streams, kept, strict=True)]

    # each run's block is read and scored in a thread of its own (arrow and numpy let go of
    # the GIL), and the next block while this one's resampled sums are multiplied; a run's
    # blocks still come one after the other, so what it keeps is kept in order
    with ThreadPoolExecutor(max_workers=_workers(len(streams))) as pool:
        pending = submitted(0)
        for index in range(blocks.count):
            done = [future.result() for future in pending]
            pending = submitted(index + 1)
            summed.add(*(table for table, _ in done), *(sweep for _, sweep in done))
    for stream, gathered in zip(streams, kept, strict=True):
        rest = stream.rest()
        if rest is not None:
            gathered.dropped += [ReportLine(int(line), IGNORED_REASON) for line in rest.line]
            gathered.ignored += [str(q) for q in rest.query_ids]
    distributions = summed.finish()
    runs = []
    ks = range(lo, hi + 1)
    longest = max(gathered.longest for gathered in kept)  # the lists as scored
    # the sweep `evaluate` draws when none is asked for: 1 to the longest list as scored (a
    # convention that drops ids may leave it shorter than read); each K's figures stand alone
    shown = max(longest, 1) if whole_sweep else hi
    for i, (stream, gathered, name) in enumerate(zip(streams, kept, names, strict=True)):
        at_k = {key: np.concatenate(parts) for key, parts in gathered.at_k.items()}
        table = bootstrap_table(at_k)
        summary = summaries_of([at_k], [table], [distributions[i]], c)[0]
        means = {"k": np.arange(lo, hi + 1)}
        for m in SUMMARY_MEASURES:
            if m.key in gathered.columns:
                column = np.concatenate(gathered.columns[m.key])[:, None]
                means[m.summary_key] = column.mean(axis=0) if len(column) else np.zeros(1)
            else:
                total = gathered.sums.get(m.key)
                means[m.summary_key] = (total / n if total is not None and n
                                        else np.zeros(width))
        bands = bands_of(None, distributions[len(streams) + i], gathered.hits, n, ks, c)
        means = {key: values[:shown - lo + 1] for key, values in means.items()}
        bands = [band for band in bands if band[0] <= shown]
        classes = np.concatenate(gathered.classes)
        suggestion, diagnosis = run_readings(
            at_k, {key: interval.mean for key, interval in summary.items()}, classes,
            _k_curves(gathered, k, longest + 1), query_set.n_relevant, k=k,
            longest_list=longest, answered=gathered.answered)
        runs.append(BlockRun(name, summary, at_k, means, bands,
                             tuple(str(q) for q in np.concatenate(gathered.missing)),
                             gathered.repeats, _report(stream, gathered), classes,
                             np.concatenate(gathered.query_repeats), suggestion, diagnosis,
                             tuple(dict.fromkeys(gathered.ignored))))
    return BlockEvaluation(k, c, (lo, shown), np.asarray(qrels.query_ids, dtype=object),
                           everyone, tuple(runs), qrels_report, block_queries, blocks.top)


def _k_curves(gathered: _Gathered, k: int, width: int) -> KCurves:
    """A run's KCurves from its blocks' sums, read at the width `evaluate` scores at (the
    longest list as scored, plus one): each column's sum stands alone, so the columns summed
    past it are let go."""
    lengths = np.concatenate(gathered.lengths)
    n = len(lengths)
    mean = {key: (total[:width] / n if n else np.zeros(width))
            for key, total in gathered.curve_sums.items()}
    if k <= width:
        at_k = (mean["recall"][k - 1], mean["precision"][k - 1])
    else:  # past the columns: the values at K, averaged as one column (`_mean`)
        at_k = tuple(_mean(np.concatenate(gathered.at_k_curves[key]))
                     for key in ("recall", "precision"))
    return KCurves(lengths, mean["recall"], mean["precision"], mean["noise"],
                   float(at_k[0]), float(at_k[1]))


def _workers(runs: int) -> int:
    """Threads scoring a block's runs: one a run, as many as there are cores (at least 2)."""
    return max(1, min(runs, max(2, os.cpu_count() or 1)))


def _score_block(run: Run | None, stream, query_set: QuerySet, scored: np.ndarray, k: int,
                 c: Conventions, lo: int, hi: int, gathered: _Gathered, reach: int):
    """One run's block: aligned, scored by the kernel, and what is kept of it."""
    if run is None:
        run = Run.from_lists(stream.name, {})
    if c.identical_ids == "drop":
        run, lines = run.without_identical_ids()
        gathered.dropped += [ReportLine(int(line), IDENTICAL_REASON) for line in lines]
    aligned = align(query_set, run)
    gathered.dropped += [ReportLine(int(line), IGNORED_REASON) for line in aligned.ignored_lines]
    gathered.ignored += aligned.ignored_queries
    if c.unjudged == "drop":
        condensed = aligned.judged_only()
        removed = int(aligned.returned.sum()) - int(condensed.returned.sum())
        if removed:
            gathered.removed += removed
            gathered.removed_queries += int((aligned.returned & ~aligned.graded)
                                            .any(axis=1).sum())
        aligned = condensed
    gathered.longest = max(gathered.longest, int(aligned.list_length.max(initial=0)))
    aligned = aligned.padded(int(aligned.list_length.max(initial=0)) + 1)
    scores = compute(query_set, aligned, c)
    gathered.missing.append(query_set.query_ids[~aligned.answered])
    gathered.repeats += int(scores.repeats[scored].sum())
    gathered.classes.append(query_classes(scores, query_set.n_relevant, k)[scored])
    gathered.query_repeats.append(aligned.repeats[scored])
    gathered.answered += int((scores.list_length[scored] > 0).sum())
    _gather_k_curves(scores, query_set.n_relevant, k, reach, gathered)
    at = scores.at(k)
    at_k = {m.key: at[m.key][scored] for m in MEASURES}
    for key, values in at_k.items():
        gathered.at_k.setdefault(key, []).append(values)
    # the bootstrap figures' curves side by side, as the accumulator takes them, each the
    # scored rows at K = lo..hi copied once into its columns
    rows = np.flatnonzero(scored)
    width = hi - lo + 1
    boot = [key for key, _, method in SWEEP_FIGURES if method == "bootstrap"]
    table = np.empty((len(rows), width * len(boot)))
    curves = {key: table[:, i * width:(i + 1) * width] for i, key in enumerate(boot)}
    for key, _, method in SWEEP_FIGURES:
        curve = _scored_curve(scores.values[key], rows, lo, hi, curves.get(key))
        curves[key] = curve
        if method == "wilson":
            hits = curve.sum(axis=0)
            gathered.hits[key] = hits if key not in gathered.hits else gathered.hits[key] + hits
    for m in SUMMARY_MEASURES:
        curve = curves[m.key]
        if curve.shape[1] == 1:  # numpy sums one column pairwise: kept whole, summed at once
            gathered.columns.setdefault(m.key, []).append(curve[:, 0].copy())
        else:
            gathered.sums[m.key] = _sequential(gathered.sums.get(m.key), curve)
    return at_k, table


def _gather_k_curves(scores, n_relevant: np.ndarray, k: int, reach: int,
                     gathered: _Gathered) -> None:
    """The block's part of the k suggestion's curves (metrics.core.diagnosis.k_curves):
    over its queries with a relevant id, recall, precision and noise at K = 1..reach added
    row after row to the sums so far, and their recall and precision at K kept."""
    rows = np.flatnonzero(n_relevant > 0)
    relevant = n_relevant[rows][:, None].astype(float)
    gathered.lengths.append(scores.list_length[rows])
    for key, values in (("recall", _scored_curve(scores.hits, rows, 1, reach, None) / relevant),
                        ("precision", _scored_curve(scores.values["P"], rows, 1, reach, None)),
                        ("noise", _scored_curve(scores.noise, rows, 1, reach, None))):
        gathered.curve_sums[key] = _sequential(gathered.curve_sums.get(key), values)
    for key, values in (("recall", scores.hits[rows, k - 1] / relevant[:, 0]),
                        ("precision", scores.values["P"][rows, k - 1])):
        gathered.at_k_curves.setdefault(key, []).append(np.asarray(values, dtype=float))


def _mean(values: np.ndarray) -> float:
    return values.mean() if len(values) else 0.0


def _scored_curve(values, rows: np.ndarray, lo: int, hi: int,
                  out: np.ndarray | None) -> np.ndarray:
    """A measure's values at K = lo..hi on the given rows, written into `out` when given."""
    stored = values.view(np.ndarray)
    if hi > stored.shape[1] or stored.dtype != np.float64:  # past the stored columns
        curve = np.asarray(values[rows, lo - 1:hi], dtype=float)
        if out is None:
            return curve
        out[:] = curve
        return out
    out = np.empty((len(rows), hi - lo + 1)) if out is None else out
    return np.take(stored[:, lo - 1:hi], rows, axis=0, out=out, mode="clip")


def _report(stream, gathered: _Gathered) -> LoadReport:
    report = stream.report()
    if gathered.dropped:
        report = report.with_dropped(gathered.dropped)
    if gathered.removed:
        note = UNJUDGED_NOTE.format(count=f"{gathered.removed:,}",
                                    queries=f"{gathered.removed_queries:,}")
        report = replace(report, notes=report.notes + (note,))
    return report


__all__ = ["DEFAULT_BLOCK_QUERIES", "BlockEvaluation", "BlockRun", "evaluate_blocks"]
