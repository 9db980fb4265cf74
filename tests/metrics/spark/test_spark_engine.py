"""The Spark engine gives the in-memory engine's figures: every per-query figure at K and at
every K of the sweep, every summary figure (mean, low, high) and every sweep band, equal to the
last digit, on random collections with tied ranks and scores, repeated ids, queries a run
leaves out, queries the qrels do not know and queries without a relevant id.

The block function (what each Spark worker runs) is checked without Spark in the default
run; everything that starts Spark is thorough (a JVM start and a few jobs take 20 s or more
on two shared cores), on one session shared by every Spark test (conftest)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from metrics.core.evaluate import Evaluation
from metrics.core.kernel import MEASURES
from metrics.io.parquet import Columnar, named_roles
from metrics.spark.evaluate import (
    _BLOCK,
    _LINE,
    SparkEvaluation,
    _aggregate,
    _BlockScorer,
    evaluate_spark,
)
from metrics.vocabulary.conventions import Conventions
from tests.marks import THOROUGH
from tests.metrics.spark.collections import Collection, random_collection

K, SWEEP = 5, (1, 12)


def assert_same(memory: Evaluation, spark: SparkEvaluation, *, sweep: bool = True) -> None:
    """Every figure the Spark evaluation holds equals the in-memory one, exactly."""
    assert list(spark.query_ids) == list(memory.query_set.query_ids)
    assert np.array_equal(spark.scored, memory.scored)
    assert spark.excluded_ids == memory.excluded_ids
    assert spark.run_names == memory.run_names
    ks = range(SWEEP[0], SWEEP[1] + 1) if sweep else [memory.k]
    for name in memory.run_names:
        ours, theirs = memory.run(name), spark.run(name)
        for k in ks:
            expected, found = memory.per_query_scores(name, k), spark.per_query_scores(name, k)
            for m in MEASURES:
                assert np.array_equal(expected[m.key], found[m.key]), (name, m.key, k)
        assert theirs.summary == ours.summary, name  # mean, low, high, method, level
        assert theirs.missing_queries == ours.missing_queries
        assert theirs.repeats == ours.repeats
        table = theirs.table
        assert np.array_equal(table.column("first_relevant_rank").to_numpy(),
                              ours.scores.first_relevant_rank)
        assert np.array_equal(table.column("list_length").to_numpy(), ours.scores.list_length)
        # what is read of the figures: the same classes, k suggestion (the same floats) and
        # diagnosis, the same queries outside the qrels, in the order the reader read them
        assert list(theirs.classes) == list(ours.classes)
        assert np.array_equal(spark.query_repeats(name), memory.query_repeats(name))
        assert theirs.suggestion == ours.suggestion
        assert theirs.diagnosis == ours.diagnosis
        assert theirs.ignored_queries == ours.ignored_queries
    if sweep:
        assert spark.sweep_intervals() == memory.sweep_intervals()
        for name in memory.run_names:
            expected, found = memory.sweep_means(name), spark.sweep_means(name)
            assert expected.keys() == found.keys()
            for key in expected:
                assert np.array_equal(expected[key], found[key]), (name, key)


def blocks_alone(collection: Collection, k: int, conventions: Conventions,
                 n_blocks: int, sweep=None) -> SparkEvaluation:
    """What evaluate_spark does, without Spark: the rows cut into blocks by a hash of the
    query id, each scored by the block function, the tables aggregated on the driver."""
    qrels, qrels_named = by_role(collection.qrels, "qrels")
    frames, named, roles = [], [], []
    for name, frame in collection.runs.items():
        table, source = by_role(frame, f"run {name!r}")
        frames.append(table.append_column("run", pa.array([name] * table.num_rows)))
        named.append(source)
        roles.append({role: role for role in table.column_names[:-1]})
    lists = pa.concat_tables(frames, promote_options="default")
    names = tuple(collection.runs)
    cutoffs = tuple(sorted({k, *(range(sweep[0], sweep[1] + 1) if sweep else ())}))
    top = max(int(collection.qrels.grade.max()), 1)
    reach = max(int(frame.groupby("query_id").size().max()) for frame in collection.runs.values())
    scorer = _BlockScorer(names, conventions, k, cutoffs, reach + 1, top, qrels_named,
                          tuple(named), tuple(roles))

    def block_of(table: pa.Table) -> np.ndarray:
        return np.array([hash(q) % n_blocks for q in table.column("query").to_pylist()])

    q_blocks, r_blocks = block_of(qrels), block_of(lists)
    out = [scorer(qrels.filter(pa.array(q_blocks == b)), lists.filter(pa.array(r_blocks == b)))
           for b in range(n_blocks)]
    return _aggregate(pa.concat_tables(out), names, k, conventions, sweep, top)


def by_role(frame, what: str) -> tuple[pa.Table, Columnar]:
    """A frame's rows as evaluate_spark hands them to a block: its columns under their
    roles (found as the in-memory readers find them), each row numbered from 1."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    kind = "qrels" if "grade" in table.column_names else "run"
    roles = named_roles(what, table.column_names, kind, "arrow")
    table = pa.table({role: table.column(column) for role, column in roles.items()})
    table = table.append_column(_LINE, pa.array(np.arange(1, table.num_rows + 1), pa.int64()))
    return table, Columnar(what, "arrow", {}, np.zeros(0, np.int64))


