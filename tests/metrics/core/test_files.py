"""The one path from files to an Evaluation that the command line and the dashboard share."""

from __future__ import annotations

from metrics import RunSource, distinct_names, evaluate_files, load_runs
from metrics.vocabulary.conventions import Conventions

QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"


def test_repeated_names_get_a_suffix_and_the_report_says_why():
    runs = [RunSource(b"q1 Q0 d1 1 2.0 t\n", file_name="a/bm25.run"),
            RunSource(b"q1 Q0 d2 1 2.0 t\n", file_name="b/bm25.run")]
    loaded, reports = load_runs(runs, Conventions())
    assert [run.name for run in loaded] == ["bm25", "bm25 (2)"]
    assert reports["bm25 (2)"].notes == ("named 'bm25 (2)': an earlier run is already named "
                                         "'bm25'",)
    evaluation = evaluate_files(QRELS, runs, 1, qrels_name="q.txt")
    assert [r.summary["P"].mean for r in evaluation.runs] == [1.0, 0.0]


def test_distinct_names_skips_a_suffix_already_taken():
    assert distinct_names(["a", "a (2)", "a", "b"]) == ["a", "a (2)", "a (3)", "b"]
    assert distinct_names(["x", "x", "x"]) == ["x", "x (2)", "x (3)"]


def test_the_score_precision_convention_reaches_the_loader():
    run = RunSource(b"q Q0 b 2 1.0 t\nq Q0 a 1 1.00000001 t\n", file_name="r.run")
    qrels = b"q 0 a 1\nq 0 b 0\n"
    for precision, first in (("double", 1.0), ("float32", 0.0)):
        evaluation = evaluate_files(qrels, [run], 1, Conventions(score_precision=precision),
                                    qrels_name="q.txt")
        assert evaluation.runs[0].summary["P"].mean == first
