"""--engine blocks on the command line: every format the in-memory engine writes, the same
bytes (the JSON's "engine" aside); the sweep; --per-query-out from either engine, the same
long table; what it refuses and why; a run past the in-memory bound told of it."""

from __future__ import annotations

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.core.per_query import SCHEMA
from tests.metrics.core.test_blocks import collection


@pytest.fixture
def paths(tmp_path):
    qrels, runs = collection(4)
    pq.write_table(pa.table(qrels), tmp_path / "qrels.parquet")
    out = [str(tmp_path / "qrels.parquet")]
    for i, run in enumerate(runs):
        pq.write_table(pa.table(run), tmp_path / f"r{i}.parquet")
        out += ["--run", str(tmp_path / f"r{i}.parquet")]
    return ["--qrels", *out, "--k", "4", "--sweep", "1:8"]


def test_blocks_print_the_in_memory_summary_and_the_sweep(paths, tmp_path, capsys):
    assert main([*paths, "--per-query-out", str(tmp_path / "memory.parquet")]) == 0
    memory, memory_err = capsys.readouterr()
    assert main([*paths, "--engine", "blocks", "--block-queries", "7",
                 "--per-query-out", str(tmp_path / "blocks.parquet")]) == 0
    blocks, blocks_err = capsys.readouterr()
    assert blocks.startswith(memory + "\nr0: the sweep, K = 1 to 8 (mean [low, high])")
    assert "r1: the sweep, K = 1 to 8 (mean [low, high])" in blocks
    assert blocks_err.splitlines()[:3] == memory_err.splitlines()[:3]  # the files' reports
    a = pq.read_table(tmp_path / "memory.parquet")
    b = pq.read_table(tmp_path / "blocks.parquet")
    assert a.schema.names == b.schema.names == SCHEMA.names
    assert a.equals(b)
    assert set(a.column("measure").to_pylist()) >= {"P", "nDCG", "RR", "Judged"}
    assert set(a.column("k").to_pylist()) == {4}


@pytest.mark.parametrize("extra", [
    ["--format", "json"],
    ["--format", "json", "--mark-best", "--metric", "nDCG", "--metric", "MRR@4"],
    ["--format", "json", "--unjudged", "drop", "--rr", "full", "--empty-queries", "zero"],
    ["--format", "trec_eval", "-q"],
    ["--format", "trec_eval", "--metric", "P@4", "--metric", "recall"],
    ["--format", "latex"],
    ["--mark-best"],
], ids=" ".join)
def test_blocks_write_every_format_as_the_in_memory_engine_does(paths, capsys, extra):
    """The same writer for either engine's result: the same JSON document (its "engine" key
    aside: the k suggestion, the diagnosis, every query's class and repeats included), the
    same trec_eval lines, the same LaTeX table (its daggers from the same tests), the same
    table and best marks."""
    assert main([*paths, *extra]) == 0
    memory = capsys.readouterr().out
    assert main([*paths, "--engine", "blocks", "--block-queries", "5", *extra]) == 0
    blocks = capsys.readouterr().out
    if "json" in extra:
        document = orjson.loads(blocks)
        assert document.pop("engine") == "blocks"
        assert document == orjson.loads(memory)
        assert document["runs"][0]["diagnosis"] and document["runs"][0]["queries"][0]["class"]
    elif "table" in extra or "--format" not in extra:
        assert blocks.startswith(memory + "\nr0: the sweep")
    else:
        assert blocks == memory


