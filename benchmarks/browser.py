"""Time what a person waits in the dashboard, in a real browser.

    python benchmarks/browser.py [--queries 5000] [--runs 5] [--depth 100] [--repeats 5]
                                 [--replacements 20] [--quick]

A measurement, not a test: it prints PASS/MISS against the targets and always exits 0.

The collection is generated, seeded, into benchmarks/out/ (git-ignored): the qrels and a run
of `--depth` ids per query from benchmarks/generate.py, then `--runs` runs (run1.run, ...)
that re-rank that run's ids under a seeded noise on its scores, and the replacement runs of
about 5 MB each (the top ids of every query, re-ranked under another noise). Then
`python -m streamlit run dashboard/app.py` starts on a free localhost port and headless
Chromium (Debian's /usr/bin/chromium, driven by Playwright) opens it, picks "My files" and
measures:

(a) the upload of the qrels and then of the runs through the sidebar's file inputs: the
    qrels until the script run is over (see the clock), the runs until the first chart is
    drawn (an SVG or canvas inside a stVegaLiteChart); (a) is their sum;
(b) on Overview, K sweep, Per-query heatmap, Drill-down and Compare, `--repeats` times each:
    a change of K (type into "K (cutoff)" and press Enter, 20 and 10 alternately), a change
    of the DCG gain (the "Conventions" expander's radio, exponential and linear alternately;
    both alternations carry on from page to page, so every action changes something) and a
    change of one run's visibility (remove the last chip of "Runs shown", add it back,
    alternately); median, min and max per page and action, and the median time to the
    server's script_finished message beside them;
(c) the server's resident memory (VmRSS in /proc/<pid>/status of the streamlit process and
    its descendants) after the uploads, then after each of `--replacements` uploads that
    replace the last run (its ✕ in the uploader, then a new ~5 MB file), on the Overview.

The clock starts at the input event (the pointer press, the Enter key or the file input's
input event) and stops when Streamlit reports the script run finished and no element changes
for 100 ms: the server's script_finished message has arrived on the WebSocket (a run cut
short by a rerun does not count), stApp's data-test-script-state is notRunning, the status
widget [data-testid="stStatusWidget"] is gone, and a MutationObserver on document.body
(childList, characterData, attributes, subtree) has seen no change for 100 ms. The clock
reads the later of that message and the last change; the 100 ms of quiet are not counted.
A run longer than 0.5 s shows the status widget, whose 200 ms fade-out is then counted.

Targets: (b) median < 0.5 s on Overview, K sweep, heatmap and drill-down, < 1 s on Compare;
(a) < 5 s; RSS after the replacement uploads < 1.5 GiB and not still growing (the slope of
the last 10 readings, least squares, under 5 MiB per upload).
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import DEFAULT_OUT, generate  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
VIEWPORT = {"width": 1500, "height": 1000}
QUIET_MS = 100
WAIT_CAP_S = 300  # one action longer than this is an error, not a measurement
REPLACEMENT_BYTES = 5_000_000
K_VALUES = (20, 10)
GAINS = ("exponential", "linear")
PAGES = {  # page title in the navigation -> target median of (b), seconds
    "Overview": 0.5,
    "K sweep": 0.5,
    "Per-query heatmap": 0.5,
    "Drill-down": 0.5,
    "Compare": 1.0,
}
ACTIONS = ("K", "DCG gain", "run shown")
UPLOAD_TARGET_S = 5.0
RSS_TARGET_MIB = 1536  # 1.5 GiB
SLOPE_TARGET_MIB = 5.0  # per upload, over the last SLOPE_WINDOW readings
SLOPE_WINDOW = 10

# Installed in every page before Streamlit's own code: watches the server's messages on the
# WebSocket (protobuf ForwardMsg) for script_finished (field 6, a varint status) and stamps
# the armed action with the time of the last one, unless the run was cut short by a rerun.
WATCH_JS = """(() => {
    const SCRIPT_FINISHED = 6, EARLY_FOR_RERUN = 2;
    const varint = (bytes, at) => {
        let value = 0, shift = 0, byte;
        do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; }
        while (byte & 0x80);
        return [value, at];
    };
    const finished = bytes => {  // the status of a script_finished message, or null
        let at = 0, tag, value;
        while (at < bytes.length) {
            [tag, at] = varint(bytes, at);
            const field = Math.floor(tag / 8), wire = tag & 7;
            if (wire === 0) {
                [value, at] = varint(bytes, at);
                if (field === SCRIPT_FINISHED) return value;
            } else if (wire === 2) { [value, at] = varint(bytes, at); at += value; }
            else if (wire === 1) at += 8;
            else if (wire === 5) at += 4;
            else return null;
        }
        return null;
    };
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', event => {
                if (!(event.data instanceof ArrayBuffer)) return;
                const status = finished(new Uint8Array(event.data));
                const bench = window.__bench;
                if (status !== null && status !== EARLY_FOR_RERUN && bench
                    && bench.start !== null) bench.finished = performance.now();
            });
        }
    };
})();"""

# Installed before an action: records the first input event and every change to the page.
ARM_JS = """() => {
    const bench = window.__bench = {start: null, last: null, finished: null, chart: null};
    const charted = () => document.querySelector(
        '[data-testid="stVegaLiteChart"] svg.marks, [data-testid="stVegaLiteChart"] canvas');
    bench.onInput = () => { if (bench.start === null) bench.start = performance.now(); };
    bench.events = ['pointerdown', 'keydown', 'input', 'change'];
    for (const type of bench.events) document.addEventListener(type, bench.onInput, true);
    bench.observer = new MutationObserver(() => {
        if (bench.start === null) return;
        bench.last = performance.now();
        if (bench.chart === null && charted()) bench.chart = bench.last;
    });
    bench.observer.observe(document.body, {subtree: true, childList: true,
                                           characterData: true, attributes: true});
}"""

# Resolves once the server reported the end of the run the armed input started, the page
# shows it (script state notRunning, no status widget) and has been quiet for `quiet` ms:
# {elapsed, finished, chart} in ms from the input event, or {error}.
FINISH_JS = """([quiet, cap]) => new Promise(resolve => {
    const bench = window.__bench;
    const app = () => document.querySelector('[data-testid="stApp"]');
    const begun = performance.now();
    const timer = setInterval(() => {
        const now = performance.now();
        const end = Math.max(bench.last ?? 0, bench.finished ?? 0);
        const over = bench.finished !== null && now - end >= quiet
            && app().getAttribute('data-test-script-state') === 'notRunning'
            && !document.querySelector('[data-testid="stStatusWidget"]');
        if (!over && now - begun < cap) return;
        clearInterval(timer);
        bench.observer.disconnect();
        for (const type of bench.events) document.removeEventListener(type, bench.onInput, true);
        resolve(over ? {elapsed: end - bench.start, finished: bench.finished - bench.start,
                        chart: bench.chart === null ? null : bench.chart - bench.start}
                     : {error: `no finished run after ${cap} ms (input seen: ${
                           bench.start !== null}, script_finished seen: ${
                           bench.finished !== null})`});
    }, 10);
})"""

# Resolves true once no run is going and the page has not changed for `quiet` ms, false
# after `cap` ms (off the clock: before an action, so that its click lands on a still page).
SETTLE_JS = """([quiet, cap]) => new Promise(resolve => {
    const begun = performance.now();
    let last = begun;
    const observer = new MutationObserver(() => { last = performance.now(); });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true,
                                     attributes: true});
    const timer = setInterval(() => {
        const app = document.querySelector('[data-testid="stApp"]');
        const now = performance.now();
        const still = now - last >= quiet && app
            && app.getAttribute('data-test-script-state') === 'notRunning'
            && !document.querySelector('[data-testid="stStatusWidget"]');
        if (!still && now - begun < cap) return;
        clearInterval(timer);
        observer.disconnect();
        resolve(Boolean(still));
    }, 10);
})"""
SETTLE_MS = 300


@dataclass(frozen=True)
class Config:
    queries: int
    runs: int
    depth: int
    repeats: int
    replacements: int
    pages: tuple[str, ...] = tuple(PAGES)


@dataclass(frozen=True)
class Collection:
    qrels: Path
    runs: list[Path]
    replacements: list[Path]


@dataclass(frozen=True)
class BaseRun:
    queries: list[str]
    docs: np.ndarray  # (queries x depth) doc ids
    scores: np.ndarray  # (queries x depth)


@dataclass(frozen=True)
class Timing:
    seconds: float  # the clock
    finished: float  # from the input event to the server's script_finished message


@dataclass
class Results:
    qrels_s: float = 0.0
    runs_chart_s: float = 0.0
    opening: dict[str, float] | None = None
    actions: dict[tuple[str, str], list[Timing]] | None = None
    rss_after_uploads: float = 0.0
    rss_after_pages: float = 0.0
    rss_replacements: list[float] | None = None
    replacement_s: list[float] | None = None


# --- the collection ---------------------------------------------------------------------


def write_collection(config: Config, out_dir: Path) -> Collection:
    """The qrels and base run from generate.py, then the runs and replacements (seeded)."""
    qrels, base_path = generate(out_dir, queries=config.queries, depth=config.depth)
    base = read_base_run(base_path, config.depth)
    runs = [write_run(out_dir / f"run{i}.run", base, seed=i, depth=config.depth)
            for i in range(1, config.runs + 1)]
    depth = replacement_depth(base, "replacement00")
    replacements = [write_run(out_dir / f"replacement{i:02d}.run", base, seed=100 + i,
                              depth=depth)
                    for i in range(1, config.replacements + 1)]
    return Collection(qrels, runs, replacements)


def read_base_run(path: Path, depth: int) -> BaseRun:
    """generate.py writes exactly `depth` lines per query, queries in order."""
    fields = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    docs = np.array([f[2] for f in fields]).reshape(-1, depth)
    scores = np.array([float(f[4]) for f in fields]).reshape(-1, depth)
    return BaseRun([fields[i][0] for i in range(0, len(fields), depth)], docs, scores)


def run_text(base: BaseRun, tag: str, *, seed: int, depth: int) -> str:
    """The base run's ids re-ranked under a seeded noise on their scores; the top `depth`."""
    noisy = base.scores + np.random.default_rng(seed).normal(0, 0.05, base.scores.shape)
    order = np.argsort(-noisy, axis=1, kind="stable")[:, :depth]
    docs = np.take_along_axis(base.docs, order, axis=1).tolist()
    scores = np.take_along_axis(noisy, order, axis=1).tolist()
    return "".join(f"{qid} Q0 {doc} {rank} {score:.4f} {tag}\n"
                   for qid, row_docs, row_scores in zip(base.queries, docs, scores, strict=True)
                   for rank, (doc, score) in enumerate(zip(row_docs, row_scores, strict=True),
                                                       start=1))


