"""The report a user sends, in the real browser: the Export page's HTML report holds every
section `python -m dashboard report` writes for the same texts (by kind of query, leakage,
examples with the question and chunks, cost), reads at 1280 px without a table running off
the page, and prints on an A4 landscape page the same way.
"""

from __future__ import annotations

import re

from tests.e2e.conftest import NO_BROWSER, SAMPLE, TIMEOUT_MS, settle
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]  # the report read in the browser at 1280 px: CI runs it

SECTION = re.compile(r'<section id="([^"]+)"')
A4_LANDSCAPE = 1032  # CSS pixels across an A4 landscape page with 12 mm margins


def overflowing(page, width: int) -> list[str]:
    return page.evaluate("""(width) => [...document.querySelectorAll('table, figure, dl, ul')]
        .filter(e => e.getBoundingClientRect().right > width + 1)
        .map(e => ((e.closest('section') || {}).id || e.tagName) + ': '
             + Math.round(e.getBoundingClientRect().right))""", width)


def test_the_export_page_report_has_what_the_command_writes_and_reads_at_1280(
        server, browser, page, tmp_path, capsys):
    from dashboard.report.command import main

    page.goto(f"{server}/export")
    settle(page)
    page.get_by_text("With your texts, the report also holds").first.wait_for(state="visible")
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="Download report (HTML)").click()
    mine = tmp_path / "dashboard.html"
    info.value.save_as(mine)
    theirs = tmp_path / "command.html"
    assert main(["report", "--by", "intent", "--corpus", str(SAMPLE / "corpus.jsonl"),
                 "--out", str(theirs)]) == 0
    capsys.readouterr()
    sections = set(SECTION.findall(mine.read_text(encoding="utf-8")))
    wanted = set(SECTION.findall(theirs.read_text(encoding="utf-8")))
    assert {"leakage", "slices", "examples", "cost", "against-baseline"} <= wanted
    assert wanted <= sections, f"missing from the Export page's report: {wanted - sections}"
    text = mine.read_text(encoding="utf-8")
    assert "why was my invoice charged twice" in text  # the question, with its example
    assert "@media print" in text and "@page" in text

    view = browser.new_page(viewport={"width": 1280, "height": 900})
    view.goto(mine.as_uri())
    assert view.evaluate("document.documentElement.scrollWidth") <= 1280
    assert not overflowing(view, 1280)
    view.set_viewport_size({"width": A4_LANDSCAPE, "height": 730})
    view.emulate_media(media="print")
    assert view.evaluate("document.documentElement.scrollWidth") <= A4_LANDSCAPE
    assert not overflowing(view, A4_LANDSCAPE)
    view.close()
