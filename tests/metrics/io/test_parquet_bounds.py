"""A Parquet input is bounded by what it decodes to, whatever its layout: a dictionary page
whose one long value every row repeats (a 1 KB file that decodes to gigabytes) is refused
before it is read, naming the file, by every reader (in memory, block by block, one query's
rows); a file written a row per row group is streamed in large batches, its footer parsed
once, and scored as the same rows in one row group are."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.core.blocks import evaluate_blocks
from metrics.core.evaluate import evaluate
from metrics.core.files import RunSource
from metrics.io import LoadError, load_qrels, load_run
from metrics.io.one_query import load_query_run
from metrics.io.parquet import batches
from metrics.vocabulary.conventions import Conventions
from tests.marks import THOROUGH
from tests.metrics.capped import ROOT, run_capped


def bomb(path, rows: int, width: int, column: str = "query_id"):
    """A run whose `column` is one `width`-byte value in a dictionary page that every one of
    its `rows` rows repeats: a file of about a kilobyte that decodes to rows x width bytes."""
    long = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)),
                                          pa.array(["x" * width]))
    other = pa.array(["d1"] * rows) if column == "query_id" else pa.array(["q1"] * rows)
    columns = {"query_id": long, "doc_id": other} if column == "query_id" else {
        "query_id": other, "doc_id": long}
    pq.write_table(pa.table({**columns, "rank": np.ones(rows, np.int64)}), path,
                   compression="zstd", dictionary_pagesize_limit=1 << 30, store_schema=False)
    return path


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_dictionary_bomb_is_refused_before_it_is_read(tmp_path, column):
    path = bomb(tmp_path / "bomb.parquet", rows=200, width=1 << 16, column=column)
    assert path.stat().st_size < 4096  # and it decodes to 12.5 MB
    assert pq.ParquetFile(path).metadata.row_group(0).total_byte_size < 1 << 20
    limit = 4 << 20
    with pytest.raises(LoadError, match=r"^bomb.parquet: decodes to as much as 12\.\d MB once "
                       r"read \(a string value its rows repeat\), beyond the 4 MB limit"):
        load_run(path, max_bytes=limit)
    with pytest.raises(LoadError, match=r"^bomb.parquet: decodes to as much as"):
        load_run(path.read_bytes(), file_name="bomb.parquet", max_bytes=limit)
    with pytest.raises(LoadError, match=r"^bomb.parquet: decodes to as much as"):
        list(batches(path, None, "run", max_bytes=limit))  # the block engine's read
    if column == "doc_id":  # one query's rows, read for the drill-down
        with pytest.raises(LoadError, match=r"^bomb.parquet: decodes to as much as"):
            load_query_run(path, "q1", max_bytes=limit)


@pytest.mark.parametrize("engine", ["memory", "blocks"])
def test_a_gigabyte_dictionary_bomb_is_one_line_naming_the_file(tmp_path, engine):
    """100,000 rows repeating a 64 KB id: a 2 KB file that decodes to 6 GB. Before, it went
    past the 512 MB bound to 2.4 GB and ended in an overflow; here in 2 GB of address space
    it is refused at once, with the bound's flag."""
    path = bomb(tmp_path / "bomb.parquet", rows=100_000, width=1 << 16)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    done = run_capped(["--qrels", str(qrels), "--run", str(path), "--engine", engine],
                      cap_mb=2048, timeout=120)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.startswith("error: bomb.parquet: decodes to as much as 6,25"), err
    assert "beyond the 512 MB limit (--max-input-mb)" in err
    assert "Traceback" not in err


def test_a_long_value_few_rows_repeat_is_counted_not_refused(tmp_path):
    """A dictionary whose one long value a single row holds: the footer's bound and the
    longest value's pass the limit, the count in dictionary form does not."""
    rows = 20_000
    ids = [f"q{i % 50}" for i in range(rows)]
    ids[7] = "q" + "x" * 60_000
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"query_id": ids, "doc_id": [f"d{i}" for i in range(rows)],
                             "rank": np.arange(1, rows + 1)}), path)
    run, _ = load_run(path, max_bytes=2 << 20)  # 20,000 x 60 KB would be 1.2 GB
    assert len(run.doc_ids) == rows