def write_run(path: Path, base: BaseRun, *, seed: int, depth: int) -> Path:
    path.write_text(run_text(base, path.stem, seed=seed, depth=depth), encoding="utf-8")
    return path


def replacement_depth(base: BaseRun, tag: str) -> int:
    """The depth at which a run tagged `tag` weighs about REPLACEMENT_BYTES (at most the
    base run's), from the bytes per line of its first 100 queries."""
    head = BaseRun(base.queries[:100], base.docs[:100], base.scores[:100])
    full_depth = base.docs.shape[1]
    line_bytes = len(run_text(head, tag, seed=0, depth=full_depth)) / head.docs.size
    depth = round(REPLACEMENT_BYTES / (len(base.queries) * line_bytes))
    return int(np.clip(depth, 1, full_depth))


# --- the server -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(log: Path) -> tuple[subprocess.Popen, str]:
    """`streamlit run dashboard/app.py` on a free localhost port; waits for its health check."""
    port = free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "dashboard/app.py",
             "--server.headless", "true", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return process, base
        except OSError:
            time.sleep(0.3)
    stop_server(process)
    raise SystemExit(f"streamlit did not start on port {port}; see {log}")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def rss_mib(pid: int) -> float:
    """VmRSS of the process and every descendant, in MiB."""
    total_kib = 0
    for member in [pid, *descendants(pid)]:
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:  # ended meanwhile
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total_kib += int(line.split()[1])
    return total_kib / 1024


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from the parent pid in each /proc/<pid>/stat."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found.extend(children)
        todo.extend(children)
    return found


