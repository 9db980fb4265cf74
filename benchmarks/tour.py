"""Use the dashboard as a new user does, and keep the screenshots: start `streamlit run`,
upload benchmarks/collection.py's collection through the sidebar's file inputs in headless
Chromium, set K, open every page and screenshot it whole at each width.

    python benchmarks/tour.py [OUT_DIR] [--widths 1280,1920] [--k 10] [--pages Overview,...]
                              [--extras] [--query 1002]
    python benchmarks/tour.py OUT_DIR --collection benchmarks/out/stdlib   # a real collection

OUT_DIR (default benchmarks/out/tour/) gets <width>-<page>.png (the whole page),
first-<width>-<page>.png (what a reader sees before scrolling: 1280 x 800, 1920 x 1080), and
report-<width>.png of the Export page's HTML report opened in the browser. `--collection DIR`
uploads the files benchmarks/stdlib_collection.py writes instead (qrels.txt, every *.run,
queries.csv, corpus.jsonl, and judge.txt in the judge's box). Without it, the generated
collection is written first when absent (benchmarks/out/collection/). `--extras` uploads
the run cut to its top 10 and the one whose query ids meet none too. A look, not a test: it
prints where each screenshot went and any exception box a page showed.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.collection import DEFAULT_OUT as COLLECTION  # noqa: E402
from benchmarks.collection import write_collection  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
FIRST_SCREEN = {1280: 800, 1920: 1080}  # width -> a laptop's and a monitor's window height
PAGES = ("Overview", "K sweep", "Per-query heatmap", "Drill-down", "Compare", "Overlap",
         "Judge labels", "Drift", "Export", "Method notes")
SETTLE = """() => new Promise(resolve => {
    let timer; const done = () => { observer.disconnect(); resolve(true); };
    const observer = new MutationObserver(() => { clearTimeout(timer);
        timer = setTimeout(done, 600); });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    timer = setTimeout(done, 600); setTimeout(done, 20000);
})"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def settle(page) -> None:
    page.wait_for_selector('[data-testid="stMainBlockContainer"]')
    time.sleep(0.4)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                           " && !document.querySelector('[data-testid=\"stSpinner\"]')",
                           timeout=300_000)
    page.evaluate(SETTLE)


def shoot(page, path: Path, width: int) -> None:
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll("
                           "'[data-testid=stMain], [data-testid=stSidebarContent]')]"
                           ".map(e => e.scrollHeight))")
    page.set_viewport_size({"width": width, "height": min(height + 60, 16_000)})
    time.sleep(1.0)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": width, "height": 1000})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "benchmarks" / "out" / "tour")
    parser.add_argument("--widths", default="1280,1920")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--extras", action="store_true")
    parser.add_argument("--query", default=None, help="the query the drill-down opens")
    parser.add_argument("--collection", type=Path, default=None,
                        help="a folder as benchmarks/stdlib_collection.py writes it")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    if args.collection is not None:
        folder = args.collection
        boxes = ([folder / "qrels.txt"], sorted(folder.glob("*.run")),
                 [folder / "queries.csv"], [folder / "corpus.jsonl"], [folder / "judge.txt"])
    else:
        if not (COLLECTION / "runs_extra" / "prefixed.trec").exists():
            write_collection(COLLECTION, extras=True)
        runs = [COLLECTION / "runs" / f"{name}.trec" for name in ("bm25", "dense", "hybrid",
                                                                  "reranker")]
        if args.extras:
            runs += sorted((COLLECTION / "runs_extra").glob("*.trec"))
        boxes = ([COLLECTION / "qrels" / "test.tsv"], runs, [COLLECTION / "queries.jsonl"],
                 [COLLECTION / "corpus.jsonl"])
    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", "--server.headless",
         "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{base}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        widths = [int(w) for w in args.widths.split(",")]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": widths[0], "height": 1000})
            page.set_default_timeout(300_000)
            page.goto(base)
            settle(page)
            page.get_by_text("My files").click()
            settle(page)
            inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
            started = time.perf_counter()
            for i, files in enumerate(boxes):
                inputs.nth(i).set_input_files([str(f) for f in files])
                settle(page)
            print(f"uploaded in {time.perf_counter() - started:.1f} s")
            if args.k != 10:
                field = page.get_by_role("spinbutton", name="K (cutoff)")
                field.fill(str(args.k))
                field.press("Enter")
                settle(page)
            for title in args.pages.split(","):
                page.get_by_test_id("stSidebarNavItems").get_by_role(
                    "link", exact=True, name=title).click()
                settle(page)
                if title == "Drill-down" and args.query:
                    box = page.get_by_role("combobox", name="Query")
                    box.click()
                    box.fill(args.query)
                    page.keyboard.press("Enter")
                    settle(page)
                for width in widths:
                    first = FIRST_SCREEN.get(width, 1000)
                    page.set_viewport_size({"width": width, "height": first})
                    settle(page)
                    page.screenshot(path=str(args.out / f"first-{width}-{title.replace(' ', '_')}"
                                                        ".png"))
                    path = args.out / f"{width}-{title.replace(' ', '_')}.png"
                    shoot(page, path, width)
                    errors = page.locator('[data-testid="stException"]').all_inner_texts()
                    print(f"{path}" + (f"  EXCEPTION: {errors[0][:300]}" if errors else ""))
                if title == "Export":
                    with page.expect_download(timeout=300_000) as info:
                        page.get_by_role("button", name="Download report (HTML)").click()
                    report = args.out / "report.html"
                    info.value.save_as(report)
                    view = browser.new_page()
                    for width in widths:
                        view.set_viewport_size({"width": width, "height": 1000})
                        view.goto(report.as_uri())
                        time.sleep(1)
                        view.screenshot(path=str(args.out / f"report-{width}.png"),
                                        full_page=True)
                        height = view.evaluate("document.documentElement.scrollHeight")
                        print(f"report at {width} px: {height:,} px long")
                    view.close()
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
