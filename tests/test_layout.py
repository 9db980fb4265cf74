"""The shape DESIGN.md asks for, checked on the code itself: every import (at the top of a
module, inside a function, under TYPE_CHECKING) runs one way between folders, down the floors
and never sideways to a folder beside it on its floor, none closes a cycle, the engine never
reaches the dashboard, the dashboard reaches the engine only through `metrics` (each name it
reads there resolved to its home, which is never the command line), and only the folders that
draw import Streamlit."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = sorted((ROOT / "metrics").rglob("*.py"))
DASHBOARD = sorted((ROOT / "dashboard").rglob("*.py"))

# Each package's floors from the bottom up, each floor its folders: a module may import its
# own folder and the floors below its own, never a folder beside it on its floor (what two of
# them share moves down) nor one above. `metrics/__init__.py` (the public API, read lazily) and
# the entry points (`__main__.py`, `dashboard/app.py`, `dashboard/serve.py`) stand on top of
# their package.
ENGINE_FLOORS = (("vocabulary",), ("io",), ("stats",), ("core",), ("spark",),
                 ("decide", "explain", "context", "snapshot"),  # side by side
                 ("inputs", "outputs"),  # below both front ends: reading and writing
                 ("cli",))
DASHBOARD_FLOORS = tuple((folder,) for folder in (
    "safe", "views", "report", "data", "state", "layout", "app_pages"))
ENGINE_LAYERS = tuple(folder for floor in ENGINE_FLOORS for folder in floor)
DASHBOARD_LAYERS = tuple(folder for floor in DASHBOARD_FLOORS for folder in floor)
COMMAND_LINE = "metrics.cli"
# the folders whose modules draw, or keep what drawing needs (st.cache_resource, session state)
DRAWING = {"data", "state", "layout", "app_pages", "app", "serve"}
PURE_ENGINE_LIBRARIES = {"streamlit", "altair", "dashboard"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ENGINE + DASHBOARD}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import statement of the file, wherever it stands; `from x
    import y` names x.y when that is a module of the project, else x."""
    found = []
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(
        ".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.append((node.lineno, target if target in MODULES else base))
    return found


def statement_modules(path: Path) -> list[str]:
    """The module each import statement names, as written (`from metrics import format`
    names `metrics`, the public API)."""
    return [name for node in ast.walk(ast.parse(path.read_text(), str(path)))
            for name in ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])]


def folder(name: str) -> str:
    """The folder a module of the project stands in: its package's first level below the
    top ("core", "views"), the module's own name for a top-level file ("safe", "app")."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def project_imports(path: Path, package: str) -> list[tuple[int, str]]:
    return [(line, name) for line, name in imported_modules(path)
            if name == package or name.startswith(package + ".")]


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def floor_of(name: str, floors: tuple[tuple[str, ...], ...]) -> int | None:
    """The floor a module's folder stands on; None for the package itself and its entry
    points, which stand above every floor."""
    place = folder(name)
    return next((i for i, floor in enumerate(floors) if place in floor), None)


def not_allowed(here: str, target: str, floors: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a module of `here` may not import `target`: one above its floor, or one in
    another folder of its own floor (sideways), or the package itself."""
    mine, theirs = floor_of(here, floors), floor_of(target, floors)
    if theirs is None:
        return True
    return theirs > mine or (theirs == mine and folder(target) != folder(here))


