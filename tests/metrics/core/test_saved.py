"""An evaluation read back from its saved per-query figures (--per-query-out) gives the
driver's own summary, sweep and decisions, digit for digit: against the in-memory and the
block-by-block drivers on random collections (ties, repeats, missing and excluded queries)
under several conventions; a file without the metadata says so and reads its K from the
table; every malformed file is refused naming the file and the row."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import metrics
from metrics.cli import main
from metrics.core.blocks import evaluate_blocks
from metrics.core.evaluate import evaluate
from metrics.core.files import RunSource
from metrics.core.per_query import SCHEMA, write_long
from metrics.core.saved import about, read_figures
from metrics.io import LoadError, load_qrels, load_run
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.saved import METADATA_KEY
from tests.metrics.core.test_blocks import collection, trec_text

CHOICES = [
    Conventions(n_resamples=120),
    Conventions(n_resamples=80, recall_denominator="min", gain="exponential", rr="full",
                ap="full", seed=7),
    Conventions(n_resamples=80, empty_queries="zero", relevance_level=2,
                confidence_level=0.9),
    Conventions(n_resamples=60, interval_method="bca"),
]


def loaded(seed: int = 3):
    qrels_columns, runs = collection(seed)
    qrels, _ = load_qrels(pa.table(qrels_columns))
    return qrels, [load_run(pa.table(run), run_name=f"r{i}")[0] for i, run in enumerate(runs)]


def saved(tmp_path, evaluation, engine="memory"):
    path = tmp_path / "figures.parquet"
    write_long(path, evaluation.per_query_tables(), about(evaluation, engine))
    return read_figures(path)


def assert_same_decisions(got, want):
    assert got.run_names == want.run_names
    assert got.scored_ids == want.scored_ids
    assert got.k == want.k and got.conventions == want.conventions
    for run in want.runs:
        assert got.run(run.name).summary == run.summary  # mean, low, high: the same floats
        wanted = want.per_query_scores(run.name)
        kept = got.per_query_scores(run.name)
        assert kept.keys() == wanted.keys()
        for key, values in wanted.items():
            np.testing.assert_array_equal(kept[key], values, err_msg=key)
    assert metrics.compare_evaluation(got) == metrics.compare_evaluation(want)
    assert metrics.leaderboard(got) == metrics.leaderboard(want)
    assert metrics.best_marks(got) == metrics.best_marks(want)
    comparison = metrics.compare_evaluation(want)
    assert metrics.run_table(got, comparison).to_frame().equals(
        metrics.run_table(want, comparison).to_frame())
    assert metrics.all_pairs(got, ["nDCG"]) == metrics.all_pairs(want, ["nDCG"])
    assert got.notes() == want.notes()


@pytest.mark.parametrize("conventions", CHOICES)
def test_saved_figures_give_the_in_memory_summary_decisions_and_sweep(tmp_path, conventions):
    qrels, runs = loaded()
    memory = evaluate(qrels, runs, 4, conventions, sweep=(1, 9))
    figures = saved(tmp_path, memory)
    assert figures.recorded and figures.engine == "memory"
    assert_same_decisions(figures, memory)
    assert figures.queries == len(memory.query_set.query_ids)
    assert figures.excluded == len(memory.excluded_ids)
    assert figures.sweep_range == (1, 9) and figures.has_sweep
    assert not figures.has_sweep_bands  # the in-memory writer does not draw the bands
    for run in memory.runs:
        assert figures.run(run.name).missing == len(run.missing_queries)
        assert figures.run(run.name).repeats == run.repeats
        want = memory.sweep_means(run.name)
        got = figures.sweep_means(run.name)
        assert got.keys() == want.keys()
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)


def test_saved_figures_give_the_block_drivers_summary_and_bands(tmp_path):
    qrels_columns, runs = collection(8)
    qrels, _ = load_qrels(pa.table(qrels_columns))
    tables = [pa.table(run) for run in runs]
    conventions = Conventions(n_resamples=90)
    blocks = evaluate_blocks(qrels, [RunSource(t, name=f"r{i}") for i, t in enumerate(tables)],
                             5, conventions, sweep=(2, 11), block_queries=9)
    figures = saved(tmp_path, blocks, "blocks")
    assert figures.engine == "blocks" and figures.has_sweep_bands
    assert figures.sweep_intervals() == blocks.sweep_intervals()
    memory = evaluate(qrels, [load_run(t, run_name=f"r{i}")[0] for i, t in enumerate(tables)],
                      5, conventions, sweep=(2, 11))
    assert_same_decisions(figures, memory)
    for run in blocks.runs:
        assert figures.run(run.name).summary == run.summary


def test_a_figure_asked_for_by_name_comes_back(tmp_path):
    qrels, runs = loaded(5)
    memory = evaluate(qrels, runs, 5, Conventions(n_resamples=50),
                      measures=["P(rel=2)@5", "Rprec"])
    figures = saved(tmp_path, memory)
    assert [s.key for s in figures.query_specs] == [s.key for s in memory.query_specs]
    assert_same_decisions(figures, memory)
    assert figures.resolve("Rprec").key == memory.resolve("Rprec").key
    with pytest.raises(ValueError, match="not among the figures"):
        figures.with_measures(["ERR"])


def test_a_file_without_metadata_reads_k_from_the_table_and_the_defaults(tmp_path):
    qrels, runs = loaded(4)
    memory = evaluate(qrels, runs, 6)  # the default conventions
    path = tmp_path / "old.parquet"
    write_long(path, memory.per_query_tables())  # as written before the metadata
    figures = read_figures(path)
    assert not figures.recorded and figures.k == 6
    assert figures.sweep_range is None and not figures.has_sweep
    assert figures.queries is None and figures.run("r0").missing is None
    assert_same_decisions(figures, memory)


def test_a_figure_read_over_the_full_list_is_saved_without_a_k_and_read_back(tmp_path):
    """Under rr=full and ap=full, RR and AP are read over the whole list: the long table
    gives them no K, as it gives Rprec none. A file written before that gave them K reads as
    the same figures."""
    qrels, runs = loaded(6)
    memory = evaluate(qrels, runs, 4, Conventions(n_resamples=50, rr="full", ap="full"),
                      measures=["RR@3"])
    path = tmp_path / "figures.parquet"
    write_long(path, memory.per_query_tables(), about(memory, "memory"))
    table = pq.read_table(path)
    at = dict(zip(table["measure"].to_pylist(), table["k"].to_pylist(), strict=True))
    assert at["RR"] is None and at["AP"] is None and at["P"] == 4
    assert at["RR(read=cutoff)"] == 3  # RR at rank 3, which a cutoff its name gives reads
    assert_same_decisions(read_figures(path), memory)
    written_before = table.set_column(
        table.schema.get_field_index("k"), "k",
        pa.array([4 if m in ("RR", "AP") else k for m, k in zip(
            table["measure"].to_pylist(), table["k"].to_pylist(), strict=True)], pa.int32()))
    pq.write_table(written_before.replace_schema_metadata(table.schema.metadata), path)
    assert_same_decisions(read_figures(path), memory)


def test_select_renames_and_orders_without_recomputing(tmp_path):
    qrels, runs = loaded()
    figures = saved(tmp_path, evaluate(qrels, runs, 4, Conventions(n_resamples=40)))
    chosen = figures.select(["r1", "r0"], {"r1": "new"})
    assert chosen.run_names == ["new", "r0"]
    assert chosen.run("new").summary == figures.run("r1").summary
    with pytest.raises(ValueError, match="distinct"):
        figures.select(["r0", "r1"], {"r1": "r0"})
    with pytest.raises(ValueError, match="K = 4 only"):
        figures.per_query_scores("r0", k=5)


def rows(*records):
    return pa.table({name: [r[i] for r in records] for i, name in enumerate(SCHEMA.names)},
                    schema=SCHEMA)


GOOD = [("q1", "a", m, 3, 0.5) for m in ("P", "R", "F1", "Hit", "RR", "AP", "DCG", "IDCG",
                                            "nDCG", "CP", "Judged")]


@pytest.mark.parametrize(("records", "message"), [
    (GOOD + [GOOD[0]], r"bad\.parquet, row 12: 'P' of run 'a' for query 'q1' is written twice"),
    (GOOD + [("q2", "a", "P", 3, 0.1)], r"run 'a' has no 'R' for query 'q2'"),
    (GOOD[:-1] + [("q1", "a", "Judged", 3, float("nan"))],
     r"row 11: value must be a finite number, got nan"),
    (GOOD[:-1] + [("q1", None, "Judged", 3, 0.1)], r"row 11: no run \(a null\)"),
    (GOOD[:-1] + [("q1", "a", "Judged", 4, 0.1)], r"one K is expected"),
    (GOOD[:-1] + [("q1", "a", "Nope", 3, 0.1)], r"row 11: figure 'Nope'"),
    (GOOD[1:], r"holds no P figure"),
])
def test_malformed_files_are_refused_naming_the_row(tmp_path, records, message):
    path = tmp_path / "bad.parquet"
    pq.write_table(rows(*records), path)
    with pytest.raises(LoadError, match=message):
        read_figures(path)


def test_other_files_are_refused_in_one_line(tmp_path):
    with pytest.raises(LoadError, match="not a Parquet file of saved figures"):
        read_figures(b"q1 Q0 d1 1 2.0 run\n", file_name="run.txt")
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]}), path)
    with pytest.raises(LoadError, match=r"run\.parquet: not a file of saved figures: no column "
                       r"run, measure, k, value"):
        read_figures(path)
    pq.write_table(rows(*GOOD).replace_schema_metadata({METADATA_KEY: b"{not json"}), path)
    with pytest.raises(LoadError, match="metadata .* is not valid JSON"):
        read_figures(path)
    with pytest.raises(LoadError, match="over the bound"):
        read_figures(pq.read_table(path) and path, max_bytes=10)


def test_the_command_lines_file_opens_with_its_k_and_conventions(tmp_path, capsys):
    qrels_columns, runs = collection(6)
    pq.write_table(pa.table(qrels_columns), tmp_path / "qrels.parquet")
    for i, run in enumerate(runs):
        pq.write_table(pa.table(run), tmp_path / f"r{i}.parquet")
    out = tmp_path / "figures.parquet"
    assert main(["--qrels", str(tmp_path / "qrels.parquet"), "--run", f"r0={tmp_path}/r0.parquet",
                 "--run", f"r1={tmp_path}/r1.parquet", "--k", "7", "--gain", "exponential",
                 "--seed", "11", "--per-query-out", str(out)]) == 0
    capsys.readouterr()
    figures = read_figures(out)
    assert figures.k == 7 and figures.conventions.gain == "exponential"
    assert figures.conventions.seed == 11
    qrels, _ = load_qrels(tmp_path / "qrels.parquet")
    memory = evaluate(qrels, [load_run(tmp_path / f"r{i}.parquet", run_name=f"r{i}")[0]
                              for i in range(2)], 7, figures.conventions)
    assert_same_decisions(figures, memory)


def test_one_querys_lists_read_on_demand_give_its_saved_figures(tmp_path):
    qrels_columns, runs = collection(12)
    pq.write_table(pa.table(qrels_columns), tmp_path / "qrels.parquet")
    (tmp_path / "r0.run").write_text(trec_text(runs[0]))
    pq.write_table(pa.table(runs[1]), tmp_path / "r1.parquet", row_group_size=30)
    qrels, _ = load_qrels(tmp_path / "qrels.parquet")
    loaded_runs = [load_run(tmp_path / "r0.run")[0], load_run(tmp_path / "r1.parquet")[0]]
    memory = evaluate(qrels, loaded_runs, 5, Conventions(n_resamples=30, gain="exponential"))
    figures = saved(tmp_path, memory)
    sources = [RunSource(tmp_path / "r0.run"), RunSource(tmp_path / "r1.parquet")]
    for query in figures.scored_ids[:15]:
        read = metrics.query_lists(figures, query, RunSource(tmp_path / "qrels.parquet"),
                                   sources)
        assert read.disagreements == () and read.without_file == ()
        assert read.evaluation.scored_ids == [query]
        for run in memory.runs:  # the lists are the whole files' lists for this query
            one = read.evaluation.run(run.name)
            row = memory.scored_ids.index(query)
            assert metrics.top_ids(read.evaluation, run.name, query, 50) == \
                metrics.top_ids(memory, run.name, query, 50)
            assert one.scores.at(5)["nDCG"][0] == memory.per_query_scores(run.name)["nDCG"][row]
    # one run file only: the other is named; another run's file under r1's name disagrees
    a, b = (memory.per_query_scores(name)["nDCG"] for name in ("r0", "r1"))
    query = figures.scored_ids[int(np.flatnonzero(a != b)[0])]
    alone = metrics.query_lists(figures, query, RunSource(tmp_path / "qrels.parquet"),
                                sources[:1])
    assert alone.without_file == ("r1",)
    swapped = metrics.query_lists(figures, query, RunSource(tmp_path / "qrels.parquet"),
                                  [RunSource(tmp_path / "r0.run", name="r1")])
    assert ("r1", "nDCG@5") in {(run, label) for run, label, _, _ in swapped.disagreements}
