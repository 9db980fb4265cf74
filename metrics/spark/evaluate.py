"""evaluate_spark(qrels, runs, k) -> SparkEvaluation: the kernel inside Spark, aggregation on
the driver.

Spark holds the lists. The inputs' columns are found, and their rows numbered, as the
in-memory readers find and number them (the inputs section below). The qrels and the runs
are cogrouped by a block of query ids (a hash of the id: every row of a query lands in the
same block, a block holds many queries), and each block is scored in a Python worker by the
same code the in-memory path runs: its rows are read by the in-memory readers into `Qrels`
and `Run` objects, `prepare` aligns them, `compute` (the kernel) scores them, and only
per-query figures come back: every figure at K and at the sweep's cutoffs asked for, each
query's class, and the summary figures with the hits and noise at every K up to the longest
list (what the k suggestion and the default sweep read). The driver puts that table in the
qrels' query order and aggregates it with `summarise_runs`, `sweep_bands` and `run_readings`
over the same resampled queries `evaluate` draws: the means, intervals, suggestions and
diagnoses are those of the in-memory engine, digit for digit. Nothing here computes a
measure.

One block sees only its own queries, and the kernel reads nothing outside a block but ERR's
highest grade of the qrels, which the driver reads once and hands to every block.
"""

from __future__ import annotations

import dataclasses
import math
import os
import posixpath
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import unquote, urlparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.core.diagnosis import (
    Finding,
    KCurves,
    Suggestion,
    curves_of,
    query_classes,
    run_readings,
)
from metrics.core.evaluate import (
    DEFAULT_PER_QUERY,
    DEFAULT_SUMMARY,
    WithoutLists,
    scored_queries,
    sweep_specs_of,
)
from metrics.core.kernel import MEASURES, SUMMARY_MEASURES, compute
from metrics.core.prepared import prepare
from metrics.io import Qrels, Run
from metrics.io.arrow import numbers, strings
from metrics.io.loaders import columnar_qrels, columnar_run
from metrics.io.parquet import Columnar, bounded_layout, named_roles, source_files
from metrics.io.streams import MAX_INPUT_BYTES, check_max_bytes
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.summary import summarise_runs, sweep_bands
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k, check_sweep
from metrics.vocabulary.names import Spec
from metrics.vocabulary.spark import DEFAULT_MASTER, NO_SPARK, RUN_NAME_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkEvaluation", "SparkRun", "evaluate_spark", "spark_session"]

# the columns of the per-query table each block returns, beside the "<key>@<K>" figures
_ORDER, _LINE, _BLOCK, _KNOWN = "_order", "_line", "_block", "_known"
_HITS, _NOISE = "_hits", "_noise"  # the k suggestion's facts, beside the measures
_SUMMARY_KEYS = tuple(m.key for m in SUMMARY_MEASURES)
_FACTS = (("first_relevant_rank", pa.int64()), ("list_length", pa.int64()),
          ("repeats", pa.int64()))
_QUERY_FACTS = (("n_relevant", pa.int64()), ("scored", pa.bool_()), ("answered", pa.bool_()))
_DDL = {pa.string(): "string", pa.int64(): "long", pa.float64(): "double",
        pa.bool_(): "boolean"}
QUERIES_PER_BLOCK = 20_000  # rows of the kernel's arrays per call: ~150 MB at 100 ids a list


@dataclass(frozen=True, eq=False)
class SparkRun:
    """One run's per-query figures and summary, from Spark, and what is read of them."""

    name: str
    # one row a query of the query set, in its order: query_id, "<key>@<K>" for every default
    # measure at every cutoff scored (at K, the sweep's; the summary measures at every K up
    # to the longest list, with the hits and noise the k suggestion reads: "_hits@<K>",
    # "_noise@<K>"), class at K, first_relevant_rank, list_length, repeats, n_relevant,
    # scored, answered (the run has a list for it)
    table: pa.Table
    summary: dict[str, Interval]  # summary measure key -> mean and interval at K
    suggestion: Suggestion
    diagnosis: tuple[Finding, ...]
    ignored_queries: tuple[str, ...]  # run queries absent from the qrels, as read
    # (k, key, low, high) over the sweep asked for; None: computed when first asked
    sweep_intervals: tuple[tuple[int, str, float, float], ...] | None = None

    @property
    def missing_queries(self) -> tuple[str, ...]:
        """The qrels queries the run has no list for (they score 0)."""
        answered = self.table.column("answered").to_numpy(zero_copy_only=False)
        return tuple(strings(self.table.column("query_id").combine_chunks())[~answered])

    @property
    def repeats(self) -> int:
        """Repeated ids over the scored queries' whole lists."""
        return int(self.query_repeats.sum())

    @property
    def query_repeats(self) -> np.ndarray:
        """Each scored query's repeated ids."""
        return self.table.column("repeats").to_numpy()[self._scored]

    @property
    def classes(self) -> np.ndarray:
        """Each scored query's class at K."""
        return strings(self.table.column("class").combine_chunks())[self._scored]

    @property
    def _scored(self) -> np.ndarray:
        return self.table.column("scored").to_numpy(zero_copy_only=False)

    def values(self, key: str, k: int) -> np.ndarray:
        """One figure's per-query values at K, every query of the query set."""
        return self.table.column(f"{key}@{k}").to_numpy()