def one_row_groups(path, rows: int, queries: int):
    """A run written a row per row group (no statistics: a small footer a row)."""
    per = rows // queries
    table = pa.table({"query_id": [f"q{i // per}" for i in range(rows)],
                      "doc_id": [f"d{i % per}" for i in range(rows)],
                      "rank": [i % per + 1 for i in range(rows)]})
    pq.write_table(table, path, row_group_size=1, write_statistics=False)
    return path, table


def test_tiny_row_groups_are_read_together(tmp_path):
    path, _ = one_row_groups(tmp_path / "tiny.parquet", 3_000, 30)
    for dictionary in (False, True):
        read = list(batches(path, None, "run", roles=("query",), dictionary=dictionary))
        assert [len(b.lines) for b in read] == [3_000]  # not 3,000 batches of one row
        assert read[0].lines[0] == 1
    small = list(batches(path, None, "run", rows=1_000, dictionary=True))
    assert [len(b.lines) for b in small] == [1_000] * 3
    assert [int(b.lines[0]) for b in small] == [1, 1_001, 2_001]


def test_tiny_row_groups_score_as_one_row_group_and_parse_the_footer_once(tmp_path,
                                                                           monkeypatch):
    path, table = one_row_groups(tmp_path / "tiny.parquet", 2_000, 40)
    qrels, _ = load_qrels(pa.table({"query_id": [f"q{i}" for i in range(40)],
                                    "doc_id": [f"d{i}" for i in range(40)],
                                    "grade": [1] * 40}))
    conventions = Conventions(n_resamples=50)
    parsed = []
    original = pq.ParquetFile

    def counted(source, *args, metadata=None, **kwargs):
        if metadata is None:
            parsed.append(source)
        return original(source, *args, metadata=metadata, **kwargs)

    monkeypatch.setattr(pq, "ParquetFile", counted)
    blocks = evaluate_blocks(qrels, [RunSource(path, name="tiny")], 5, conventions,
                             block_queries=7)
    assert len(parsed) == 1  # one footer parse for every pass over the run
    monkeypatch.setattr(pq, "ParquetFile", original)
    memory = evaluate(qrels, [load_run(table, run_name="tiny")[0]], 5, conventions)
    got, want = blocks.runs[0], memory.runs[0]
    assert got.summary == want.summary
    for key, values in memory.per_query_scores("tiny").items():
        np.testing.assert_array_equal(got.at_k[key], values, err_msg=key)


# `python -m metrics` reporting its own peak resident memory (VmHWM) as it leaves: a child's
# ru_maxrss would start from the test process's own, which exec does not reset
_PEAK = """
import os, runpy, sys
leave = os._exit
def report(code):
    peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
    sys.stderr.write("peak " + peak.split()[1] + "\\n")
    sys.stderr.flush()
    leave(code)
os._exit = report
sys.argv = ["metrics", *sys.argv[1:]]
runpy.run_module("metrics", run_name="__main__")
"""


def _peak_mb(args: list[str]) -> int:
    """The peak resident memory of `python -m metrics ARGS`, in MB."""
    done = subprocess.run([sys.executable, "-c", _PEAK, *args], cwd=ROOT, capture_output=True,
                          timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    return int(err.rsplit("peak ", 1)[1].split()[0]) >> 10


@THOROUGH
def test_the_block_engine_is_not_worse_than_memory_on_tiny_row_groups(tmp_path):
    """60,000 rows a row per row group. Before, the block engine held about 9 KB a row group
    (each footer parsed three times, one dictionary batch a row group): three times what the
    in-memory engine adds for the layout; now one footer, as the in-memory engine."""
    tiny, table = one_row_groups(tmp_path / "tiny.parquet", 60_000, 60)
    whole = tmp_path / "whole.parquet"
    pq.write_table(table, whole)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(60)))
    peaks = {(engine, path.name): _peak_mb(["--qrels", str(qrels), "--run", f"r={path}",
                                            "--engine", engine, "--sweep", "1:5"])
             for engine in ("memory", "blocks") for path in (tiny, whole)}
    in_memory = peaks["memory", "tiny.parquet"] - peaks["memory", "whole.parquet"]
    by_blocks = peaks["blocks", "tiny.parquet"] - peaks["blocks", "whole.parquet"]
    assert by_blocks < 1.5 * in_memory + 60, peaks
