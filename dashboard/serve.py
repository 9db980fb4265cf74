"""The dashboard's server: `streamlit run dashboard/serve.py` serves dashboard/app.py. Before it
listens it reads in the code every page runs (Python's imports, ~2 CPU seconds, scipy.stats the
largest); as it starts, a thread scores and compares the bundled sample once. The first person
to open the page then waits for their page: neither for Python's imports nor for the sample.

The imports come before the server answers, not on the thread: there they shared the one
interpreter lock with the browser's loading of the page and with the first visit's own script,
and that visit waited for all three (docs/dashboard.md, "How long a person waits", has the
figures).

`streamlit run dashboard/app.py` serves the same pages without either. Streamlit finds the
`st.App` below and runs it (its Starlette server, uvicorn).
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import threading

import streamlit as st

# what not to import ahead: the page scripts run as scripts, the command line and Spark are
# never used by the dashboard
SKIPPED = ("dashboard.app", "dashboard.app_pages", "dashboard.serve", "metrics.cli",
           "metrics.spark", "metrics.__main__", "dashboard.__main__")


def read_in() -> None:
    """Import every module the pages use, and the scipy.stats their first comparison calls
    (metrics imports scipy inside its functions, to keep the command line's start quick)."""
    import scipy.stats  # noqa: F401

    import dashboard
    import metrics

    for package in (dashboard, metrics):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not module.name.startswith(SKIPPED):
                importlib.import_module(module.name)


def warm_up() -> None:
    """Read, score and compare the sample into the server's store as the Overview asks for it
    at its first K and conventions."""
    import metrics
    from dashboard.data import cache, decisions

    conventions = metrics.Conventions()
    inputs = cache.sample_inputs(conventions)
    view = cache.build_view(inputs, inputs.run_names, {}, metrics.SAMPLE_K, conventions)
    comparisons = metrics.vocabulary.comparisons
    decisions.run_table(view, comparisons.DEFAULT_CORRECTION, comparisons.ALPHA)
    decisions.leaderboard(view)


@contextlib.asynccontextmanager
async def _started(_app):
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
    yield


read_in()
app = st.App("app.py", lifespan=_started)
