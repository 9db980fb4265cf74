"""The Judge labels page: with a judge's qrels uploaded beside the human ones, every figure
it shows is the engine's judge report (metrics.judge_report over the same files); without
one it says where to upload it; the sidebar's labels choice scores every page against the
judge's labels."""

from __future__ import annotations

import pytest

from metrics import Conventions, RunSource, evaluate_files, judge_report, ppi_headlines, vocabulary
from metrics import format as fmt
from tests.dashboard.conftest import PAGES, open_app, texts, upload
from tests.dashboard.unshown import forbidden
from tests.metrics.context.judged_files import write_judged

RUNS = ("bm25", "dense")


@pytest.fixture(scope="module")
def judged_files(tmp_path_factory):
    return write_judged(tmp_path_factory.mktemp("judged_page"))


def _app(paths):
    app = upload(open_app(), [(f"{n}.run", paths[n].read_bytes()) for n in RUNS],
                 paths["human"].read_bytes(), judge=("judge.txt", paths["judge"].read_bytes()))
    app.switch_page(PAGES["judge"]).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _expected(paths, k, lam=None):
    runs = [RunSource(paths[n]) for n in RUNS]
    return judge_report(
        evaluate_files(paths["human"], runs, k, Conventions(empty_queries="zero")),
        evaluate_files(paths["judge"], runs, k,
                       Conventions(empty_queries="zero", labels="judge")), lam=lam)


def test_the_page_shows_the_engine_s_figures(judged_files):
    app = _app(judged_files)
    k = int(app.number_input(key="settings.k").value)
    expected = _expected(judged_files, k)
    tables = [d.value for d in app.dataframe if "Prediction-powered" in d.value.columns]
    # a tab per run, then a tab per candidate against the baseline
    assert len(tables) == len(RUNS) + len(RUNS) - 1
    rows = [row for table in tables[:len(RUNS)] for row in table.to_dict("records")]
    for row, found in zip(rows, expected.figures, strict=True):
        assert row["Metric"] == found.label
        assert row["Human only"] == fmt.interval(found.human.mean, found.human.low,
                                                 found.human.high)
        assert row["Prediction-powered"] == fmt.interval(found.ppi.mean, found.ppi.low,
                                                         found.ppi.high)
    paired = [row for table in tables[len(RUNS):] for row in table.to_dict("records")]
    for row, found in zip(paired, expected.comparisons, strict=True):
        assert row["Prediction-powered"] == fmt.difference(found.ppi.mean, found.ppi.low,
                                                           found.ppi.high)
    said = texts(app)
    assert f"{expected.coverage.both_queries} queries" in said
    assert fmt.figure(expected.grades.kappa.kappa) in [m.value for m in app.metric]
    headline = " ".join(m.value for m in app.markdown)
    assert "prediction-powered" in headline


def test_plain_ppi_is_a_choice(judged_files):
    app = _app(judged_files)
    app.radio(key="judge.lambda").set_value("1").run()
    k = int(app.number_input(key="settings.k").value)
    expected = _expected(judged_files, k, lam=1.0)
    table = next(d.value for d in app.dataframe if "Lambda" in d.value.columns)
    assert set(table["Lambda"]) == {"1.00"}
    assert table["Prediction-powered"].iloc[0] == fmt.interval(
        expected.figures[0].ppi.mean, expected.figures[0].ppi.low, expected.figures[0].ppi.high)


def test_labels_judge_scores_every_page_against_the_judge(judged_files):
    app = _app(judged_files)
    app.radio(key="labels.set").set_value("judge").run()
    app.switch_page(PAGES["overview"] or "app_pages/overview.py").run()
    assert not app.exception
    evaluation = app.session_state["state.view"].evaluation
    assert evaluation.qrels.source == "judge.txt"
    assert len(evaluation.scored_ids) == len(
        {line.split()[0] for line in judged_files["judge"].read_text().splitlines()})
    assert "judge's labels" in app.caption[0].value  # the conventions line says so


def test_without_a_judge_the_page_says_where_to_upload_one():
    app = open_app("judge")
    assert "Judge's qrels" in texts(app)


@pytest.fixture(scope="module")
def every_query_labelled(tmp_path_factory):
    return write_judged(tmp_path_factory.mktemp("judged_all"), chosen=list(range(60)))


def test_with_humans_on_every_query_the_page_reads_the_human_only_figures(
        every_query_labelled):
    """No query is judge-only: "Each run against the baseline" used to raise a TypeError
    formatting the missing weight, and the table showed "Lambda: None". The page says what
    the command line says, and every weight is undefined with its reason."""
    app = _app(every_query_labelled)
    said = texts(app)
    assert vocabulary.judge.NO_UNLABELLED in said
    k = int(app.number_input(key="settings.k").value)
    expected = _expected(every_query_labelled, k)
    for sentence in ppi_headlines(expected, "nDCG"):
        assert sentence in said and vocabulary.judge.PPI_IS_HUMAN_ONLY in sentence
    for table in (d.value for d in app.dataframe if "Lambda" in d.value.columns):
        assert set(table["Lambda"]) == {fmt.undefined(vocabulary.judge.NO_JUDGE_ONLY)}
    assert forbidden(app) == []


def test_human_labels_with_one_class_show_undefined_figures_with_their_reasons(tmp_path):
    """Humans who graded only relevant ids: the false relevant rate has no denominator. The
    card reads undefined with the reason, never 0.000; the other rate says what it is a share
    of; the ids the judge calls relevant that no human graded are counted beside the rates."""
    paths = write_judged(tmp_path)
    lines = paths["human"].read_text().splitlines()
    paths["human"].write_text("".join(f"{line}\n" for line in lines
                                      if int(line.split()[3]) >= 1))
    app = _app(paths)
    cards = {m.label: m.value for m in app.metric}
    assert cards["False relevant rate"] == fmt.UNDEFINED
    assert cards["False non-relevant rate"] != fmt.UNDEFINED
    k = int(app.number_input(key="settings.k").value)
    grades = _expected(paths, k).grades
    said = texts(app)
    assert fmt.undefined(grades.false_relevant.undefined) in said
    assert grades.false_nonrelevant.basis in said
    assert fmt.count(grades.relevant_ungraded, "id") in said
    assert forbidden(app) == []
