"""A file's size as the upload box writes it (MB of 10^6 bytes)."""

from __future__ import annotations

from dashboard.data.progress import size_of


def test_sizes_are_written_as_the_upload_box_writes_them(tmp_path):
    assert size_of(b"x" * 196_700_000) == "196.7 MB"
    assert size_of(b"x" * 2_500) == "2 KB"
    path = tmp_path / "run.parquet"
    path.write_bytes(b"x" * 3_000_000)
    assert size_of(path) == "3.0 MB"
    assert size_of(tmp_path / "gone.parquet") == "size unknown"


def test_small_files_read_and_scored_show_no_status_box():
    """The sample's files read in milliseconds: no "Read bm25.run (2 KB) in 0.1 s" box is
    left at the top of a page (Compare reads the runs again under the other TREC order)."""
    from dashboard.data import cache
    from tests.dashboard.conftest import open_app

    cache.store().clear()
    for page in ("overview", "compare"):
        cache.store().clear()  # read and scored on this page's own first run
        app = open_app(page)
        labels = [status.label for status in app.get("status")]
        assert not labels, labels
    cache.store().clear()


# --------------------------------------------------------------------------- slow actions


def _actions_app() -> None:
    """A button whose result is the whole run, a toggle whose result a fragment draws, and
    a toggle whose result this run does not draw (as when the page changed meanwhile)."""
    import streamlit as st

    from dashboard.data import progress

    st.button("Add", key="add", on_click=progress.announce,
              args=("add", "Adding the thing", "Added the thing"), kwargs={"whole_run": True})

    @st.fragment
    def section() -> None:
        if st.toggle("Search", key="search", on_change=progress.on_toggle(
                "search", "Searching", "Searched")):
            st.write("found")
            progress.finished("search")

    section()
    st.toggle("Elsewhere", key="elsewhere", on_change=progress.on_toggle(
        "elsewhere", "Working elsewhere", "Worked elsewhere"))
    progress.run_over()


def _toasts(app) -> list[tuple[str, str]]:
    return [(toast.value, toast.icon) for toast in app.toast]


def test_a_slow_action_s_toast_turns_done_once_its_result_is_drawn():
    from streamlit.testing.v1 import AppTest

    from dashboard.data import progress

    app = AppTest.from_function(_actions_app)
    app.run()
    assert not app.toast
    app.button(key="add").click().run()
    [(text, icon)] = _toasts(app)
    assert text.startswith("Added the thing in ") and text.endswith(" s")
    assert icon == progress.DONE_ICON
    assert not app.session_state[progress.ANNOUNCED]
    # a fragment's toggle: the toast made by its callback, updated by its own rerun
    app.toggle(key="search").set_value(True).run()
    assert not app.exception, [e.value for e in app.exception]
    assert _toasts(app)[-1][0].startswith("Searched in ")
    assert not app.session_state[progress.ANNOUNCED]


def test_a_slow_action_whose_result_the_run_did_not_draw_says_it_stopped():
    from streamlit.testing.v1 import AppTest

    from dashboard.data import progress

    app = AppTest.from_function(_actions_app)
    app.run()
    app.toggle(key="elsewhere").set_value(True).run()
    [(text, icon)] = _toasts(app)
    assert text.startswith("Working elsewhere: stopped") and icon == progress.STOPPED_ICON
    assert not app.session_state[progress.ANNOUNCED]  # no "working" toast left open


def test_a_slow_action_s_toast_is_drawn_by_its_callback_before_the_work():
    """The callback draws the spinner toast: it is there when the run starts its work."""
    from streamlit.testing.v1 import AppTest

    from dashboard.data import progress

    def script() -> None:
        import streamlit as st

        from dashboard.data import progress
        st.button("Add", key="add", on_click=progress.announce,
                  args=("add", "Adding the thing", "Added the thing"))
        found = st.session_state.get(progress.ANNOUNCED, {}).get("add")
        st.session_state["seen"] = None if found is None else found.doing
    app = AppTest.from_function(script)
    app.run()
    app.button(key="add").click().run()
    assert app.session_state["seen"] == "Adding the thing"
    [(text, icon)] = _toasts(app)
    assert (text, icon) == ("Adding the thing…", progress.WORKING_ICON)  # no run_over here
