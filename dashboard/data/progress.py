"""What a long load shows while it runs, so that a large upload (a 200 MB Parquet run) never
leaves a frozen screen: a status box for each file read (its name and size, then the seconds
it took), and a bar over the runs while they are scored (the engine calls back before each
run). Drawn only when the work is not in the store already (a cached rerun shows nothing),
and only on the script's thread (a thread that runs no page has none to show it on)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

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