# --- the clock --------------------------------------------------------------------------


def timed(page, action: Callable[[], None], *, chart: bool = False) -> Timing:
    """The clock from the action's input event to the end of the run it starts; with
    `chart`, to the first chart drawn instead."""
    page.evaluate(ARM_JS)
    action()
    result = page.evaluate(FINISH_JS, [QUIET_MS, WAIT_CAP_S * 1000])
    if "error" in result:
        raise RuntimeError(result["error"])
    if chart and result["chart"] is None:
        raise RuntimeError("the run finished without drawing a chart")
    end = result["chart"] if chart else result["elapsed"]
    return Timing(end / 1000, result["finished"] / 1000)


def settle(page) -> None:
    if not page.evaluate(SETTLE_JS, [SETTLE_MS, WAIT_CAP_S * 1000]):
        raise RuntimeError(f"the page did not settle in {WAIT_CAP_S} s")


def clock_definition() -> str:
    """The docstring's paragraph that defines the clock, on one line."""
    paragraph = next(p for p in __doc__.split("\n\n") if p.startswith("The clock"))
    return " ".join(paragraph.split())


# --- the actions ------------------------------------------------------------------------


def sidebar(page):
    return page.locator('[data-testid="stSidebar"]')


def open_page(page, title: str) -> Timing:
    link = page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title,
                                                                     exact=True)
    return timed(page, link.click)