@pytest.mark.parametrize("path", ENGINE, ids=relative)
def test_engine_imports_run_down_the_floors(path):
    name = module_name(path)
    if floor_of(name, ENGINE_FLOORS) is None:
        assert name in {"metrics", "metrics.__main__"}, (
            f"{relative(path)} stands in no folder of {ENGINE_LAYERS}")
        return
    wrong = [f"line {line}: {target}" for line, target in project_imports(path, "metrics")
             if not_allowed(name, target, ENGINE_FLOORS)]
    assert not wrong, (f"{relative(path)} ({folder(name)}) imports from above, from beside it "
                       f"on its floor or from the public API: {wrong}")


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_dashboard_imports_run_down_the_floors(path):
    name = module_name(path)
    if floor_of(name, DASHBOARD_FLOORS) is None:
        assert name in {"dashboard", "dashboard.__main__", "dashboard.app",
                        "dashboard.serve"}, (
            f"{relative(path)} stands in no folder of {DASHBOARD_LAYERS}")
        return
    upward = [f"line {line}: {target}" for line, target in project_imports(path, "dashboard")
              if target != "dashboard" and not_allowed(name, target, DASHBOARD_FLOORS)]
    assert not upward, f"{relative(path)} ({folder(name)}) imports from above: {upward}"


def test_sideways_is_refused():
    """The rule itself: a folder may not import its neighbour on the same floor, but may
    import its own folder and any floor below."""
    assert not_allowed("metrics.explain.slices", "metrics.decide.best", ENGINE_FLOORS)
    assert not_allowed("metrics.snapshot.schema", "metrics.context.cost", ENGINE_FLOORS)
    assert not_allowed("metrics.outputs.text", "metrics.inputs.reading", ENGINE_FLOORS)
    assert not_allowed("metrics.core.compare", "metrics.decide.best", ENGINE_FLOORS)
    assert not not_allowed("metrics.decide.best", "metrics.decide.headline", ENGINE_FLOORS)
    assert not not_allowed("metrics.decide.best", "metrics.core.compare", ENGINE_FLOORS)
    assert not not_allowed("metrics.cli.score", "metrics.outputs.text", ENGINE_FLOORS)


