"""Parquet files, directories of them, and tables from Python: the same qrels and runs as the
CSV readers give, every row used or reported, a bad row named by its file and its row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.core.evaluate import evaluate
from metrics.io import LoadError, load_qrels, load_run

QRELS = {"qid": ["q1", "q1", "q2", "q2", "q3"], "docid": ["d1", "d2", "d3", "d1", "d9"],
         "relevance": [1, 0, 2, 2, 0]}
RUN = {"query_id": ["q1", "q1", "q1", "q2", "q2", "q4"],
       "doc_id": ["d2", "d1", "d1", "d3", "d7", "d1"],
       "score": [0.5, 0.9, 0.1, 2.0, 2.0, 1.0]}


def csv_text(columns: dict) -> str:
    names = list(columns)
    rows = zip(*columns.values(), strict=True)
    return "\n".join([",".join(names), *(",".join(map(str, row)) for row in rows)]) + "\n"


def write_parquet(path, columns: dict):
    pq.write_table(pa.table(columns), path)
    return path


def lists(run) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for query, doc in zip(run.query, run.doc, strict=True):
        out.setdefault(str(query), []).append(str(doc))
    return out


def test_parquet_reads_as_the_same_csv_reads(tmp_path):
    (tmp_path / "q.csv").write_text(csv_text(QRELS))
    (tmp_path / "r.csv").write_text(csv_text(RUN))
    qrels_csv, qrels_csv_report = load_qrels(tmp_path / "q.csv")
    run_csv, run_csv_report = load_run(tmp_path / "r.csv")
    qrels, qrels_report = load_qrels(write_parquet(tmp_path / "q.parquet", QRELS))
    run, run_report = load_run(write_parquet(tmp_path / "r.parquet", RUN))
    assert qrels_report.format == "parquet" and run_report.format == "parquet"
    assert list(qrels.query_ids) == list(qrels_csv.query_ids)
    assert list(qrels.grade) == list(qrels_csv.grade)
    assert lists(run) == lists(run_csv)
    assert run_report.lines_read == run_csv_report.lines_read == 6
    assert [r.reason for r in run_report.repeats] == [r.reason for r in run_csv_report.repeats]
    assert run_report.summary() == "r.parquet: 6 rows read, 6 used, 0 dropped, 1 repeat"
    a = evaluate(qrels, [run], 2).summary()
    b = evaluate(qrels_csv, [run_csv], 2).summary()
    assert a[["mean", "low", "high"]].equals(b[["mean", "low", "high"]])


def test_a_directory_is_one_run_and_names_a_bad_row_in_its_file(tmp_path):
    folder = tmp_path / "bm25"
    (folder / "part=1").mkdir(parents=True)
    write_parquet(folder / "part=1" / "a.parquet", {"query_id": ["q1", "q1"],
                                                    "doc_id": ["d1", "d2"], "rank": [1, 2]})
    write_parquet(folder / "b.parquet", {"query_id": ["q2"], "doc_id": ["d3"], "rank": [1]})
    (folder / "_SUCCESS").write_text("")
    run, report = load_run(folder)
    assert run.name == "bm25" and report.lines_read == 3
    assert lists(run) == {"q2": ["d3"], "q1": ["d1", "d2"]}  # path order: b.parquet first
    write_parquet(folder / "c.parquet", {"query_id": ["q3", "q3"], "doc_id": ["d1", "d2"],
                                         "rank": [1, -2]})
    with pytest.raises(LoadError, match=r"^bm25/c.parquet, row 2: rank must not be negative"):
        load_run(folder)


def test_tables_and_frames_from_python():
    frame = pd.DataFrame({"query_id": [7, 7, 8], "doc_id": ["x", "y", "z"], "rank": [2, 1, 1]})
    run, report = load_run(frame, run_name="frame")
    assert report.format == "arrow" and lists(run) == {"7": ["y", "x"], "8": ["z"]}
    qrels, _ = load_qrels(pa.table({"query_id": ["7"], "doc_id": ["y"], "grade": [1.0]}))
    assert list(qrels.grade) == [1]
    assert evaluate(qrels, [run], 1).runs[0].summary["P"].mean == 1.0


@pytest.mark.parametrize(("columns", "message"), [
    ({"query_id": ["a", None], "doc_id": ["x", "y"], "rank": [1, 2]},
     "<table>, row 2: no query id (a null)"),
    ({"query_id": ["a", "a"], "doc_id": ["x", ""], "rank": [1, 2]},
     "<table>, row 2: empty doc id"),
    ({"query_id": ["a", "a"], "doc_id": ["x", "y"], "rank": [1.0, 1.5]},
     "<table>, row 2: rank must be an integer, got 1.5"),
    ({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, float("nan")]},
     "<table>, row 2: score must be a number, got nan"),
    ({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": ["1", "high"]},
     "<table>, row 2: score must be a number, got 'high'"),
    ({"query_id": ["a"], "doc_id": ["x"]},
     "<table>: The table's data lacks column(s) rank or score (found ['query_id', 'doc_id'])"),
    ({"query_id": ["a"], "qid": ["b"], "doc_id": ["x"], "rank": [1]},
     "<table>: the schema names the query column twice: 'query_id' and 'qid'"),
])
def test_a_bad_run_table_is_named_by_row(columns, message):
    with pytest.raises(LoadError) as caught:
        load_run(pa.table(columns))
    assert str(caught.value) == message


def test_bad_parquet_files(tmp_path):
    with pytest.raises(LoadError, match=r"^up.parquet: not a Parquet file"):
        load_qrels(b"PAR1 and then nothing", file_name="up.parquet")
    path = write_parquet(tmp_path / "q.parquet", {"query_id": ["q"] * 1000,
                                                  "doc_id": [f"d{i}" for i in range(1000)],
                                                  "grade": np.ones(1000, np.int64)})
    with pytest.raises(LoadError, match=r"^q.parquet: holds .* of data uncompressed, beyond"
                       r" the 1,000 bytes limit \(--max-input-mb\)"):
        load_qrels(path, max_bytes=1000)
    upload, _ = load_qrels(path.read_bytes(), file_name="labels.parquet")
    assert len(upload.grade) == 1000
    grades = write_parquet(tmp_path / "g.parquet", {"query_id": ["q", "q"], "doc_id": ["a", "b"],
                                                    "grade": ["1", "x"]})
    with pytest.raises(LoadError, match=r"^g.parquet, row 2: grade must be an integer, got 'x'"):
        load_qrels(grades)


def test_the_command_line_reads_parquet(tmp_path, capsys):
    qrels = write_parquet(tmp_path / "q.parquet", QRELS)
    run = write_parquet(tmp_path / "r.parquet", RUN)
    assert main(["--qrels", str(qrels), "--run", str(run), "--k", "2"]) == 0
    out, err = capsys.readouterr()
    assert "r.parquet: 6 rows read, 5 used, 1 dropped, 1 repeat" in err
    assert "  r.parquet, row 6: query is not in the qrels: ignored" in err
    assert "P@2" in out
