"""`python -m metrics --engine spark` over Parquet files prints the in-memory command's
summary: the same table down to the conventions, the same JSON summary, digit for digit. The
refusals need no Spark and run by default; the runs through Spark are thorough."""

from __future__ import annotations

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.outputs.text import format_table
from metrics.snapshot.contract import to_dict
from metrics.vocabulary.gates import EXIT_OK, EXIT_USAGE
from tests.marks import THOROUGH
from tests.metrics.spark.collections import random_collection


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
    (["--format", "trec_eval"], "--format table or json"),
    (["--metric", "Rprec"], "default figures only; Rprec"),
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
def test_the_command_prints_the_in_memory_summary(spark, tmp_path, capsys):
    collection = random_collection(41, order="score")
    argv = ["--engine", "spark", "--spark-master", "local[2]", *write(collection, tmp_path),
            "--k", "5", "--gain", "exponential"]
    memory = collection.in_memory(5, metrics_conventions(argv))
    assert main(argv) == EXIT_OK
    out = capsys.readouterr().out
    expected = format_table(memory)
    head = expected[:expected.index("\n\nrun0: ")]  # down to the conventions
    assert out.startswith(head + "\n\nrun0: ")
    assert main([*argv, "--format", "json", "--sweep", "1:8"]) == EXIT_OK
    document = orjson.loads(capsys.readouterr().out)
    memory = collection.in_memory(5, metrics_conventions(argv), sweep=(1, 8))
    reference = to_dict(memory)
    for key in ("k", "conventions", "query_set"):
        assert document[key] == reference[key]
    for ours, theirs in zip(document["runs"], reference["runs"], strict=True):
        assert ours["summary"] == theirs["summary"]
        assert ours["sweep"] == theirs["sweep"]
        assert ours["missing_queries"] == theirs["missing_queries"]
        assert [{k: v for k, v in q.items() if k != "class"} for q in theirs["queries"]] == \
            ours["queries"]


@THOROUGH
def test_a_block_that_refuses_its_rows_is_one_line(spark, tmp_path, capsys):
    collection = random_collection(42, queries=10)
    qrels = collection.qrels
    clash = qrels.iloc[[0]].assign(grade=qrels.grade.iloc[0] + 1)
    collection = type(collection)(pd.concat([qrels, clash], ignore_index=True),
                                  collection.runs)
    assert main(["--engine", "spark", *write(collection, tmp_path)]) != EXIT_OK
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: qrels: query ") and "has grade" in err[-1]


def metrics_conventions(argv):
    from metrics.vocabulary.conventions import Conventions

    return Conventions(gain="exponential") if "exponential" in argv else Conventions()
