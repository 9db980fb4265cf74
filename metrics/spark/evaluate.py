"""evaluate_spark(qrels, runs, k) -> SparkEvaluation: the kernel inside Spark, aggregation on
the driver.

Spark holds the lists. The qrels and the runs are cogrouped by a block of query ids (a hash of
the id: every row of a query lands in the same block, a block holds many queries), and each
block is scored in a Python worker by the same code the in-memory path runs: its rows become
`Qrels` and `Run` objects, `prepare` aligns them, `compute` (the kernel) scores them, and
`Scores.figures(...).table(...)` keeps only the cutoffs asked for (K, and the sweep's when one
is asked for). The driver collects that per-query table (queries x figures, small beside the
lists), puts it in the qrels' query order, and aggregates it with `summarise_runs` and
`sweep_bands` over the same resampled queries `evaluate` draws: the means and intervals are
those of the in-memory engine, digit for digit. Nothing here computes a measure.

One block sees only its own queries, and the kernel reads nothing outside a block but ERR's
highest grade of the qrels, which the driver reads once and hands to every block.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
from metrics.io.codes import encode, encode_blocks, repeated_pairs
from metrics.stats.bootstrap import draw_resamples
from metrics.stats.intervals import Interval
from metrics.stats.summary import summarise_runs, sweep_bands
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k, check_sweep
from metrics.vocabulary.names import Spec
from metrics.vocabulary.spark import (
    DEFAULT_MASTER,
    NO_SPARK,
    ORDER_COLUMNS,
    QRELS_COLUMNS,
    RUN_COLUMNS,
    RUN_NAME_COLUMN,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkEvaluation", "SparkRun", "evaluate_spark", "spark_session"]

# the columns of the per-query table each block returns, beside the "<key>@<K>" figures
_ORDER, _LINE, _BLOCK = "_order", "_line", "_block"
_FACTS = (("first_relevant_rank", pa.int64()), ("list_length", pa.int64()),
          ("repeats", pa.int64()))
_QUERY_FACTS = (("n_relevant", pa.int64()), ("scored", pa.bool_()), ("answered", pa.bool_()))
_DDL = {pa.string(): "string", pa.int64(): "long", pa.float64(): "double",
        pa.bool_(): "boolean"}
QUERIES_PER_BLOCK = 20_000  # rows of the kernel's arrays per call: ~150 MB at 100 ids a list


@dataclass(frozen=True, eq=False)
class SparkRun:
    """One run's per-query figures and summary, from Spark."""

    name: str
    # one row a query of the query set, in its order: query_id, "<key>@<K>" for every default
    # measure at every cutoff scored, first_relevant_rank, list_length, repeats, n_relevant,
    # scored, answered (the run has a list for it)
    table: pa.Table
    summary: dict[str, Interval]  # summary measure key -> mean and interval at K
    sweep_intervals: tuple[tuple[int, str, float, float], ...] = ()  # (k, key, low, high)

    @property
    def missing_queries(self) -> tuple[str, ...]:
        """The qrels queries the run has no list for (they score 0)."""
        answered = self.table.column("answered").to_numpy(zero_copy_only=False)
        return tuple(strings(self.table.column("query_id").combine_chunks())[~answered])

    @property
    def repeats(self) -> int:
        """Repeated ids over the scored queries' whole lists."""
        scored = self.table.column("scored").to_numpy(zero_copy_only=False)
        return int(self.table.column("repeats").to_numpy()[scored].sum())

    def values(self, key: str, k: int) -> np.ndarray:
        """One figure's per-query values at K, every query of the query set."""
        return self.table.column(f"{key}@{k}").to_numpy()


@dataclass(frozen=True, eq=False)
class SparkEvaluation(WithoutLists):
    """What Spark's evaluation holds (metrics.vocabulary.spark.WHAT_IT_HOLDS): per run its
    per-query figures and summary at K, and the sweep's means and intervals when asked for.
    The in-memory `Evaluation` keeps every run's lists too, for the views that explain one
    query; these stay in Spark, so this is its own, smaller result."""

    k: int
    conventions: Conventions
    query_ids: np.ndarray  # every qrels query, in the query set's order
    scored: np.ndarray  # (n_queries,) bool: the queries every mean runs over
    runs: tuple[SparkRun, ...]
    sweep_range: tuple[int, int] | None = None
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

    def sweep_means(self, name: str) -> dict[str, np.ndarray]:
        """Mean over scored queries of each summary measure at every K of the sweep."""
        lo, hi = self._sweep()
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
        self._sweep()
        return [(run.name, *row) for run in self.runs for row in run.sweep_intervals]

    def _sweep(self) -> tuple[int, int]:
        if self.sweep_range is None:
            raise ValueError("no sweep was scored: pass sweep=(FROM, TO) to evaluate_spark")
        return self.sweep_range


