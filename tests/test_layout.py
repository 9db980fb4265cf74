"""The shape DESIGN.md asks for, checked on the code itself: one-way imports through the public
`metrics` API, a pure engine, and small modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = sorted((ROOT / "metrics").rglob("*.py"))
DASHBOARD = sorted((ROOT / "dashboard").rglob("*.py"))
# the dashboard modules that may draw with Streamlit: the entry, the pages, the sidebar, the
# session and its caches, and ui.py (the pieces every page lays out with)
STREAMLIT_ALLOWED = {"app.py", "sidebar.py", "session.py", "picking.py", "cache.py", "ui.py",
                     "review_views.py"}
MAX_LINES = 500


def imported_modules(path: Path) -> list[str]:
    """Every module an import statement in the file names (top level or inside functions)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_the_dashboard_imports_metrics_and_nothing_below_it(path):
    below = [name for name in imported_modules(path) if name.startswith("metrics.")]
    assert not below, f"{relative(path)} imports {below}: import `metrics` instead"


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_only_the_app_its_pages_and_its_state_draw_with_streamlit(path):
    if path.parent.name == "app_pages" or path.name in STREAMLIT_ALLOWED:
        return
    drawn = [name for name in imported_modules(path) if name.split(".")[0] == "streamlit"]
    assert not drawn, f"{relative(path)} imports streamlit"


@pytest.mark.parametrize("path", ENGINE, ids=relative)
def test_the_engine_never_imports_streamlit_or_altair(path):
    found = [name for name in imported_modules(path)
             if name.split(".")[0] in {"streamlit", "altair", "dashboard"}]
    assert not found, f"{relative(path)} imports {found}"


def test_importing_every_engine_module_loads_no_pandas_streamlit_or_altair():
    """pandas only where a frame is asked for: importing the engine must not load it."""
    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in ENGINE]
    modules = [m.removesuffix(".__init__") for m in modules if not m.endswith("__main__")]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(' '.join(m for m in ('pandas', 'streamlit', 'altair') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("path", ENGINE + DASHBOARD, ids=relative)
def test_no_module_is_over_the_line_budget(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{relative(path)} has {lines} lines (budget {MAX_LINES})"


WIDGET_CALLBACKS = {"format_func", "on_change", "on_select", "on_click"}
PAGES = sorted((ROOT / "dashboard" / "app_pages").glob("*.py"))


@pytest.mark.parametrize("path", PAGES, ids=relative)
def test_pages_hand_their_widgets_no_function_of_their_own(path):
    """A widget keeps its format_func and callbacks in the session, and a function defined
    in a page script keeps that page's globals alive (its evaluation, hundreds of MB) after
    the reader moved to another page: pages pass dict.get, partials and module functions."""
    tree = ast.parse(path.read_text(), str(path))
    own = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    offending = [
        f"line {keyword.lineno}: {keyword.arg}={ast.unparse(keyword.value)[:60]}"
        for node in ast.walk(tree) if isinstance(node, ast.Call)
        for keyword in node.keywords if keyword.arg in WIDGET_CALLBACKS
        if isinstance(keyword.value, ast.Lambda)
        or (isinstance(keyword.value, ast.Name) and keyword.value.id in own)
        or (isinstance(keyword.value, ast.Call) and isinstance(keyword.value.func, ast.Name)
            and keyword.value.func.id in own)
    ]
    assert not offending, f"{relative(path)}: {offending}"