@pytest.mark.parametrize("order", ["rank", "score"])
def test_blocks_give_the_in_memory_figures(order):
    collection = random_collection(3, order=order)
    memory = collection.in_memory(K, sweep=SWEEP)
    assert_same(memory, blocks_alone(collection, K, Conventions(), 4, SWEEP))


def test_without_a_sweep_asked_the_in_memory_one_and_k_past_every_list():
    """No sweep asked: the one `evaluate` draws (to the longest list as scored, which
    judged-only scoring shortens); K past every list (the k suggestion reads it there)."""
    collection = random_collection(4)
    for k, conventions in ((K, Conventions()), (40, Conventions(unjudged="drop"))):
        memory = collection.in_memory(k, conventions)
        found = blocks_alone(collection, k, conventions, 3)
        assert found.sweep_range == memory.sweep_range
        assert found.sweep_intervals() == memory.sweep_intervals()
        for name in memory.run_names:
            expected, got = memory.sweep_means(name), found.sweep_means(name)
            assert all(np.array_equal(expected[key], got[key]) for key in expected)
        assert_same(memory, found, sweep=False)


CONVENTIONS = [
    Conventions(),
    Conventions(empty_queries="zero", recall_denominator="min", gain="exponential"),
    Conventions(rr="full", ap="full", relevance_level=2, interval_method="bca"),
    Conventions(unjudged="drop", identical_ids="drop", score_precision="float32",
                n_resamples=300, seed=7, confidence_level=0.9),
]


@THOROUGH
@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: ",".join(
    f"{f}={getattr(c, f)}" for f in c.__dataclass_fields__
    if getattr(c, f) != getattr(Conventions(), f)) or "defaults")
def test_blocks_under_each_convention(conventions):
    for seed, order in [(11, "rank"), (12, "score")]:
        collection = random_collection(seed, order=order, queries=80)
        memory = collection.in_memory(K, conventions, sweep=SWEEP)
        assert_same(memory, blocks_alone(collection, K, conventions, 3, SWEEP))


@THOROUGH
@pytest.mark.parametrize("seed,order,conventions", [
    (21, "rank", CONVENTIONS[0]), (22, "score", CONVENTIONS[1]), (23, "rank", CONVENTIONS[2]),
    (24, "score", CONVENTIONS[3]),
])
def test_spark_gives_the_in_memory_figures(spark, seed, order, conventions):
    collection = random_collection(seed, order=order, queries=120)
    memory = collection.in_memory(K, conventions, sweep=SWEEP)
    found = evaluate_spark(spark.createDataFrame(collection.qrels),
                           {name: spark.createDataFrame(frame)
                            for name, frame in collection.runs.items()},
                           K, conventions, sweep=SWEEP, queries_per_block=25)
    assert_same(memory, found)


@THOROUGH
def test_one_frame_of_runs_named_by_a_column(spark):
    collection = random_collection(31, runs=3)
    memory = collection.in_memory(10)
    frames = [frame.assign(run=name) for name, frame in collection.runs.items()]
    import pandas as pd

    runs = spark.createDataFrame(pd.concat(frames, ignore_index=True))
    found = evaluate_spark(spark.createDataFrame(collection.qrels), runs, 10,
                           run_names=list(collection.runs))
    assert_same(memory, found, sweep=False)
    with pytest.raises(ValueError, match=r"qrels: The table's data lacks column\(s\) grade"):
        evaluate_spark(spark.createDataFrame(collection.qrels.drop(columns="grade")), runs, 10)


def test_a_block_without_judgments_returns_its_ignored_queries():
    collection = random_collection(5)
    lists, named = by_role(collection.runs["run0"], "run0")
    lists = lists.append_column("run", pa.array(["run0"] * lists.num_rows))
    empty, qrels_named = by_role(collection.qrels.head(0), "qrels")
    scorer = _BlockScorer(("run0",), Conventions(), K, (K,), 16, 3, qrels_named, (named,),
                          ({role: role for role in ("query", "doc", "rank")},))
    out = scorer(empty, lists)
    # a row for each query of the run (none of them in the qrels): ignored, figures null
    assert set(out.column("_known").to_pylist()) == {False}
    assert out.num_rows == lists.to_pandas()["query"].nunique()
    assert out.column("nDCG@5").null_count == out.num_rows
    assert out.schema.names[:3] == ["query_id", "run", "_order"]
    assert _BLOCK not in out.schema.names
