"""The scripts under benchmarks/ imported as modules, for the tests that run their functions
(the coverage simulation, the Spark reconciliation)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@contextmanager
def benchmark_script(name: str) -> Iterator[ModuleType]:
    """benchmarks/NAME.py as a module, registered while in use (dataclasses look their
    module up) and removed after."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]
