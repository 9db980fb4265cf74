"""No page shows the literal text None, nan or 'none relevant': in its words (markdown,
captions, alerts, metrics, tabs, expanders) or in a table's cells (a missing cell without a
placeholder is drawn "None"). An undefined figure is shown as undefined with why; an empty
slot as an empty or '—' cell. Walked over every page of the sample, every query of the
drill-down and of Compare's rank movement, and every page of a judge upload in which humans
label every query (lists shorter than K, figures that tie every run, no judge-only query),
under the human labels and under the judge's."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import PAGES, open_app, upload
from tests.dashboard.unshown import forbidden
from tests.metrics.context.judged_files import write_judged


def _each_query(app, key: str, limit: int | None = None):
    """Each query a selectbox lists (its options are written 'q03 · ...'), picked in turn."""
    for option in app.selectbox(key=key).options[:limit]:
        query = option.split(" · ")[0]
        app.selectbox(key=key).set_value(query).run()
        yield query


def _clean(app, where: str) -> None:
    assert not app.exception, (where, [e.value for e in app.exception])
    found = forbidden(app)
    assert found == [], f"{where}:\n" + "\n".join(found)


@pytest.mark.parametrize("page", list(PAGES))
def test_no_page_of_the_sample_shows_none_nan_or_none_relevant(page):
    _clean(open_app(page), page)


def test_no_query_of_the_drilldown_or_of_rank_movement_shows_them():
    app = open_app("drilldown")
    for query in _each_query(app, "drilldown.query"):
        _clean(app, f"drilldown {query}")
    app.switch_page(PAGES["compare"]).run()
    for query in _each_query(app, "compare.query"):
        _clean(app, f"compare {query}")


@pytest.fixture(scope="module")
def judged_app(tmp_path_factory):
    paths = write_judged(tmp_path_factory.mktemp("unshown"), chosen=list(range(60)))
    return upload(open_app(), [(f"{n}.run", paths[n].read_bytes()) for n in ("bm25", "dense")],
                  paths["human"].read_bytes(), judge=("judge.txt", paths["judge"].read_bytes()))


@pytest.mark.parametrize("labels", ["human", "judge"])
def test_no_page_of_a_judge_upload_with_every_query_human_labelled_shows_them(judged_app,
                                                                            labels):
    app = judged_app
    app.radio(key="labels.set").set_value(labels).run()
    for page, path in PAGES.items():
        app.switch_page(path or "app_pages/overview.py").run()
        _clean(app, f"{page} ({labels} labels)")
    app.switch_page(PAGES["drilldown"]).run()
    for query in _each_query(app, "drilldown.query", 5):
        _clean(app, f"drilldown {query} ({labels} labels)")
