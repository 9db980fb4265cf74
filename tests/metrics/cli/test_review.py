"""compare's risk figures, --max-harm and --fragility, and the unjudged command, from the
command line (metrics/cli/review.py)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from metrics import compare_evaluation, fragility, load_qrels, load_sample
from metrics.cli import main
from metrics.core.files import rereader
from metrics.core.sample import sample_runs
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK, EXIT_USAGE


@pytest.fixture
def files(tmp_path):
    """30 queries: the candidate loses rel{i} from rank 1 on 6 of them (20% harmed) and
    gains it on 3; the rest tie. Unjudged ids x{i} fill the lists."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(30)))
    base = tmp_path / "base.run"
    cand = tmp_path / "cand.run"
    base_lines, cand_lines = [], []
    for i in range(30):
        found = [f"rel{i}", f"x{i}"] if i >= 3 else [f"x{i}", f"rel{i}"]
        lost = [f"x{i}", f"y{i}"] if i < 9 and i >= 3 else found if i >= 3 else [f"rel{i}",
                                                                                 f"x{i}"]
        base_lines += [f"q{i} Q0 {d} {r + 1} {9 - r} b" for r, d in enumerate(found)]
        cand_lines += [f"q{i} Q0 {d} {r + 1} {9 - r} c" for r, d in enumerate(lost)]
    base.write_text("\n".join(base_lines) + "\n")
    cand.write_text("\n".join(cand_lines) + "\n")
    return ["--qrels", str(qrels), "--run", str(base), "--run", str(cand), "--k", "1",
            "--permutations", "500"]


def compare_json(argv, capsys):
    status = main(["compare", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def plain_risk(differences, alpha):
    z = [d if d >= 0 else (1 + alpha) * d for d in differences]
    mean = sum(z) / len(z)
    sd = (sum((v - mean) ** 2 for v in z) / (len(z) - 1)) ** 0.5
    return mean, mean / (sd / len(z) ** 0.5)


def test_each_comparison_row_carries_its_risk(files, capsys):
    status, data, _ = compare_json(files, capsys)
    assert status == EXIT_OK
    row = next(r for r in data["comparisons"] if r["metric"] == "P@1")
    risk = row["risk"]
    differences = [-1.0] * 6 + [1.0] * 3 + [0.0] * 21
    for alpha in (1, 5):
        urisk, trisk = plain_risk(differences, alpha)
        assert risk["urisk"][str(alpha)] == pytest.approx(urisk, abs=1e-12)
        assert risk["trisk"][str(alpha)] == pytest.approx(trisk, abs=1e-12)
    assert (risk["harm_share"], risk["harm_delta"], risk["harmed"]) == (0.2, 0.05, 6)
    assert risk["harm_low"] < 0.2 < risk["harm_high"]
    assert {w["query_id"] for w in risk["worst"]} == {f"q{i}" for i in range(3, 9)}


def test_the_harm_gate_fails_with_exit_3_and_names_itself(files, capsys):
    status, data, err = compare_json([*files, "--max-harm", "P@1=0.10:0.05"], capsys)
    assert status == EXIT_GATE
    gate = next(g for g in data["gates"] if g["gate"] == "harm")
    assert (gate["candidate"], gate["metric"], gate["passed"]) == ("cand", "P@1", False)
    assert gate["share"] == 0.2 and gate["limit"] == 0.1 and gate["low"] < 0.2 < gate["high"]
    assert "harm: cand on P@1 against base: harms too many queries: 20.0% of queries" in err
    status, data, _ = compare_json([*files, "--max-harm", "P@1=25%"], capsys)
    assert status == EXIT_OK
    assert [g["passed"] for g in data["gates"] if g["gate"] == "harm"] == [True]
    # a query that loses exactly delta is not harmed: at delta 1 no P@1 loss is harm
    status, data, _ = compare_json([*files, "--max-harm", "P@1=0:1"], capsys)
    assert status == EXIT_OK


@pytest.mark.parametrize("limit, said", [("P@1=2", "did you mean 2%"),
                                         ("P@1", "METRIC=SHARE"),
                                         ("nDCG@7=0.1", "K = 7")])
def test_a_bad_harm_limit_is_a_usage_error(files, capsys, limit, said):
    assert main(["compare", *files, "--max-harm", limit]) == EXIT_USAGE
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("flag, given, said", [
    ("--max-harm", "nDCG=2", "SHARE must be a number from 0 to 1"),
    ("--budget", "nDCG=abc", "the amount must be a finite number >= 0"),
])
def test_a_bad_limit_names_its_flag_and_the_range(files, capsys, flag, given, said):
    """Its one line starts with the flag that gave it, then what it must be (it once said
    "harm limit 'nDCG=2': ..." naming no flag; a bad budget was found after the tests)."""
    assert main(["compare", *files, flag, given]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag}: ") and said in err and len(err.splitlines()) == 1


def test_fragility_lists_the_engine_s_flips(capsys):
    status, data, _ = compare_json(["--fragility", "--permutations", "2000"], capsys)
    assert status == EXIT_OK
    evaluation = load_sample(5)
    expected = fragility(evaluation, compare_evaluation(evaluation, n_permutations=2000),
                         reread=rereader(sample_runs(), evaluation))
    assert data["fragility"] == expected.rows()
    assert expected.rows() and set(expected.rows()[0]) == {
        "candidate", "metric", "convention", "choice", "verdict", "verdict_under_choice"}
    assert {"convention": "order", "choice": "rank"} in data["fragility_tried"]
    assert data["fragility_summary"] == expected.summary


def test_fragility_needs_live_runs(tmp_path, capsys):
    snapshot = tmp_path / "base.json"
    assert main(["snapshot", "--out", str(snapshot)]) == EXIT_OK
    capsys.readouterr()
    assert main(["compare", "--snapshot", str(snapshot), "--fragility"]) == EXIT_USAGE
    assert "a snapshot keeps only its figures" in capsys.readouterr().err


def test_the_table_shows_risk_and_the_flips(capsys):
    assert main(["compare", "--fragility", "--permutations", "500"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "Risk against baseline" in out and "TRisk α=5" in out
    assert "Fragility: " in out and " under " in out


def test_unjudged_writes_csv_a_qrels_template_and_json(tmp_path, capsys):
    assert main(["unjudged", "--k", "3", "--as", "csv"]) == EXIT_OK
    out, err = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:3] == ["priority", "query_id", "doc_id"]
    assert "unjudged ids in the top 3 of 3 runs" in err
    assert main(["unjudged", "--k", "3", "--as", "qrels"]) == EXIT_OK
    template = capsys.readouterr().out
    assert len(template.splitlines()) == len(rows) - 1
    filled = tmp_path / "filled.txt"
    filled.write_text("".join(line.rstrip("\n") + "0\n" for line in template.splitlines(True)))
    labels, _ = load_qrels(filled)
    assert len(labels.grade) == len(rows) - 1 and not np.any(labels.grade)
    assert main(["unjudged", "--k", "3", "--format", "json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 3 and len(data["to_label"]) == len(rows) - 1
    assert data["to_label"][0]["priority"] == 1


def test_the_worst_losses_carry_their_question_with_a_queries_file(capsys):
    from metrics import load_queries
    from metrics.core.sample import SAMPLE_DIR

    status, data, _ = compare_json([], capsys)  # the sample: its queries file is read
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    worst = next(r for r in data["comparisons"] if r["metric"] == "nDCG@5")["risk"]["worst"]
    assert worst and all(loss["text"] == queries.text(loss["query_id"]) for loss in worst)
