"""python -m metrics power and compare --budget: the engine's figures and verdicts, the
budget a gate that exits 3."""

from __future__ import annotations

import json

import pytest

from metrics import compare_evaluation, load_sample, parse_budgets, power_report
from metrics.cli import main
from metrics.vocabulary.budget import CANNOT_TELL, WITHIN, WORSE
from metrics.vocabulary.conventions import Conventions


def test_power_json_is_the_engine_s(capsys):
    assert main(["power", "--delta", "0.05", "--metric", "nDCG@5", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    evaluation = load_sample(5)
    expected = power_report(compare_evaluation(evaluation, metrics=["nDCG"],
                                               rng=evaluation.conventions.seed),
                            alpha=0.05, power=0.8, delta=0.05)
    # with --delta, the topic-set sizes follow (tests/metrics/cli/test_many_runs.py)
    assert {key: data[key] for key in expected} == expected
    assert set(data) - set(expected) == {"topic_set_method", "topic_set_sizes"}
    assert set(data["pairs"][0]) == {"baseline", "candidate", "metric", "queries",
                                     "sd_difference", "min_detectable_difference",
                                     "queries_needed"}


def test_power_refuses_a_bad_delta(capsys):
    assert main(["power", "--delta", "-1"]) == 2
    assert "delta" in capsys.readouterr()[1]


@pytest.fixture
def files(tmp_path):
    """40 queries: the candidate loses the relevant id's top rank on every fourth query."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(40)))
    base = tmp_path / "base.run"
    base.write_text("".join(f"q{i} Q0 rel{i} 1 9 b\nq{i} Q0 x{i} 2 8 b\n" for i in range(40)))
    cand = tmp_path / "cand.run"
    cand.write_text("".join(
        (f"q{i} Q0 x{i} 1 9 c\nq{i} Q0 rel{i} 2 8 c\n" if i % 4 == 0 else
         f"q{i} Q0 rel{i} 1 9 c\nq{i} Q0 x{i} 2 8 c\n") for i in range(40)))
    return str(qrels), str(base), str(cand)


@pytest.mark.parametrize(("budget", "verdict", "code"), [
    ("MRR@5=0.5", WITHIN, 0),  # loses 0.125 on average: well within half a point
    ("MRR@5=0.001", WORSE, 3),  # every resample loses more than 0.001
    ("MRR@5=0.14", CANNOT_TELL, 3),  # the interval straddles -0.14
])
def test_a_budget_gates_on_the_paired_interval(files, capsys, budget, verdict, code):
    qrels, base, cand = files
    argv = ["compare", "--qrels", qrels, "--run", base, "--run", cand, "--k", "5",
            "--budget", budget, "--permutations", "200", "--format", "json"]
    assert main(argv) == code
    out, err = capsys.readouterr()
    data = json.loads(out)
    row = next(r for r in data["comparisons"] if r["metric"] == "MRR@5")
    limit = parse_budgets([budget], 5, Conventions())[0].limit(row["before_mean"])
    assert row["budget"] == {"limit": limit, "verdict": verdict}
    gate = next(g for g in data["gates"] if g["gate"] == "budget")
    assert gate["verdict"] == verdict and gate["passed"] is (code == 0)
    assert ("budget: cand on MRR@5" in err) is (code == 3)
