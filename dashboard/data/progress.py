"""What a long load shows while it runs, so that a large upload (a 200 MB Parquet run) never
leaves a frozen screen: a status box for each file read (its name and size, then the seconds
it took), and a bar over the runs while they are scored (the engine calls back before each
run). Drawn only when the work is not in the store already (a cached rerun shows nothing),
and only on the script's thread (a thread that runs no page has none to show it on).

And what a slow action asked for by a click says at once (`announce`): a fused run added,
the weight search, every pair compared, each metric's best run marked. The click's callback
runs first in the rerun it starts, before the sidebar and the page above the action are
drawn again (0.3-0.5 s at 4 runs x 2,000 queries), so a spinner drawn where the work starts
came late; the callback's toast reaches the browser within a few hundredths of a second,
fixed in the corner, in sight wherever the page is scrolled. It turns into "done, in how many
seconds" once the result is drawn (`finished`), or says it stopped when a run ended without
drawing it (`run_over`): no "working" toast is left on screen."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    ThreadState,
    suppress_fragment_callback_warning,
)

from dashboard import safe
from metrics import format as fmt

SLOT = "_progress.slot"  # the main area's place for the status of a long load, this run
# below these a file is read, or the runs scored, in well under a second: a status box would
# only flash and then stay on the page saying so ("Read bm25.run (2 KB) in 0.1 s")
SHOWN_FROM_BYTES = 10 * 10**6
SHOWN_FROM_ROWS = 200_000  # runs x queries scored


def main_area() -> None:
    """A place at the top of the main area (drawn empty, before the sidebar reads any
    file) where a long load says how far it is: the sidebar's own end, where the files are
    read, is out of sight below the boxes."""
    st.session_state[SLOT] = st.empty()


def _place():
    """Where a status goes: the main area's place when this run made one."""
    return st.session_state.get(SLOT) or st


def bytes_of(source) -> int | None:
    """A file's size in bytes, from an upload's bytes or a path (None when unknown)."""
    try:
        return len(source) if isinstance(source, bytes | bytearray | memoryview) else \
            source.stat().st_size
    except (OSError, AttributeError):
        return None


def size_of(source) -> str:
    """A file's size in words ("212 MB"), from an upload's bytes or a path."""
    n = bytes_of(source)
    if n is None:
        return "size unknown"
    # in MB of 10^6 bytes, as the upload box writes the size and bounds it
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} KB"


@contextmanager
def reading(file_name: str, source) -> Iterator[None]:
    """A file being read: its status box while the loader runs, then how long it took
    (a file under SHOWN_FROM_BYTES shows none)."""
    n = bytes_of(source)
    if (get_script_run_ctx(suppress_warning=True) is None  # a thread with no page to show
            or (n is not None and n < SHOWN_FROM_BYTES)):
        yield
        return
    size = size_of(source)
    started = time.perf_counter()
    name = safe.md(file_name)  # a label is Markdown: the name is the upload's own
    with _place().status(f"Reading {name} ({size})…", expanded=False) as box:
        yield
        box.update(label=f"Read {name} ({size}) in {time.perf_counter() - started:,.1f} s",
                   state="complete")


