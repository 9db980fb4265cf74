"""Nothing cut off or printed over at the widths people present at: a generated collection of
300 queries and four runs with 20-character names (TREC, CSV and JSONL, uploaded through the
real file inputs), every page at 1280 and 1920 pixels. In the main area no text is clipped by
its box, no chart text is truncated ("…"), hidden by label overlap, printed over another or
cut by the chart's frame, every run's legend entry reads its whole name, and every table
shows every column whole, its header unclipped. Screenshots go to the `shots` folder.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import NO_BROWSER, TIMEOUT_MS, settle
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]

RUNS = ("bm25_baseline_v2026x", "dense_e5_large_rerank", "hybrid_rrf_k60_final",
        "colbert_v2_distilled")
WIDTHS = (1280, 1920)
PAGES = ("Overview", "K sweep", "Per-query heatmap", "Drill-down", "Compare", "Overlap", "Drift",
         "Export", "Method notes")
N_QUERIES, DEPTH = 300, 100


def collection(folder: Path) -> tuple[Path, list[Path]]:
    """Graded qrels for 300 queries and four runs of 100 ids, better run by run: two TREC
    runs, a CSV one and a JSONL one, each file named after its run."""
    rng = random.Random(2026)
    queries = [f"q{i:04d}" for i in range(1, N_QUERIES + 1)]
    qrels, pools = [], {}
    for q in queries:
        pool = list(dict.fromkeys(f"d{rng.randrange(100_000):05d}" for _ in range(150)))
        grades = {d: rng.choice((1, 1, 2, 3)) for d in pool[: rng.randint(1, 8)]}
        grades |= {d: 0 for d in pool[8:20]}
        pools[q] = pool, grades
        qrels += [f"{q} 0 {d} {g}" for d, g in grades.items()]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    runs = []
    for i, name in enumerate(RUNS):
        lists = {}
        for q, (pool, grades) in pools.items():
            lift = 0.3 + 0.15 * i
            lists[q] = sorted(pool, key=lambda d: -(rng.random() + lift * grades.get(d, 0)))
            lists[q] = lists[q][:DEPTH]
        if i == 1:
            path = folder / f"{name}.csv"
            path.write_text("query_id,doc_id,rank\n" + "".join(
                f"{q},{d},{r}\n" for q, ids in lists.items() for r, d in enumerate(ids, 1)))
        elif i == 2:
            path = folder / f"{name}.jsonl"
            path.write_text("".join(json.dumps({"query_id": q, "retrieved": ids}) + "\n"
                                    for q, ids in lists.items()))
        else:
            path = folder / f"{name}.run"
            path.write_text("".join(f"{q} Q0 {d} {r} {100 - r / 10:.2f} {name}\n"
                                    for q, ids in lists.items() for r, d in enumerate(ids, 1)))
        runs.append(path)
    return folder / "qrels.txt", runs


# Every problem on the page, as sentences; run in the browser.
FIND_CLIPPED = """(runs) => {
  const problems = [];
  const main = document.querySelector('[data-testid="stMain"]');
  const block = document.querySelector('[data-testid="stMainBlockContainer"]')
    .getBoundingClientRect();
  const name = el => (el.innerText || el.textContent || '').trim().slice(0, 60);
  const inside = (r, box, slack = 4) => r.left >= box.left - slack && r.right <= box.right + slack
    && r.top >= box.top - slack && r.bottom <= box.bottom + slack;
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
    * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

  // 1. Text in a box that hides what overflows it (labels, captions, headers, values)
  const skip = '[data-testid="stDataFrame"], [data-testid="stVegaLiteChart"], '
    + '[data-testid="stElementToolbar"], [data-testid="stTooltipContent"]';
  for (const el of main.querySelectorAll('*')) {
    if (el.closest(skip) || !el.textContent.trim() || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`text clipped (${el.scrollWidth} > ${el.clientWidth} px): "${name(el)}"`);
    }
  }

  // 2. Charts: no truncated text, no label hidden by overlap, none printed over another,
  //    none outside the chart's frame or the page's column; every run's legend entry whole
  for (const chart of main.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    if (!chart.getClientRects().length || !chart.offsetParent) continue;
    const svg = chart.querySelector('svg.marks');
    if (!svg) { problems.push('a chart is not drawn as SVG'); continue; }
    const frame = chart.getBoundingClientRect();
    const title = (svg.querySelector('.role-title-text text') || {}).textContent || 'chart';
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
    for (const t of texts) {
      const r = t.getBoundingClientRect();
      if (t.textContent.includes('…')) problems.push(`${title}: truncated "${t.textContent}"`);
      if (t.closest('.role-axis-label') && getComputedStyle(t).opacity === '0') {
        problems.push(`${title}: axis label hidden by overlap "${t.textContent}"`);
      } else if (r.width && !(inside(r, frame) && inside(r, block))) {
        problems.push(`${title}: "${t.textContent}" outside the chart or the page`);
      }
    }
    const marks = texts.filter(t => t.closest('.role-mark'))
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < marks.length; i++) {
      for (let j = i + 1; j < marks.length; j++) {
        const [a, ra] = marks[i], [b, rb] = marks[j];
        if (overlap(ra, rb) > 0.25 * Math.min(ra.width * ra.height, rb.width * rb.height)) {
          problems.push(`${title}: "${a}" printed over "${b}"`);
        }
      }
    }
    // a log scale's legend leaves the labels between its round numbers empty: no name cut
    const legend = [...svg.querySelectorAll('.role-legend-label text')].map(t => t.textContent)
      .filter(l => l);
    if (legend.some(l => runs.includes(l)) || legend.some(l => runs.some(r => r.startsWith(l)))) {
      const whole = runs.filter(r => legend.includes(r));
      if (!legend.every(l => !runs.some(r => r !== l && r.startsWith(l)))) {
        problems.push(`${title}: a run's legend entry is cut: ${legend}`);
      }
      if (!whole.length) problems.push(`${title}: no run named whole in ${legend}`);
    }
  }

  // 3. Tables (a canvas; headers mirrored in a hidden grid): every column on screen without
  //    scrolling sideways, and each header's text inside its column with the cell padding
  for (const table of main.querySelectorAll('[data-testid="stDataFrame"]')) {
    if (!table.getClientRects().length || !table.offsetParent) continue;  // a closed expander
    const scroller = table.querySelector('.dvn-scroller');
    const stack = table.querySelector('.dvn-stack > div');
    const headers = [...table.querySelectorAll('th[role="columnheader"]')].map(name);
    const first = headers.slice(0, 3).join(' | ');
    if (!scroller || !stack) continue;
    const total = parseFloat(stack.style.width);
    if (total > scroller.clientWidth + 1) {
      problems.push(`table [${first} …]: columns ${total} px wide in ${scroller.clientWidth} px`);
      continue;
    }
    // the header row has a canvas of its own over the grid's (the grid's, if not)
    const canvases = [...table.querySelectorAll('canvas')];
    const canvas = canvases.find(c => c.getBoundingClientRect().height <= 40) || canvases[0];
    const ctx = canvas.getContext('2d');
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const height = Math.min(canvas.height, Math.round(35 * scale));
    const data = ctx.getImageData(0, 0, canvas.width, height).data;
    const px = (x, y) => data.slice((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 3);
    const background = px(Math.round(2 * scale), Math.round(3 * scale));
    const differs = (p, q, by) => Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1])
      + Math.abs(p[2] - q[2]) > by;
    // a column border: a pixel column unlike the background from the header's top to bottom
    const rows = [];
    for (let y = Math.round(5 * scale); y < height - Math.round(5 * scale); y++) rows.push(y);
    const borders = [];
    for (let x = 1; x < canvas.width - 1; x++) {
      if (rows.every(y => differs(px(x, y), background, 6))
          && (!borders.length || x - borders[borders.length - 1] > 3)) borders.push(x);
    }
    const edges = [0, ...borders, canvas.width];
    const cells = [];
    for (let i = 0; i + 1 < edges.length; i++) {
      if (edges[i + 1] - edges[i] > 4 * scale) cells.push([edges[i], edges[i + 1]]);
    }
    // the header text ends at least the cell padding before the column's right edge
    const padding = 8 * scale;
    const named = cells.slice(cells.length - headers.length);
    named.forEach(([left, right], i) => {
      let ink = -1;
      for (let x = left + 2; x < right - 1; x++) {
        if (rows.some(y => differs(px(x, y), background, 90))) ink = x;
      }
      if (ink > right - padding + 1) {
        const px = Math.round((right - left) / scale);
        problems.push(`table header cut: "${headers[i]}" (${px} px)`);
      }
    });
    if (cells.length < headers.length) {
      problems.push(`table [${first} …]: ${headers.length} headers, ${cells.length} columns seen`);
    }
  }
  return problems;
}"""


def save_snapshot(page, folder: Path, label: str) -> Path:
    field = page.get_by_label("Label of the snapshot")
    field.fill(label)
    field.press("Enter")
    settle(page)
    with page.expect_download(timeout=TIMEOUT_MS) as info:
        page.get_by_role("button", name="Save snapshot").click()
    path = folder / f"{label}.json"
    info.value.save_as(path)
    return path


def upload_collection(server, browser, folder: Path):
    """A browser session of its own with the collection uploaded: its context and page."""
    qrels, runs = collection(folder)
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server)
    settle(page)
    page.get_by_text("My files").click()
    settle(page)
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files(str(qrels))
    settle(page)
    inputs.nth(1).set_input_files([str(p) for p in runs])
    settle(page)
    page.get_by_text(f"{N_QUERIES} scored queries").first.wait_for(state="visible")
    return context, page


@pytest.fixture(scope="module")
def uploaded(server, browser, tmp_path_factory):
    """One browser session with the collection uploaded and two snapshots of it loaded (so
    that the Drift page draws three points), shared by every page's test."""
    folder = tmp_path_factory.mktemp("collection")
    context, page = upload_collection(server, browser, folder)
    snapshots = page.locator('[data-testid="stExpander"]').filter(
        has=page.locator("summary", has_text="Snapshots"))
    snapshots.locator("summary", has_text="Snapshots").click()
    saved = [save_snapshot(page, folder, label) for label in ("before rebuild",
                                                               "after rebuild")]
    snapshots.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(p) for p in saved])
    settle(page)
    yield page
    context.close()


