"""The dashboard's server: `streamlit run dashboard/serve.py` serves dashboard/app.py and, as
the server starts, reads in the code every page runs and scores the bundled sample once, so
the first person to open the page waits for their page, not for Python's imports.

`streamlit run dashboard/app.py` serves the same pages without the warm-up. Streamlit finds
the `st.App` below and runs it (its Starlette server, uvicorn); the warm-up runs on a thread
of its own, so the server answers at once and a first visit during the warm-up only shares
the imports it has done.
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


def warm_up() -> None:
    """Import every module the pages use, then read, score and compare the sample into the
    server's store as the Overview asks for it at its first K and conventions."""
    import dashboard
    import metrics

    for package in (dashboard, metrics):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not module.name.startswith(SKIPPED):
                importlib.import_module(module.name)
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


app = st.App("app.py", lifespan=_started)