@dataclass(frozen=True, eq=False)
class SparkEvaluation(WithoutLists):
    """What Spark's evaluation holds (metrics.vocabulary.spark.WHAT_IT_HOLDS): per run its
    per-query figures and summary at K, its query classes, k suggestion and diagnosis, and
    the sweep's means and intervals. The in-memory `Evaluation` keeps every run's lists too,
    for the views that explain one query; these stay in Spark, so this is its own, smaller
    result."""

    engine: ClassVar[str] = "spark"
    k: int
    conventions: Conventions
    query_ids: np.ndarray  # every qrels query, in the query set's order
    scored: np.ndarray  # (n_queries,) bool: the queries every mean runs over
    runs: tuple[SparkRun, ...]
    sweep_range: tuple[int, int]  # the one asked for, else 1 to the longest list scored
    max_grade: int = 1  # the qrels' highest grade (ERR's scale), what a note may state

    @property
    def summary_specs(self) -> tuple[Spec, ...]:
        return DEFAULT_SUMMARY

    @property
    def query_specs(self) -> tuple[Spec, ...]:
        return DEFAULT_PER_QUERY

    @property
    def sweep_specs(self) -> tuple[Spec, ...]:
        return sweep_specs_of(DEFAULT_SUMMARY, self.conventions)

    def per_query_scores(self, name: str, k: int | None = None) -> dict[str, np.ndarray]:
        """Scored queries' values at K (default the evaluation's; K or a K of the sweep),
        keyed by measure key, as `Evaluation.per_query_scores` gives them."""
        run = self.run(name)
        return {m.key: run.values(m.key, k or self.k)[self.scored] for m in MEASURES}

    def query_repeats(self, name: str) -> np.ndarray:
        """Each scored query's repeated ids."""
        return self.run(name).query_repeats

    def sweep_means(self, name: str) -> dict[str, np.ndarray]:
        """Mean over scored queries of each summary measure at every K of the sweep."""
        lo, hi = self.sweep_range
        run = self.run(name)
        means = {"k": np.arange(lo, hi + 1)}
        for spec in self.sweep_specs:
            curve = np.column_stack([run.values(spec.key, k)[self.scored]
                                     for k in range(lo, hi + 1)])
            means[spec.name()] = curve.mean(axis=0) if len(curve) else np.zeros(hi - lo + 1)
        return means

    def sweep_intervals(self) -> list[tuple[str, int, str, float, float]]:
        """(run, k, summary key, low, high) at every K of the sweep, as
        `Evaluation.sweep_intervals` gives them."""
        return [(run.name, *row) for run in self.runs
                for row in (run.sweep_intervals if run.sweep_intervals is not None
                            else _bands(run.table, self.scored, self.sweep_range,
                                        self.conventions))]


