"""The block-by-block driver gives the in-memory driver's figures, digit for digit: the
summary at K, the sweep's means and bands, every query's figures at K, the load report; on
random collections with ties, repeats, queries a run misses, queries without a relevant id
and queries outside the qrels, for several block sizes, grouped or shuffled rows, Parquet,
tables and TREC files, and the blocked draw of resampled queries too."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.core.blocks import evaluate_blocks
from metrics.core.evaluate import evaluate
from metrics.core.files import RunSource
from metrics.io import load_qrels, load_run
from metrics.stats import bootstrap
from metrics.vocabulary.conventions import Conventions
from tests.marks import THOROUGH


def collection(seed: int, n_queries: int = 60, depth: int = 12):
    """Qrels and two runs as columns: grades 0..3 (some queries with none relevant, some
    judged not at all), tied scores, repeated ids, queries missing from a run and queries
    the qrels do not hold."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i:03d}" for i in range(n_queries)]
    qrels = {"query_id": [], "doc_id": [], "grade": []}
    for i, q in enumerate(queries):
        for d in rng.choice(30, size=int(rng.integers(1, 8)), replace=False):
            qrels["query_id"].append(q)
            qrels["doc_id"].append(f"d{d}")
            qrels["grade"].append(int(rng.integers(0, 4)) if i % 7 else 0)
    runs = []
    for _ in range(2):
        run = {"query_id": [], "doc_id": [], "score": []}
        for q in [*queries, "zz1", "zz2"]:
            if rng.random() < 0.1:
                continue  # a query this run misses
            for _ in range(int(rng.integers(0, depth + 1))):
                run["query_id"].append(q)
                run["doc_id"].append(f"d{int(rng.integers(0, 35))}")  # repeats happen
                run["score"].append(float(rng.integers(0, 5)))  # ties happen
        runs.append(run)
    return qrels, runs


def trec_text(run: dict) -> str:
    return "".join(f"{q} Q0 {d} 1 {s} tag\n" for q, d, s in
                   zip(run["query_id"], run["doc_id"], run["score"], strict=True))


def assert_same(blocks, memory):
    assert blocks.run_names == memory.run_names
    assert blocks.scored_ids == memory.scored_ids
    assert blocks.excluded_ids == memory.excluded_ids
    assert blocks.sweep_range == memory.sweep_range
    for got, want in zip(blocks.runs, memory.runs, strict=True):
        assert got.summary == want.summary  # mean, low and high: the same floats
        for key, values in memory.per_query_scores(want.name).items():
            np.testing.assert_array_equal(got.at_k[key], values, err_msg=key)
        want_means = memory.sweep_means(want.name)
        assert got.sweep_means.keys() == want_means.keys()
        for key, values in want_means.items():
            np.testing.assert_array_equal(got.sweep_means[key], values, err_msg=key)
        assert got.missing_queries == want.missing_queries
        assert got.repeats == want.repeats
        assert got.report.lines_read == want.report.lines_read
        assert got.report.dropped == want.report.dropped
        # the same repeats, in row order (the loader lists them query by query)
        assert got.report.repeats == tuple(sorted(want.report.repeats, key=lambda r: r.line))
        assert got.report.notes == want.report.notes
        assert_same_readings(got, want, memory)
    assert blocks.sweep_intervals() == memory.sweep_intervals()


def assert_same_readings(got, want, memory):
    """What the block driver reads of a run beside its figures: each scored query's class
    and repeats, the k suggestion and the diagnosis (the same floats, the same sentences),
    the run queries the qrels do not hold."""
    assert list(got.classes) == list(want.classes)
    np.testing.assert_array_equal(got.query_repeats, want.aligned.repeats[memory.scored])
    assert got.suggestion == want.suggestion
    assert got.diagnosis == want.diagnosis
    assert got.ignored_queries == want.aligned.ignored_queries


def files(tmp_path, seed: int, *, shuffled: bool = False):
    qrels, runs = collection(seed)
    pq.write_table(pa.table(qrels), tmp_path / "qrels.parquet")
    paths = []
    for i, run in enumerate(runs):
        table = pa.table(run)
        if shuffled:
            order = np.random.default_rng(seed + i).permutation(table.num_rows)
            table = table.take(pa.array(order))
        path = tmp_path / f"run{i}.parquet"
        pq.write_table(table, path, row_group_size=50)
        paths.append(path)
    return tmp_path / "qrels.parquet", paths


