"""What `run-retriever` names: MODULE:FUNCTION, the retriever a command line calls.

MODULE is a module importable from the current directory (which is put first on the path, as
`python -m` does, so that the installed `retrieval-compare` finds the same modules) or a path
to a .py file; FUNCTION a name in it, dotted for an attribute of an attribute
(`search:index.query`). `FUNCTION()` calls it with no arguments first and uses what it
returns: a factory that builds the index once. Each way this can go wrong is a ValueError
naming what was wrong: the module not found or failing on import (its exception's type and
message), the attribute missing (the public names the module has), or not callable.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

from metrics.io.errors import show

__all__ = ["load_target"]

NAMES_SHOWN = 12  # public names listed when the one asked for is missing


def load_target(target: str) -> Callable[[str], object]:
    """The callable MODULE:FUNCTION names (see the module's docstring)."""
    module_name, colon, name = target.rpartition(":")
    if not colon or not module_name or not name:
        raise ValueError(f"retriever {show(target)}: expected MODULE:FUNCTION (such as "
                         "search:bm25 or path/to/search.py:bm25)")
    factory = name.endswith("()")
    name = name.removesuffix("()")
    if not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"retriever {show(target)}: {show(name)} is not a Python name")
    module = _module(module_name)
    found: object = module
    for depth, part in enumerate(name.split(".")):
        if not hasattr(found, part):
            where = ".".join([module_name, *name.split(".")[:depth]])
            names = sorted(n for n in dir(found) if not n.startswith("_"))
            listed = ", ".join(names[:NAMES_SHOWN]) + (", ..." if len(names) > NAMES_SHOWN
                                                        else "")
            raise ValueError(f"retriever {show(target)}: {show(where)} has no attribute "
                             f"{show(part)} (it has: {listed or 'no public names'})")
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(f"retriever {show(target)}: {show(name)} is a "
                         f"{type(found).__name__}, not callable")
    if factory:
        try:
            found = found()
        except Exception as error:  # noqa: BLE001 - the user's factory: say what it raised
            raise ValueError(f"retriever {show(target)}: {name}() raised "
                             f"{type(error).__name__}: {error}") from None
        if not callable(found):
            raise ValueError(f"retriever {show(target)}: {name}() returned a "
                             f"{type(found).__name__}, not a callable")
    return found


def _module(name: str) -> object:
    """The module, imported from a .py path or by name from the current directory first."""
    path = Path(name)
    if name.endswith(".py") and not path.is_file():
        raise ValueError(f"retriever module {show(name)}: no such file")
    try:
        if name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)
            return module
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is None or not (name == error.name or name.startswith(error.name + ".")):
            raise ValueError(f"retriever module {show(name)} failed as it was imported: "
                             f"ModuleNotFoundError: {error}") from None
        raise ValueError(f"retriever module {show(name)} cannot be imported: {error} (a "
                         "module importable from the current directory, or a path to a .py "
                         "file)") from None
    except Exception as error:  # noqa: BLE001 - the user's module failed as it was imported
        raise ValueError(f"retriever module {show(name)} failed as it was imported: "
                         f"{type(error).__name__}: {error}") from None