def evaluate_spark(
    qrels: DataFrame | str | os.PathLike,
    runs: DataFrame | str | os.PathLike | Mapping[str, DataFrame | str | os.PathLike],
    k: int,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
    run_names: Sequence[str] | None = None,
    queries_per_block: int = QUERIES_PER_BLOCK,
    max_bytes: int = MAX_INPUT_BYTES,
) -> SparkEvaluation:
    """Score runs held as Spark DataFrames (or Parquet files and directories at the paths
    given, read by the active session); summarise at k, as `evaluate` does.

    The columns are those the in-memory readers accept, under the same names and
    alternative names in any case (`query_id`/`qid`, `doc_id`/`docid`/`pid`,
    `grade`/`relevance`/`label`, `rank` and/or `score`), and every row is read by the same
    code (metrics.io: the same checks, the same messages naming the file and the row).
    `runs` is one per run ({name: frame or path}) or one frame whose `run` column names each
    row's run; a list is ordered by its rank column when given, else by score descending,
    ties by doc id descending (a CSV run's order). `run_names` orders the runs of one frame
    (default sorted by name; a mapping keeps its own order). `sweep` (FROM, TO) also scores
    every K of that range. Rows are numbered, and queries ordered, as the in-memory reader
    does (metrics.vocabulary.spark.QUERY_ORDER_RULE). Only the default figures are scored.
    A Parquet file given by its path is refused before Spark reads it when what the block
    engine would read of it at once decodes past `max_bytes` (``bounded_layout``).
    """
    conventions = conventions or Conventions()
    check_k(k)
    if sweep is not None:
        sweep = check_sweep(*sweep)
    if queries_per_block < 1:
        raise ValueError(f"queries_per_block must be at least 1, got {queries_per_block}")
    check_max_bytes(max_bytes)
    with _refusals():
        return _evaluate(qrels, runs, k, conventions, sweep, run_names, queries_per_block,
                         max_bytes)


@contextmanager
def _refusals() -> Iterator[None]:
    """Spark's errors as one line: a block that refused its rows, the in-memory reader's own
    line (metrics.io names the file and the row); Spark failing to read, its first cause."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        yield
    except CapturedException as error:
        lines = [line for line in str(error).splitlines() if line.strip()]
        if type(error).__name__ == "PythonException":  # a block's reader refused its rows
            raise ValueError(lines[-1].split(": ", 1)[-1]) from None
        raise ValueError(f"Spark could not read the input: {lines[0] if lines else error}") \
            from None
    except Py4JJavaError as error:  # Spark could not read an input
        raise ValueError(f"Spark could not read the input: {_first_cause(error)}") from None


def _evaluate(qrels, runs, k: int, conventions: Conventions, sweep: tuple[int, int] | None,
              run_names: Sequence[str] | None, queries_per_block: int,
              max_bytes: int) -> SparkEvaluation:
    from pyspark.sql import functions as F

    cutoffs = sorted({k, *(range(sweep[0], sweep[1] + 1) if sweep else ())})
    labels = _read_input(qrels, "qrels", "qrels", max_bytes)
    lists, names, columns, sources = _runs(runs, run_names, max_bytes)
    names = tuple(names)
    if not names:
        raise ValueError("evaluate_spark needs at least one run")
    query = F.col("query").cast("string")  # ids compare as the readers write them
    top = labels.frame.agg(F.max(F.col("grade").try_cast("long")).alias("top"),
                           F.countDistinct(query).alias("n")).first()
    max_grade = max(int(top["top"] or 0), 1)
    # the longest list as read: the k suggestion's curves and the sweep `evaluate` draws
    # when none is asked for run to the longest as scored, which it bounds
    longest = (lists.groupBy(RUN_NAME_COLUMN, query).count()
               .agg(F.max("count").alias("longest")).first()["longest"]) or 0
    blocks = max(1, math.ceil(int(top["n"]) / queries_per_block))
    block = F.pmod(F.xxhash64(query), F.lit(blocks))
    scorer = _BlockScorer(names, conventions, k, tuple(cutoffs), int(longest) + 1, max_grade,
                          labels.named, tuple(sources[name] for name in names),
                          tuple(columns[name] for name in names))

    def score_block(labels: pa.Table, lists: pa.Table) -> pa.Table:
        return scorer(labels, lists)

    scored = (labels.frame.withColumn(_BLOCK, block).groupBy(_BLOCK)
              .cogroup(lists.withColumn(_BLOCK, block).groupBy(_BLOCK))
              .applyInArrow(score_block, scorer.schema()))
    return _aggregate(scored.toArrow(), names, k, conventions, sweep, max_grade)


def _first_cause(error) -> str:
    """What a Java exception says went wrong: the deepest of its causes that carries one of
    Spark's error classes ("[FAILED_READ_FILE...] ... reading file F ..."), else the
    innermost, on one line."""
    said, cause = [], error.java_exception
    while cause is not None:
        said.append(" ".join(str(cause.getMessage() or cause.toString()).split()))
        cause = cause.getCause()
    classed = [text for text in said if text.startswith("[")]
    return (classed or said)[-1].split(" SQLSTATE:")[0]


def spark_session(master: str = DEFAULT_MASTER, *, app_name: str = "retrieval-compare",
                  shuffle_partitions: int = 4, driver_memory: str = "2g") -> SparkSession:
    """A small Spark session: `master`, few shuffle partitions, no UI, the workers on this
    Python (so they import this engine as the driver does). ImportError when pyspark is not
    installed (pip install -e ".[spark]")."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as error:
        raise ImportError(NO_SPARK) from error
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return (SparkSession.builder.master(master).appName(app_name)
            .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
            .config("spark.default.parallelism", str(shuffle_partitions))
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", driver_memory)
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.pyspark.python", sys.executable)
            .getOrCreate())


