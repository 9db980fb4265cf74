"""Run names as they look: NFKC, no invisible or bidirectional control characters; two names
that look alike are one name, wherever the engine decides names."""

from __future__ import annotations

import pytest

from metrics import distinct_names, evaluate, load_run, plain_name, rename_refusal
from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR
from tests.metrics.builders import make_qrels, make_run

ZWSP, RLO, WJ, SHY = "\u200b", "\u202e", "\u2060", "\u00ad"


@pytest.mark.parametrize(("given", "plain"), [
    ("baseline" + ZWSP, "baseline"),
    (RLO + "enilesab", "enilesab"),
    ("bm" + WJ + "25", "bm25"),
    ("bm" + SHY + "25", "bm25"),
    ("ｂｍ２５", "bm25"),  # full-width forms
    ("  dense \t retriever ", "dense retriever"),
    ("e\u0301", "é"),  # NFKC composes
    ("\x1b[2Jrun", "[2Jrun"),  # a control character is hidden, its text is not
])
def test_a_name_is_read_as_it_looks(given, plain):
    assert plain_name(given) == plain


def test_names_that_look_alike_are_numbered():
    assert distinct_names(["baseline", "baseline" + ZWSP, "ｂａｓｅｌｉｎｅ"]) == [
        "baseline", "baseline (2)", "baseline (3)"]


def test_a_run_s_name_loses_its_hidden_characters_and_its_report_says_so():
    run, report = load_run(SAMPLE_DIR / "bm25.run", run_name=RLO + "25mb" + ZWSP)
    assert run.name == "25mb"
    assert "named '25mb': the name given held invisible or bidirectional control characters " \
           "(U+202E, U+200B), removed" in report.notes
    plain, _ = load_run(SAMPLE_DIR / "bm25.run")
    assert plain.name == "bm25"


def test_a_rename_that_looks_like_another_run_s_name_is_refused():
    assert rename_refusal("baseline", "bm25" + ZWSP, ["bm25"]).startswith(
        "baseline keeps its name: the new name holds invisible or bidirectional control "
        "characters (U+200B)")
    assert rename_refusal("baseline", "ｂｍ２５", ["bm25"]) == (
        "baseline keeps its name: 'ｂｍ２５' looks like the name of the run bm25")
    assert rename_refusal("baseline", "dense", ["bm25"]) is None


def test_an_evaluation_refuses_to_show_two_runs_under_names_that_look_alike():
    qrels = make_qrels({"q": {"d": 1}})
    evaluation = evaluate(qrels, [make_run({"q": ["d"]}, "a"), make_run({"q": ["d"]}, "b")], 5)
    with pytest.raises(ValueError, match="run names must be distinct"):
        evaluation.select(["a", "b"], {"b": "a" + ZWSP})


def test_two_run_files_whose_names_look_alike_get_distinct_names(tmp_path, capsys):
    first = tmp_path / "baseline.run"
    second = tmp_path / ("baseline" + ZWSP + ".run")
    first.write_bytes((SAMPLE_DIR / "baseline.run").read_bytes())
    second.write_bytes((SAMPLE_DIR / "bm25.run").read_bytes())
    assert main(["--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", str(first), "--run",
                 str(second), "--format", "json"]) == 0
    import json

    names = [run["name"] for run in json.loads(capsys.readouterr().out)["runs"]]
    assert names == ["baseline", "baseline (2)"]
