"""Fixtures shared by the engine's and the dashboard's tests."""

from __future__ import annotations

import functools
import os

import pytest
from streamlit.components.v2 import manifest_scanner
from streamlit.runtime.scriptrunner.script_cache import ScriptCache

from metrics import load_sample

# Every new AppTest scans each installed distribution's metadata for Streamlit components
# (1.3 s of a 2 s AppTest here, with ~160 packages installed; the dashboard has none).
# The packages do not change while the tests run: scan once per process.
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests)

# Every AppTest run compiles the app and its page afresh (a new ScriptCache a run, with
# Streamlit's "magic" rewriting of the syntax tree: 0.13 s a script here), where a server
# compiles each once. Keep the bytecode per file for the process, a file changed on disk
# compiled again.
_compiled: dict[tuple[str, int, int], object] = {}
_get_bytecode = ScriptCache.get_bytecode


def _cached_bytecode(self: ScriptCache, script_path: str):
    stat = os.stat(script_path)
    key = (os.path.abspath(script_path), stat.st_mtime_ns, stat.st_size)
    if key not in _compiled:
        _compiled[key] = _get_bytecode(self, script_path)
    return _compiled[key]


ScriptCache.get_bytecode = _cached_bytecode


@pytest.fixture(scope="session")
def sample():
    """The bundled sample as the engine scores it at its K."""
    return load_sample()