# --------------------------------------------------------------------------- the inputs


@dataclass(frozen=True)
class _Input:
    """One input, read: its rows with the role columns as stored (named by their role, as
    the in-memory readers name them: metrics.io.detect) and each row's number (_LINE), and
    what names a row in messages (a Columnar without columns, as a streamed read's)."""

    frame: DataFrame
    roles: tuple[str, ...]
    named: Columnar


def _read_input(source: DataFrame | str | os.PathLike, kind: str, what: str,
                max_bytes: int) -> _Input:
    """A DataFrame, or the Parquet file or directory at a path (``_read_files``), with its
    columns found under the names the in-memory readers accept and its rows numbered as they
    number them: across a file scan's files in path order, each file's rows in file order (a
    row is named by its file and its row there); any other frame's rows in the order Spark
    reads them, named by `what`."""
    from pyspark.sql import functions as F

    if isinstance(source, str | os.PathLike):
        return _read_files(os.fspath(source), kind, max_bytes)
    files = _file_rows(source, None) if source.inputFiles() else None
    if files is not None:
        source_name, files, rows = files
        named = Columnar(source_name, "parquet", {}, np.zeros(0, np.int64),
                         tuple((name, before) for _, name, before in files))
        name, fmt = (files[0][1] if files else source_name), "parquet"
        offset = F.create_map(*(F.lit(v) for path, _, before in files for v in (path, before)))
        line = offset[F.col("_metadata.file_path")] + F.col("_metadata.row_index") + 1
    else:
        named = Columnar(what, "arrow", {}, np.zeros(0, np.int64))
        name, fmt = what, "arrow"
        line, rows = _read_order(source)
    roles = named_roles(name, source.columns, kind, fmt)
    if not rows:
        raise named.fail(None, "no data rows")
    kept = [F.col(f"`{column}`").alias(role) for role, column in roles.items()]
    if kind == "run" and RUN_NAME_COLUMN in source.columns:
        kept.append(F.col(RUN_NAME_COLUMN).cast("string").alias(RUN_NAME_COLUMN))
    return _Input(source.select(*kept, line.cast("long").alias(_LINE)), tuple(roles), named)


# the types a role of a directory's files is read as (metrics.io.parquet.layout), in Spark
_SPARK_TYPES = {pa.string(): "string", pa.int64(): "bigint", pa.float64(): "double",
                pa.decimal128(20, 0): "decimal(20,0)"}


def _read_files(root: str, kind: str, max_bytes: int) -> _Input:
    """The Parquet file or directory at `root`, checked first as every engine checks it
    (metrics.io.parquet.bounded_layout: its columns and their types, from the footers, and
    what each read of its rows decodes to, within `max_bytes` as the block engine's: a file
    it refuses is refused with the readers' line before Spark reads a row), then read
    by the active session: the ids as text (as the readers write them out); a role the files
    type otherwise, as the one type the in-memory reader reads it as (each file read on its
    own then: Spark reads a directory under one schema). Rows are numbered, and named, as the
    in-memory reader numbers and names them."""
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F

    checked = bounded_layout(root, None, kind, max_bytes)
    if not sum(checked.rows):
        raise checked.named.fail(None, "no data rows")
    session = SparkSession.getActiveSession() or spark_session()
    casts = [checked.casts(i) for i in range(len(checked.files))]
    if not any(casts):  # one read: each row's file and its offset, as Spark names the file
        frame = session.read.parquet(root)
        _, found, _ = _file_rows(frame, root)
        offset = F.create_map(*(F.lit(v) for path, _, before in found for v in (path, before)))
        parts = [(frame, checked.roles[0], {}, offset[F.col("_metadata.file_path")])]
    else:
        starts = np.cumsum((0, *checked.rows[:-1])).tolist()
        parts = [(session.read.parquet(path), checked.roles[i], casts[i], F.lit(starts[i]))
                 for i, (_, path) in enumerate(source_files(root, None))]
    frames = []
    for frame, roles, cast, start in parts:
        kept = [_as_read(F.col(f"`{column}`"), role, cast.get(role)).alias(role)
                for role, column in roles.items()]
        if kind == "run" and RUN_NAME_COLUMN in frame.columns:
            kept.append(F.col(RUN_NAME_COLUMN).cast("string").alias(RUN_NAME_COLUMN))
        line = (start + F.col("_metadata.row_index") + 1).cast("long").alias(_LINE)
        frames.append(frame.select(*kept, line))
    union = reduce(lambda a, b: DataFrame.unionByName(a, b, allowMissingColumns=True), frames)
    return _Input(union, tuple(checked.types), checked.named)


