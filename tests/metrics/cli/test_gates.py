"""The CI gates' exit statuses and the JSON that names each gate: 3 for a failed gate, 4 for
a leak, 2 for a bad flag, 1 for bad input (metrics/vocabulary/gates.py)."""

from __future__ import annotations

import json

import pytest

from metrics.cli import main
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_GATE, EXIT_OK, EXIT_USAGE


@pytest.fixture
def files(tmp_path):
    """30 queries: the baseline finds each relevant id at rank 1, the candidate never."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(30)))
    base = tmp_path / "base.run"
    base.write_text("".join(f"q{i} Q0 rel{i} 1 9 b\nq{i} Q0 x{i} 2 8 b\n" for i in range(30)))
    worse = tmp_path / "worse.run"
    worse.write_text("".join(f"q{i} Q0 x{i} 1 9 w\nq{i} Q0 y{i} 2 8 w\n" for i in range(30)))
    return str(qrels), str(base), str(worse)


def test_a_regression_fails_its_gate_with_exit_3_and_the_json_names_it(files, capsys):
    qrels, base, worse = files
    argv = ["compare", "--qrels", qrels, "--run", base, "--run", worse, "--k", "5",
            "--fail-on-regression", "nDCG@5", "--permutations", "500", "--format", "json"]
    assert main(argv) == EXIT_GATE == 3
    out, err = capsys.readouterr()
    assert json.loads(out)["gates"] == [{"gate": "regression", "metric": "nDCG@5",
                                         "candidate": "worse", "passed": False}]
    assert "regression: worse is significantly worse than base on nDCG@5" in err


def test_a_gate_that_holds_exits_0_and_says_it_passed(files, capsys):
    qrels, base, worse = files
    argv = ["compare", "--qrels", qrels, "--run", worse, "--run", base, "--k", "5",
            "--fail-on-regression", "nDCG@5", "--permutations", "500", "--format", "json"]
    assert main(argv) == EXIT_OK
    assert json.loads(capsys.readouterr()[0])["gates"][0]["passed"] is True


def test_bad_flags_and_bad_input_have_their_own_statuses(files, tmp_path, capsys):
    qrels, base, _ = files
    assert main(["--qrels", qrels, "--run", base, "--k", "zero"]) == EXIT_USAGE == 2
    broken = tmp_path / "broken.run"
    broken.write_text("q1 Q0\n")
    assert main(["--qrels", qrels, "--run", str(broken)]) == EXIT_BAD_INPUT == 1
    capsys.readouterr()
