"""A history store through the engine, for the Drift page: the store a directory names (the
command line's `-- --history DIR`) or its files uploaded (its index.jsonl and snapshot files),
read into each figure's trend (``metrics.history_trend``), or the engine's one-line refusal."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

import metrics
from dashboard.views import history_charts

KEPT = 4  # stores read at once (a directory and an upload, each at two choices)


@dataclass(frozen=True, eq=False)
class History:
    """A store read into its trend (``frame``, ``labels`` in order), or why it was not."""

    source: str  # the directory, or the uploaded index's name
    frame: pd.DataFrame | None = None
    labels: tuple[str, ...] = ()
    k: int | None = None
    entries: int = 0
    method: str = ""
    error: str | None = None


def _history(store_of, source: str) -> History:
    try:
        trend = metrics.history_trend(store_of())
    except ValueError as exc:  # the engine names the file, the entry and what is wrong
        return History(source, error=str(exc))
    frame = history_charts.trend_frame(metrics.trend_rows(trend))
    labels = tuple(dict.fromkeys(frame["figure"]))
    return History(source, frame, labels, trend.k, len(trend.entries), trend.method)


@st.cache_resource(max_entries=KEPT, show_spinner="Reading the history store…")
def _from_directory(directory: str, _stamp: tuple) -> History:
    return _history(lambda: metrics.HistoryStore.at(directory), directory)


def from_directory(directory: str | os.PathLike) -> History:
    """The store at ``directory``, read again when its index changes."""
    index = os.path.join(directory, metrics.HISTORY_TERMS.INDEX)
    try:
        found = os.stat(index)
        stamp = (found.st_mtime_ns, found.st_size)
    except OSError:
        stamp = ()
    return _from_directory(os.fspath(directory), stamp)


@st.cache_resource(max_entries=KEPT, show_spinner="Reading the history store…")
def _from_uploads(keys: tuple[str, ...], _files: dict[str, bytes]) -> History:
    return _history(lambda: metrics.HistoryStore.of_files(_files, "the uploaded store"),
                    "the uploaded store")


def from_uploads(files: Sequence[UploadedFile]) -> History:
    """The store given as its uploaded files (the index and the snapshots, by name)."""
    return _from_uploads(tuple(f.file_id for f in files), {f.name: f.getvalue() for f in files})