def full_height(page, width: int) -> None:
    """The viewport as tall as the page, so that a screenshot holds all of it (the main area
    scrolls inside the page, which a full-page screenshot would not follow)."""
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll("
        "'[data-testid=stMain], [data-testid=stSidebarContent]')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": width, "height": min(height + 60, 9000)})
    time.sleep(0.8)


def assert_nothing_clipped(page, shots) -> None:
    """At each width, a screenshot (`shots`-WIDTH.png) and no clipped element."""
    found = {}
    for width in WIDTHS:
        full_height(page, width)
        page.screenshot(path=f"{shots}-{width}.png")
        problems = page.evaluate(FIND_CLIPPED, list(RUNS))
        if problems:
            found[f"{width} px"] = list(dict.fromkeys(problems))[:12]
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("name", PAGES)
def test_nothing_is_clipped_at_1280_and_1920(uploaded, shots, name):
    page = uploaded
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", exact=True, name=name).click()
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert_nothing_clipped(page, shots / f"widths-{name.replace(' ', '_')}")


# typed in the sidebar as a user would: one on request, one with a parameter, RBP (and its
# residual), a trec_eval name
ADDED = ("Bpref", "P(rel=2)@5", "RBP(p=0.9)", "ndcg_cut_20")


@pytest.fixture(scope="module")
def measured(server, browser, tmp_path_factory):
    """A session of its own with the collection uploaded and measures added in the sidebar."""
    context, page = upload_collection(server, browser, tmp_path_factory.mktemp("measured"))
    page.locator("summary", has_text="More measures").click()
    settle(page)
    box = page.get_by_role("combobox", name="Measures added to every view")
    for name in ADDED:
        box.click()
        box.fill(name)
        box.press("Enter")
        settle(page)
    page.keyboard.press("Escape")
    settle(page)
    yield page
    context.close()


