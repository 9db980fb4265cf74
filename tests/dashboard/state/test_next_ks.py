"""After a page is drawn, the K either side of the view's is decided ahead on a thread of its
own (decisions.next_ks): a step of the sidebar's K then finds its figures, its run table,
leaderboard and comparison made."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import metrics
from dashboard.data import decisions
from dashboard.data.cache import CompareOptions, store
from dashboard.state import session
from tests.dashboard.conftest import open_app

DEFAULTS = metrics.vocabulary.comparisons


def _made(kind: str, key: tuple, within_s: float = 30.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if store().has(kind, key):
            return True
        time.sleep(0.05)
    return False


def test_the_ks_either_side_are_decided_after_the_page_and_a_step_of_k_reads_them():
    app = open_app()
    view = app.session_state[session.VIEW]
    k = view.evaluation.k
    names = view.evaluation.run_names
    for other in (k + 1, k - 1):
        key = (view.key[0], other, *view.key[2:])
        assert _made("leaderboard", key), f"K = {other}: no leaderboard made ahead"
        options = CompareOptions(names[0], tuple(names[1:]), metrics.COMPARED,
                                 DEFAULTS.DEFAULT_CORRECTION, DEFAULTS.ALPHA)
        assert _made("comparison", (key, options)), f"K = {other}: no comparison made ahead"
    # the step itself: the page at K + 1 is the one decided ahead, value for value
    ahead = store().peek("leaderboard", (view.key[0], k + 1, *view.key[2:]))
    app.sidebar.number_input(key=session.K).set_value(k + 1).run()
    assert not app.exception
    stepped = app.session_state[session.VIEW]
    assert stepped.evaluation.k == k + 1
    assert store().peek("leaderboard", stepped.key) is ahead
    assert ahead == metrics.leaderboard(stepped.evaluation)



def test_a_page_says_what_it_reads_at_a_k_and_that_is_decided_at_the_next_k_too():
    app = open_app("overlap")
    view = app.session_state[session.VIEW]
    p = app.session_state[session.RBO_P]
    for other in (view.evaluation.k + 1, view.evaluation.k - 1):
        assert _made("overlap", ((view.key[0], other, *view.key[2:]), p)), other


def test_the_heatmap_built_ahead_is_the_one_a_step_of_k_draws():
    app = open_app("heatmap")
    view = app.session_state[session.VIEW]
    k = view.evaluation.k
    after = (view.key[0], k + 1, *view.key[2:])
    heatmaps = lambda: [key for kind, key in store()._entries  # noqa: E731
                        if kind == "derived" and key[0] == after and key[1] == "heatmap"]
    deadline = time.monotonic() + 30
    while not heatmaps() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert heatmaps(), "no heatmap built ahead at K + 1"
    made = list(heatmaps())
    app.sidebar.number_input(key=session.K).set_value(k + 1).run()
    assert not app.exception
    assert heatmaps() == made  # the step drew the one built ahead, none other


def test_nothing_is_decided_ahead_once_the_reader_has_moved_on():
    app = open_app()
    view, inputs = app.session_state[session.VIEW], app.session_state[session.INPUTS]
    k = view.evaluation.k
    far = (view.key[0], k + 40, *view.key[2:])
    moved_on = threading.Event()
    moved_on.set()  # a later run started before the pause ended
    decisions.next_ks(replace(view, evaluation=view.evaluation.at(k + 39)), inputs,
                      [decisions.leaderboard], moved_on=moved_on.is_set)
    time.sleep(decisions.NEXT_K_PAUSE_S + 1.0)
    assert not store().has("leaderboard", far)
    moved_on.clear()  # the same, with the reader still on the page: decided
    decisions.next_ks(replace(view, evaluation=view.evaluation.at(k + 39)), inputs,
                      [decisions.leaderboard], moved_on=moved_on.is_set)
    assert _made("leaderboard", far)