def change_k(page, value: int) -> Timing:
    field = page.get_by_role("spinbutton", name="K (cutoff)")
    field.fill(str(value))
    return timed(page, lambda: field.press("Enter"))


def change_gain(page, value: str) -> Timing:
    group = sidebar(page).get_by_role("radiogroup", name="DCG gain")
    if not group.is_visible():
        sidebar(page).locator("summary", has_text="Conventions").click()
        settle(page)
    option = group.locator('[data-testid="stRadioOption"]', has_text=value)
    return timed(page, option.click)


def hide_run(page, name: str) -> Timing:
    button = sidebar(page).get_by_role("button", name=f"Remove {name}", exact=True)
    return timed(page, button.click)


def show_run(page, name: str) -> Timing:
    """Pick the run in the list of "Runs shown", then close the list (off the clock: while
    it is open, the rest of the page is hidden from the accessibility tree)."""
    combobox = sidebar(page).get_by_role("combobox", name="Runs shown (the first is the baseline)")
    combobox.click()
    timing = timed(page, page.get_by_role("option", name=name, exact=True).click)
    combobox.press("Escape")
    page.get_by_role("listbox").wait_for(state="hidden")
    settle(page)
    return timing


def upload(page, nth: int, files: list[Path], *, chart: bool = False) -> Timing:
    field = page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(nth)
    return timed(page, lambda: field.set_input_files([str(f) for f in files]), chart=chart)


def remove_upload(page, file_name: str) -> Timing:
    button = sidebar(page).get_by_role("button", name=f"Remove {file_name}", exact=True)
    return timed(page, button.click)


# --- the measurements -------------------------------------------------------------------


def measure_uploads(page, base: str, collection: Collection, results: Results) -> None:
    """(a): My files, then the qrels, then every run at once."""
    progress("opening the dashboard")
    page.goto(base)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    settle(page)
    timed(page, sidebar(page).get_by_text("My files", exact=True).click)
    progress("uploading the qrels")
    results.qrels_s = upload(page, 0, [collection.qrels]).seconds
    progress("uploading the runs")
    results.runs_chart_s = upload(page, 1, collection.runs, chart=True).seconds


