"""The report's section on latency and cost: present only with timings, the trade-off chart
embedded as an image, each run's figures and the pairs in tables, every name escaped."""

from __future__ import annotations

import numpy as np

from dashboard.report import html as report
from metrics import Conventions, RunTimings, load_sample, timed

HOSTILE = "<script>alert(1)</script>"


def test_the_section_holds_the_chart_and_tables_and_escapes_run_names():
    evaluation = load_sample(5, Conventions(n_resamples=200))
    names = evaluation.run_names
    rng = np.random.default_rng(2)
    ids = tuple(evaluation.scored_ids)
    timings = {name: RunTimings(name, "t.csv", ids,
                                {"latency_ms": rng.lognormal(np.log(10 * (i + 1)), 0.3,
                                                             len(ids))})
               for i, name in enumerate(names)}
    found = timed(names, ids, timings, evaluation.conventions)
    page = report.build_html(evaluation, timed=found, embed_data=False)
    section = page[page.index('<section id="timings">'):]
    section = section[:section.index("</section>")]
    assert "Effectiveness against what it costs" in section
    assert "data:image/svg+xml" in section or "<svg" in section
    assert "latency_ms per run" in section and "p95 ratio" in section
    assert "percentile bootstrap of the quantile" in section
    for name in names:
        assert f"<td>{name}</td>" in section
    assert '<section id="timings">' not in report.build_html(evaluation, embed_data=False)


def test_a_hostile_run_name_is_escaped_in_the_tables():
    evaluation = load_sample(5, Conventions(n_resamples=100))
    ids = tuple(evaluation.scored_ids)
    first = evaluation.run_names[0]
    found = timed([first, HOSTILE], ids, {
        first: RunTimings(first, "t.csv", ids, {"latency_ms": np.full(len(ids), 5.0)}),
        HOSTILE: RunTimings(HOSTILE, "t.csv", ids, {"latency_ms": np.full(len(ids), 9.0)})},
        evaluation.conventions)
    page = report.build_html(evaluation, timed=found, embed_data=False)
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