def _as_read(column, role: str, kind: pa.DataType | None):
    """A role's column as the in-memory reader reads it: ids as text, a role the files type
    otherwise as `kind`, any other as Spark read it (the readers take its type)."""
    if role in ("query", "doc"):
        return column.cast("string")
    return column if kind is None else column.cast(_SPARK_TYPES[kind])


def _file_rows(frame: DataFrame, root: str | None
               ) -> tuple[str, list[tuple[str, str, int]], int] | None:
    """A file scan's name, its files in path order (path as Spark's _metadata gives it, its
    name in messages, the rows of the files before it) and its rows, named as
    metrics.io.parquet names a file or a directory's files (`root`, when known, is the path
    given); None for a frame handed over that holds no row of a file."""
    from pyspark.sql import functions as F

    counts = frame.groupBy(F.col("_metadata.file_path").alias("path")).count().collect()
    paths = sorted((_local(row["path"]), row["path"], row["count"]) for row in counts)
    if not paths:
        return None if root is None else (posixpath.basename(root.rstrip("/")), [], 0)
    local = [path for path, _, _ in paths]
    if root is not None:
        top = _local(root if "://" in root else os.path.abspath(root)).rstrip("/")
        single = len(local) == 1 and local[0] == top
    else:  # a frame handed over: its files under their common folder
        single = len(local) == 1
        top = posixpath.dirname(local[0]) if single else posixpath.commonpath(local)
    base = posixpath.basename(top) or top
    found, before = [], 0
    for path, given, count in paths:
        found.append((given, posixpath.basename(path) if single
                      else posixpath.join(base, posixpath.relpath(path, top)), before))
        before += count
    return (found[0][1] if single else base), found, before


def _local(path: str) -> str:
    """A file's path without its scheme and its %-escapes, as the file system names it."""
    return unquote(urlparse(path).path) if "://" in path or path.startswith("file:") else path


def _read_order(frame: DataFrame):
    """Each row's 1-based number in the order Spark reads the frame, and its rows: a row's
    partition's offset (one small count per partition) plus its position within the
    partition (monotonically_increasing_id keeps that position in its low 33 bits)."""
    from pyspark.sql import functions as F

    partition = F.spark_partition_id()
    sizes = sorted(frame.groupBy(partition.alias("p")).count().collect())
    offsets, before = [], 0
    for row in sizes:
        offsets += [F.lit(row["p"]), F.lit(before)]
        before += row["count"]
    if not offsets:
        return F.monotonically_increasing_id() + 1, 0
    return (F.create_map(*offsets)[partition] + F.monotonically_increasing_id()
            - F.shiftleft(partition.cast("long"), 33) + 1), before


