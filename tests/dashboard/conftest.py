"""Shared fixtures: the bundled sample as the engine scores it, and the app under AppTest."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from urllib.parse import parse_qs

import jsonschema
import pytest
from altair.vegalite.v6 import schema as vega_lite
from streamlit.testing.v1 import AppTest

from dashboard import safe
from metrics import load_qrels
from metrics.core.sample import SAMPLE_DIR

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
PAGES = {
    "overview": None,
    "sweep": "app_pages/sweep.py",
    "heatmap": "app_pages/heatmap.py",
    "drilldown": "app_pages/drilldown.py",
    "compare": "app_pages/compare.py",
    "overlap": "app_pages/overlap.py",
    "judge": "app_pages/judge.py",
    "drift": "app_pages/drift.py",
    "export": "app_pages/export.py",
    "method_notes": "app_pages/method_notes.py",
}


@pytest.fixture(scope="session")
def sample_qrels():
    return load_qrels(SAMPLE_DIR / "qrels.txt")[0]


def open_app(page: str = "overview", **query_params) -> AppTest:
    """The app run once on the sample (or the URL's state), then switched to `page`."""
    app = AppTest.from_file(str(APP), default_timeout=60)
    for name, value in query_params.items():
        app.query_params[name] = value
    app.run()
    if PAGES[page]:
        app.switch_page(PAGES[page]).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def chart_nodes(app: AppTest) -> list:
    """Every chart the page sent (its element: `.proto.spec`, `.proto.datasets`), in order."""
    def walk(node):
        yield node
        for child in getattr(node, "children", {}).values():
            yield from walk(child)
    return [node for node in walk(app._tree) if getattr(node, "type", None) == "vega_lite_chart"]


def chart_specs(app: AppTest) -> list[dict]:
    """The Vega-Lite spec of every chart the page sent, as the browser receives it."""
    return [json.loads(node.proto.spec) for node in chart_nodes(app)]


@functools.cache
def _vega_lite_validator():
    schema = vega_lite.load_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def vega_lite_errors(spec: dict) -> list[str]:
    """What the Vega-Lite schema (Altair's copy) finds wrong with a spec: the dashboard
    converts its charts unchecked (dashboard/views/vega_spec.py), the tests check them."""
    return [error.message for error in _vega_lite_validator().iter_errors(spec)]


def shown(markdown: str) -> str:
    """Markdown source as a reader sees its characters: backslash escapes removed, and the
    text of each `:color[...]` that keeps an autolink's start apart (safe.APART) in place."""
    out, i, depth = [], 0, 0
    opening = safe.APART.split("{}")[0]
    while i < len(markdown):
        if markdown[i] == "\\" and i + 1 < len(markdown) and re.match(r"[!-/:-@\[-`{-~]",
                                                                     markdown[i + 1]):
            out.append(markdown[i + 1])
            i += 2
        elif markdown.startswith(opening, i):
            depth += 1
            i += len(opening)
        elif markdown[i] == "]" and depth:
            depth -= 1
            i += 1
        else:
            out.append(markdown[i])
            i += 1
    return "".join(out)


def texts(app: AppTest) -> str:
    """Every markdown, caption, title, error and warning the page shows, as one string of
    the characters a reader sees (escapes removed)."""
    parts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption",
                                  "error", "warning", "info")
             for e in getattr(app, kind)]
    return shown("\n".join(parts))


def upload(app: AppTest, runs, qrels: bytes | None = None, *, queries=None, corpus=None,
           judge=None):
    """"My files" with these uploads: runs as (name, bytes) pairs, the qrels' bytes, and the
    optional queries file, corpus and judge's qrels as (name, bytes); the app run once they
    are all set."""
    app.radio(key="load.source").set_value("upload").run()
    if qrels is not None:
        app.file_uploader(key="load.qrels").set_value(("qrels.txt", qrels, "text/plain"))
    for key, given in (("load.queries", queries), ("load.corpus", corpus),
                       ("load.judge", judge)):
        if given is not None:
            app.file_uploader(key=key).set_value((*given, "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [(name, data, "text/plain") for name, data in runs]).run()
    return app


def follow(app: AppTest, link) -> AppTest:
    """What a click on a page link does in the browser: the link's query string becomes the
    URL's (st.page_link replaces it), then its page runs, in the same session."""
    app.query_params = {name: values if len(values) > 1 else values[0] for name, values
                        in parse_qs(link.proto.query_string, keep_blank_values=True).items()}
    target = next(path for path in PAGES.values()
                  if path and Path(path).stem == link.proto.page)
    return app.switch_page(target).run()
