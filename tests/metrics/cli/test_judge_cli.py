"""python -m metrics judge, sample-for-labelling and --labels: the commands print the
engine's figures, refuse what they cannot do, and --labels judge scores against the judge's
labels."""

from __future__ import annotations

import json
import re

import pytest

from metrics.cli import main
from metrics.context.judge import judge_report
from metrics.core.files import RunSource, evaluate_files
from metrics.vocabulary import format as fmt
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.judge import NO_JUDGE_ONLY, NO_UNLABELLED, PPI_IS_HUMAN_ONLY
from tests.metrics.context.judged_files import write_judged

pytest.importorskip("ppi_py")


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    return write_judged(tmp_path_factory.mktemp("judged_cli"))


def _inputs(paths, *extra):
    return ["--qrels", str(paths["human"]), "--judge-qrels", str(paths["judge"]),
            *(x for name in ("bm25", "dense") for x in ("--run", str(paths[name]))),
            "--k", "5", *extra]


@pytest.mark.parametrize("lam", [None, 1.0])
def test_judge_json_is_the_engine_s(paths, capsys, lam):
    extra = [] if lam is None else ["--ppi-lambda", str(lam)]
    assert main(["judge", *_inputs(paths, "--format", "json", *extra)]) == 0
    data = json.loads(capsys.readouterr()[0])
    runs = [RunSource(paths["bm25"]), RunSource(paths["dense"])]
    expected = judge_report(evaluate_files(paths["human"], runs, 5,
                                           Conventions(empty_queries="zero")),
                            evaluate_files(paths["judge"], runs, 5,
                                           Conventions(empty_queries="zero", labels="judge")),
                            lam=lam)
    assert data["figures"] == json.loads(json.dumps(expected.as_dict()["figures"]))
    assert data["lambda"] == ("tuned" if lam is None else lam)
    assert data["coverage"]["human_queries"] == 20


def test_judge_table_names_every_interval(paths, capsys):
    assert main(["judge", *_inputs(paths)]) == 0
    out, err = capsys.readouterr()
    for words in ("human only", "judge only", "prediction-powered", "bias", "kappa",
                  "false relevant rate", "dense − bm25"):
        assert words in out
    assert "judge.txt" in err and "human.txt" in err


def test_judge_without_judge_labels_is_a_usage_error(paths, capsys):
    assert main(["judge", "--qrels", str(paths["human"]), "--run", str(paths["bm25"])]) == 2
    assert "--judge-qrels" in capsys.readouterr()[1]


def test_a_bad_lambda_is_refused(paths, capsys):
    assert main(["judge", *_inputs(paths, "--ppi-lambda", "2")]) == 2
    assert "--ppi-lambda" in capsys.readouterr()[1]


