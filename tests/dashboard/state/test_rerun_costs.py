"""What Streamlit does on every script run that the dashboard turns off, because with runs
loaded it cost as much as the page: copying every uploaded byte, and a full collection."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import streamlit
from streamlit import config
from streamlit.runtime.state import session_state
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

import dashboard.state.session  # noqa: F401  (installs the sharing copy)

ROOT = Path(__file__).resolve().parents[3]


def test_an_uploaded_files_deep_copy_is_a_file_of_its_own_over_the_same_bytes():
    data = bytes(range(256)) * 4096
    original = UploadedFile(UploadedFileRec("id-1", "run.trec", "text/plain", data), None)
    original.seek(5)
    [copied] = copy.deepcopy([original])
    assert copied is not original and copied == original
    assert copied.getvalue() is data  # shared, not copied
    assert (copied.file_id, copied.name, copied.type, copied.size) == (
        "id-1", "run.trec", "text/plain", len(data))
    assert copied.tell() == 5
    assert copied.read(3) == data[5:8] and original.tell() == 5  # its own read position


def test_streamlit_still_deep_copies_each_widget_value_on_every_run():
    """Else the sharing copy is no longer needed: remove it from dashboard/state/session.py."""
    source = Path(session_state.__file__).read_text()
    assert "widget_value = deepcopy(widget_value)" in source


def test_no_full_garbage_collection_after_each_script_run():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["runner"]["postScriptGC"] is False
    assert "runner.postScriptGC" in config._config_options_template, streamlit.__version__
