"""The sidebar's Subtopic qrels box: the diversity measures of More measures read it; without
it a diversity measure picked waits for it, named, and the pages run."""

from __future__ import annotations

import pytest

import metrics
from tests.dashboard.conftest import PAGES, open_app, texts, upload

QRELS = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n2 0 d4 1\n"
SUBTOPICS = b"1 1 d1 1\n1 2 d2 1\n1 2 d3 1\n2 1 d4 1\n2 2 d5 0\n2 2 d6 1\n"
RUN = b"1 Q0 d3 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d2 3 1 r\n2 Q0 d9 1 5 r\n2 Q0 d4 2 4 r\n"


def _with_subtopics(subtopics: bytes | None):
    app = open_app()
    if subtopics is not None:
        app.radio(key="load.source").set_value("upload").run()
        app.file_uploader(key="load.subtopics").set_value(
            ("div.qrels", subtopics, "text/plain"))
    upload(app, [("a.run", RUN)], QRELS)
    app.multiselect(key="measures.added").set_value(["StRecall", "alpha_nDCG@10"]).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_the_diversity_measures_show_with_the_subtopic_qrels():
    app = _with_subtopics(SUBTOPICS)
    assert "reads the subtopic qrels" not in texts(app)
    table = app.dataframe[0].value  # the Overview's run table: Metric, a, Interval, ...
    rows = dict(zip(table["Metric"], table["a"], strict=True))
    # the engine's figures on the same files (ndeval's, tests/metrics/core/test_diversity.py)
    evaluation = metrics.evaluate(
        metrics.load_qrels(QRELS, file_name="q.txt")[0],
        [metrics.load_run(RUN, file_name="a.run")[0]], 10,
        measures=["StRecall", "alpha_nDCG@10"],
        subtopics=metrics.Subtopics(metrics.load_subtopic_qrels(SUBTOPICS)[0]))
    for label in ("StRecall@10", "alpha_nDCG(alpha=0.5)@10"):
        mean = evaluation.runs[0].summary[evaluation.resolve(label).key].mean
        assert label in rows and f"{mean:.3f}" in str(rows[label]), (label, rows)


def test_without_them_a_diversity_measure_waits_for_them():
    app = _with_subtopics(None)
    assert "StRecall reads the subtopic qrels" in texts(app)


def test_a_bad_subtopic_file_is_named_with_its_line():
    app = _with_subtopics(b"1 1 d1 1\n1 1 d2\n")
    shown = texts(app)
    assert "div.qrels, line 2: expected 4 columns" in shown


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_the_drilldown_writes_out_the_subtopics_each_rank_covers():
    app = _with_subtopics(SUBTOPICS)
    app.switch_page(PAGES["drilldown"]).run()
    assert not app.exception, [e.value for e in app.exception]
    shown = texts(app)
    # query 1: d3 (subtopic 2) at rank 1, d1 (subtopic 1) at rank 2
    assert "rank 1 first covers 2; rank 2 first covers 1" in shown
    assert "rank 1 covers 2: gain 1.000" in shown