@pytest.mark.parametrize(("extra", "message"), [
    (["--metric", "Rprec"], "--engine blocks scores the default figures only; Rprec would "
     "need the in-memory engine (--engine memory)"),
    (["--normalize-ids", "nfc"], "--normalize-ids needs the in-memory engine (--engine "
     "memory): the other engines match a block's ids"),
    (["--by", "intent"], "--by needs the in-memory engine (--engine memory): each slice's"),
    (["--tokens-per-chunk", "120"], "--tokens-per-chunk needs the in-memory engine"),
    (["--interval", "bca"], "--interval bca needs the in-memory engine (--engine memory): "
     "the block engine's sweep bands"),
])
def test_blocks_refuse_what_they_do_not_give_saying_why(paths, capsys, extra, message):
    assert main([*paths, "--engine", "blocks", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_run_over_the_in_memory_bound_is_told_of_the_bounded_path(tmp_path, capsys):
    """A Parquet run past --max-input-mb: the refusal names both ways on, which one fits
    when, and --engine blocks then reads it; a text run is told to become Parquet first; the
    qrels, read whole by every engine, are told of the bound alone."""
    rows = 12_000  # ids of 100 characters: past 1 MB
    run = pa.table({"qid": [f"q{i % 7}" for i in range(rows)],
                    "docid": [f"document-{i:09d}".ljust(100, "x") for i in range(rows)],
                    "score": [1.0 / (i + 1) for i in range(rows)]})
    pq.write_table(run, tmp_path / "big.parquet")
    pq.write_table(pa.table({"qid": ["q1", "q2"], "docid": ["document-000000001"] * 2,
                             "relevance": [1, 2]}), tmp_path / "qrels.parquet")
    argv = ["--qrels", str(tmp_path / "qrels.parquet"), "--max-input-mb", "1"]
    assert main([*argv, "--run", str(tmp_path / "big.parquet")]) == 1
    said = capsys.readouterr().err
    assert said.startswith("error: big.parquet: holds ") and "(--max-input-mb): " in said
    assert "--max-input-mb raises the limit when memory holds" in said
    assert "--engine blocks reads a Parquet run a block of queries at a time" in said
    assert main([*argv, "--run", str(tmp_path / "big.parquet"), "--engine", "blocks"]) == 0
    capsys.readouterr()

    lines = [f"q{i % 7} Q0 {'document-' + format(i, '09d'):x<100} {i + 1} {1.0 / (i + 1)} tag"
             for i in range(rows)]
    (tmp_path / "big.run").write_text("\n".join(lines) + "\n")
    for engine in ("memory", "blocks"):
        assert main([*argv, "--run", str(tmp_path / "big.run"), "--engine", engine]) == 1
        said = capsys.readouterr().err
        assert "--max-input-mb raises the limit" in said
        assert "write it as Parquet and take --engine blocks" in said

    judged = [f"q{i % 7} 0 {'document-' + format(i, '09d'):x<100} 1" for i in range(rows)]
    (tmp_path / "qrels.txt").write_text("\n".join(judged) + "\n")
    argv[1] = str(tmp_path / "qrels.txt")
    (tmp_path / "small.run").write_text("\n".join(lines[:5]) + "\n")
    assert main([*argv, "--run", str(tmp_path / "small.run")]) == 1
    said = capsys.readouterr().err
    assert said.startswith("error: qrels.txt: ") and "--engine" not in said


def test_blocks_score_against_the_judges_labels_when_asked(paths, tmp_path, capsys):
    """--labels judge: the block engine scores the judge's labels, as the in-memory one does
    (it scored the human qrels and said nothing)."""
    qrels = pq.read_table(paths[1])
    judged = qrels.set_column(2, "grade", pa.array([(g + 1) % 3 for g in
                                                    qrels.column("grade").to_pylist()]))
    pq.write_table(judged, tmp_path / "judge.parquet")
    judge = ["--labels", "judge", "--judge-qrels", str(tmp_path / "judge.parquet"),
             "--format", "json"]
    assert main([*paths, *judge]) == 0
    memory = orjson.loads(capsys.readouterr().out)
    assert main([*paths, "--format", "json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["runs"] != memory["runs"]
    assert main([*paths, "--engine", "blocks", *judge]) == 0
    blocks = orjson.loads(capsys.readouterr().out)
    assert blocks.pop("engine") == "blocks"
    assert blocks == memory


def test_memory_running_out_on_the_block_engine_names_the_files(paths, capsys, monkeypatch):
    """It said "out of memory while running score", naming no file (security.md promises
    the file's name)."""
    import metrics.cli.engine as engine

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(engine, "evaluate_blocks", exhausted)
    assert main([*paths, "--engine", "blocks"]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: out of memory while reading the qrels and runs (qrels.parquet, r0.parquet, "
        "r1.parquet): give smaller inputs")