def _runs(runs: DataFrame | str | os.PathLike | Mapping[str, DataFrame | str | os.PathLike],
          run_names: Sequence[str] | None, max_bytes: int
          ) -> tuple[DataFrame, list[str], dict, dict]:
    """One frame of every run's rows (query, doc, its rank and/or score as stored, run,
    _LINE), the run names, and per run its columns (role -> column of that frame) and what
    names its rows. Runs given apart keep their rank and score columns apart, each as its
    file types it (one run's text ranks and another's floats are each read as the in-memory
    reader reads them); their ids share a column, as text when the runs type them otherwise."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    if isinstance(runs, Mapping):
        read = {name: _read_input(frame, "run", f"run {name!r}", max_bytes)
                for name, frame in runs.items()}
        names = list(runs)
        ids = {role: _id_type([found.frame.schema[role].dataType for found in read.values()])
               for role in ("query", "doc")}
        columns, parts = {}, []
        for i, (name, found) in enumerate(read.items()):
            own = {role: f"_{i}_{role}" for role in found.roles if role not in ids}
            columns[name] = {**{role: role for role in ids}, **own}
            parts.append(found.frame.select(
                *(F.col(role).cast(ids[role]) for role in ids),
                *(F.col(role).alias(column) for role, column in own.items()),
                F.lit(name).alias(RUN_NAME_COLUMN), F.col(_LINE)))
        union = reduce(lambda a, b: DataFrame.unionByName(a, b, allowMissingColumns=True),
                       parts)
        sources = {name: found.named for name, found in read.items()}
    else:
        found = _read_input(runs, "run", "runs", max_bytes)
        if RUN_NAME_COLUMN not in found.frame.columns:
            raise ValueError(f"runs: one frame of several runs names each row's run in a "
                             f"{RUN_NAME_COLUMN!r} column (it has {', '.join(found.roles)})")
        union = found.frame
        present = sorted(r[0] for r in union.select(RUN_NAME_COLUMN).distinct().collect())
        names = list(run_names) if run_names is not None else present
        unknown = sorted(set(present) - set(names))
        if unknown:
            raise ValueError(f"runs: run_names leaves out {', '.join(map(repr, unknown))}")
        columns = {name: {role: role for role in found.roles} for name in names}
        sources = {name: found.named for name in names}
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {names}")
    return union, names, columns, sources


def _id_type(types: list):
    """The type the runs' ids are put together under: theirs when they agree, else text
    (integers written out, as the readers write them)."""
    from pyspark.sql.types import StringType

    return types[0] if all(t == types[0] for t in types) else StringType()


# --------------------------------------------------------------------------- one block


@dataclass(frozen=True)
class _BlockScorer:
    """The function each cogrouped block runs in a Python worker: its qrels rows and every
    run's rows, read by the in-memory readers (metrics.io.loaders), -> one row per (run,
    qrels query of the block) of per-query figures."""

    names: tuple[str, ...]
    conventions: Conventions
    k: int
    cutoffs: tuple[int, ...]  # every figure is kept at these (K, the sweep asked for)
    reach: int  # the summary figures, hits and noise at K = 1..reach (the longest list + 1)
    max_grade: int
    qrels_named: Columnar  # what names a qrels row in messages
    runs_named: tuple[Columnar, ...]  # and each run's
    run_columns: tuple[dict[str, str], ...]  # each run's role -> its column of the rows

    def schema(self) -> str:
        """The returned table's schema as Spark's DDL."""
        return ", ".join(f"`{f.name}` {_DDL[f.type]}" for f in self._arrow_schema())

    def __call__(self, labels: pa.Table, lists: pa.Table) -> pa.Table:
        # the qrels read first, then each run in its order, as the in-memory command reads
        # them: a block holding two bad rows is refused on the same one
        qrels, first_line = self._block_qrels(labels) if labels.num_rows else (None, None)
        runs = [self._block_run(lists, name, named, columns) for name, named, columns
                in zip(self.names, self.runs_named, self.run_columns, strict=True)]
        if qrels is None:  # run queries absent from the qrels alone: ignored
            return pa.concat_tables([self._ignored(run, run.query_ids) for run in runs])
        c = self.conventions
        prepared = prepare(qrels, runs, relevance_level=c.relevance_level,
                           identical_ids=c.identical_ids)
        query_set = dataclasses.replace(  # ERR's scale: the whole qrels', not the block's
            prepared.query_set, max_grade=np.full(len(qrels.query_ids), self.max_grade))
        scored = scored_queries(query_set, c)
        tables = []
        for run, aligned in zip(prepared.runs, prepared.aligned, strict=True):
            if c.unjudged == "drop":
                aligned = aligned.judged_only()
            scores = compute(query_set, aligned, c)
            columns = {"query_id": pa.array(list(query_set.query_ids), pa.string()),
                       "run": pa.array([run.name] * len(scored), pa.string()),
                       _ORDER: pa.array(first_line, pa.int64()), _KNOWN: pa.array(
                           np.ones(len(scored), dtype=bool))}
            kept = scores.figures(self.cutoffs)
            every = scores.figures(range(1, self.reach + 1))
            for figures, keys in ((kept, kept.values), (every, _SUMMARY_KEYS)):
                columns |= {f"{key}@{k}": pa.array(values[:, i]) for key, values
                            in ((key, figures.values[key]) for key in keys)
                            for i, k in enumerate(figures.cutoffs)}
                columns |= {f"{key}@{k}": pa.array(values[:, i]) for key, values
                            in ((_HITS, figures.hits), (_NOISE, figures.noise))
                            for i, k in enumerate(figures.cutoffs)}
            columns |= {"class": pa.array(query_classes(scores, query_set.n_relevant,
                                                        self.k).tolist(), pa.string()),
                        "first_relevant_rank": pa.array(scores.first_relevant_rank),
                        "list_length": pa.array(scores.list_length),
                        "repeats": pa.array(aligned.repeats),
                        "n_relevant": pa.array(query_set.n_relevant),
                        "scored": pa.array(scored), "answered": pa.array(aligned.answered)}
            tables.append(pa.table(columns).select(self._arrow_schema().names)
                          .cast(self._arrow_schema()))
            tables.append(self._ignored(run, aligned.ignored_queries))
        return pa.concat_tables(tables)

    def _ignored(self, run: Run, queries) -> pa.Table:
        """A row for each of the run's queries the qrels do not hold (its figures null),
        placed by its first line, so that the driver lists them as the reader read them."""
        first = np.full(len(run.query_ids), np.iinfo(np.int64).max)
        np.minimum.at(first, run.query_code, run.line)
        position = {str(q): i for i, q in enumerate(run.query_ids)}
        rows = [position[str(q)] for q in queries]
        columns = {"query_id": pa.array([str(q) for q in queries], pa.string()),
                   "run": pa.array([run.name] * len(rows), pa.string()),
                   _ORDER: pa.array(first[rows] if rows else [], pa.int64()),
                   _KNOWN: pa.array([False] * len(rows), pa.bool_())}
        schema = self._arrow_schema()
        return pa.table({f.name: columns.get(f.name, pa.nulls(len(rows), f.type))
                         for f in schema}, schema=schema)

    def _arrow_schema(self) -> pa.Schema:
        fields = [("query_id", pa.string()), ("run", pa.string()), (_ORDER, pa.int64()),
                  (_KNOWN, pa.bool_())]
        figures = dict.fromkeys(f"{key}@{k}" for key in (*(m.key for m in MEASURES), _HITS,
                                                         _NOISE) for k in self.cutoffs)
        figures |= dict.fromkeys(f"{key}@{k}" for key in (*_SUMMARY_KEYS, _HITS, _NOISE)
                                 for k in range(1, self.reach + 1))
        fields += [(name, pa.float64()) for name in figures]
        return pa.schema(fields + [("class", pa.string())] + list(_FACTS)
                         + list(_QUERY_FACTS))

    def _block_qrels(self, labels: pa.Table) -> tuple[Qrels, np.ndarray]:
        """The block's judgments as the in-memory reader reads them (an identical repeated
        judgment dropped, one of another grade refused), its queries in the order they were
        read, and each query's first line (its place in the whole query set's order)."""
        labels = labels.take(pc.sort_indices(labels, sort_keys=[(_LINE, "ascending")]))
        lines = numbers(labels.column(_LINE).combine_chunks()).astype(np.int64)
        qrels, _ = columnar_qrels(self.qrels_named,
                                  _columns(labels, ("query", "doc", "grade")), lines)
        first_line = np.full(len(qrels.query_ids), np.iinfo(np.int64).max)
        np.minimum.at(first_line, qrels.query_code, qrels.line)
        return qrels, first_line

    def _block_run(self, lists: pa.Table, name: str, named: Columnar,
                   columns: dict[str, str]) -> Run:
        """One run's rows of the block as the in-memory reader reads them: checked and each
        list in its order (a rank column's, else the scores')."""
        rows = lists.filter(pc.equal(lists.column(RUN_NAME_COLUMN), name))
        if not rows.num_rows:
            return Run.from_lists(name, {})
        rows = rows.take(pc.sort_indices(rows, sort_keys=[(_LINE, "ascending")]))
        lines = numbers(rows.column(_LINE).combine_chunks()).astype(np.int64)
        run, _ = columnar_run(named, {role: rows.column(column).combine_chunks()
                                      for role, column in columns.items()}, lines, name,
                              self.conventions.score_precision)
        return run


def _columns(table: pa.Table, roles: Sequence[str]) -> dict[str, pa.Array]:
    return {role: table.column(role).combine_chunks() for role in roles}


# --------------------------------------------------------------------------- the driver


def _aggregate(table: pa.Table, names: Sequence[str], k: int, conventions: Conventions,
               sweep: tuple[int, int] | None, max_grade: int) -> SparkEvaluation:
    """The per-query table Spark returned -> each run's summary, readings (query classes, k
    suggestion, diagnosis) and sweep bands, over the resampled queries `evaluate` draws for
    the same scored queries; the run queries the qrels do not hold, in the order read."""
    per_run, ignored = [], []
    for name in names:
        rows = table.filter(pc.equal(table.column("run"), name))
        rows = rows.take(pc.sort_indices(rows, sort_keys=[(_ORDER, "ascending")]))
        known = rows.column(_KNOWN).to_numpy(zero_copy_only=False)
        ignored.append(tuple(dict.fromkeys(
            strings(rows.column("query_id").combine_chunks())[~known])))
        per_run.append(rows.filter(pa.array(known)).drop_columns(["run", _ORDER, _KNOWN]))
    first = per_run[0]
    query_ids = strings(first.column("query_id").combine_chunks()).astype(object)
    scored = first.column("scored").to_numpy(zero_copy_only=False)
    n_relevant = first.column("n_relevant").to_numpy()
    resamples = resampled_queries(int(scored.sum()), seed=conventions.seed,
                                  n_resamples=conventions.n_resamples)
    at_ks = [{m.key: rows.column(f"{m.key}@{k}").to_numpy()[scored] for m in MEASURES}
             for rows in per_run]
    summaries = summarise_runs([{m.key: at_k[m.key] for m in SUMMARY_MEASURES}
                                for at_k in at_ks], resamples, conventions)
    # the lists as scored: the width `evaluate` scores at, and its sweep when none is asked
    longest = max(int(pc.max(rows.column("list_length")).as_py() or 0) for rows in per_run)
    asked, sweep = sweep, sweep or (1, max(longest, 1))
    runs = []
    for name, rows, at_k, summary, left_out in zip(names, per_run, at_ks, summaries, ignored,
                                                   strict=True):
        lengths = rows.column("list_length").to_numpy()
        suggestion, diagnosis = run_readings(
            at_k, {key: interval.mean for key, interval in summary.items()},
            strings(rows.column("class").combine_chunks())[scored],
            _k_curves(rows, n_relevant, k, longest + 1), n_relevant, k=k,
            longest_list=longest, answered=int((lengths[scored] > 0).sum()))
        bands = None if asked is None else tuple(_bands(rows, scored, sweep, conventions))
        runs.append(SparkRun(name, rows, summary, suggestion, diagnosis, left_out, bands))
    return SparkEvaluation(k, conventions, query_ids, scored, tuple(runs), sweep, max_grade)


def _k_curves(rows: pa.Table, n_relevant: np.ndarray, k: int, width: int) -> KCurves:
    """A run's KCurves (metrics.core.diagnosis) from its per-query hits, precision and noise
    at K = 1..width, the width `evaluate` scores at, over the queries with a relevant id."""
    relevant = n_relevant > 0

    def curve(key: str, ks) -> np.ndarray:
        return np.column_stack([rows.column(f"{key}@{j}").to_numpy()[relevant] for j in ks])

    past = (None if k <= width
            else (rows.column(f"{_HITS}@{k}").to_numpy()[relevant],
                  rows.column(f"P@{k}").to_numpy()[relevant]))
    ks = range(1, width + 1)
    return curves_of(curve(_HITS, ks), curve("P", ks), curve(_NOISE, ks),
                     rows.column("list_length").to_numpy()[relevant], n_relevant[relevant], k,
                     past)


def _bands(rows: pa.Table, scored: np.ndarray, sweep: tuple[int, int],
           conventions: Conventions) -> list[tuple[int, str, float, float]]:
    """(k, key, low, high) of every summary figure at every K of the sweep."""
    ks = range(sweep[0], sweep[1] + 1)
    return sweep_bands({m.key: np.column_stack([rows.column(f"{m.key}@{j}").to_numpy()[scored]
                                                for j in ks]) for m in SUMMARY_MEASURES},
                       ks, conventions)
