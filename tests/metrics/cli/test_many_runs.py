"""Many runs at once on the command line: leaderboard --test, compare --all-pairs --test
tukey, --min-effect, and power's topic-set sizes; each document the engine's."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from metrics import compare_evaluation, load_sample
from metrics.cli import main
from metrics.decide.leaderboard import all_pairs, leaderboard
from metrics.decide.power import topic_set_sizes
from metrics.outputs.documents import leaderboard_document

PERMUTATIONS = "1000"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("test", ["tukey", "paired"])
def test_the_leaderboard_with_every_pair_tested_is_the_engine_s(capsys, test):
    code, out, _ = run(capsys, "leaderboard", "--test", test, "--metric", "nDCG",
                       "--metric", "MRR", "--permutations", PERMUTATIONS, "--min-effect",
                       "0.05", "--format", "json")
    assert code == 0
    evaluation = load_sample(5)
    pairs = all_pairs(evaluation, ["nDCG", "RR"], test=test, n_permutations=1000,
                      min_effect=0.05)
    expected = leaderboard_document(leaderboard(evaluation, ["nDCG", "RR"]), pairs)
    assert json.loads(out) == json.loads(json.dumps(expected))
    assert json.loads(out)["test"] == test
    assert {row["decision"] for row in json.loads(out)["pairs"]} <= {
        "better", "worse", "below_min_effect", "equivalent", "no_difference"}


def test_the_leaderboard_without_a_test_is_as_it_was(capsys):
    code, out, _ = run(capsys, "leaderboard", "--metric", "nDCG", "--format", "json")
    assert code == 0 and set(json.loads(out)) == {"k", "metrics"}


def test_the_leaderboard_table_puts_each_run_s_letters_beside_its_standing(capsys):
    code, out, _ = run(capsys, "leaderboard", "--test", "tukey", "--metric", "nDCG",
                       "--permutations", PERMUTATIONS)
    pairs = all_pairs(load_sample(5), ["nDCG"], test="tukey", n_permutations=1000)
    assert code == 0
    assert "letters" in out and pairs.sentence() in out
    assert "Two-way ANOVA without replication" in out and "margin of error" in out
    assert "p (randomized HSD)" in out and "p (classic HSD)" in out
    for run_name, letter in pairs.letters("nDCG").items():
        assert re.search(rf"^{run_name} .* {letter}\s*$", out, re.M)


def test_compare_all_pairs_by_the_tukey_hsd_keeps_the_baseline_s_tests(capsys):
    code, out, _ = run(capsys, "compare", "--all-pairs", "--test", "tukey", "--metric",
                       "nDCG", "--permutations", PERMUTATIONS, "--format", "json")
    assert code == 0
    data = json.loads(out)
    evaluation = load_sample(5)
    baseline = compare_evaluation(evaluation, metrics=["nDCG"], n_permutations=1000)
    assert [row["p_adjusted"] for row in data["comparisons"]] == [
        t.p_adjusted for t in baseline.tests]
    pairs = all_pairs(evaluation, ["nDCG"], test="tukey", n_permutations=1000)
    assert data["all_pairs"] == json.loads(json.dumps(pairs.as_dict()))
    assert data["pairs"] == pairs.pair_rows()
    assert "randomized Tukey HSD" in data["all_pairs_method"]["letters"]
    code, out, _ = run(capsys, "compare", "--all-pairs", "--test", "tukey", "--metric",
                       "nDCG", "--permutations", PERMUTATIONS)
    assert code == 0 and "Paired comparison at K = 5" in out and "p (classic HSD)" in out


def test_test_needs_all_pairs(capsys):
    code, _, err = run(capsys, "compare", "--test", "tukey")
    assert code == 2 and "--all-pairs" in err


def test_the_minimum_effect_reaches_compare_s_verdicts(capsys):
    code, out, _ = run(capsys, "compare", "--metric", "nDCG", "--min-effect", "0.5",
                       "--permutations", PERMUTATIONS, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["min_effect"] == 0.5 and "min_effect" in data["method"]
    for row in data["comparisons"]:
        assert row["min_effect"] == 0.5 and row["p_equivalence"] is not None
        assert "minimum effect" in row["verdict"]
    assert any("within the minimum effect" in line for line in data["headlines"])
    code, out, _ = run(capsys, "compare", "--metric", "nDCG", "--min-effect", "0.5",
                       "--permutations", PERMUTATIONS)
    assert code == 0 and "The minimum effect is 0.5" in out


@pytest.mark.parametrize("bad", ["0", "-0.1", "nan", "x"])
def test_a_bad_minimum_effect_is_a_usage_error(capsys, bad):
    code, _, err = run(capsys, "compare", "--min-effect", bad)
    assert code == 2 and "--min-effect" in err


def test_power_gives_the_topic_set_sizes(capsys):
    code, out, _ = run(capsys, "power", "--delta", "0.05", "--ci-width", "0.1",
                       "--anova-runs", "5", "--metric", "nDCG", "--format", "json")
    assert code == 0
    data = json.loads(out)
    sizes = topic_set_sizes(load_sample(5), ["nDCG"], min_difference=0.05, ci_width=0.1,
                            runs=5)
    assert data["topic_set_sizes"] == [{"metric": label, **size.as_dict()}
                                       for label, size in sizes.items()]
    assert "Sakai" in data["topic_set_method"]
    code, out, _ = run(capsys, "power", "--delta", "0.05", "--metric", "nDCG")
    assert code == 0 and "ANOVA over 3 runs" in out and "queries needed" in out
    code, _, err = run(capsys, "power", "--ci-width", "0.1")
    assert code == 2 and "--delta" in err


def test_the_leaderboard_latex_carries_the_letters(capsys, tmp_path):
    code, out, _ = run(capsys, "leaderboard", "--test", "tukey", "--metric", "nDCG",
                       "--metric", "MRR", "--permutations", PERMUTATIONS, "--format", "latex")
    assert code == 0
    assert out.count("\\textsuperscript{a}") == 6  # three runs, two figures, one group
    assert "Superscript letters: Runs that share a letter" in out
    if shutil.which("pdflatex"):  # compiled when a LaTeX is installed
        (tmp_path / "table.tex").write_text(out)
        (tmp_path / "paper.tex").write_text(
            "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
            "\\begin{document}\n\\input{table}\n\\end{document}\n")
        done = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode",
                               "paper.tex"], cwd=tmp_path, capture_output=True, timeout=120)
        assert done.returncode == 0


def test_prediction_powered_labels_refuse_a_minimum_effect(capsys):
    """--labels ppi reads no paired test of one label set: the minimum effect, which judges
    those tests' verdicts, is refused rather than ignored."""
    code, _, err = run(capsys, "compare", "--labels", "ppi", "--min-effect", "0.1")
    assert code == 2 and "--min-effect" in err
