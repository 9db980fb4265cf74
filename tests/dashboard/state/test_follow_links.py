"""A link sets what it names (the query, the pair of runs, the page) and clears whatever would
hide it: a search typed earlier, a filter of the sidebar."""

from __future__ import annotations

from tests.dashboard.conftest import PAGES, follow, open_app, texts


def _drilldown_link(app, query: str):
    return next(link for link in app.get("page_link")
                if link.proto.page == "drilldown" and f"open={query}" in link.proto.query_string)


def test_a_link_from_compare_opens_its_query_and_pair_whatever_the_search_hid():
    app = open_app("drilldown")
    app.text_input(key="drilldown.search").input("q09").run()  # typed earlier, still there
    assert app.session_state["drilldown.query"] == "q09"
    app.switch_page(PAGES["compare"]).run()
    app.selectbox(key="compare.candidate").select("bm25").run()
    listed = [o.split(" ")[0] for o in app.selectbox(key="compare.query").options]
    app.session_state["state.query"] = next(q for q in listed if q != "q09")  # picked there
    app.run()
    query = app.session_state["compare.query"]
    follow(app, _drilldown_link(app, query))
    assert not app.exception, [e.value for e in app.exception]
    assert app.session_state["drilldown.query"] == query
    assert "is not among the scored queries" not in texts(app)
    assert (app.session_state["drilldown.a"], app.session_state["drilldown.b"]) == (
        "baseline", "bm25")
    assert app.text_input(key="drilldown.search").value == ""


def test_a_link_clears_a_sidebar_filter_that_hides_its_query():
    app = open_app("drilldown", where="intent", **{"is": "how-to"})
    assert "q03" not in app.selectbox(key="drilldown.query").options[0]  # filtered out
    app.query_params = {"open": "q03"}  # a link to it (from a page, a message, a bookmark)
    app.switch_page(PAGES["drilldown"]).run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.session_state["drilldown.query"] == "q03"
    assert "is not among the scored queries" not in texts(app)
    assert ("The sidebar's filter (intent is one of how-to) was cleared: it hid q03, which the "
            "link opened.") in texts(app)
    app.run()  # said once
    assert "was cleared" not in texts(app)
