"""The sidebar's standardised scores (Conventions → Standardised scores): picked, every
figure of the Overview is the engine's standardised one (metrics.standardise against the
runs loaded, on the scale chosen), the page's first line says so, the link carries it
(std=runs, std_scale=cdf) and a link opens it; the K sweep says it reads raw figures."""

from __future__ import annotations

import pytest

import metrics
from dashboard.state import session
from tests.dashboard.conftest import open_app, texts
from tests.marks import THOROUGH

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_standardised_scores_control_and_its_link(sample):
    app = open_app()
    app.radio(key=session.STANDARDISE).set_value("runs").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.query_params["std"] == "runs" and "std_scale" not in app.query_params
    found = metrics.standardise(sample).evaluation
    assert found.standardised_words in texts(app)  # beside the numbers: the first line
    table = app.dataframe[0].value  # the Overview's run table: Metric, runs..., Interval
    for run in found.runs:
        rows = dict(zip(table["Metric"], table[run.name], strict=True))
        mean, raw = run.summary["nDCG"].mean, sample.run(run.name).summary["nDCG"].mean
        assert f"{mean:.3f}" in str(rows[found.label("nDCG")]), (run.name, rows)
        assert f"{raw:.3f}" != f"{mean:.3f}"


@THOROUGH
def test_a_link_opens_it_and_the_k_sweep_says_it_reads_raw_figures(sample):
    linked = open_app("sweep", std="runs", std_scale="cdf")
    assert "The K sweep is not standardised" in texts(linked)
    assert metrics.standardise(sample, scale="cdf").evaluation.standardised_words in texts(
        linked)
    assert linked.radio(key=session.STANDARDISE_SCALE).value == "cdf"


def test_the_drill_down_writes_out_how_its_query_was_standardised(sample):
    app = open_app("drilldown", std="runs", std_scale="cdf")
    query = app.session_state["drilldown.query"]
    found = metrics.standardise(sample, scale="cdf").evaluation
    written = metrics.standardised_query(found, sample, query)
    assert metrics.vocabulary.conventions.STANDARDISED_QUERY_TITLE in [
        e.label for e in app.expander]
    shown = next(d.value for d in app.dataframe if "Standard deviation" in d.value.columns)
    assert list(shown.columns) == ["Figure", "Run", "Raw", "Mean", "Standard deviation", "z",
                                   "Phi(z)"]
    assert len(shown) == len(written)
    for cell, row in zip(shown.itertuples(), written.itertuples(), strict=True):
        assert cell.Figure == found.label(row.metric, summary=False) and cell.Run == row.run
        assert cell.Raw == f"{row.raw:.3f}".replace("-0.000", "0.000")
        assert cell._7 == (f"undefined ({row.undefined})" if row.undefined
                           else metrics.format.figure(row.shown))
    # the figures table above shows the standardised figure the last column ends on
    figures = app.dataframe[0].value
    run = found.runs[0].name
    nd = shown[(shown["Run"] == run) & (shown["Figure"] == found.label("nDCG", summary=False))]
    assert figures.loc[figures["Run"] == run, found.label("nDCG", summary=False)].iloc[0] == \
        pytest.approx(float(nd["Phi(z)"].iloc[0]), abs=5e-4)