def evaluate_spark(
    qrels: DataFrame,
    runs: DataFrame | Mapping[str, DataFrame],
    k: int,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
    run_names: Sequence[str] | None = None,
    queries_per_block: int = QUERIES_PER_BLOCK,
) -> SparkEvaluation:
    """Score runs held as Spark DataFrames; summarise at k, as `evaluate` does.

    `qrels` carries query_id, doc_id, grade; `runs` is one DataFrame per run ({name: frame})
    or one frame whose `run` column names each row's run, each with query_id, doc_id and a
    rank and/or a score column (the rank orders the list when given, else score descending,
    ties by doc_id descending: a CSV run's order). `run_names` orders the runs of one frame
    (default sorted by name; a mapping keeps its own order). `sweep` (FROM, TO) also scores
    every K of that range. Queries follow the qrels' row order as Spark reads it
    (metrics.vocabulary.spark.QUERY_ORDER_RULE). Only the default figures are scored.
    """
    from pyspark.sql import functions as F

    conventions = conventions or Conventions()
    check_k(k)
    if sweep is not None:
        sweep = check_sweep(*sweep)
    if queries_per_block < 1:
        raise ValueError(f"queries_per_block must be at least 1, got {queries_per_block}")
    cutoffs = sorted({k, *(range(sweep[0], sweep[1] + 1) if sweep else ())})
    qrels = _columns(qrels, QRELS_COLUMNS, (), "qrels")
    runs, names = _runs(runs, run_names)
    names = tuple(names)
    if not names:
        raise ValueError("evaluate_spark needs at least one run")
    qrels = qrels.select(F.col("query_id").cast("string"), F.col("doc_id").cast("string"),
                         F.col("grade").cast("long"),
                         F.monotonically_increasing_id().alias(_LINE))
    top = qrels.agg(F.max("grade").alias("top"), F.countDistinct("query_id").alias("n")).first()
    max_grade = max(int(top["top"] or 0), 1)
    blocks = max(1, math.ceil(int(top["n"]) / queries_per_block))
    block = F.pmod(F.xxhash64("query_id"), F.lit(blocks))
    scorer = _BlockScorer(names, conventions, tuple(cutoffs), max_grade,
                          has_rank="rank" in runs.columns, has_score="score" in runs.columns)

    def score_block(labels: pa.Table, lists: pa.Table) -> pa.Table:
        return scorer(labels, lists)

    scored = (qrels.withColumn(_BLOCK, block).groupBy(_BLOCK)
              .cogroup(runs.withColumn(_BLOCK, block).groupBy(_BLOCK))
              .applyInArrow(score_block, scorer.schema()))
    return _aggregate(scored.toArrow(), names, k, conventions, sweep, max_grade)


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


def _columns(frame: DataFrame, required: Sequence[str], one_of: Sequence[str],
             what: str) -> DataFrame:
    missing = [c for c in required if c not in frame.columns]
    if one_of and not any(c in frame.columns for c in one_of):
        missing.append(" or ".join(one_of))
    if missing:
        raise ValueError(f"{what}: the DataFrame lacks the column {', '.join(missing)} "
                         f"(it has {', '.join(frame.columns) or 'none'})")
    return frame