@pytest.mark.parametrize("name", ["Overview", "K sweep", "Drill-down", "Export"])
def test_the_measures_added_are_not_clipped(measured, shots, name):
    """The pages the added measures lengthen most: the summary and agreement tables, the
    sweep with its precision-recall curve, the drill-down's arithmetic, the LaTeX table."""
    page = measured
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", exact=True, name=name).click()
    settle(page)
    if name == "K sweep":
        page.get_by_text("Precision-recall curve of each run").click()
        settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_test_id("stSidebar").get_by_text("RBP(p=0.9)", exact=True).wait_for(
        state="visible")
    assert_nothing_clipped(page, shots / f"measures-{name.replace(' ', '_')}")


def test_the_menu_offers_dark_and_the_charts_follow_it(server, page, shots):
    """The app menu offers System, Light and Dark; in Dark the page turns dark and a chart's
    secondary text turns a light grey (it reads its grey from the chart's background)."""
    page.goto(f"{server}/sweep")
    settle(page)
    page.get_by_test_id("stMainMenuButton").click()
    for choice in ("System", "Light", "Dark"):
        page.get_by_test_id(f"stMainMenuItem-theme-{choice}").wait_for(state="visible")
    page.get_by_test_id("stMainMenuItem-theme-Dark").click()
    settle(page)
    background = page.evaluate(
        "() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert background == "rgb(23, 22, 20)"
    subtitle = page.locator('[data-testid="stVegaLiteChart"] .role-title-subtitle text').first
    subtitle.wait_for(state="attached")
    assert subtitle.get_attribute("fill") == "#a3a8b3"
    page.screenshot(path=str(shots / "widths-dark-sweep.png"))