def measure_pages(page, collection: Collection, config: Config, results: Results) -> None:
    """(b): every action on every page, `repeats` times. K and the gain alternate between
    their two values across pages too (each change is a change); the run is hidden, shown,
    hidden..., and shown again before the next page."""
    last_run = collection.runs[-1].stem
    k_values, gains = itertools.cycle(K_VALUES), itertools.cycle(GAINS)
    results.opening, results.actions = {}, {}
    repeats = config.repeats
    for title in config.pages:
        progress(f"timing {title}")
        results.opening[title] = open_page(page, title).seconds
        results.actions[title, "K"] = [change_k(page, next(k_values)) for _ in range(repeats)]
        results.actions[title, "DCG gain"] = [change_gain(page, next(gains))
                                              for _ in range(repeats)]
        results.actions[title, "run shown"] = [
            hide_run(page, last_run) if i % 2 == 0 else show_run(page, last_run)
            for i in range(repeats)
        ]
        if repeats % 2:
            show_run(page, last_run)


def measure_memory(page, server_pid: int, collection: Collection, results: Results) -> None:
    """(c): on the Overview, replace the last run file by a new one, reading RSS after each."""
    open_page(page, "Overview")
    last = collection.runs[-1]
    results.rss_replacements, results.replacement_s = [], []
    for number, replacement in enumerate(collection.replacements, start=1):
        progress(f"replacement upload {number}/{len(collection.replacements)}")
        remove_upload(page, last.name)
        results.replacement_s.append(upload(page, 1, [replacement]).seconds)
        results.rss_replacements.append(rss_mib(server_pid))
        last = replacement


def run_benchmark(config: Config, collection: Collection, out_dir: Path) -> Results:
    """Start the server and the browser, measure (a), (b), (c); on a failure, keep a
    screenshot of the page in out_dir."""
    from playwright.sync_api import sync_playwright

    results = Results()
    process, base = start_server(out_dir / "streamlit.log")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT)
            context.add_init_script(WATCH_JS)
            page = context.new_page()
            page.set_default_timeout(WAIT_CAP_S * 1000)
            try:
                measure_uploads(page, base, collection, results)
                results.rss_after_uploads = rss_mib(process.pid)
                measure_pages(page, collection, config, results)
                results.rss_after_pages = rss_mib(process.pid)
                if collection.replacements:
                    measure_memory(page, process.pid, collection, results)
            except Exception:
                page.screenshot(path=str(out_dir / "failure.png"), full_page=True)
                progress(f"failed; the page at that moment: {out_dir / 'failure.png'}")
                raise
            browser.close()
    finally:
        stop_server(process)
    return results


# --- the report -------------------------------------------------------------------------


def verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def slope(readings: list[float]) -> float:
    """Least-squares growth per reading of the last SLOPE_WINDOW readings (0 for one)."""
    window = readings[-SLOPE_WINDOW:]
    if len(window) < 2:
        return 0.0
    return float(np.polyfit(np.arange(len(window)), window, 1)[0])


def report(config: Config, collection: Collection, results: Results) -> bool:
    """Print every figure with its target; True when every target is met."""
    megabytes = sum(p.stat().st_size for p in collection.runs) / 1e6
    print(f"{config.runs} runs x {config.queries:,} queries x {config.depth} ids "
          f"({megabytes:.0f} MB of runs), headless Chromium, medians of {config.repeats}")
    print(f"Machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} over the last "
          "minute (this benchmark included): other load inflates every figure")
    print(f"Clock: {clock_definition()}")
    verdicts = [*report_uploads(config, results), *report_actions(results),
                *(report_memory(collection, results) if collection.replacements else [])]
    if not all(verdicts):
        print("\nsome targets missed")
    return all(verdicts)


def report_uploads(config: Config, results: Results) -> list[bool]:
    total = results.qrels_s + results.runs_chart_s
    passed = total < UPLOAD_TARGET_S
    print("\n(a) upload through the file inputs")
    print(f"  {'qrels, to the end of its run':<36}{results.qrels_s:6.2f} s")
    print(f"  {f'{config.runs} runs at once, to the first chart':<36}"
          f"{results.runs_chart_s:6.2f} s")
    print(f"  {'total':<36}{total:6.2f} s   < {UPLOAD_TARGET_S:g} s   {verdict(passed)}")
    return [passed]


