"""Every sidebar widget is drawn with the value it shows as its default: the browser falls
back to a widget's default when it re-creates it and sends that as the widget's value, which
once made a page link open the drill-down at K = 1 (the input's minimum) or with no run shown.
"""

from __future__ import annotations

from tests.dashboard.conftest import open_app


def _mismatches(app) -> list[str]:
    """Each sidebar widget whose default is not the value it shows, with both."""
    wrong = []
    for kind in ("number_input", "slider", "toggle", "text_input"):
        for widget in getattr(app.sidebar, kind):
            shown = widget.value if kind != "text_input" else widget.value or ""
            default = widget.proto.default
            default = default[0] if kind == "slider" else default
            if default != shown:
                wrong.append(f"{widget.key}: shows {shown!r}, default {default!r}")
    for kind in ("radio", "selectbox"):
        for widget in getattr(app.sidebar, kind):
            # AppTest reads a None value as no index; the filter's None ("Every query") is first
            if widget.proto.default != (0 if widget.value is None else widget.index):
                wrong.append(f"{widget.key}: shows option {widget.index}, "
                             f"default {widget.proto.default}")
    for widget in app.sidebar.multiselect:
        if list(widget.proto.default) != list(widget.indices):
            wrong.append(f"{widget.key}: shows {list(widget.indices)}, "
                         f"default {list(widget.proto.default)}")
    return wrong


def test_a_linked_view_draws_every_sidebar_widget_with_its_value_as_default():
    app = open_app("drilldown", k="7", confidence="0.9", gain="exponential", level="2",
                   runs=["reranked", "baseline"])
    assert app.sidebar.number_input(key="settings.k").value == 7  # the link was read
    assert _mismatches(app) == []


def test_a_changed_widget_is_its_own_default_on_the_next_run():
    app = open_app("overview")
    app.sidebar.number_input(key="settings.k").set_value(9).run()
    app.sidebar.radio(key="settings.rr").set_value("full").run()
    app.sidebar.multiselect(key="runs.shown").set_value(["bm25"]).run()
    app.sidebar.text_input(key="runs.name.bm25").input("lexical").run()
    assert not app.exception
    assert _mismatches(app) == []
