"""A tab that outlives its session (the server restarted, or the session ended) sends its
widgets' values, without its URL when the click opens another page: the new session keeps
them, says the uploads are gone and asks for them again, and never shows the sample in their
place."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import APP, PAGES, open_app, texts, upload


def _uploaded_at_k_7() -> AppTest:
    app = upload(open_app(), [("baseline.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
                              ("bm25.run", (SAMPLE_DIR / "bm25.run").read_bytes())],
                 (SAMPLE_DIR / "qrels.txt").read_bytes())
    app.number_input(key="settings.k").set_value(7).run()
    app.text_input(key="runs.name.bm25").input("lexical").run()
    assert "Summary at K = 7" in texts(app)
    return app


def _next_session(tab: AppTest, page: str) -> AppTest:
    """A new session's first run, sent by the old tab: its widgets, no URL (a click on
    another page of the navigation)."""
    fresh = AppTest.from_file(str(APP), default_timeout=60)
    if PAGES[page]:
        fresh.switch_page(PAGES[page])
    fresh._run(tab._tree.get_widget_states())
    assert not fresh.exception, [e.value for e in fresh.exception]
    return fresh


def test_a_tab_whose_session_is_gone_asks_for_its_uploads_and_never_shows_the_sample():
    tab = _uploaded_at_k_7()
    for page in ("compare", "overview"):
        fresh = _next_session(tab, page)
        said = texts(fresh)
        assert "The files uploaded to this page are gone: the server restarted, or this " \
               "session ended" in said
        assert "qrels.txt, baseline.run, bm25.run" in said
        assert fresh.radio(key="load.source").value == "upload"
        assert fresh.number_input(key="settings.k").value == 7  # the tab's settings stay
        assert not fresh.dataframe  # no figures: not the sample's, not anything else
        assert "reranked" not in said


def test_the_files_uploaded_again_are_scored_under_the_tab_s_settings():
    tab = _uploaded_at_k_7()
    fresh = _next_session(tab, "overview")
    upload(fresh, [("baseline.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
                   ("bm25.run", (SAMPLE_DIR / "bm25.run").read_bytes())],
           (SAMPLE_DIR / "qrels.txt").read_bytes())
    said = texts(fresh)
    assert "Summary at K = 7" in said and "are gone" not in said
    assert "lexical" in fresh.dataframe[0].value.columns


def test_a_new_tab_opens_on_the_sample_as_before():
    fresh = AppTest.from_file(str(APP), default_timeout=60)
    fresh.run()
    assert fresh.radio(key="load.source").value == "sample"
    assert "are gone" not in texts(fresh)