def report_actions(results: Results) -> list[bool]:
    """(b), with the median time to the server's script_finished message beside it, as the
    page handled it: the rest is the browser drawing what the run sent and the status
    widget's fade (a page busy drawing handles the message late, so this part is a floor)."""
    verdicts = []
    print("\n(b) page / action               median      min      max   finished   target")
    for title, target in PAGES.items():
        if (title, ACTIONS[0]) not in results.actions:
            continue
        for action in ACTIONS:
            samples = [t.seconds for t in results.actions[title, action]]
            finished = statistics.median(t.finished for t in results.actions[title, action])
            median = statistics.median(samples)
            verdicts.append(median < target)
            print(f"  {title:<18} {action:<10} {median:6.2f} s {min(samples):6.2f} s "
                  f"{max(samples):6.2f} s   {finished:6.2f} s   < {target:g} s  "
                  f"{verdict(verdicts[-1])}")
    print("  (info) opening each page: " + ", ".join(
        f"{title} {seconds:.2f} s" for title, seconds in results.opening.items()))
    return verdicts


def report_memory(collection: Collection, results: Results) -> list[bool]:
    readings = results.rss_replacements
    growth = slope(readings)
    small, flat = readings[-1] < RSS_TARGET_MIB, growth < SLOPE_TARGET_MIB
    print("\n(c) server memory (VmRSS of streamlit and its children)")
    print(f"  {'after the uploads':<36}{results.rss_after_uploads:6.0f} MiB")
    print(f"  {'after the page timings':<36}{results.rss_after_pages:6.0f} MiB   (info: four "
          "evaluations kept, two K x two gains)")
    print(f"  {f'after {len(readings)} replacement uploads':<36}{readings[-1]:6.0f} MiB   "
          f"< {RSS_TARGET_MIB} MiB   {verdict(small)}")
    print(f"  {f'slope of the last {min(len(readings), SLOPE_WINDOW)} readings':<36}"
          f"{growth:+6.1f} MiB/upload   < {SLOPE_TARGET_MIB:g}   {verdict(flat)} "
          f"({'not growing' if flat else 'still growing'})")
    print("  readings (MiB): " + " ".join(f"{r:.0f}" for r in readings))
    size = collection.replacements[0].stat().st_size / 1e6
    print(f"  (info) one replacement upload ({size:.1f} MB run), to the end of its run: "
          f"median {statistics.median(results.replacement_s):.2f} s, "
          f"max {max(results.replacement_s):.2f} s")
    return [small, flat]


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


FULL = Config(queries=5_000, runs=5, depth=100, repeats=5, replacements=20)
QUICK = Config(queries=500, runs=3, depth=100, repeats=2, replacements=3)


def parse_config() -> Config:
    """FULL, or QUICK with --quick; an option given on the command line overrides either."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, help=f"default {FULL.queries}")
    parser.add_argument("--runs", type=int, help=f"default {FULL.runs}")
    parser.add_argument("--depth", type=int, help=f"retrieved ids per query, default {FULL.depth}")
    parser.add_argument("--repeats", type=int, help=f"default {FULL.repeats}")
    parser.add_argument("--replacements", type=int,
                        help=f"uploads of a ~5 MB run replacing the last one, default "
                        f"{FULL.replacements}")
    parser.add_argument("--pages", type=lambda text: tuple(t.strip() for t in text.split(",")),
                        help="comma-separated page titles to time (default every page: "
                        f"{', '.join(PAGES)})")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK.queries} queries, {QUICK.runs} runs, {QUICK.repeats} "
                        f"repeats, {QUICK.replacements} replacement uploads")
    args = parser.parse_args()
    defaults = QUICK if args.quick else FULL
    config = Config(**{field: getattr(defaults, field) if getattr(args, field) is None
                       else getattr(args, field) for field in Config.__dataclass_fields__})
    unknown = set(config.pages) - set(PAGES)
    if unknown:
        parser.error(f"unknown pages {sorted(unknown)}; pages: {', '.join(PAGES)}")
    return config


def main() -> None:
    config = parse_config()
    out_dir = DEFAULT_OUT / f"browser_{config.queries}x{config.depth}"
    progress(f"writing the collection to {out_dir}")
    collection = write_collection(config, out_dir)
    results = run_benchmark(config, collection, out_dir)
    report(config, collection, results)


if __name__ == "__main__":
    main()
