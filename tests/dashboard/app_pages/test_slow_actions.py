"""The four slow actions a click asks for (a fused run added, the weight search, every pair
compared, each metric's best run marked) say so at once: the click's callback draws a toast
with a spinner before the run reaches the work (issue 46: an indication within 0.2 s, which
a spinner drawn where the work starts, after the sidebar and the page above, missed), and the
toast says it is done, and in how long, once the result is drawn."""

from __future__ import annotations

import pytest
import streamlit as st

from dashboard.data import combine, decisions, progress
from dashboard.state import session
from tests.dashboard.conftest import open_app
from tests.marks import THOROUGH


def _watched(monkeypatch, module, name: str, seen: list) -> None:
    """`module.name` records which actions are announced when the run reaches it."""
    work = getattr(module, name)

    def watched(*args, **kwargs):
        seen.append({action: found.doing for action, found
                     in st.session_state.get(progress.ANNOUNCED, {}).items()})
        return work(*args, **kwargs)
    monkeypatch.setattr(module, name, watched)


def _fuse(app) -> None:
    app.multiselect(key="fuse.runs").set_value(["baseline", "bm25"]).run()
    app.button(key="fuse.add").click().run()


# (page, the work's module and function, the action, what the toast says at first and
# once done, the click)
ACTIONS = {
    "best-run marks": ("overview", decisions, "best_marks", session.MARK_BEST,
                       "Marking each metric's best run", "Marked each metric's best run",
                       lambda app: app.toggle(key=session.MARK_BEST).set_value(True).run()),
    "all pairs": ("compare", decisions, "all_pairs", session.ALL_PAIRS,
                  "Comparing every pair of runs on nDCG@5",
                  "Compared every pair of runs on nDCG@5",
                  lambda app: app.toggle(key=session.ALL_PAIRS).set_value(True).run()),
    "weight search": ("overlap", combine, "cross_fit", "overlap.search",
                      "Searching the weight of a weighted CombSUM",
                      "Searched the weight of a weighted CombSUM",
                      lambda app: app.toggle(key="overlap.search").set_value(True).run()),
    "fused run": ("overview", combine, "_fused", session.ADDING_FUSED,
                  "Adding the fused run rrf(baseline,bm25)",
                  "Added the fused run rrf(baseline,bm25)", _fuse),
}


@THOROUGH  # 1.5-2.5 s each; test_progress.py checks the toasts on a small app by default
@pytest.mark.parametrize("name", ACTIONS)
def test_a_slow_action_is_announced_by_its_click_and_said_done(name, sample, monkeypatch):
    page, module, function, action, doing, done, click = ACTIONS[name]
    seen: list[dict] = []
    _watched(monkeypatch, module, function, seen)
    app = open_app(page)
    seen.clear()
    click(app)
    assert not app.exception, [e.value for e in app.exception]
    assert seen and {a: d.replace("\\", "") for a, d in seen[0].items()} == {action: doing}
    text, icon = app.toast[-1].value.replace("\\", ""), app.toast[-1].icon
    assert text.startswith(f"{done} in ") and icon == progress.DONE_ICON, text
    assert not app.session_state[progress.ANNOUNCED]