@contextmanager
def scoring(runs: int, queries: int) -> Iterator[Callable[[int, int, str | None], None]]:
    """The runs being scored: a status box holding a bar over the runs, moved by the
    engine's callback (`evaluate_prepared(progress=...)`), then how long it took (fewer
    than SHOWN_FROM_ROWS runs x queries show none)."""
    if (get_script_run_ctx(suppress_warning=True) is None  # a thread with no page to show
            or runs * queries < SHOWN_FROM_ROWS):
        yield lambda done, total, run: None
        return
    started = time.perf_counter()
    what = f"{fmt.count(runs, 'run')} over {fmt.count(queries, 'query')}"
    with _place().status(f"Scoring {what} at every K…", expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")

        def tick(done: int, total: int, run: str | None) -> None:
            text = (f"Scoring {safe.md(run)} ({done + 1} of {total})…" if run is not None
                    else "Means, intervals and the sweep over the resampled queries…")
            bar.progress(min(done / max(total, 1), 1.0), text=text)

        yield tick
        bar.empty()
        box.update(label=f"Scored {what} in {time.perf_counter() - started:,.1f} s",
                   state="complete", expanded=False)


# --------------------------------------------------------------------------- slow actions

ANNOUNCED = "_progress.announced"  # action -> Announcement: the slow actions under way
WORKING_ICON = "spinner"  # st.toast's spinning icon: under way
DONE_ICON = ":material/check_circle:"
STOPPED_ICON = ":material/block:"
DONE_SECONDS = 4  # how long a done or stopped toast stays (st.toast's "short")


@dataclass(frozen=True, eq=False)
class Announcement:
    """A slow action under way: its toast, what it says while working and once done, when
    it was asked for, and whether the end of a whole run of the app is its result (an action
    that changes what the sidebar builds) rather than a page's section that says so."""

    toast: object  # the toast's DeltaGenerator, updated in place
    doing: str  # "Adding the fused run": the toast says "Adding the fused run…"
    done: str  # "Added the fused run": "Added the fused run in 1.8 s"
    started: float
    whole_run: bool


def announce(action: str, doing: str, done: str, *, whole_run: bool = False) -> None:
    """From a widget's callback: a toast with a spinner saying `doing…`, drawn before the
    rest of the run; an earlier click's toast of the same action says it was replaced."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return
    pending = st.session_state.setdefault(ANNOUNCED, {})
    if action in pending:
        _end(pending.pop(action), "Asked again", STOPPED_ICON)
    # Streamlit warns of an element drawn by a fragment's callback, which would take the
    # place of the first element of the main area; a toast goes to the event container,
    # in its corner, in nobody's place
    with suppress_fragment_callback_warning():
        toast = st.toast(f"{doing}…", icon=WORKING_ICON, duration="infinite")
    pending[action] = Announcement(toast, doing, done, time.perf_counter(), whole_run)


def on_toggle(key: str, doing: str, done: str) -> Callable[[], None]:
    """A toggle's on_change, its key naming the action (what `finished` is told): announced
    when turned on; its toast, if still working, says it stopped when turned off."""
    def changed() -> None:
        if st.session_state.get(key):
            announce(key, doing, done)
        else:
            withdraw(key, "Turned off")
    return changed


def finished(action: str) -> None:
    """The action's result is drawn: its toast says so and how long it took since the click."""
    found = st.session_state.get(ANNOUNCED, {}).pop(action, None)
    if found is not None:
        _end(found, f"{found.done} in {time.perf_counter() - found.started:,.1f} s", DONE_ICON)


def withdraw(action: str, why: str) -> None:
    """The action will not finish (turned off, asked again): its toast says `why`."""
    found = st.session_state.get(ANNOUNCED, {}).pop(action, None)
    if found is not None:
        _end(found, why, STOPPED_ICON)


def run_over() -> None:
    """The end of a whole run of the app: the actions whose result is the whole run are done;
    any other still open was not drawn by it (the page changed meanwhile): it stopped."""
    pending = st.session_state.get(ANNOUNCED)
    for action, found in list((pending or {}).items()):
        if found.whole_run:
            finished(action)
        else:
            withdraw(action, f"{found.doing}: stopped, the page changed before it was done")


def _end(found: Announcement, text: str, icon: str) -> None:
    """The toast updated in place. A toast lives in the app's event container, which no
    fragment owns: Streamlit 1.67 sends a fragment's write to a container made outside it
    into a wrapper block, and refuses one made before the fragment's scope (the callback's),
    so the update is written as a whole run writes it."""
    with ThreadState.scoped(fragment_id=None):
        found.toast.toast(text, icon=icon, duration=DONE_SECONDS)
