"""A server restart under an open tab, in a real browser: the next click (another page, whose
link drops the URL) reaches a new session, which says the uploads are gone, asks for them by
name and keeps the tab's settings; it never shows the bundled sample in their place. The test
runs servers of its own (`servers`), since it stops and starts one."""

from __future__ import annotations

import time

from tests.e2e.conftest import (
    NO_BROWSER,
    SAMPLE,
    free_port,
    settle,
    stop_server,
    upload,
)
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]


def test_after_a_restart_the_page_asks_for_the_uploads_and_keeps_the_settings(servers, page):
    port = free_port()
    server = servers(port)
    upload(page, f"http://127.0.0.1:{port}/", str(SAMPLE / "qrels.txt"),
           [str(SAMPLE / "baseline.run"), str(SAMPLE / "bm25.run")])
    k = page.get_by_role("spinbutton", name="K (cutoff)")
    k.fill("7")
    k.press("Enter")
    settle(page)
    page.get_by_text("Summary at K = 7").first.wait_for(state="visible")
    stop_server(server)
    servers(port)
    time.sleep(3)  # the tab reconnects
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Compare").click()
    settle(page)
    page.get_by_text("The files uploaded to this page are gone").wait_for(state="visible")
    page.get_by_text("qrels.txt, baseline.run, bm25.run", exact=False).first.wait_for()
    assert page.get_by_role("radio", name="My files").is_checked()
    assert not page.get_by_role("radio", name="Bundled sample").is_checked()
    assert page.get_by_role("spinbutton", name="K (cutoff)").input_value() == "7"
    assert page.locator('[data-testid="stDataFrame"]').count() == 0  # no figures at all
    assert page.locator('[data-testid="stException"]').count() == 0
