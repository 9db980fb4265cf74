"""No markup from names: every label, tooltip, help text, Markdown-rendering option, metric,
expander, tab and caption that can hold a run name, a file name, a facet name or a facet
value is escaped on every page, with hostile names from the files, the uploads' names and
the link (AppTest walks every element; tests/e2e/test_hostile_tooltips.py hovers them in a
browser)."""

from __future__ import annotations

import json
import re

import pytest
from google.protobuf.json_format import MessageToDict

from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import PAGES, open_app, upload

HOST = "127.0.0.1:9"
IMAGE = f"![i](http://{HOST}/i.png)"
LINK = f"[l](http://{HOST}/l)"
FILE_IMAGE = "![i](i.png)"  # a file name holds no "/"
# raw Markdown that renders as an image, a link, emphasis, a formula or a directive (an
# escaped bracket closes no link text: a widget label, safe.label, leaves "(" as it is)
MARKUP = re.compile(r"!\[|(?<!\\)\]\(|\*\*|(?<!\\)\$|:red\[|<img")
# the fields of an element that Streamlit renders as Markdown; selectbox and multiselect
# options are plain text (their dropdowns render none), radio, pills and select-slider
# options are Markdown
RENDERED = {"label", "help", "body", "delta", "tooltip"}
OPTIONS = {"radio", "buttonGroup", "slider"}


def hostile_inputs():
    """A qrels file, two runs and a queries file whose names, facet names and facet values
    carry Markdown."""
    qrels = (SAMPLE_DIR / "qrels.txt").read_bytes()
    runs = [(f"b {FILE_IMAGE} **x**.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
            ("r [l](l) $y$.run", (SAMPLE_DIR / "reranked.run").read_bytes())]
    ids = [line.split()[0] for line in qrels.decode().splitlines()]
    facet = f"kind {IMAGE} **f**"
    lines = [f'query_id,text,"{facet}"'] + [
        f'{q},what is {q},"{"v " + LINK if i % 2 else "w **b**"}"'
        for i, q in enumerate(dict.fromkeys(ids))]
    return qrels, runs, ("queries.csv", "\n".join(lines).encode()), facet


def _rendered(app) -> list[tuple[str, str, str]]:
    """(element type, field, text) of every string Streamlit renders as Markdown."""
    found = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            data = MessageToDict(proto)
            kind = next(iter(data), "") if len(data) == 1 else type(node).__name__
            inner = data.get(kind, data) if isinstance(data.get(kind), dict) else data
            for field, value in inner.items():
                # st.html (a proto of one field, body) is HTML escaped by safe.html, not Markdown
                if field in RENDERED and isinstance(value, str) and kind != "body":
                    found.append((kind, field, value))
                if field == "options" and kind in OPTIONS and isinstance(value, list):
                    found.extend((kind, field, str(o)) for o in value)
                if field == "columns" and isinstance(value, str):  # a table's column tooltips
                    found.extend(("column", "help", column["help"])
                                 for column in json.loads(value).values() if "help" in column)
            if type(node).__name__ in ("Markdown", "Caption", "Metric", "Alert"):
                for field in ("value", "label", "delta", "body"):
                    text = getattr(node, field, None)
                    if isinstance(text, str):
                        found.append((type(node).__name__, field, text))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(app._tree)
    return found


def _hostile_markup(app) -> list[tuple[str, str, str]]:
    return [(kind, field, text[:120]) for kind, field, text in _rendered(app)
            if MARKUP.search(text) and ("(i.png)" in text or "(l)" in text or HOST in text
                                        or "**x**" in text or "**f**" in text
                                       or "**b**" in text or "$y$" in text)]


@pytest.fixture(scope="module")
def hostile_app():
    qrels, runs, queries, facet = hostile_inputs()
    app = upload(open_app(), runs, qrels, queries=queries)
    assert not app.exception, [e.value for e in app.exception]
    names = [o for o in app.multiselect(key="runs.shown").options]
    app.multiselect(key="fuse.runs").set_value(app.multiselect(key="fuse.runs").options).run()
    app.radio(key="fuse.method").set_value("combsum").run()
    app.toggle(key="fuse.weighted").set_value(True).run()
    app.selectbox(key="filter.facet").select(facet).run()
    assert names
    return app


@pytest.mark.parametrize("page", list(PAGES))
def test_no_page_renders_markup_from_a_name(hostile_app, page):
    app = hostile_app
    app.switch_page(PAGES[page] or "app_pages/overview.py").run()
    assert not app.exception, [e.value for e in app.exception]
    found = _hostile_markup(app)
    assert found == [], "\n".join(map(str, found))


def test_a_rename_in_the_link_renders_no_markup():
    app = open_app("compare", names=[f"baseline={IMAGE}", f"bm25={LINK} **x**"])
    assert not app.exception
    app.multiselect(key="fuse.runs").set_value(["baseline", "bm25"]).run()
    app.radio(key="fuse.method").set_value("combsum").run()
    app.toggle(key="fuse.weighted").set_value(True).run()
    assert _hostile_markup(app) == []
    for page in ("overlap", "drilldown", "heatmap"):
        app.switch_page(PAGES[page]).run()
        assert not app.exception
        assert _hostile_markup(app) == [], page
