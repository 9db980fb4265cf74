"""--metric on every command that shows figures: any name ir_measures, trec_eval or this tool
reads; a bad one is a usage error naming it with the closest names. --format latex, and the
agreement command."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR, load_sample


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_shows_the_figures_named_with_what_their_names_set(capsys):
    code, out, _ = run_cli(capsys, "--format", "json", "--metric", "nDCG@10", "--metric",
                           "P(rel=2)", "--metric", "Rprec", "--metric", "RBP(p=0.9)")
    assert code == 0
    data = json.loads(out)
    labels = ["nDCG@10", "P(rel=2)@5", "Rprec", "RBP(p=0.9)@5", "RBPresid(p=0.9)@5"]
    for run in data["runs"]:
        assert list(run["summary"]) == labels
        assert set(run["queries"][0]) == {"query_id", "class", "repeats", *labels}
    assert data["measures"]["P(rel=2)@5"]["note"] == "relevant from grade 2"
    assert data["measures"]["RBP(p=0.9)@5"]["parameters"] == {"p": 0.9}
    engine = load_sample(5).with_measures(["Rprec"])
    assert data["runs"][0]["summary"]["Rprec"]["mean"] == engine.runs[0].summary["Rprec"].mean


def test_the_table_states_a_figures_own_parameters(capsys):
    code, out, _ = run_cli(capsys, "--metric", "P(rel=2)", "--metric", "ERR")
    assert code == 0
    assert "P(rel=2)@5: relevant from grade 2." in out
    assert "ERR@5: the highest grade in the qrels is 3" in out


@pytest.mark.parametrize("command", ["", "compare", "leaderboard", "power", "agreement",
                                     "snapshot --out x.json"])
def test_a_bad_name_is_a_usage_error_with_the_closest_names(capsys, command):
    code, _, err = run_cli(capsys, *command.split(), "--metric", "nDGC@10", "--metric", "MRR")
    assert code == 2
    assert "unknown metric 'nDGC@10'; did you mean nDCG@10?" in err


def test_compare_leaderboard_and_power_take_the_new_measures(capsys):
    code, out, _ = run_cli(capsys, "compare", "--format", "json", "--metric", "Rprec",
                           "--metric", "AP(judged_only=True)", "--metric", "map")
    assert code == 0
    # the headline's metric joins the family, as it always has
    assert json.loads(out)["metrics"] == ["Rprec", "MAP(judged_only=True)@5", "MAP(read=full)",
                                          "nDCG@5"]
    code, out, _ = run_cli(capsys, "leaderboard", "--format", "json", "--metric", "ERR")
    assert code == 0 and list(json.loads(out)["metrics"]) == ["ERR@5"]
    code, out, _ = run_cli(capsys, "power", "--format", "json", "--metric", "Bpref")
    assert code == 0 and {p["metric"] for p in json.loads(out)["pairs"]} == {"Bpref"}


def test_a_decision_is_made_at_the_k_compared(capsys):
    code, _, err = run_cli(capsys, "compare", "--metric", "R@100")
    assert code == 1
    assert "'R@100' names K = 100, but the comparison is at K = 5" in err


# --------------------------------------------------------------------------- LaTeX


def test_latex_marks_the_best_run_and_the_significant_differences(tmp_path, capsys):
    # 30 queries: the candidate finds the relevant id at rank 1, the baseline at rank 5
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(30)))
    lines = {"base": [f"q{i} Q0 x{j} {j} {10 - j} b\n" for i in range(30) for j in range(1, 5)]
             + [f"q{i} Q0 d{i} 5 5 b\n" for i in range(30)],
             "good & 100%_new": [f"q{i} Q0 d{i} 1 9 g\n" for i in range(30)]}
    runs = []
    for name, text in lines.items():
        path = tmp_path / f"r{len(runs)}.run"
        path.write_text("".join(text))
        runs += ["--run", f"{name}={path}"]
    code, out, _ = run_cli(capsys, "--qrels", str(qrels), *runs, "--k", "5", "--format",
                           "latex", "--metric", "MRR", "--metric", "NumRet")
    assert code == 0
    assert r"\begin{tabular}{lrr}" in out and r"\toprule" in out and r"\bottomrule" in out
    assert r"good \& 100\%\_new & \shortstack[r]{\textbf{1.000}$^{\dagger}$" in out
    assert r"base & \shortstack[r]{0.200\\" in out
    assert r"\textbf{5.000}" not in out  # a count has no best run
    assert "paired randomization test (10,000 sign flips), Holm correction" in out


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
def test_latex_compiles(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "--format", "latex", "--metric", "nDCG@10", "--metric",
                           "AP(judged_only=True)", "--metric", "RBP")
    assert code == 0
    (tmp_path / "table.tex").write_text(out)
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\usepackage{booktabs}"
                                      "\\usepackage{graphicx}"  # the table shrinks to fit
                                      "\\begin{document}\\input{table.tex}\\end{document}\n")
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)


# --------------------------------------------------------------------------- agreement


def test_agreement_of_two_measures_and_two_k(capsys):
    code, out, _ = run_cli(capsys, "agreement", "--format", "json", "--metric", "nDCG@10",
                           "--metric", "MRR@10", "--metric", "nDCG@3")
    assert code == 0
    data = json.loads(out)
    pairs = [(a["first"], a["second"]) for a in data["agreements"]]
    assert pairs == [("nDCG@10", "MRR@10"), ("nDCG@10", "nDCG@3"), ("MRR@10", "nDCG@3")]
    first = data["agreements"][0]
    assert first["order_first"] == ["reranked", "baseline", "bm25"]
    assert first["swapped"] == [["baseline", "bm25"], ["reranked", "bm25"]]
    assert first["tau"] == pytest.approx(-1 / 3)


def test_agreement_of_two_label_sets(tmp_path, capsys):
    # the second labels lose every grade-1 judgment: the runs' orders can only move
    lines = (SAMPLE_DIR / "qrels.txt").read_text().splitlines()
    judge = tmp_path / "judge.txt"
    judge.write_text("".join(line + "\n" for line in lines if not line.endswith(" 1")))
    runs = [arg for name in ("baseline", "reranked", "bm25")
            for arg in ("--run", str(SAMPLE_DIR / f"{name}.run"))]
    code, out, _ = run_cli(capsys, "agreement", "--qrels", str(SAMPLE_DIR / "qrels.txt"),
                           "--qrels", str(judge), *runs, "--k", "5", "--metric", "nDCG",
                           "--format", "json")
    assert code == 0
    (found,) = json.loads(out)["agreements"]
    assert found["first"] == "nDCG@5 (qrels.txt)" and found["second"] == "nDCG@5 (judge.txt)"
    assert -1 <= found["tau"] <= 1 and -1 <= found["tau_ap"] <= 1


@pytest.mark.parametrize("argv, message", [
    (["--metric", "nDCG"], "one --metric orders the runs once"),
    (["--qrels", "a", "--qrels", "b", "--qrels", "c"], "two label sets at most"),
])
def test_agreement_refuses_what_it_cannot_compare(capsys, argv, message):
    code, _, err = run_cli(capsys, "agreement", *argv)
    assert code == 2 and message in err