def test_no_module_imports_the_public_api_or_a_cycle():
    """The import graph of the project's modules, every import counted, has no cycle (a
    package's __init__ re-exporting its own children closes none)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        package = "metrics" if name.startswith("metrics") else "dashboard"
        deps = {target for _, target in project_imports(path, package)
                if target in MODULES and target != name}
        if path.name == "__init__.py":
            deps = {d for d in deps if not d.startswith(name + ".")}
        graph[name] = deps
    seen: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(node: str, trail: list[str]) -> list[str] | None:
        seen[node] = 1
        for child in sorted(graph[node]):
            if seen.get(child) == 1:
                return trail[trail.index(child):] + [child] if child in trail else [node, child]
            if child not in seen:
                found = visit(child, trail + [child])
                if found:
                    return found
        seen[node] = 2
        return None

    for start in sorted(graph):
        if start not in seen:
            cycle = visit(start, [start])
            assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_the_dashboard_imports_metrics_and_nothing_below_it(path):
    below = [name for name in statement_modules(path) if name.startswith("metrics.")]
    assert not below, f"{relative(path)} imports {below}: import `metrics` instead"


def public_homes() -> dict[str, str]:
    """Each public name of `metrics` -> the module it is read from (its home)."""
    import metrics

    return {name: module for name, (module, _) in metrics._HOMES.items()}


def public_reads(path: Path) -> list[tuple[int, str, str]]:
    """(line, name, home) for every public name a module reads: `from metrics import X` and
    `metrics.X`, each resolved to the module the public API takes it from."""
    homes = public_homes()
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == "metrics" and not node.level:
            found += [(node.lineno, alias.name, homes.get(alias.name, "?"))
                      for alias in node.names]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "metrics" and node.attr in homes):
            found.append((node.lineno, node.attr, homes[node.attr]))
    return found


def test_no_public_name_lives_in_the_command_line():
    """The public API takes every name from a module of the engine below the command line:
    `cli/` parses arguments, and nothing a script or the dashboard uses lives there."""
    homes = public_homes()
    in_cli = sorted(name for name, home in homes.items()
                    if home == COMMAND_LINE or home.startswith(COMMAND_LINE + "."))
    assert not in_cli, f"public names whose home is {COMMAND_LINE}: {in_cli}"
    unknown = sorted(name for name, home in homes.items() if home not in MODULES)
    assert not unknown, f"public names whose home is no module of the engine: {unknown}"


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_the_dashboard_reaches_no_command_line_through_the_public_api(path):
    """`from metrics import X` resolved to X's home: the lazy public API hides which module
    the dashboard really uses, and none of them may be the command line."""
    reads = public_reads(path)
    unknown = [f"line {line}: {name}" for line, name, home in reads if home == "?"]
    assert not unknown, f"{relative(path)} imports names metrics does not export: {unknown}"
    wrong = [f"line {line}: {name} ({home})" for line, name, home in reads
             if floor_of(home, ENGINE_FLOORS) is None
             or floor_of(home, ENGINE_FLOORS) > floor_of("metrics.outputs", ENGINE_FLOORS)]
    assert not wrong, f"{relative(path)} reaches the command line: {wrong}"


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_only_the_folders_that_draw_import_streamlit(path):
    place = folder(module_name(path))
    drawn = [name for _, name in imported_modules(path) if name.split(".")[0] == "streamlit"]
    assert place in DRAWING or not drawn, (
        f"{relative(path)} imports streamlit, but {place or 'its folder'} does not draw "
        f"(only {sorted(DRAWING)} do)")


@pytest.mark.parametrize("path", ENGINE, ids=relative)
def test_the_engine_never_imports_streamlit_altair_or_the_dashboard(path):
    found = [name for _, name in imported_modules(path)
             if name.split(".")[0] in PURE_ENGINE_LIBRARIES]
    assert not found, f"{relative(path)} imports {found}"


def test_importing_every_engine_module_loads_no_pandas_streamlit_or_altair():
    """pandas only where a frame is asked for: importing the engine must not load it."""
    modules = [module_name(p) for p in ENGINE if p.name != "__main__.py"]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(' '.join(m for m in ('pandas', 'streamlit', 'altair') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == ""


def test_import_metrics_loads_nothing_but_itself():
    """The public API is read on first use: `import metrics` loads no engine module, numpy
    or pyarrow, and every public name resolves."""
    code = (
        "import sys, metrics\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('metrics.') or m in "
        "('numpy', 'pyarrow', 'pandas', 'scipy'))\n"
        "print(' '.join(loaded))\n"
        "missing = [n for n in metrics.__all__ if getattr(metrics, n, None) is None]\n"
        "print(' '.join(missing))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    loaded, missing = done.stdout.split("\n")[:2]
    assert loaded == "", f"import metrics loads {loaded}"
    assert missing == "", f"public names that do not resolve: {missing}"


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


def _public_homes() -> dict[str, str]:
    """Each public name of `metrics` -> the module it lives in (the lazy API's own table)."""
    import metrics

    return {name: module for name, (module, _) in metrics._HOMES.items()}


WORDS_AND_FORMATS = ("metrics.vocabulary",)  # declarations, sentences and number formats


@pytest.mark.parametrize("path", PAGES, ids=relative)
def test_pages_call_no_engine_function(path):
    """Pages lay out what dashboard/data/ computed for the view (DESIGN.md, "The dashboard's
    view"): a page may read the vocabulary's words and formats, but every engine call (a
    figure, a table, a test, a sentence built from figures) goes through dashboard/data/,
    where it is computed once per view and kept in the store."""
    homes = _public_homes()
    tree = ast.parse(path.read_text(), str(path))
    imported = {alias.asname or alias.name: alias.name for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module == "metrics"
                for alias in node.names}
    called = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "metrics"):
            name = func.attr
        elif isinstance(func, ast.Name) and func.id in imported:
            name = imported[func.id]
        else:
            continue
        home = homes.get(name, "")
        if not home.startswith(WORDS_AND_FORMATS):
            called.append(f"line {node.lineno}: metrics.{name} ({home})")
    assert not called, f"{relative(path)} calls the engine: {called}"
