"""The report's section on a model judge: the engine's figures and words, escaped; the report
command writes it with --judge-qrels."""

from __future__ import annotations

import pytest

from dashboard.report.command import main as report_main
from dashboard.report.judge import judge_section
from metrics import Conventions, RunSource, evaluate_files, judge_report, ppi_headlines
from metrics import format as fmt
from tests.marks import THOROUGH
from tests.metrics.context.judged_files import write_judged


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    paths = write_judged(tmp_path_factory.mktemp("judged_report"))
    runs = [RunSource(paths[n]) for n in ("bm25", "dense")]
    report = judge_report(
        evaluate_files(paths["human"], runs, 5, Conventions(empty_queries="zero")),
        evaluate_files(paths["judge"], runs, 5, Conventions(empty_queries="zero")))
    return paths, report


def test_the_section_holds_the_engine_s_figures(judged):
    _, report = judged
    html = judge_section(report, "nDCG")
    for found in report.figures:
        if found.key == "nDCG":
            assert fmt.interval(found.ppi.mean, found.ppi.low, found.ppi.high) in html
            assert fmt.interval(found.human.mean, found.human.low, found.human.high) in html
    for sentence in ppi_headlines(report, "nDCG"):
        assert sentence.replace("'", "&#x27;") in html or sentence in html
    assert f"{fmt.figure(report.grades.kappa.kappa)}" in html
    assert judge_section(None, "nDCG") == ""


@THOROUGH
def test_the_report_command_writes_it_with_judge_qrels(judged, tmp_path):
    paths, report = judged
    out = tmp_path / "report.html"
    assert report_main(["report", "--qrels", str(paths["human"]), "--judge-qrels",
                        str(paths["judge"]), "--run", str(paths["bm25"]), "--run",
                        str(paths["dense"]), "--k", "5", "--out", str(out)]) == 0
    html = out.read_text()
    assert 'id="judge"' in html
    ndcg = report.figure("dense", "nDCG").ppi
    assert fmt.interval(ndcg.mean, ndcg.low, ndcg.high) in html
