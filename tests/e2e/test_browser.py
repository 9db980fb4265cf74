"""The dashboard in a real browser: `streamlit run` on localhost, Debian's chromium driven by
Playwright. Every page opens on the sample with its figures and without an exception box;
the URL carries the state; a heatmap click opens the drill-down; a bad upload is reported
while the rest keeps working. Screenshots go to $SCREENSHOT_DIR (kept) or a temporary folder.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import (
    NO_BROWSER,
    SAMPLE,
    TIMEOUT_MS,
    check,
    file_inputs,
    location,
    settle,
    upload,
)
from tests.marks import THOROUGH

# every page opens in Chromium in the run before each commit; the longer sessions (uploads,
# links, downloads) are THOROUGH: CI runs them
pytestmark = NO_BROWSER

PAGES = [
    ("overview", "", ["Summary at K = 5", "Reading each run", "Load report",
                      "2 of 9 queries have no relevant id in the top 5"]),
    ("sweep", "sweep", ["Every metric against K (chosen K = 5)", "Values at every K"]),
    ("heatmap", "heatmap", ["Sort queries by", "Showing queries 1–9 of 9 scored queries"]),
    ("drilldown", "drilldown", ["The ideal list that gives IDCG",
                                "nDCG@5 = DCG@5 / IDCG@5 = 3.431 / 3.631 = 0.945"]),
    ("overlap", "overlap", ["RBO persistence p", "Would a fusion of two beat both?"]),
    ("method_notes", "method_notes", ["Honest limits", "What each figure certifies"]),
]


def _opens(page, server: str, shots, name: str, path: str, texts: list[str]) -> None:
    page.goto(f"{server}/{path}")
    cells = ("0.778 [0.453, 0.937]",) if name == "overview" else ()  # Hit@5 of the baseline
    check(page, shots, name, *texts, cells=cells)


def test_every_page_opens_on_the_sample(server, page, shots):
    """One browser session opens every page in turn (a page a test costs a browser context
    and a Streamlit session each: the same checks, page by page, run under -m thorough)."""
    for name, path, texts in PAGES:
        _opens(page, server, shots, name, path, texts)


@THOROUGH
@pytest.mark.parametrize(("name", "path", "texts"), PAGES, ids=[p[0] for p in PAGES])
def test_each_page_opens_on_the_sample_in_a_session_of_its_own(server, page, shots, name,
                                                               path, texts):
    _opens(page, server, shots, name, path, texts)


def test_a_new_k_redraws_the_k_sweep_in_place(server, page, shots):
    """The chosen K is the sweep chart's data, not its spec (dashboard/views/vega_spec.py):
    after a change of K the same Vega view shows the new K in its title and moves its dashed
    line, rather than being built again from nothing."""
    page.goto(f"{server}/sweep")
    check(page, shots, "sweep_k5", "Every metric against K (chosen K = 5)")
    chart = page.locator('[data-testid="stVegaLiteChart"] svg.marks').first
    chart.evaluate("svg => { svg.dataset.drawnAt = 'k5'; }")

    def rule_x() -> list[str]:
        return chart.evaluate("svg => [...svg.querySelectorAll('.mark-rule line')]"
                              ".map(line => line.getAttribute('transform'))")

    before = rule_x()
    field = page.get_by_role("spinbutton", name="K (cutoff)")
    field.fill("7")
    field.press("Enter")
    check(page, shots, "sweep_k7", "Every metric against K (chosen K = 7)")
    assert chart.evaluate("svg => svg.dataset.drawnAt") == "k5"  # the same view, redrawn
    assert before and rule_x() != before


@THOROUGH
def test_the_url_carries_the_view(server, page, shots):
    page.goto(f"{server}/drilldown?k=3&gain=exponential&query=q09")
    check(page, shots, "url_state", "K = 3", "q09", "gain exponential")
    field = page.get_by_role("spinbutton", name="K (cutoff)")
    field.fill("7")
    field.press("Enter")
    settle(page)
    page.get_by_text("nDCG@7 = DCG@7 / IDCG@7").first.wait_for(state="visible")
    assert re.search(r"[?&]k=7\b", location(page))
    page.get_by_role("link", name="Overview").click()
    check(page, shots, "url_state_overview", "Summary at K = 7", cells=("nDCG@7",))
    assert "k=7" in location(page) and "gain=exponential" in location(page)


def click_a_heatmap_cell(page) -> None:
    """Find a score cell on the heatmap's canvas by its tooltip (it names the metric), click
    it, follow the link to its drill-down, and wait for that page."""
    settle(page)
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    chart.wait_for(state="visible")
    box = chart.bounding_box()
    tooltip = page.locator("#vg-tooltip-element")
    for row in range(10, 60, 4):
        for column in range(20, 100, 4):
            x, y = box["x"] + box["width"] * column / 100, box["y"] + box["height"] * row / 100
            page.mouse.move(x, y)
            if tooltip.is_visible() and "Metric" in tooltip.inner_text():
                query = re.search(r"Query\s*(\S+)", tooltip.inner_text()).group(1)
                page.mouse.click(x, y)
                page.get_by_role("link", name=f"Open {query} in the drill-down").click()
                page.wait_for_function("() => location.pathname.endsWith('/drilldown')")
                return
    pytest.fail("no score cell found on the heatmap")


@THOROUGH
def test_a_heatmap_click_opens_the_drilldown(server, page, shots):
    page.goto(f"{server}/heatmap")
    click_a_heatmap_cell(page)
    check(page, shots, "heatmap_click", "The ideal list that gives IDCG")
    assert re.search(r"[?&]query=q\d\d", location(page))


@THOROUGH
def test_a_malformed_upload_is_reported_and_the_rest_keeps_working(server, page, shots,
                                                                    tmp_path):
    bad = tmp_path / "broken.run"
    bad.write_text("q01 Q0 d01 1 high broken\n")
    upload(page, server, str(SAMPLE / "qrels.txt"), [str(SAMPLE / "reranked.run"), str(bad)])
    check(page, shots, "upload_error",
          "broken.run, line 1: score must be a number, got 'high'", "Summary at K = 10",
          cells=("Hit@10",))
    page.get_by_role("link", name="Per-query heatmap").click()
    check(page, shots, "upload_heatmap", "Showing queries 1–9 of 9 scored queries",
          "broken.run, line 1")
    click_a_heatmap_cell(page)
    check(page, shots, "upload_drilldown", "nDCG@10 = DCG@10 / IDCG@10", "broken.run, line 1")


# an external reference in an attribute (src, href, ...): a scheme with // or a protocol-
# relative //host; the report must open offline
EXTERNAL = re.compile(r"""(?:src|href|action|srcset|xlink:href)\s*=\s*["']?\s*(?:[a-z]+:)?//""",
                      re.I)


