"""run-retriever: a module written here called live from the command line (a subprocess, as a
user runs it), its TREC run and timings read back, its figures those of `score` on the file
written, and one-line errors naming what was wrong with MODULE:FUNCTION."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli import main
from metrics.io import load_run

ROOT = Path(__file__).resolve().parents[3]

MODULE = '''
import time

CALLS = []

def search(text):
    """Query i: d_i first, then the next ids, scores falling."""
    if text == "fail":
        raise ConnectionError("index offline")
    if text == "hang":
        time.sleep(3)
    i = int(text.split()[-1])
    return [(f"d{(i + j) % 6}", 1.0 - j / 10) for j in range(5)]

def build():
    CALLS.append("built")
    return search

NOT_CALLABLE = 3
'''


@pytest.fixture
def files(tmp_path):
    (tmp_path / "toy.py").write_text(MODULE)
    (tmp_path / "q.jsonl").write_text("".join(
        json.dumps({"_id": f"q{i}", "text": text}) + "\n"
        for i, text in enumerate(["find 0", "find 1", "fail", "find 3", "hang", "find 5"])))
    (tmp_path / "qrels.txt").write_text("".join(
        f"q{i} 0 d{i} 2\nq{i} 0 d{(i + 3) % 6} 1\n" for i in range(6)))
    return tmp_path


def cli(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "metrics", "run-retriever", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_run_retriever_end_to_end(files):
    done = cli(files, "toy:build()", "--queries", "q.jsonl", "--out", "toy.run", "--k", "3",
               "--eval-k", "3", "--timeout", "0.5", "--concurrency", "2", "--warmup", "2",
               "--qrels", "qrels.txt")
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert "toy: 4 of 6 queries answered in" in done.stderr
    assert "(2 at a time, 2 warm-up calls first)" in done.stderr
    assert "2 queries failed (1 ConnectionError, 1 timeout):" in err
    assert "  q2: ConnectionError: index offline" in err
    assert any(line.startswith("  q4: timeout: no answer within the 0.5 s timeout")
               for line in err)
    assert err[-1] == "run written to toy.run, timings to toy.timings.csv"
    assert any(line.startswith("toy: 6/6 queries asked, 2 failures") for line in err)
    assert any(line.startswith("latency (ms, answered calls): mean ") for line in err)
    # the run reads back with the project's reader, in the order returned
    run, _ = load_run(files / "toy.run")
    assert list(dict.fromkeys(run.query)) == ["q0", "q1", "q3", "q5"]
    assert list(run.doc[run.query == "q1"]) == ["d1", "d2", "d3"]
    rows = list(csv.reader((files / "toy.timings.csv").open()))
    assert rows[0] == ["query_id", "run", "latency_ms"]
    assert [row[:2] for row in rows[1:]] == [["q0", "toy"], ["q1", "toy"], ["q3", "toy"],
                                             ["q5", "toy"]]
    assert all(float(row[2]) >= 0 for row in rows[1:])
    # the figures printed are score's on the written file: the failed queries score 0
    scored = subprocess.run([sys.executable, "-m", "metrics", "--qrels", "qrels.txt", "--run",
                             "toy.run", "--k", "3"], cwd=files, capture_output=True, text=True,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert scored.returncode == 0
    assert done.stdout == scored.stdout
    # 4 of 6 queries answered with d_i (grade 2) first, d_(i+3) (grade 1) past rank 3:
    # nDCG@3 = 4/6 x 2 / (2 + 1/log2(3)) = 0.507
    assert "\nnDCG@3    0.507 [" in done.stdout


def test_a_path_to_a_file_and_the_timings_flag(files):
    done = cli(files, f"{files / 'toy.py'}:search", "--queries", "q.jsonl", "--out", "a.run",
               "--timings-out", "lat.csv", "--name", "bm25", "--timeout", "0.2")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # no --qrels: nothing scored
    assert (files / "a.run").read_text().splitlines()[0] == "q0 Q0 d0 1 1.0 bm25"
    assert (files / "lat.csv").read_text().splitlines()[1].startswith("q0,bm25,")


@pytest.mark.parametrize("target, message", [
    ("toy", "error: retriever 'toy': expected MODULE:FUNCTION (such as search:bm25 or "
     "path/to/search.py:bm25)"),
    ("nowhere:search", "error: retriever module 'nowhere' cannot be imported: No module "
     "named 'nowhere'"),
    ("toy:missing", "error: retriever 'toy:missing': 'toy' has no attribute 'missing' (it "
     "has: CALLS, NOT_CALLABLE, build, search, time)"),
    ("toy:NOT_CALLABLE", "error: retriever 'toy:NOT_CALLABLE': 'NOT_CALLABLE' is a int, not "
     "callable"),
    ("toy:search()", "error: retriever 'toy:search()': search() raised TypeError: search() "
     "missing 1 required positional argument: 'text'"),
    ("gone.py:search", "error: retriever module 'gone.py': no such file"),
    ("toy:9x", "error: retriever 'toy:9x': '9x' is not a Python name"),
])
def test_a_target_that_is_not_a_retriever_is_named(files, monkeypatch, capsys, target,
                                                    message):
    monkeypatch.chdir(files)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "toy", raising=False)
    code = main(["run-retriever", target, "--queries", "q.jsonl", "--out", "x.run"])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err[-1].startswith(message), err[-1]
    assert not (files / "x.run").exists()


def test_a_module_that_fails_on_import_is_named(files, monkeypatch, capsys):
    (files / "broken.py").write_text("import not_installed_anywhere\n")
    monkeypatch.chdir(files)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code = main(["run-retriever", "broken:search", "--queries", "q.jsonl", "--out", "x.run"])
    assert code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "error: retriever module 'broken' failed as it was imported: ModuleNotFoundError: No "
        "module named 'not_installed_anywhere'")


@pytest.mark.parametrize("flags, message", [
    (["--timeout", "0"], "argument --timeout: expected a number of seconds > 0, got '0'"),
    (["--timeout", "inf"], "argument --timeout: expected a number of seconds > 0, got 'inf'"),
    (["--concurrency", "0"], "argument --concurrency: expected an integer from 1 to 256, got "
     "'0'"),
    (["--warmup", "-1"], "argument --warmup: expected an integer from 0 to 10,000, got '-1'"),
    (["--out", "q.jsonl"], "--out q.jsonl is one of this command's inputs (--queries "
     "q.jsonl): write it elsewhere"),
])
def test_bad_flags_are_usage_errors(files, monkeypatch, capsys, flags, message):
    monkeypatch.chdir(files)
    argv = ["run-retriever", "toy:search", "--queries", "q.jsonl", "--out", "x.run", *flags]
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"error: {message} (see --help)"
