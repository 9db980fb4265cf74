"""Minor hostile arguments, each a clear one-line message: a fused score that cannot reach
infinity, an --out that names an input or cannot be written, a weight of -inf, a run name of
a thousand characters, a cell of 200,000; the command line in a child process."""

from __future__ import annotations

import shutil

import pytest

from metrics.core.sample import SAMPLE_DIR
from tests.metrics.capped import run_capped

RUNS = [str(SAMPLE_DIR / "baseline.run"), str(SAMPLE_DIR / "bm25.run")]


def last_error(done) -> str:
    return done.stderr.decode().strip().splitlines()[-1]


@pytest.mark.parametrize("weights", ["1e308,1e308", "-inf,1", "nan,1"])
def test_weights_that_could_overflow_are_refused(weights):
    done = run_capped(["fuse", "--run", RUNS[0], "--run", RUNS[1], "--weights", weights],
                      cap_mb=3072)
    assert done.returncode == 2 and b"inf" not in done.stdout
    assert last_error(done) == ("error: argument --weights: weights must be finite, >= 0, at "
                                f"most 1,000,000 and not all 0, got '{weights}' (see --help)")


@pytest.mark.parametrize("command", ["fuse", "snapshot"])
def test_an_out_that_names_an_input_is_refused_and_the_input_kept(tmp_path, command):
    run = tmp_path / "mine.run"
    shutil.copy(RUNS[0], run)
    before = run.read_bytes()
    args = (["fuse", "--run", str(run), "--run", RUNS[1]] if command == "fuse" else
            ["snapshot", "--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", f"x={run}"])
    done = run_capped([*args, "--out", str(run)], cap_mb=3072)
    assert done.returncode == 2
    assert last_error(done) == (f"error: --out {run} is one of this command's inputs (--run "
                                f"{run}): write it elsewhere (see --help)")
    assert run.read_bytes() == before


@pytest.mark.parametrize("command", ["fuse", "snapshot"])
def test_an_out_that_cannot_be_written_is_named(command):
    args = ["fuse", "--run", RUNS[0], "--run", RUNS[1]] if command == "fuse" else ["snapshot"]
    done = run_capped([*args, "--out", "/proc/version"], cap_mb=3072)
    assert done.returncode == 1
    assert last_error(done).startswith("error: --out /proc/version: cannot write (")


def test_a_thousand_character_name_says_what_is_wrong():
    name = "n" * 1000
    done = run_capped(["--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", f"{name}={RUNS[0]}"],
                      cap_mb=3072)
    assert done.returncode == 2
    assert last_error(done) == ("error: argument --run: NAME=FILE: a run name may hold at most "
                                f"200 characters, got 1,000 ({'n' * 20}…) (see --help)")
    done = run_capped(["--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", name], cap_mb=3072)
    assert done.returncode == 1
    assert last_error(done) == (f"error: {'n' * 60}…: cannot read the file: its name, 1,000 "
                                "characters, is longer than the file system allows")


def test_a_long_cell_is_too_long_not_malformed(tmp_path):
    queries = tmp_path / "queries.csv"
    queries.write_text('query_id,text\nq01,"' + "w" * 200_000 + '"\n')
    done = run_capped(["--queries", str(queries)], cap_mb=3072)
    assert done.returncode == 1
    assert last_error(done) == ("error: queries.csv, line 2: a cell longer than 131,072 "
                                "characters, the limit for one cell")