@THOROUGH
def test_compare_page_states_its_test_and_moves_ids(server, page, shots):
    page.goto(f"{server}/compare")
    # the test's own words ("Holm" alone first meets the long headline, folded away since
    # issue 47 put the short one first)
    check(page, shots, "compare", "Holm correction", "16 comparisons", "reranked against baseline",
          "Biggest gains and losses", "Rank movement", "lifted 2 relevant ids (d21, d22)",
          cells=("nDCG@5",))
    # a click on the second gain (q09) picks its query; its link opens the drill-down
    # the gains' table (above the losses', each the page's width)
    gains = page.locator(".st-key-compare-gains_box").locator(
        '[data-testid="stDataFrame"]').first
    gains.scroll_into_view_if_needed()
    box = gains.bounding_box()
    row = box["height"] / 6  # the header and five gains
    page.mouse.click(box["x"] + 15, box["y"] + 1.5 * row + row)
    settle(page)
    page.get_by_role("link", name="Open q09 in the drill-down").click()
    page.wait_for_function("() => location.pathname.endsWith('/drilldown')")
    settle(page)
    page.get_by_text("nDCG@5 = DCG@5 / IDCG@5").first.wait_for(state="visible")
    assert re.search(r"[?&]query=q09\b", location(page))
    # with the pair Compare compared side by side
    assert page.locator(".st-key-drilldown-b input").input_value() == "reranked"


MAIN_SCROLL = "document.querySelector('[data-testid=stMain]').scrollTop"


