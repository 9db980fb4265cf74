"""--engine blocks on the command line: the in-memory summary, word for word; the sweep;
--per-query-out from either engine, the same long table; what it refuses."""

from __future__ import annotations

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
    summary = memory.split("\nr0: ")[0]
    assert blocks.startswith(summary + "\nr0: ")
    assert "r1: the sweep, K = 1 to 8 (mean [low, high])" in blocks
    assert blocks_err.splitlines()[:3] == memory_err.splitlines()[:3]  # the files' reports
    a = pq.read_table(tmp_path / "memory.parquet")
    b = pq.read_table(tmp_path / "blocks.parquet")
    assert a.schema.names == b.schema.names == SCHEMA.names
    assert a.equals(b)
    assert set(a.column("measure").to_pylist()) >= {"P", "nDCG", "RR", "Judged"}
    assert set(a.column("k").to_pylist()) == {4}


@pytest.mark.parametrize(("extra", "message"), [
    (["--format", "json"], "--engine blocks writes --format table"),
    (["--metric", "Rprec"], "--metric needs the in-memory engine"),
    (["--mark-best"], "--mark-best needs the in-memory engine"),
    (["--normalize-ids", "nfc"], "--normalize-ids needs the in-memory engine"),
])
def test_blocks_refuse_what_they_do_not_give(paths, capsys, extra, message):
    assert main([*paths, "--engine", "blocks", *extra]) == 2
    assert message in capsys.readouterr().err
