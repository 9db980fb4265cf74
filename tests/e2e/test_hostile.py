"""No markup from data or links, in a real browser: hostile query ids, doc ids, run names,
file names and URL values reach no image, link, emphasis or formula on any page, and no page
asks any host but the dashboard's own. A listener on 127.0.0.1 records every request a
planted link or image would make.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlsplit

from tests.e2e.conftest import NO_BROWSER, file_inputs, settle
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]

PAGES = ["", "sweep", "heatmap", "drilldown", "compare", "overlap", "drift", "export",
         "method_notes"]


def hostile_values(host: str) -> list[str]:
    return [
        f"![x](http://{host}/image.png)",
        f"[Session expired - click to log in](http://{host}/phish)",
        f"http://{host}/bare",
        f"www.{host}.example/bare",
        f"<img src=http://{host}/html.png>",
        "**bold** $x^2$ :red[red]",
        "=HYPERLINK(\"x\")",
    ]


def hostile_files(tmp_path, host: str):
    """Qrels and two runs (CSV, ids quoted) whose query and doc ids are hostile, and whose
    file names carry Markdown."""
    values = hostile_values(host)
    queries = values[:6]
    docs = [v.replace("/", "|") + " doc" for v in values]

    def cell(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    qrels = ["query_id,doc_id,grade"] + [
        f"{cell(q)},{cell(d)},{1 + i % 2}" for i, q in enumerate(queries) for d in docs[:3]]
    first = ["query_id,doc_id,rank"] + [
        f"{cell(q)},{cell(d)},{r}" for q in queries for r, d in enumerate(docs[:5], 1)]
    second = ["query_id,doc_id,rank"] + [
        f"{cell(q)},{cell(d)},{r}" for q in queries for r, d in enumerate(docs[::-1], 1)]
    paths = []
    for name, lines in (("qrels.csv", qrels), ("**bold** [a](b).csv", first),
                        ("$x^2$ :red[r].csv", second)):
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def assert_no_markup(page, host: str, seen: list[str], where: str) -> None:
    settle(page)
    assert not seen, f"{where}: the page requested {seen}"
    planted = page.locator(f'a[href*="{host}"], img[src*="{host}"]')
    assert planted.count() == 0, f"{where}: a link or image to the listener"
    assert page.locator(".katex").count() == 0, f"{where}: a formula was rendered"
    for tag in ("strong", "em"):
        # the page's own emphasis may hold a hostile name, shown as its characters
        # ("**bold** [a](b)"); an emphasis made by the hostile text would hold "bold" alone
        texts = page.locator(f'[data-testid="stMain"] {tag}, [data-testid="stSidebar"] {tag}')
        made = [t for t in texts.all_inner_texts() if t.strip() in ("bold", "red")]
        assert not made, f"{where}: hostile {tag}: {made}"
    assert page.locator('[data-testid="stException"]').count() == 0, f"{where}: exception"


def outside_requests(page, server: str) -> list[str]:
    own = urlsplit(server).netloc
    found: list[str] = []

    def record(request) -> None:
        url = urlsplit(request.url)
        if url.scheme not in ("data", "blob") and url.netloc != own:
            found.append(request.url)

    page.on("request", record)
    return found


def test_hostile_uploads_render_no_markup_on_any_page(server, page, listener, tmp_path):
    host, seen = listener
    outside = outside_requests(page, server)
    inputs = file_inputs(page, server)
    qrels, first, second = hostile_files(tmp_path, host)
    inputs.nth(0).set_input_files(qrels)
    settle(page)
    inputs.nth(1).set_input_files([first, second])
    settle(page)
    page.get_by_text("Summary at K = 10").first.wait_for(state="visible")
    for name in PAGES:
        nav = page.get_by_test_id("stSidebarNavItems")
        nav.get_by_role("link", exact=True, name={"": "Overview", "sweep": "K sweep",
                                       "heatmap": "Per-query heatmap", "drilldown": "Drill-down",
                                       "compare": "Compare", "overlap": "Overlap",
                                       "drift": "Drift",
                                       "export": "Export",
                                       "method_notes": "Method notes"}[name]).click()
        assert_no_markup(page, host, seen, name or "overview")
    # the hostile run names are shown as their characters
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Overview").click()
    settle(page)
    page.get_by_text("**bold** [a](b)", exact=False).first.wait_for(state="attached")
    assert not outside, f"requests to other hosts: {outside}"


def test_hostile_link_values_render_no_markup(server, page, listener):
    host, seen = listener
    outside = outside_requests(page, server)
    values = {
        "k": f"![x](http://{host}/u.png)",
        "gain": f"[Session expired - click to log in](http://{host}/phish)",
        "level": "**bold** $x^2$",
        "query": f"http://{host}/bare",
        "runs": ["bm25", "bm25", f"![r](http://{host}/r.png)"],
        "harm": f"[click](http://{host}/harm)",
        "fuse": json.dumps({"runs": [f"![f](http://{host}/f.png)", "bm25"]}),
    }
    parts = [f"{name}={quote(v)}" for name, value in values.items()
             for v in (value if isinstance(value, list) else [value])]
    for name in PAGES:
        page.goto(f"{server}/{name}?" + "&".join(parts))
        assert_no_markup(page, host, seen, name or "overview")
    page.goto(f"{server}/?" + "&".join(parts))
    settle(page)
    # each bad value is named, with the default put in its place
    warnings = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    for name in ("k=", "gain=", "level=", "harm="):
        assert name in warnings
    assert "no run named ![f]" in warnings  # a recipe naming no loaded run, as characters
    assert "**bold**" in warnings  # shown as characters, not as bold
    assert not outside, f"requests to other hosts: {outside}"