def test_labels_judge_scores_against_the_judge_s_file(paths, capsys):
    assert main(["score", *_inputs(paths, "--labels", "judge", "--format", "json")]) == 0
    judged = json.loads(capsys.readouterr()[0])
    assert main(["score", "--qrels", str(paths["judge"]), "--run", str(paths["bm25"]),
                 "--run", str(paths["dense"]), "--k", "5", "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr()[0])
    assert judged["runs"] == plain["runs"]
    assert "judge's labels" in json.dumps(judged)


@pytest.mark.parametrize("labels,message", [("ppi", "judge command"),
                                            ("judge", "--judge-qrels")])
def test_labels_a_command_cannot_read_is_refused(paths, capsys, labels, message):
    argv = ["score", "--qrels", str(paths["human"]), "--run", str(paths["bm25"]),
            "--labels", labels]
    if labels == "ppi":
        argv += ["--judge-qrels", str(paths["judge"])]
    assert main(argv) == 2
    assert message in capsys.readouterr()[1]


def test_sample_for_labelling_draws_n_queries_and_their_template(paths, capsys):
    argv = ["sample-for-labelling", "--qrels", str(paths["judge"]), "--run",
            str(paths["bm25"]), "--run", str(paths["dense"]), "--k", "3", "--n", "7",
            "--seed", "4"]
    assert main([*argv, "--as", "ids"]) == 0
    ids = capsys.readouterr()[0].split()
    assert len(ids) == len(set(ids)) == 7
    assert main(argv) == 0
    lines = capsys.readouterr()[0].splitlines()
    assert {line.split()[0] for line in lines} == set(ids)
    runs = {name: {} for name in ("bm25", "dense")}
    for name in runs:
        for line in paths[name].read_text().splitlines():
            q, _, d, rank, *_ = line.split()
            if q in ids and int(rank) <= 3:
                runs[name].setdefault(q, set()).add(d)
    expected = {(q, d) for found in runs.values() for q, docs in found.items() for d in docs}
    assert {tuple(line.split()[::2][:2]) for line in lines} == expected


def test_sample_for_labelling_refuses_more_than_there_are(paths, capsys):
    assert main(["sample-for-labelling", "--qrels", str(paths["judge"]), "--run",
                 str(paths["bm25"]), "--n", "999"]) == 2
    assert "more queries" in capsys.readouterr()[1]


def test_compare_labels_ppi_headline_and_gate_read_the_ppi_intervals(paths, capsys):
    argv = ["compare", *_inputs(paths, "--labels", "ppi", "--format", "json",
                                "--fail-on-regression", "nDCG")]
    code = main(argv)
    data = json.loads(capsys.readouterr()[0])
    ndcg = next(c for c in data["comparisons"] if c["metric"] == "nDCG")
    worse = ndcg["ppi"]["high"] < 0
    assert code == (3 if worse else 0)
    assert data["gates"] == [{"gate": "regression", "metric": "nDCG@5", "candidate": "dense",
                              "passed": not worse, "method": "ppi"}]
    assert "prediction-powered" in data["headline"]
    assert f"{ndcg['ppi']['mean']:+.3f}" in data["headline"]


def test_compare_labels_ppi_fails_the_gate_of_a_worse_candidate(paths, capsys):
    # the fixture's runs get better bm25 -> dense -> hybrid: hybrid as the baseline
    argv = ["compare", "--qrels", str(paths["human"]), "--judge-qrels", str(paths["judge"]),
            "--run", str(paths["hybrid"]), "--run", str(paths["bm25"]), "--k", "5",
            "--labels", "ppi", "--fail-on-regression", "nDCG"]
    assert main(argv) == 3
    assert "prediction-powered interval below 0" in capsys.readouterr()[1]


def test_compare_labels_ppi_refuses_one_label_set_s_flags(paths, capsys):
    assert main(["compare", *_inputs(paths, "--labels", "ppi", "--fragility")]) == 2
    assert "--fragility" in capsys.readouterr()[1]


def test_with_every_query_human_labelled_the_commands_read_the_human_only_figures(
        tmp_path, capsys):
    """No judge-only query: compare --labels ppi formatted the missing weight (a TypeError);
    judge wrote lambda as '—'. Both say the prediction-powered figures are the human-only
    ones, the weight undefined with why."""
    every = write_judged(tmp_path, chosen=list(range(60)))
    assert main(["compare", *_inputs(every, "--labels", "ppi")]) == 0
    out = capsys.readouterr()[0]
    assert PPI_IS_HUMAN_ONLY in out and "None" not in out
    assert main(["judge", *_inputs(every)]) == 0
    out = capsys.readouterr()[0]
    assert NO_UNLABELLED in out
    assert fmt.undefined(NO_JUDGE_ONLY) in out
    assert not re.search(r"\bNone\b|\bnan\b", out)


def test_human_labels_with_one_class_are_written_undefined_with_their_reasons(tmp_path, capsys):
    paths = write_judged(tmp_path)
    lines = paths["human"].read_text().splitlines()
    paths["human"].write_text("".join(f"{line}\n" for line in lines
                                      if int(line.split()[3]) >= 1))
    assert main(["judge", *_inputs(paths)]) == 0
    out = capsys.readouterr()[0]
    assert "false relevant rate: undefined (no pair both label sets grade is one the humans " \
           "judge not relevant)" in out
    assert re.search(r"Cohen's kappa \(relevant from grade 1\): undefined \(the humans gave "
                     r"every pair the same category", out)
    assert "false non-relevant rate: 0." in out and "pairs both label sets grade that the " \
           "humans judge relevant" in out
    assert not re.search(r"\bNone\b|\bnan\b", out)
    assert main(["judge", *_inputs(paths, "--format", "json")]) == 0
    grades = json.loads(capsys.readouterr()[0])["grades"]
    assert grades["false_relevant"]["rate"] is None
    assert grades["false_relevant"]["undefined"].startswith("no pair")
    assert grades["binary_kappa"]["kappa"] is None and grades["binary_kappa"]["undefined"]


@pytest.mark.parametrize("command", [["judge"], ["compare", "--labels", "ppi"]])
def test_label_files_that_share_no_query_are_named(paths, tmp_path, capsys, command):
    """The judge's labels of other queries only: the one line names both files and says they
    share no query (it said "got 0", naming neither)."""
    other = tmp_path / "other_judge.txt"
    other.write_text("".join(f"z{line}\n" for line in paths["judge"].read_text().splitlines()))
    argv = _inputs(paths)
    argv[argv.index("--judge-qrels") + 1] = str(other)
    assert main([*command, *argv]) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == (f"error: prediction-powered figures need at least 2 queries labelled by "
                     f"both the humans ({paths['human'].name}) and the judge (other_judge.txt); "
                     "the two share no query")
