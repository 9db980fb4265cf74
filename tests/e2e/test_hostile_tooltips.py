"""No markup from names in the tooltips and labels, in a real browser: run names (renamed by
the link) and a queries file's facet name carry images and links to a listener on 127.0.0.1;
the weighted fusion's slider label, the filter's "... is one of" label, every widget's help
and every table's column tooltips are hovered, and nothing is requested from the listener,
no image or link to it is made and no hostile emphasis renders.
"""

from __future__ import annotations

from tests.e2e.conftest import NO_BROWSER, SAMPLE, settle, upload
from tests.e2e.test_hostile import assert_no_markup, outside_requests
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]

NAV = {"Overview": "", "Compare": "compare", "Drill-down": "drilldown", "Overlap": "overlap"}


def _nothing_planted(page, host: str, seen: list[str], where: str) -> None:
    """The quick check after each hover: no request to the listener, no link or image to it."""
    assert not seen, f"{where}: the page requested {seen}"
    assert page.locator(f'a[href*="{host}"], img[src*="{host}"]').count() == 0, where


def _hover_everything(page, host: str, seen: list[str], where: str) -> None:
    """Every help icon, then every table's header row, swept a step at a time."""
    icons = page.locator('[data-testid="stTooltipHoverTarget"]')
    for i in range(icons.count()):
        icon = icons.nth(i)
        if icon.is_visible():
            page.mouse.move(0, 0)  # the last tooltip closes
            icon.scroll_into_view_if_needed()
            icon.hover(force=True)
            page.wait_for_timeout(100)
            _nothing_planted(page, host, seen, f"{where}, tooltip {i}")
    tables = page.locator('[data-testid="stDataFrame"]')
    for i in range(tables.count()):
        box = tables.nth(i).bounding_box()
        if not box:
            continue
        tables.nth(i).scroll_into_view_if_needed()
        box = tables.nth(i).bounding_box()
        for x in range(int(box["x"]) + 10, int(box["x"] + box["width"]), 40):
            page.mouse.move(x, box["y"] + 17)
            page.wait_for_timeout(60)
            _nothing_planted(page, host, seen, f"{where}, table {i}'s column tooltips")
    assert_no_markup(page, host, seen, where)


def test_hostile_names_in_labels_and_tooltips_reach_no_markup(server, page, listener,
                                                             tmp_path):
    host, seen = listener
    outside = outside_requests(page, server)
    image = f"![img](http://{host}/name.png)"
    link = f"[log in](http://{host}/phish) **bold**"
    facet = f"kind ![f](http://{host}/facet.png) **bold**"
    queries = tmp_path / "queries.csv"
    ids = sorted({line.split()[0] for line in (SAMPLE / "qrels.txt").read_text().splitlines()})
    queries.write_text(f'query_id,text,"{facet}"\n' + "".join(
        f'{q},question {q},"{"a" if i % 2 else f"[v](http://{host}/v)"}"\n'
        for i, q in enumerate(ids)))
    upload(page, server, str(SAMPLE / "qrels.txt"),
           [str(SAMPLE / "baseline.run"), str(SAMPLE / "bm25.run")], queries=str(queries))
    sidebar = page.get_by_test_id("stSidebar")
    # the runs renamed in the sidebar
    sidebar.get_by_text("Rename runs").click()
    settle(page)
    for original, name in (("baseline", image), ("bm25", link)):
        box = sidebar.locator('[data-testid="stTextInput"]').filter(has_text=original) \
            .locator("input")
        box.fill(name)
        box.press("Enter")
        settle(page)
    # the weighted fusion's slider, labelled with the first run's name
    sidebar.get_by_text("Fuse runs (hybrid)").click()
    settle(page)
    fuse = sidebar.locator('[data-testid="stMultiSelect"]').filter(has_text="Runs to fuse")
    for _ in range(2):  # both runs
        fuse.locator("input").click()
        page.get_by_role("option").first.click()
        settle(page)
    page.keyboard.press("Escape")
    settle(page)
    sidebar.get_by_text("CombSUM", exact=True).click()
    settle(page)
    sidebar.get_by_text("Weighted", exact=True).click()
    settle(page)
    sidebar.get_by_text("Weight of", exact=False).first.wait_for(state="visible")
    # the filter's facet, its "... is one of" label
    sidebar.get_by_text("Filter queries").click()
    settle(page)
    sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="Only the queries whose") \
        .click()
    page.get_by_role("option").filter(has_text="kind").first.click()
    settle(page)
    sidebar.get_by_text("is one of", exact=False).first.wait_for(state="visible")
    for title, _ in NAV.items():
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", exact=True,
                                                              name=title).click()
        settle(page)
        assert_no_markup(page, host, seen, title)
        _hover_everything(page, host, seen, title)
    assert not outside, f"requests to other hosts: {outside}"
