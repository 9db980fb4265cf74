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
