"""The timings side file and a run's latency_ms, cost and tokens columns: read, repeated rows
counted, and every bad value refused naming the file and the line (a Parquet file's row)."""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.io.errors import LoadError
from metrics.io.timings import check_runs, load_timings, merge_timings, run_file_timings

HEADER = "query_id,run,latency_ms,cost\n"


def test_the_side_file_is_read_per_run_and_query(tmp_path):
    path = tmp_path / "timings.csv"
    path.write_text(HEADER + "q2,bm25,30,\nq1,bm25,12.5,0.001\nq1,bm25,12.5,0.001\n"
                    "q1,rr,80,0.01\n")
    found, report = load_timings(path)
    assert found["bm25"].query_ids == ("q1", "q2")
    np.testing.assert_array_equal(found["bm25"].values["latency_ms"], [12.5, 30.0])
    assert found["bm25"].column("cost") == {"q1": 0.001}  # an empty cell: no value
    assert report.repeated == 1 and report.empty == 1 and report.rows_read == 4
    assert "1 repeated line" in report.summary()


def test_tsv_qid_and_gzip_are_read(tmp_path):
    path = tmp_path / "t.tsv.gz"
    path.write_bytes(gzip.compress(b"qid\trun\tlatency_ms\ttokens\tnote\nq1\tx\t5\t300\thi\n"))
    found, report = load_timings(path)
    assert found["x"].column("tokens") == {"q1": 300.0}
    assert report.ignored == ("note",)


@pytest.mark.parametrize("rows, line, says", [
    ("q1,bm25,abc,\n", 2, "latency_ms must be a number, got 'abc'"),
    ("q1,bm25,1,\nq2,bm25,inf,\n", 3, "latency_ms must be finite, got 'inf'"),
    ("q1,bm25,nan,\n", 2, "latency_ms must be a number"),
    ("q1,bm25,5,-1\n", 2, "cost must be 0 or more, got '-1'"),
    ("q1,bm25,1,\n\nq1,bm25,2,\n", 4, "differs from 1 on line 2"),
    (",bm25,1,\n", 2, "empty query id"),
    ("q1,,1,\n", 2, "empty run name"),
    ("q1,bm25,1\n", 2, "expected 4 columns"),
])
def test_bad_rows_are_refused_naming_the_file_and_line(tmp_path, rows, line, says):
    path = tmp_path / "timings.csv"
    path.write_text(HEADER + rows)
    with pytest.raises(LoadError) as error:
        load_timings(path)
    assert str(error.value).startswith(f"timings.csv, line {line}: ")
    assert says in str(error.value)


def test_a_header_without_the_required_columns_is_refused(tmp_path):
    path = tmp_path / "timings.csv"
    path.write_text("query_id,latency\nq1,4\n")
    with pytest.raises(LoadError, match="timings.csv, line 1: .*lacks run, latency_ms"):
        load_timings(path)


def test_the_size_bound_refuses_a_large_file(tmp_path):
    path = tmp_path / "timings.csv"
    path.write_text(HEADER + "q1,bm25,1,\n" * 5000)
    with pytest.raises(LoadError, match="timings.csv"):
        load_timings(path, max_bytes=1000)


def test_a_run_named_but_not_loaded_is_refused_naming_it(tmp_path):
    path = tmp_path / "timings.csv"
    path.write_text(HEADER + "q1,bm26,1,\n")
    found, report = load_timings(path)
    with pytest.raises(LoadError, match="timings for run 'bm26', which is not loaded; "
                       "the runs: 'bm25'"):
        check_runs(found, ["bm25"], report.source)


def test_a_csv_run_s_columns_must_agree_within_a_query(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("query_id,doc_id,rank,latency_ms\nq1,d1,1,5\nq1,d2,2,5\nq2,d1,1,7\n")
    found = run_file_timings(run, "x")
    assert found.column("latency_ms") == {"q1": 5.0, "q2": 7.0}
    run.write_text("query_id,doc_id,rank,latency_ms\nq1,d1,1,5\nq2,d1,1,7\nq2,d3,2,8\n")
    with pytest.raises(LoadError, match=r"run.csv, line 4: latency_ms 8 for query 'q2' of "
                       r"run 'x' differs from 7 on line 3"):
        run_file_timings(run, "x")


def test_runs_without_timing_columns_are_not_read_again(tmp_path):
    trec = tmp_path / "a.run"
    trec.write_text("q1 Q0 d1 1 2.0 x\n")
    assert run_file_timings(trec, "a") is None
    csv_run = tmp_path / "b.csv"
    csv_run.write_text("query_id,doc_id,rank\nq1,d1,1\n")
    assert run_file_timings(csv_run, "b") is None


def test_a_parquet_run_s_columns_are_read_and_bad_values_name_the_row(tmp_path):
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                             "rank": [1, 2, 1], "latency_ms": [3.0, 3.0, None]}), path)
    found = run_file_timings(path, "r")
    assert found.column("latency_ms") == {"q1": 3.0}
    pq.write_table(pa.table({"query_id": ["q1", "q2"], "doc_id": ["a", "a"], "rank": [1, 1],
                             "tokens": [10, -1]}), path)
    with pytest.raises(LoadError, match="r.parquet, row 2: tokens must be 0 or more"):
        run_file_timings(path, "r")
    with pytest.raises(LoadError, match="up.parquet, row 2: tokens"):  # an upload's bytes
        run_file_timings(path.read_bytes(), "r", file_name="up.parquet")


def test_a_column_given_twice_for_a_run_is_refused(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(HEADER + "q1,bm25,1,\n")
    b.write_text(HEADER + "q2,bm25,2,\n")
    with pytest.raises(LoadError, match="also given by a.csv"):
        merge_timings(load_timings(a)[0], load_timings(b)[0])


def test_a_header_alone_an_empty_file_and_a_huge_line_are_refused(tmp_path):
    from metrics.io.reader import MAX_LINE_BYTES
    path = tmp_path / "timings.csv"
    path.write_text(HEADER)
    with pytest.raises(LoadError, match="timings.csv: no data lines"):
        load_timings(path)
    path.write_text("")
    with pytest.raises(LoadError, match="timings.csv: empty file"):
        load_timings(path)
    path.write_text(HEADER + "q1,bm25,1,\n" + "q" * (MAX_LINE_BYTES + 10) + ",bm25,1,\n")
    with pytest.raises(LoadError, match="timings.csv, line 3: line of"):
        load_timings(path)