@THOROUGH
def test_a_link_far_down_compare_opens_the_drilldown_at_its_top(server, page):
    """Streamlit keeps the main area's scroll offset across a page link: the drill-down
    opened near its bottom, below the query it was opened for."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/compare")
    settle(page)
    link = page.locator("[data-testid=stPageLink-NavLink]", has_text="in the drill-down").last
    link.scroll_into_view_if_needed()
    settle(page)
    assert page.evaluate(MAIN_SCROLL) > 3_000
    link.click()
    page.wait_for_function("() => location.pathname.endsWith('/drilldown')")
    settle(page)
    assert page.evaluate(MAIN_SCROLL) == 0


@THOROUGH
def test_drift_reads_snapshots_and_refuses_another_k(server, page, shots, tmp_path):
    from dashboard.report import exports
    from metrics import load_sample

    same = tmp_path / "same.json"
    same.write_text(exports.snapshot_json(load_sample(), "last week"))
    other_k = tmp_path / "k3.json"
    other_k.write_text(exports.snapshot_json(load_sample(3), "at K = 3"))
    page.goto(f"{server}/drift")
    settle(page)
    page.get_by_text("No snapshot loaded").first.wait_for(state="visible")
    snapshots = page.locator('[data-testid="stExpander"]').filter(
        has=page.locator("summary", has_text="Snapshots"))
    snapshots.locator("summary", has_text="Snapshots").click()
    snapshots.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(same), str(other_k)])
    check(page, shots, "drift", "Every metric at K = 5 over the snapshots",
          "K differs: 3 in the snapshot, 5 in this evaluation", "What to change",
          cells=("live (now)",))


@THOROUGH
def test_the_report_downloads_from_the_dashboard(server, page, shots, tmp_path):
    page.goto(f"{server}/export")
    check(page, shots, "export", "Report for stakeholders", "Summary for a pull request")
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="Download report (HTML)").click()
    path = tmp_path / "report.html"
    info.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert "0.778" in text  # Hit@5 of the baseline
    assert "Comparison with the baseline" in text
    assert not EXTERNAL.search(text)


@THOROUGH  # the PNG itself is checked without a browser (tests/dashboard/report)
def test_a_chart_downloads_as_png(server, page, tmp_path):
    page.set_viewport_size({"width": 1500, "height": 2400})  # the button in view, no scrolling
    page.goto(server)
    settle(page)
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(state="visible")
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        # the click event itself: no hit test that a chart still laying out could intercept
        page.get_by_role("button", name="PNG").first.dispatch_event("click")
    path = tmp_path / "chart.png"
    info.value.save_as(path)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and path.stat().st_size > 10_000


@THOROUGH
def test_every_uploaded_run_is_shown_and_a_run_that_meets_no_query_is_named(server, page,
                                                                           shots, tmp_path):
    """Open the sample, then switch to My files: every uploaded run is shown, in upload
    order, and the URL follows; a run whose query ids match none of the labels is named."""
    names = ["baseline", "cross_encoder", "dense", "renamed"]
    base = (SAMPLE / "baseline.run").read_text()
    texts = {"baseline": base, "cross_encoder": (SAMPLE / "reranked.run").read_text(),
             "dense": (SAMPLE / "bm25.run").read_text(),
             "renamed": "".join("query_" + line for line in base.splitlines(keepends=True))}
    paths = []
    for name in names:
        path = tmp_path / f"{name}.run"
        path.write_text(texts[name])
        paths.append(str(path))
    inputs = file_inputs(page, server)
    # before any upload: what to upload, with examples and the sample's files
    page.get_by_text("What to upload").first.wait_for(state="visible")
    page.get_by_role("button", name="qrels.txt").wait_for(state="visible")
    inputs.nth(0).set_input_files(str(SAMPLE / "qrels.txt"))
    settle(page)
    inputs.nth(1).set_input_files(paths[:2])
    settle(page)
    chips = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"] '
                         '[data-tag] [title]')
    assert [c.get_attribute("title") for c in chips.all()] == names[:2]
    assert re.search(r"runs=baseline&runs=cross_encoder", location(page)) is None  # defaults
    inputs.nth(1).set_input_files(paths[2:])  # added to the two already uploaded
    check(page, shots, "four_uploads", "shares no query id with the qrels",
          "Likely cause: the run's ids start with 'query_q'")
    assert [c.get_attribute("title") for c in chips.all()] == names
    # the link names the files; opened afresh, it asks for them again
    link = location(page)
    assert "files=qrels.txt" in link and "files=renamed.run" in link
    page.goto(link)
    check(page, shots, "link_to_uploads", "upload them again",
          "qrels.txt, baseline.run, cross_encoder.run, dense.run, renamed.run")
