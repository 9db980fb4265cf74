"""Hostile query texts and chunk texts, in a real browser: markup in a queries file or a corpus
reaches no element of its own on any page (the chunks' marked words included), asks no other
host for anything, and is shown as its characters.
"""

from __future__ import annotations

import json
import re

from tests.e2e.conftest import NO_BROWSER, SAMPLE, file_inputs, settle
from tests.e2e.test_hostile import assert_no_markup, outside_requests
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]

NAV = {"": "Overview", "heatmap": "Per-query heatmap", "drilldown": "Drill-down",
       "compare": "Compare", "export": "Export"}


def hostile_texts(tmp_path, host: str) -> tuple[str, str]:
    """A queries file whose texts and facet values carry markup, and a corpus whose titles
    and texts do, one of them a verbatim copy of a hostile query (a leak)."""
    q01 = f"refund <img src=http://{host}/q.png> policy **bold** [x](http://{host}/phish)"
    q02 = f"rotate key <script>fetch('http://{host}/s')</script> $x^2$"
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(row) + "\n" for row in [
        {"query_id": "q01", "text": q01, "intent": "<b>lookup</b>"},
        {"query_id": "q02", "text": q02, "intent": f"[how](http://{host}/f)"},
        *({"query_id": f"q{i:02d}", "text": f"plain question {i}", "intent": "other"}
          for i in range(3, 11)),
    ]))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(row) + "\n" for row in [
        {"_id": "d01", "title": f"<script>fetch('http://{host}/t')</script> refund",
         "text": f"refund <img src=http://{host}/c.png onerror=alert(1)> policy &amp; **bold**"},
        {"_id": "d11", "title": "Keys", "text": q02},  # the query copied: a leak
        {"_id": "d02", "title": f"[t](http://{host}/l)", "text": "policy <mark>x</mark>"},
    ]))
    return str(queries), str(corpus)


def test_hostile_query_and_chunk_texts_render_no_markup(server, page, listener, tmp_path):
    host, seen = listener
    outside = outside_requests(page, server)
    inputs = file_inputs(page, server)
    queries, corpus = hostile_texts(tmp_path, host)
    inputs.nth(0).set_input_files(str(SAMPLE / "qrels.txt"))
    settle(page)
    inputs.nth(1).set_input_files([str(SAMPLE / "baseline.run"), str(SAMPLE / "reranked.run")])
    settle(page)
    inputs.nth(2).set_input_files(queries)
    settle(page)
    inputs.nth(3).set_input_files(corpus)
    settle(page)
    page.get_by_text("Summary at K = 10").first.wait_for(state="visible")
    page.get_by_text("Leakage.", exact=False).first.wait_for(state="visible")
    for name, title in NAV.items():
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", exact=True,
                                                              name=title).click()
        assert_no_markup(page, host, seen, name or "overview")
    # the drill-down's chunks, opened: only <mark> around whole query words, text as text
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Drill-down").click()
    settle(page)
    search = page.get_by_label("Find a query", exact=True).and_(page.locator("input"))
    search.fill("refund")  # finds q01 alone, which the picker then shows
    search.press("Enter")
    settle(page)
    page.get_by_text("What baseline put in front of the model", exact=False).first.click()
    settle(page)
    chunks = page.locator('[data-testid="stHtml"]').first
    assert chunks.locator("img, script, a, b:has-text('lookup')").count() == 0
    marked = chunks.locator("mark").all_inner_texts()
    q01 = set(re.findall(r"\w+", json.loads(open(queries).readline())["text"].lower()))
    assert "refund" in marked and {word.lower() for word in marked} <= q01, marked
    shown = chunks.inner_text()
    assert f"<img src=http://{host}/c.png onerror=alert(1)>" in shown
    assert "&amp;" in shown and "<mark>x</mark>" in shown  # an entity and a tag, as text
    assert_no_markup(page, host, seen, "drill-down chunks")
    assert not outside, f"requests to other hosts: {outside}"
