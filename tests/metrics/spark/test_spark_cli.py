"""`python -m metrics --engine spark` over Parquet files writes what the in-memory command
writes, in every format, digit for digit; it reads the files as the in-memory readers do. The
refusals need no Spark and run by default; the runs through Spark are thorough."""

from __future__ import annotations

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE
from tests.marks import THOROUGH
from tests.metrics.spark.collections import random_collection
from tests.metrics.spark.test_refusals import bomb


def write(collection, folder):
    qrels = folder / "qrels.parquet"
    pq.write_table(pa.Table.from_pandas(collection.qrels, preserve_index=False), qrels)
    runs = []
    for name, frame in collection.runs.items():
        path = folder / f"{name}.parquet"
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
        runs += ["--run", f"{name}={path}"]
    return ["--qrels", str(qrels), *runs]


@pytest.mark.parametrize("extra,fragment", [
    (["--metric", "Rprec"], "--engine spark scores the default figures only; Rprec"),
    (["--load-report", "report.txt"], "--load-report needs the in-memory engine"),
    (["--queries", "queries.tsv"], "--queries needs the in-memory engine"),
])
def test_what_spark_cannot_do_is_refused(tmp_path, capsys, extra, fragment):
    argv = write(random_collection(1, queries=5), tmp_path)
    assert main(["--engine", "spark", *argv, *extra]) == EXIT_USAGE
    assert fragment in capsys.readouterr().err


def test_spark_reads_parquet_only(tmp_path, capsys):
    csv = tmp_path / "qrels.csv"
    csv.write_text("query_id,doc_id,grade\nq1,d1,1\n")
    code = main(["--engine", "spark", "--qrels", str(csv), "--run", str(csv)])
    assert code == EXIT_USAGE
    assert "reads Parquet" in capsys.readouterr().err


@THOROUGH
def test_the_command_writes_every_format_as_the_in_memory_one(spark, tmp_path, capsys):
    """The same writers for Spark's result: the same table (classes, k suggestion and
    diagnosis included), the same JSON document (its "engine" key aside), the same
    trec_eval lines and LaTeX table, on the same Parquet files."""
    collection = random_collection(41, order="score")
    argv = [*write(collection, tmp_path), "--k", "5", "--gain", "exponential"]
    for extra in ([], ["--format", "json", "--sweep", "1:8", "--mark-best"],
                  ["--format", "json", "--unjudged", "drop"], ["--format", "trec_eval", "-q"],
                  ["--format", "latex"]):
        assert main([*argv, *extra]) == EXIT_OK
        memory = capsys.readouterr().out
        assert main(["--engine", "spark", "--spark-master", "local[2]", *argv, *extra]) == EXIT_OK
        found = capsys.readouterr().out
        if "json" in extra:
            document = orjson.loads(found)
            assert document.pop("engine") == "spark"
            assert document == orjson.loads(memory), extra
        else:
            assert found == memory, extra


def refusal(argv, capsys) -> tuple[int, str]:
    """The exit code and the last line of standard error."""
    code = main(argv)
    return code, capsys.readouterr().err.strip().splitlines()[-1]


def test_a_file_the_readers_refuse_is_refused_alike_before_spark_starts(tmp_path, capsys):
    """The columns are found by the in-memory readers' own rule, file by file, before the
    JVM starts: the same exit code and the same line as the in-memory command."""
    argv = write(random_collection(6, queries=5), tmp_path)
    part = tmp_path / "split"
    part.mkdir()
    frame = random_collection(6, queries=5).runs["run0"]
    pq.write_table(pa.Table.from_pandas(frame.iloc[:10], preserve_index=False),
                   part / "part-0.parquet")
    pq.write_table(pa.Table.from_pandas(frame.iloc[10:].rename(columns={"doc_id": "doc"}),
                                        preserve_index=False), part / "part-1.parquet")
    argv += ["--run", str(part)]
    memory = refusal(argv, capsys)
    assert memory[0] != EXIT_OK and "split/part-1.parquet" in memory[1]
    assert refusal(["--engine", "spark", *argv], capsys) == memory
    assert refusal(["--engine", "blocks", *argv], capsys) == memory


@THOROUGH
def test_spark_reads_what_the_in_memory_readers_read(spark, tmp_path, capsys):
    """Parquet columns under the other names the readers accept (qid, docid, relevance, any
    case), a run split over a directory's files: Spark's summary is the in-memory one; a
    bad value in a directory's second file, and a pair judged twice, are refused with the
    in-memory readers' own line, naming the file and the row."""
    collection = random_collection(43, order="rank")
    qrels = collection.qrels.rename(columns={"query_id": "qid", "doc_id": "DocID",
                                             "grade": "relevance"})
    runs = {name: frame.rename(columns={"query_id": "QID", "doc_id": "docid"})
            for name, frame in collection.runs.items()}
    argv = write(type(collection)(qrels, runs), tmp_path)
    split = tmp_path / "split"
    split.mkdir()
    frame = runs["run1"]
    pq.write_table(pa.Table.from_pandas(frame.iloc[:50], preserve_index=False),
                   split / "part-0.parquet")
    pq.write_table(pa.Table.from_pandas(frame.iloc[50:], preserve_index=False),
                   split / "part-1.parquet")
    argv[argv.index("--run") + 3] = f"run1={split}"
    assert main(argv) == EXIT_OK
    memory = capsys.readouterr().out
    assert main(["--engine", "spark", *argv]) == EXIT_OK
    head = memory[:memory.index("\n\nrun0: ")]
    assert capsys.readouterr().out.startswith(head + "\n\nrun0: ")

    broken = frame.iloc[50:].assign(rank=frame.iloc[50:].index % 7 + 1.0)  # whole floats
    broken.iloc[3, broken.columns.get_loc("rank")] = 1.5
    pq.write_table(pa.Table.from_pandas(frame.iloc[:50].assign(rank=1.0),
                                        preserve_index=False), split / "part-0.parquet")
    pq.write_table(pa.Table.from_pandas(broken, preserve_index=False), split / "part-1.parquet")
    expected = refusal(argv, capsys)
    assert expected[1] == "error: split/part-1.parquet, row 4: rank must be an integer, got 1.5"
    assert refusal(["--engine", "spark", *argv], capsys) == expected

    clash = qrels.iloc[[0]].assign(relevance=qrels.relevance.iloc[0] + 1)
    twice = type(collection)(pd.concat([qrels, clash], ignore_index=True), runs)
    argv = write(twice, tmp_path)
    expected = refusal(argv, capsys)
    assert "has grade" in expected[1] and expected[1].startswith("error: qrels.parquet, row ")
    assert refusal(["--engine", "spark", *argv], capsys) == expected


def test_a_dictionary_page_bomb_is_refused_alike_before_spark_starts(tmp_path, capsys):
    """A run that decodes past what one read may hold (a dictionary-page bomb: 6 GB from
    26 MB once took the JVM down, "Connection refused" naming nothing) is refused by Spark as
    the other engines refuse it, with their line, before the JVM starts."""
    argv = write(random_collection(6, queries=5), tmp_path)
    bomb(tmp_path / "bomb.parquet")  # 550 MB once read
    argv += ["--run", str(tmp_path / "bomb.parquet")]
    memory = refusal(argv, capsys)
    assert memory == (EXIT_BAD_INPUT, "error: bomb.parquet: decodes to as much as 550.0 MB once "
                      "read (a string value its rows repeat), beyond the 512 MB limit "
                      "(--max-input-mb)")
    assert refusal(["--engine", "blocks", *argv], capsys) == memory
    assert refusal(["--engine", "spark", *argv], capsys) == memory
