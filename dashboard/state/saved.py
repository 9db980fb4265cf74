"""Saved figures in the dashboard: an evaluation opened from the long table of per-query
figures (`--per-query-out`), uploaded under My files ("Open an evaluation") or given on the
command line (`streamlit run dashboard/app.py -- --figures FILE.parquet [--qrels FILE]
[--run [NAME=]FILE ...]`). Its sidebar replaces the one that scores files: no K or
convention controls (the file fixes them), the runs shown and their names, and the qrels and
runs given beside it for one query's lists."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import SavedInputs, SideFile, View
from dashboard.state import session, sidebar
from dashboard.state.opening import FIGURES_KEY, command_line, uploader
from metrics import format as fmt
from metrics import vocabulary

WORDS = vocabulary.saved
HELP = vocabulary.columns.CONTROL_HELP


def prepare() -> None:
    """Before the session's defaults: figures given on the command line open under My files."""
    if command_line().figures is not None:
        st.session_state.setdefault(session.SOURCE_KEY, cache.UPLOAD)


def active() -> bool:
    """The sidebar shows saved figures: My files with an evaluation uploaded or given on the
    command line."""
    if st.session_state.get(session.SOURCE_KEY) != cache.UPLOAD:
        return False
    return st.session_state.get(FIGURES_KEY) is not None or command_line().figures is not None


def _key(path: Path) -> str:
    """A file named on the command line, as the cache knows it: its absolute path, links left
    as named (resolving them raises on a link loop, which the reader then names)."""
    return os.path.abspath(path)


def _side(path: Path) -> SideFile:
    return SideFile(path.name, _key(path), lambda: path)


def _upload(file) -> SideFile:
    return SideFile(file.name, f"upload:{file.file_id}", file.getvalue)


def read() -> SavedInputs | None:
    """The saved figures and the files beside them: the uploads, else the command line's."""
    given = command_line()
    figures_file = st.session_state.get(FIGURES_KEY)
    if figures_file is not None:
        figures = cache.read_saved(f"upload:{figures_file.file_id}", figures_file.name,
                                   figures_file.getvalue)
    elif given.figures is not None:
        path = given.figures
        figures = cache.read_saved(_key(path), path.name, lambda: path)
    else:
        return None
    qrels_file = st.session_state.get(session.QRELS_KEY)
    run_files = st.session_state.get(session.RUNS_KEY) or []
    if qrels_file is not None or run_files:
        qrels = None if qrels_file is None else _upload(qrels_file)
        return SavedInputs(figures, qrels, tuple(_upload(f) for f in run_files),
                           (None,) * len(run_files))
    runs = [(name, Path(path)) for name, _, path in
            (r.rpartition("=") for r in given.run)]
    return SavedInputs(figures, None if given.qrels is None else _side(given.qrels),
                       tuple(_side(path) for _, path in runs),
                       tuple(name or None for name, _ in runs))


def draw() -> View | None:
    """The sidebar over saved figures; the view every page then draws from."""
    with st.sidebar:
        st.radio("Data", list(cache.SOURCES), format_func=cache.SOURCES.get,
                 index=session.shown_index(session.SOURCE_KEY, list(cache.SOURCES)),
                 key=session.SOURCE_KEY, horizontal=True, on_change=session.source_changed,
                 help=HELP["source"])
        uploader()
        inputs = read()
        if st.session_state.get(FIGURES_KEY) is None and command_line().figures is not None:
            st.caption(safe.md(WORDS.COMMAND_LINE.format(file=command_line().figures.name)))
        if inputs.figures.error:
            st.error(safe.md(inputs.figures.error), icon=":material/error:")
        else:
            saved = inputs.figures.evaluation
            st.caption(safe.md(f"{inputs.figures.file_name}: "
                               f"{fmt.count(len(saved.scored_ids), 'scored query')}, "
                               f"{fmt.count(len(saved.run_names), 'run')}, K = {saved.k}"))
        st.file_uploader("Qrels (the labels)", key=session.QRELS_KEY, help=WORDS.SIDE_FILES)
        st.file_uploader("Runs (one file per retriever)", key=session.RUNS_KEY,
                         accept_multiple_files=True, help=WORDS.SIDE_FILES)
        st.caption(safe.md(WORDS.SIDE_FILES if not inputs.lists_given else
                           "Beside the figures: " + ", ".join(
                               f.file_name for f in (inputs.qrels, *inputs.runs))
                           + ". Only the rows of the query a page explains are read."))
        view = None
        if inputs.ready:
            shown, names = sidebar.choose_runs(inputs.figures.evaluation.run_names)
            st.divider()
            st.caption(safe.md(WORDS.FIXED_SETTINGS.format(k=inputs.figures.evaluation.k)))
            view = cache.build_saved_view(inputs, shown, names)
    session.set_view(view)
    session.set_inputs(inputs)
    session.set_snapshots([])
    return view
