"""The report's section on a model judge: the engine's figures and words, escaped; the report
command writes it with --judge-qrels."""

from __future__ import annotations

import re

import pytest

from dashboard import safe
from dashboard.report.command import main as report_main
from dashboard.report.judge import judge_section
from metrics import (
    Conventions,
    RunSource,
    evaluate_files,
    judge_report,
    ppi_headlines,
    vocabulary,
)
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


def _one_class_report(tmp_path, every_query: bool):
    paths = write_judged(tmp_path, chosen=list(range(60)) if every_query else None)
    kept = [line for line in paths["human"].read_text().splitlines()
            if int(line.split()[3]) >= 1]
    paths["human"].write_text("".join(f"{line}\n" for line in kept))
    if every_query:  # the judge's queries are then the humans' ones, every one labelled
        labelled = {line.split()[0] for line in kept}
        judged = [line for line in paths["judge"].read_text().splitlines()
                  if line.split()[0] in labelled]
        paths["judge"].write_text("".join(f"{line}\n" for line in judged))
    runs = [RunSource(paths[n]) for n in ("bm25", "dense")]
    return judge_report(
        evaluate_files(paths["human"], runs, 5, Conventions(empty_queries="zero")),
        evaluate_files(paths["judge"], runs, 5, Conventions(empty_queries="zero")))


@pytest.mark.parametrize("every_query", [False, True])
def test_undefined_figures_are_written_with_their_reasons(tmp_path, every_query):
    """Human labels without a non-relevant grade: the false relevant rate and binary kappa
    are undefined, each with why (never 0.000 [0.000, 0.000]); with every query human-labelled
    the weight on the judge is undefined too, and the section says the prediction-powered
    figures are the human-only ones."""
    report = _one_class_report(tmp_path, every_query)
    html = judge_section(report, "nDCG")
    g = report.grades
    for why in (g.false_relevant.undefined, g.binary_kappa.undefined):
        assert why and safe.html(fmt.undefined(why)) in html
    assert safe.html(g.false_nonrelevant.basis) in html
    assert f"{g.relevant_ungraded:,} ids relevant" in html
    assert (safe.html(vocabulary.judge.NO_UNLABELLED) in html) == every_query
    assert (safe.html(fmt.undefined(vocabulary.judge.NO_JUDGE_ONLY)) in html) == every_query
    assert not re.search(r"\bNone\b|\bnan\b", html)
