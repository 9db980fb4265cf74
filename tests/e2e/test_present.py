"""The presentation mode in a real browser (issue 47): at 1920 x 1080 and 1280 x 800 a link
with present=1 shows the slides without the sidebar, and the keys move between them (→, Page
Down and space on; ← and Page Up back), the link following the slide shown."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import NO_BROWSER, location, settle
from tests.marks import THOROUGH, thorough_after

pytestmark = NO_BROWSER

TITLES = ["What was compared", "The headline", "Where the runs differ"]


def _title(page) -> str:
    return page.locator(".st-key-present-slide h1").first.inner_text()


def _press(page, key: str, expected: str) -> None:
    """Press `key` with the page (not a button) focused, and wait for the slide titled
    `expected` (a failure names the title still shown). A key pressed while the page is
    still being redrawn can reach it before the buttons listen again: pressed once more
    only if, 10 s later, the slide has not changed at all."""
    before = _title(page)
    for wait in (10_000, 30_000):
        # space on a focused button would click it as well as step
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press(key)
        try:
            page.wait_for_function(
                "t => { const h = document.querySelector('.st-key-present-slide h1');"
                " return h && h.innerText.startsWith(t); }", arg=expected, timeout=wait)
            settle(page)
            return
        except Exception:  # noqa: BLE001 (said below with what is shown instead)
            if _title(page) != before:
                break
    pytest.fail(f"{key}: expected {expected!r}, the slide shows {_title(page)!r}")


@pytest.mark.parametrize("width,height", thorough_after([(1920, 1080), (1280, 800)], keep=1))
def test_presentation_mode_hides_the_sidebar_and_the_keys_move_between_slides(
        server, browser, shots, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server}/?present=1")
        settle(page)
        assert _title(page).startswith(TITLES[0])
        # no sidebar, no handle to open it, no page navigation, no sidebar control
        for selector in ('[data-testid="stSidebar"]', '[data-testid="stSidebarNav"]',
                         '[data-testid="stSidebarCollapsedControl"]',
                         '[data-testid="stExpandSidebarButton"]'):
            shown = [e.evaluate("e => getComputedStyle(e).display") for e in
                     page.locator(selector).all() if e.is_visible()]
            assert not shown, (selector, shown)
        assert not page.get_by_text("Conventions", exact=True).is_visible()
        # the slide's title and the buttons inside the first viewport
        box = page.locator(".st-key-present-slide h1").first.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height
        page.screenshot(path=str(shots / f"present-{width}x{height}-1.png"))

        _press(page, "ArrowRight", TITLES[1])
        assert re.search(r"[?&]slide=2\b", location(page))
        # the headline's chart is on the slide, in the first viewport
        chart = page.locator(".st-key-present-slide [data-testid='stVegaLiteChart']").first
        chart.wait_for(state="visible")
        assert chart.bounding_box()["y"] < height
        page.screenshot(path=str(shots / f"present-{width}x{height}-2.png"))

        _press(page, "PageDown", TITLES[2])
        _press(page, "ArrowLeft", TITLES[1])
        _press(page, "Space", TITLES[2])
        _press(page, "PageUp", TITLES[1])

        # a link to a slide reopens it
        page.goto(f"{server}/?present=1&slide=3")
        settle(page)
        assert _title(page).startswith(TITLES[2]), _title(page)

        # and the way out brings the sidebar back
        page.get_by_role("button", name="Leave the presentation").click()
        settle(page)
        assert page.locator('[data-testid="stSidebar"]').first.is_visible()
        assert "present=1" not in location(page)
    finally:
        context.close()


@THOROUGH  # the export's pages and files are checked without a browser in test_slides.py
def test_the_slides_download_as_a_pdf_and_as_pngs(server, page, tmp_path):
    """The presentation's buttons: a PDF of a 16:9 page a slide, a ZIP of 1920 x 1080 PNGs,
    as many as the slides the page counts."""
    import io
    import zipfile

    from PIL import Image
    from pypdf import PdfReader

    page.goto(f"{server}/?present=1")
    settle(page)
    total = int(re.search(r"Slide 1 of (\d+)", page.inner_text("body")).group(1))
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Slides (PDF)").click()
    info.value.save_as(tmp_path / "slides.pdf")
    pages = PdfReader(tmp_path / "slides.pdf").pages
    assert len(pages) == total
    assert float(pages[0].mediabox.width) / float(pages[0].mediabox.height) == \
        pytest.approx(16 / 9, rel=1e-3)
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name="Slides (PNG)").click()
    info.value.save_as(tmp_path / "slides.zip")
    with zipfile.ZipFile(tmp_path / "slides.zip") as archive:
        names = archive.namelist()
        assert len(names) == total
        for name in names:
            assert Image.open(io.BytesIO(archive.read(name))).size == (1920, 1080)