def _runs(runs: DataFrame | Mapping[str, DataFrame],
          run_names: Sequence[str] | None) -> tuple[DataFrame, list[str]]:
    """One frame of every run's rows: query_id, doc_id, run, rank and/or score, _line."""
    from pyspark.sql import functions as F

    if isinstance(runs, Mapping):
        frames = [(name, _columns(frame, RUN_COLUMNS, ORDER_COLUMNS, f"run {name!r}"))
                  for name, frame in runs.items()]
        order = [c for c in ORDER_COLUMNS if all(c in f.columns for _, f in frames)]
        if not order:
            raise ValueError("the runs share neither a rank nor a score column")
        parts = [_run_rows(frame.withColumn(RUN_NAME_COLUMN, F.lit(name)), order)
                 for name, frame in frames]
        union = parts[0]
        for part in parts[1:]:
            union = union.unionByName(part)
        names = list(runs)
    else:
        frame = _columns(runs, (*RUN_COLUMNS, RUN_NAME_COLUMN), ORDER_COLUMNS, "runs")
        union = _run_rows(frame, [c for c in ORDER_COLUMNS if c in frame.columns])
        found = sorted(r[0] for r in frame.select(RUN_NAME_COLUMN).distinct().collect())
        names = list(run_names) if run_names is not None else found
        unknown = sorted(set(found) - set(names))
        if unknown:
            raise ValueError(f"runs: run_names leaves out {', '.join(map(repr, unknown))}")
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {names}")
    return union, names


def _run_rows(frame: DataFrame, order: Sequence[str]) -> DataFrame:
    from pyspark.sql import functions as F

    kinds = {"rank": "long", "score": "double"}
    return frame.select(F.col("query_id").cast("string"), F.col("doc_id").cast("string"),
                        F.col(RUN_NAME_COLUMN).cast("string"),
                        *(F.col(c).cast(kinds[c]) for c in order),
                        F.monotonically_increasing_id().alias(_LINE))


# --------------------------------------------------------------------------- one block


@dataclass(frozen=True)
class _BlockScorer:
    """The function each cogrouped block runs in a Python worker: its qrels rows and every
    run's rows -> one row per (run, qrels query of the block) of per-query figures."""

    names: tuple[str, ...]
    conventions: Conventions
    cutoffs: tuple[int, ...]
    max_grade: int
    has_rank: bool
    has_score: bool

    def schema(self) -> str:
        """The returned table's schema as Spark's DDL."""
        return ", ".join(f"`{f.name}` {_DDL[f.type]}" for f in self._arrow_schema())

    def __call__(self, labels: pa.Table, lists: pa.Table) -> pa.Table:
        if not labels.num_rows:  # run queries absent from the qrels: ignored
            return pa.Table.from_pylist([], schema=self._arrow_schema())
        qrels, first_line = _block_qrels(labels)
        runs = [self._block_run(lists, name) for name in self.names]
        c = self.conventions
        prepared = prepare(qrels, runs, relevance_level=c.relevance_level,
                           identical_ids=c.identical_ids)
        query_set = dataclasses.replace(  # ERR's scale: the whole qrels', not the block's
            prepared.query_set, max_grade=np.full(len(qrels.query_ids), self.max_grade))
        scored = scored_queries(query_set, c)
        tables = []
        for name, aligned in zip(self.names, prepared.aligned, strict=True):
            if c.unjudged == "drop":
                aligned = aligned.judged_only()
            figures = compute(query_set, aligned, c).figures(self.cutoffs)
            table = figures.table(query_set.query_ids)
            table = table.add_column(1, "run", pa.array([name] * table.num_rows, pa.string()))
            table = table.add_column(2, _ORDER, pa.array(first_line, pa.int64()))
            for column, values in (("n_relevant", query_set.n_relevant), ("scored", scored),
                                   ("answered", aligned.answered)):
                table = table.append_column(column, pa.array(values))
            tables.append(table.cast(self._arrow_schema()))
        return pa.concat_tables(tables)

    def _arrow_schema(self) -> pa.Schema:
        fields = [("query_id", pa.string()), ("run", pa.string()), (_ORDER, pa.int64())]
        fields += [(f"{m.key}@{k}", pa.float64()) for m in MEASURES for k in self.cutoffs]
        return pa.schema(fields + list(_FACTS) + list(_QUERY_FACTS))

    def _block_run(self, lists: pa.Table, name: str) -> Run:
        """One run's rows of the block as a Run, each list in its order (ORDER_RULE)."""
        rows = lists.filter(pc.equal(lists.column(RUN_NAME_COLUMN), name))
        if self.has_rank:
            keys = [("query_id", "ascending"), ("rank", "ascending"), (_LINE, "ascending")]
        else:
            if self.conventions.score_precision == "float32":
                rows = rows.set_column(rows.schema.get_field_index("score"), "score",
                                       pc.cast(rows.column("score"), pa.float32()))
            keys = [("query_id", "ascending"), ("score", "descending"),
                    ("doc_id", "descending"), (_LINE, "ascending")]
        rows = rows.take(pc.sort_indices(rows, sort_keys=keys))
        query_code, query_ids = encode_blocks(rows.column("query_id").combine_chunks())
        score = (rows.column("score").to_numpy().astype(np.float64)
                 if "score" in rows.column_names else None)
        return Run(name=name, source=name, query_ids=strings(query_ids), query_code=query_code,
                   doc_ids=rows.column("doc_id").combine_chunks(),
                   line=np.arange(1, rows.num_rows + 1, dtype=np.int64), score=score)