@pytest.mark.parametrize("block_queries", [1, 7, 64, 10_000])
@pytest.mark.parametrize("shuffled", [False, True])
def test_parquet_runs_block_by_block_give_the_in_memory_figures(tmp_path, block_queries,
                                                                shuffled):
    qrels_path, paths = files(tmp_path, 3, shuffled=shuffled)
    qrels, qrels_report = load_qrels(qrels_path)
    conventions = Conventions(n_resamples=200)
    loaded = [load_run(p) for p in paths]
    memory = evaluate(qrels, [r for r, _ in loaded], 5, conventions, sweep=(1, 15),
                      reports={r.name: rep for r, rep in loaded})
    blocks = evaluate_blocks(qrels, [RunSource(p) for p in paths], 5, conventions,
                             sweep=(1, 15), block_queries=block_queries)
    assert_same(blocks, memory)


@pytest.mark.parametrize("choice", [
    Conventions(n_resamples=100, recall_denominator="min", gain="exponential", rr="full",
                ap="full"),
    Conventions(n_resamples=100, empty_queries="zero", relevance_level=2),
    Conventions(n_resamples=100, unjudged="drop", identical_ids="drop"),
])
def test_conventions_and_trec_files(tmp_path, choice):
    qrels_columns, runs = collection(11)
    qrels, _ = load_qrels(pa.table(qrels_columns))
    (tmp_path / "a.run").write_text(trec_text(runs[0]))
    table = pa.table(runs[1])
    loaded = [load_run(tmp_path / "a.run"), load_run(table, run_name="b")]
    memory = evaluate(qrels, [r for r, _ in loaded], 3, choice, sweep=(2, 9),
                      reports={r.name: rep for r, rep in loaded})
    sources = [RunSource(tmp_path / "a.run"), RunSource(table, name="b")]
    for size in (5, 1000):
        assert_same(evaluate_blocks(qrels, sources, 3, choice, sweep=(2, 9),
                                    block_queries=size), memory)


def test_the_default_sweep_and_one_cutoff_sweeps(tmp_path):
    qrels_path, paths = files(tmp_path, 5)
    qrels, _ = load_qrels(qrels_path)
    runs = [load_run(p)[0] for p in paths]
    # judged-only scoring drops ids: the default sweep ends at the longest list as scored,
    # not as read, and K = 20 lies past every list (the k suggestion reads it in closed form)
    dropping = Conventions(n_resamples=50, unjudged="drop")
    for sweep, k, conventions in ((None, 2, Conventions(n_resamples=50)), ((4, 4), 2, dropping),
                                  (None, 20, dropping)):
        memory = evaluate(qrels, runs, k, conventions, sweep=sweep)
        blocks = evaluate_blocks(qrels, [RunSource(p) for p in paths], k, conventions,
                                 sweep=sweep, block_queries=9)
        assert blocks.sweep_range == memory.sweep_range
        for got, want in zip(blocks.runs, memory.runs, strict=True):
            assert got.summary == want.summary
            for key, values in memory.sweep_means(want.name).items():
                np.testing.assert_array_equal(got.sweep_means[key], values, err_msg=key)
            assert_same_readings(got, want, memory)
        assert blocks.sweep_intervals() == memory.sweep_intervals()


@THOROUGH
def test_the_blocked_draw_block_by_block_gives_its_own_figures(tmp_path, monkeypatch):
    """Past the dense draw's bound (forced low here) both drivers read the blocked draw; the
    block-by-block one sums it block by block, in pieces that cut across its blocks."""
    monkeypatch.setattr(bootstrap, "DENSE_CELLS", 1)
    qrels_columns, runs = collection(8, n_queries=9000, depth=6)
    qrels, _ = load_qrels(pa.table(qrels_columns))
    tables = [pa.table(run) for run in runs]
    choice = Conventions(n_resamples=20)
    loaded = [load_run(t, run_name=f"r{i}") for i, t in enumerate(tables)]
    memory = evaluate(qrels, [r for r, _ in loaded], 4, choice, sweep=(1, 6),
                      reports={r.name: rep for r, rep in loaded})
    blocks = evaluate_blocks(qrels, [RunSource(t, name=f"r{i}") for i, t in enumerate(tables)],
                             4, choice, sweep=(1, 6), block_queries=3000)
    assert_same(blocks, memory)


