"""The first screen tells the story in a picture (issue 47): at a laptop's 1280 x 800 and a
monitor's 1920 x 1080, with the sidebar open and before any scroll, the Overview shows the
headline (one short sentence per candidate, the engine's) and the interval bars of the
headline metric; Compare shows the same headline and the chart of each metric's difference;
the K sweep shows its curves. Each on the bundled sample, in Chromium."""

from __future__ import annotations

import pytest

from metrics import headline_comparison, load_sample, short_headlines
from tests.e2e.conftest import NO_BROWSER, settle
from tests.marks import thorough_after

pytestmark = NO_BROWSER

SIZES = [(1280, 800), (1920, 1080)]
SEEN = 120  # pixels of a chart that must show above the fold: its title and its first marks
PAGES = [("overview", ""), ("compare", "compare"), ("sweep", "sweep")]


@pytest.fixture(scope="module")
def headline() -> list[str]:
    """The sample's short headlines on nDCG@5 (the default headline metric), the engine's."""
    sample = load_sample(5)
    return short_headlines(headline_comparison(sample, "nDCG", rng=sample.conventions.seed),
                           "nDCG@5")


def first_screen(page, height: int, locator) -> None:
    """`locator` drawn, the main area not scrolled, and the element's top and its first
    SEEN pixels (or all of it, if shorter) inside the window."""
    locator.wait_for(state="visible")
    assert page.evaluate("document.querySelector('[data-testid=stMain]').scrollTop") == 0
    assert page.evaluate("window.scrollY") == 0
    box = locator.bounding_box()
    assert box is not None and box["y"] >= 0
    assert box["y"] + min(SEEN, box["height"]) <= height, (box, height)


# every page at both sizes; by default the Overview at the smaller (~10 s), the other five
# under -m thorough
CASES = [("overview", "", *SIZES[0]), ("compare", "compare", *SIZES[1]),
         ("sweep", "sweep", *SIZES[0]), ("overview", "", *SIZES[1]),
         ("compare", "compare", *SIZES[0]), ("sweep", "sweep", *SIZES[1])]
assert {(n, w, h) for n, _, w, h in CASES} == {(n, w, h) for n, _ in PAGES for w, h in SIZES}


@pytest.mark.parametrize(("name", "path", "width", "height"), thorough_after(CASES, keep=1),
                         ids=[f"{n}-{w}x{h}" for n, _, w, h in CASES])
def test_the_first_screen_holds_the_headline_and_its_picture(server, page, headline, width,
                                                             height, name, path):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/{path}")
    settle(page)
    page.get_by_test_id("stSidebarContent").wait_for(state="visible")  # the sidebar open
    main = page.get_by_test_id("stMain")
    if name == "sweep":  # its headline is the chart's own title; the curves are its story
        chart = main.get_by_test_id("stVegaLiteChart").first
        first_screen(page, height, chart.locator("svg.marks .mark-line.role-mark path").first)
        first_screen(page, height, chart.locator("svg.marks text",
                                                 has_text="Every metric against K").first)
        return
    # the picture: the vega-embed SVG of the first chart, its first point (a mean, a
    # difference) drawn
    chart = main.get_by_test_id("stVegaLiteChart").first
    first_screen(page, height, chart.locator("svg.marks").first)
    first_screen(page, height, chart.locator("svg.marks .mark-symbol.role-mark path").first)
    for sentence in headline:  # every candidate's short sentence, whole, above the fold
        said = main.get_by_text(sentence, exact=False).first
        first_screen(page, height, said)
        box = said.bounding_box()
        assert box["y"] + box["height"] <= height, (sentence, box)