def _block_qrels(labels: pa.Table) -> tuple[Qrels, np.ndarray]:
    """The block's judgments as Qrels, its queries in the order the qrels were read, and
    each query's first line (its place in the whole query set's order). An identical
    repeated judgment is dropped, as the readers drop it; a repeated one of another grade is
    refused."""
    labels = labels.take(pc.sort_indices(labels, sort_keys=[(_LINE, "ascending")]))
    query_code, query_names = encode(labels.column("query_id").combine_chunks())
    doc_code, doc_names = encode(labels.column("doc_id").combine_chunks())
    grade = numbers(labels.column("grade").combine_chunks()).astype(np.int64)
    line = numbers(labels.column(_LINE).combine_chunks()).astype(np.int64)
    repeats, first = repeated_pairs(query_code, doc_code)
    conflict = np.flatnonzero(grade[repeats] != grade[first])
    if len(conflict):
        row, earlier = repeats[conflict[0]], first[conflict[0]]
        raise ValueError(f"qrels: query {query_names[query_code[row]].as_py()!r} doc "
                         f"{doc_names[doc_code[row]].as_py()!r} has grade {grade[row]} and "
                         f"grade {grade[earlier]}")
    keep = np.ones(len(line), dtype=bool)
    keep[repeats] = False
    first_line = np.full(len(query_names), np.iinfo(np.int64).max)
    np.minimum.at(first_line, query_code, line)
    qrels = Qrels(source="qrels", query_ids=strings(query_names), query_code=query_code[keep],
                  doc_code=doc_code[keep], doc_names=doc_names, grade=grade[keep],
                  line=line[keep])
    return qrels, first_line


# --------------------------------------------------------------------------- the driver


def _aggregate(table: pa.Table, names: Sequence[str], k: int, conventions: Conventions,
               sweep: tuple[int, int] | None, max_grade: int) -> SparkEvaluation:
    """The per-query table Spark returned -> each run's summary (and sweep bands), over the
    resampled queries `evaluate` draws for the same scored queries."""
    per_run = []
    for name in names:
        rows = table.filter(pc.equal(table.column("run"), name))
        rows = rows.take(pc.sort_indices(rows, sort_keys=[(_ORDER, "ascending")]))
        per_run.append(rows.drop_columns(["run", _ORDER]))
    first = per_run[0]
    query_ids = strings(first.column("query_id").combine_chunks()).astype(object)
    scored = first.column("scored").to_numpy(zero_copy_only=False)
    resamples = draw_resamples(int(scored.sum()), n_resamples=conventions.n_resamples,
                               rng=np.random.default_rng(conventions.seed))
    at_ks = [{m.key: rows.column(f"{m.key}@{k}").to_numpy()[scored] for m in SUMMARY_MEASURES}
             for rows in per_run]
    summaries = summarise_runs(at_ks, resamples, conventions)
    bands: list[tuple] = [()] * len(per_run)
    if sweep is not None:
        ks = range(sweep[0], sweep[1] + 1)
        bands = [tuple(sweep_bands(
            {m.key: np.column_stack([rows.column(f"{m.key}@{j}").to_numpy()[scored]
                                     for j in ks]) for m in SUMMARY_MEASURES},
            ks, conventions)) for rows in per_run]
    runs = tuple(SparkRun(name, rows, summary, band)
                 for name, rows, summary, band in zip(names, per_run, summaries, bands,
                                                      strict=True))
    return SparkEvaluation(k, conventions, query_ids, scored, runs, sweep, max_grade)