def test_what_the_driver_refuses(tmp_path):
    qrels_path, paths = files(tmp_path, 1)
    qrels, _ = load_qrels(qrels_path)
    with pytest.raises(ValueError, match="percentile intervals: BCa reads"):
        evaluate_blocks(qrels, [RunSource(paths[0])], 5, Conventions(interval_method="bca"))
    for bad_size in (0, True, 2.0):  # True once passed as a block of one query
        with pytest.raises(ValueError, match="block_queries must be a positive integer"):
            evaluate_blocks(qrels, [RunSource(paths[0])], 5, block_queries=bad_size)
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"query_id": ["q001", "q001"], "doc_id": ["d1", None],
                             "score": [1.0, 2.0]}), bad)
    with pytest.raises(ValueError, match=r"^bad.parquet, row 2: no doc id \(a null\)$"):
        evaluate_blocks(qrels, [RunSource(bad)], 5)


def test_integer_query_ids_and_a_null_query_id_in_the_first_pass(tmp_path):
    # the first pass reads the query column dictionary-encoded: integer ids are not, and a
    # null is read the plain way, reported with its row as the loader reports it
    qrels_path, paths = files(tmp_path, 4)
    qrels_table = pq.read_table(qrels_path)
    numbered = {"query_id": [int(q[1:]) for q in qrels_table.column("query_id").to_pylist()],
                "doc_id": qrels_table.column("doc_id"), "grade": qrels_table.column("grade")}
    pq.write_table(pa.table(numbered), tmp_path / "qrels_int.parquet")
    run_paths = []
    for path in paths:
        table = pq.read_table(path)
        ids = [int(q[1:]) if q.startswith("q") else 999 for q in
               table.column("query_id").to_pylist()]
        run_paths.append(tmp_path / f"int_{path.name}")
        pq.write_table(table.set_column(0, "query_id", pa.array(ids)), run_paths[-1])
    qrels, _ = load_qrels(tmp_path / "qrels_int.parquet")
    conventions = Conventions(n_resamples=100)
    loaded = [load_run(p) for p in run_paths]
    memory = evaluate(qrels, [r for r, _ in loaded], 5, conventions, sweep=(1, 15),
                      reports={r.name: rep for r, rep in loaded})
    blocks = evaluate_blocks(qrels, [RunSource(p) for p in run_paths], 5, conventions,
                             sweep=(1, 15), block_queries=7)
    assert_same(blocks, memory)
    bad = tmp_path / "nullq.parquet"
    pq.write_table(pa.table({"query_id": ["q001", None], "doc_id": ["d1", "d2"],
                             "score": [1.0, 2.0]}), bad)
    qrels, _ = load_qrels(qrels_path)
    with pytest.raises(ValueError, match=r"^nullq.parquet, row 2: no query id \(a null\)$"):
        evaluate_blocks(qrels, [RunSource(bad)], 5)


def test_the_first_run_with_an_error_is_the_one_reported(tmp_path):
    # the runs of a block are read in threads: the error named is still the first run's
    qrels_path, _ = files(tmp_path, 1)
    qrels, _ = load_qrels(qrels_path)
    paths = []
    for name, row in (("good", None), ("first", 2), ("second", 1)):
        docs = ["d1", "d2", "d3"]
        if row is not None:
            docs[row - 1] = None
        paths.append(tmp_path / f"{name}.parquet")
        pq.write_table(pa.table({"query_id": ["q001"] * 3, "doc_id": docs,
                                 "score": [3.0, 2.0, 1.0]}), paths[-1])
    with pytest.raises(ValueError, match=r"^first.parquet, row 2: no doc id \(a null\)$"):
        evaluate_blocks(qrels, [RunSource(p) for p in paths], 5)
