"""Where saved figures come from: the "Open an evaluation" box under My files (drawn by both
sidebars, so that it keeps its file when the sidebar switches), and the command line's
`streamlit run dashboard/app.py -- --figures FILE.parquet [--qrels FILE] [--run [NAME=]FILE]`
(and `--history DIR`, a history store the Drift page draws).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import streamlit as st

from metrics import vocabulary

FIGURES_KEY = "load.figures"
WORDS = vocabulary.saved


@functools.cache
def command_line() -> argparse.Namespace:
    """What follows `--` on the streamlit command line (unknown arguments are left alone)."""
    parser = argparse.ArgumentParser(prog="dashboard/app.py", add_help=False)
    parser.add_argument("--figures", type=Path)
    parser.add_argument("--qrels", type=Path)
    parser.add_argument("--run", action="append", default=[])
    parser.add_argument("--history", type=Path)  # a history store: the Drift page's trend
    return parser.parse_known_args(sys.argv[1:])[0]


def uploader():
    """My files' first box: an evaluation's saved figures."""
    return st.file_uploader(WORDS.OPEN_LABEL, type=["parquet"], key=FIGURES_KEY,
                            help=WORDS.OPEN_HELP)
