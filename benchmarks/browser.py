"""Time what a person waits in the dashboard, in a real browser.

    python benchmarks/browser.py [--queries 5000] [--runs 5] [--depth 100] [--repeats 5]
                                 [--replacements 20] [--pages P,...] [--actions A,...] [--quick]

A measurement, not a test: it prints PASS/MISS against the targets of issue 46, a last line
"N of M targets met", and always exits 0. Every change and every opening of a page is timed
twice, alternately: on the dashboard and on its floor, the same page drawn again by
benchmarks/floor_app.py with nothing to compute; its target is a ratio to the floor (the
machine's load moves both times, their ratio much less).

The collection is generated, seeded, into benchmarks/out/ (git-ignored): the qrels and a run
of `--depth` ids per query from benchmarks/generate.py, then `--runs` runs (run1.run, ...)
that re-rank that run's ids under a seeded noise on its scores, and the replacement runs of
about 5 MB each (the top ids of every query, re-ranked under another noise). Then
`python -m streamlit run dashboard/serve.py` starts on a free localhost port and headless
Chromium (Debian's /usr/bin/chromium, driven by Playwright) opens it with the link's
source=upload ("My files") and measures what follows. Before the servers start, the pages
timed (and Method notes) are recorded under streamlit.testing's AppTest with the same files
(benchmarks/floor_record.py: every element each page sends, in a small grid of states of
its controls; the Drill-down and Compare, whose tables and lists have as many rows as K asks
for, at every K the floor will be given there too, so that the floor draws the K typed);
`streamlit run benchmarks/floor_app.py` serves that recording on another port: the floor,
opened in a browser context of its own.

(first page) `--repeats` times, before the rest: a new server process and a new browser
    context, and the clock from page.goto (the navigation's start) to the bundled sample's
    Overview fully drawn: what a new user sees first; printed beside, for information, the
    wait from the command (the server's start to its health check, then the first page);
(a) the upload of the qrels and then of the runs through the sidebar's file inputs: the
    qrels until the script run is over (see the clock), the runs until the first chart is
    drawn (an SVG or canvas inside a stVegaLiteChart); (a) is their sum;
(b) on Overview, K sweep, Per-query heatmap, Drill-down, Compare and Overlap, `--repeats`
    times each action:
    - open: the page's link in the navigation, first from the page timed before it, then
      from Method notes;
    - K (seen): "K (cutoff)" typed and Enter, 20 and 10 alternately, so that after the
      first change every K is one the server has computed; K (new): 11, 12, 13, ... (20
      skipped), a K never used before in the session, each one step from the last (the
      dashboard decides the K either side of the one shown ahead, as the sidebar's - and +
      buttons step); K (far): 99, 97, 95, ..., never used and never next to one used, so
      the server computes it when asked;
    - DCG gain: the "Conventions" expander's radio, exponential and linear alternately;
    - run shown: the last chip of "Runs shown" removed, then added back, alternately;
    - Drill-down: query (picker): a query id typed into "Query" and its option clicked (a
      new query each time); query (Next): the Next button; query (N key): its shortcut;
    - Compare: baseline: "Baseline (before)" set to the second run and back, alternately;
      candidate: the last run's chip of "Candidates (after)" removed and added back;
    - the slow ones, each at a K never used before (set off the clock) and undone after
      (off the clock): best-run marks ("Mark each metric's best run", Overview); fused run
      (the sidebar's "Fuse runs (hybrid)": the first two runs, RRF at a k never used before,
      "Add the fused run"; Overview); all pairs ("Compare every pair of runs", Compare);
      weight search ("Search the weight of a weighted CombSUM", Overlap);
    the alternations carry on from page to page, so every action changes something; an
    action undone after an odd number of repeats is undone once more off the clock. Every
    action but the slow ones is timed on the floor too, with the same steps, one repeat on
    each in turn (dashboard then floor, then floor then dashboard, ...). For each side, per
    page and action: the median (and the dashboard's min and max); "script", the median
    time to the server's script_finished message (the script's run, and what it sent
    arriving); "rest", the median of the time after it (the transfer of the last messages
    and the drawing); "busy", the median time the page's main thread was busy meanwhile
    (Chromium's TaskDuration over the action, from the DevTools protocol's
    Performance.getMetrics: running scripts, style, layout and painting): when it is about
    the whole wait, the wait is the browser's drawing, not the server; then the ratio of
    the medians, dashboard / floor;
(c) the server's resident memory (VmRSS in /proc/<pid>/status of the streamlit process and
    its descendants) after the uploads, then after each of `--replacements` uploads that
    replace the last run (its ✕ in the uploader, then a new ~5 MB file), on the Overview.

The clock starts at the input event (the pointer press, the Enter key or the file input's
input event; for the first page, the navigation's start) and stops when Streamlit reports
the script run finished and no element changes for 100 ms: the server's script_finished
message has arrived on the WebSocket (a run cut short by a rerun does not count), stApp's
data-test-script-state is notRunning, the status widget [data-testid="stStatusWidget"] is
gone, and a MutationObserver on the document (childList, characterData, attributes,
subtree) has seen no change for 100 ms. The clock reads the later of that message and the
last change; the 100 ms of quiet are not counted. A run longer than 0.5 s shows the status
widget, whose 200 ms fade-out is then counted. The pointer is moved to the empty top bar
right after each click, so that a tooltip opening under a resting pointer is not counted.
A slow action's progress figure is the time to the first progress indication: the first
element matching stSpinner, stStatusWidget, stProgress, stExpanderIconSpinner or stSkeleton
(data-testid) appearing, or a toast (stToast) whose icon is st.toast's spinner (its
stToastDynamicIcon empty: a done toast's check mark is a Material icon, which holds text),
or the result itself when it comes first. Streamlit shows its status widget, and st.spinner
its spinner, only after 0.5 s of a run; the dashboard's slow actions draw their spinner
toast from the click's callback, at the start of the run (dashboard/data/progress.py).

Targets (issue 46, medians): below 10,000 queries, every change within 2x the floor's
median, 3x on Compare; from 10,000 queries, 3x and 4x on Compare; opening a page within 4x;
the first page on a fresh server < 3 s; a slow action's progress indication < 0.2 s and its
result < 2 s. Issue 26's targets in seconds are printed beside for information (every action
< 0.3 s, < 0.6 s on Compare; from 10,000 queries < 0.5 s and < 1 s; opening < 1 s); its
targets for (a), < 5 s, and (c), RSS after the replacement uploads < 1.5 GiB and not still
growing (the slope of the last 10 readings, least squares, under 5 MiB per upload), are
counted apart.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import DEFAULT_OUT, generate  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
VIEWPORT = {"width": 1500, "height": 1000}
PARKED_POINTER = (750, 2)  # the top bar's empty middle: hovers no control
QUIET_MS = 100
WAIT_CAP_S = 300  # one action longer than this is an error, not a measurement
LOCATE_S = 30  # a control not found (or not enabled) in this long is an error
REPLACEMENT_BYTES = 5_000_000
K_SEEN = (20, 10)  # "K (seen)": after the first change, values the server has computed
K_NEW_FROM = 11  # "K (new)": 11, 12, ... (skipping K_SEEN), each one not used before
# "K (far)": 99, 97, 95, ...: never used and never next to a K used before, so that the
# dashboard's K decided ahead (either side of the one shown) is never the one asked for
K_FAR_FROM, K_FAR_STEP = 99, -2  # within the lists of 100 ids
FUSION_K_FROM = 61  # the fused run's RRF k, a new one (a new run) at every repeat
GAINS = ("exponential", "linear")
PAGES = ("Overview", "K sweep", "Per-query heatmap", "Drill-down", "Compare", "Overlap")
BOUNCE_PAGE = "Method notes"  # a light page to leave from, for the repeated openings
EVERY_PAGE = ("open", "K (seen)", "K (new)", "K (far)", "DCG gain", "run shown")
PAGE_ACTIONS = {  # page title in the navigation -> its actions, in the order timed
    "Overview": (*EVERY_PAGE, "best-run marks", "fused run"),
    "K sweep": EVERY_PAGE,
    "Per-query heatmap": EVERY_PAGE,
    "Drill-down": (*EVERY_PAGE, "query (picker)", "query (Next)", "query (N key)"),
    "Compare": (*EVERY_PAGE, "baseline", "candidate", "all pairs"),
    "Overlap": (*EVERY_PAGE, "weight search"),
}
SLOW_ACTIONS = ("fused run", "weight search", "all pairs", "best-run marks")
RUNS_NEEDED = {"all pairs": 3, "baseline": 2, "candidate": 2, "weight search": 2,
               "best-run marks": 2, "fused run": 2}  # the app draws these controls only then
FRESH_PAGE, FIRST_PAGE = "(fresh server)", "first page"
ACTIONS = (*dict.fromkeys(a for page in PAGE_ACTIONS.values() for a in page), FIRST_PAGE)
# what counts as a progress indication: an element of one of these appearing, or a toast
# whose icon is st.toast's spinner (an empty icon element: a Material or emoji icon holds
# text), which dashboard/data/progress.py draws while a slow action is under way
PROGRESS_SELECTOR = ", ".join([*(f'[data-testid="{testid}"]' for testid in (
    "stSpinner", "stStatusWidget", "stProgress", "stExpanderIconSpinner", "stSkeleton")),
    '[data-testid="stToast"] [data-testid="stToastDynamicIcon"]:empty'])
LARGE_QUERIES = 10_000  # from here on, the larger collection's targets


@dataclass(frozen=True)
class Targets:
    """Medians: the dashboard's over the floor's for a change or an opening; in seconds for
    the first page and the slow actions (issue 46)."""
    action: float  # a change on any page but Compare, times the floor
    compare: float  # a change on Compare, times the floor
    open: float = 4.0  # opening a page from another, times the floor
    first_page: float = 3.0  # s: the first page on a fresh server, the bundled sample
    progress: float = 0.2  # s: a slow action, to the first progress indication
    result: float = 2.0  # s: a slow action, to its result


def targets_for(queries: int) -> Targets:
    return Targets(3.0, 4.0) if queries >= LARGE_QUERIES else Targets(2.0, 3.0)


@dataclass(frozen=True)
class Seconds:
    """Issue 26's targets in seconds, printed beside the ratios for information."""
    action: float  # a change on any page but Compare
    compare: float  # a change on Compare
    open: float = 1.0


def seconds_for(queries: int) -> Seconds:
    return Seconds(0.5, 1.0) if queries >= LARGE_QUERIES else Seconds(0.3, 0.6)


UPLOAD_TARGET_S = 5.0
RSS_TARGET_MIB = 1536  # 1.5 GiB
SLOPE_TARGET_MIB = 5.0  # per upload, over the last SLOPE_WINDOW readings
SLOPE_WINDOW = 10

# Installed in every page before Streamlit's own code: watches the server's messages on the
# WebSocket (protobuf ForwardMsg) for script_finished (field 6, a varint status) and stamps
# the armed action with the time of the last one, unless the run was cut short by a rerun.
# It defines window.__benchArm(start), which arms the clock: it records the first input
# event (unless `start` is given), every change to the page, the first chart drawn and the
# first progress indication; and it arms it at once with start 0, the page's own time
# origin, so that a page.goto is timed from the navigation's start.
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
    const charted = () => document.querySelector(
        '[data-testid="stVegaLiteChart"] svg.marks, [data-testid="stVegaLiteChart"] canvas');
    const working = () => document.querySelector(PROGRESS_SELECTOR);
    window.__benchArm = start => {
        if (window.__bench) {
            window.__bench.observer.disconnect();
            for (const type of window.__bench.events)
                document.removeEventListener(type, window.__bench.onInput, true);
        }
        const bench = window.__bench = {start, last: null, finished: null, chart: null,
                                        progress: null};
        bench.onInput = () => { if (bench.start === null) bench.start = performance.now(); };
        bench.events = ['pointerdown', 'keydown', 'input', 'change'];
        for (const type of bench.events) document.addEventListener(type, bench.onInput, true);
        bench.observer = new MutationObserver(() => {
            if (bench.start === null) return;
            bench.last = performance.now();
            if (bench.chart === null && charted()) bench.chart = bench.last;
            if (bench.progress === null && working()) bench.progress = bench.last;
        });
        bench.observer.observe(document, {subtree: true, childList: true,
                                          characterData: true, attributes: true});
    };
    window.__benchArm(0);
})();""".replace("PROGRESS_SELECTOR", json.dumps(PROGRESS_SELECTOR))

# Arms the clock before an action (see WATCH_JS).
ARM_JS = "() => window.__benchArm(null)"

# Resolves once the server reported the end of the run the armed input started, the page
# shows it (script state notRunning, no status widget) and has been quiet for `quiet` ms:
# {elapsed, finished, chart, progress} in ms from the input event, or {error}. With `chart`,
# a run that ends before any chart is drawn is not the end (an upload of several files can
# take more than one run before the first chart).
FINISH_JS = """([quiet, cap, chart]) => new Promise(resolve => {
    const bench = window.__bench;
    const app = () => document.querySelector('[data-testid="stApp"]');
    const begun = performance.now();
    const timer = setInterval(() => {
        const now = performance.now();
        const end = Math.max(bench.last ?? 0, bench.finished ?? 0);
        const over = bench.finished !== null && now - end >= quiet && app()
            && app().getAttribute('data-test-script-state') === 'notRunning'
            && !document.querySelector('[data-testid="stStatusWidget"]')
            && (!chart || bench.chart !== null);
        if (!over && now - begun < cap) return;
        clearInterval(timer);
        bench.observer.disconnect();
        for (const type of bench.events) document.removeEventListener(type, bench.onInput, true);
        const since = at => at === null ? null : at - bench.start;
        resolve(over ? {elapsed: end - bench.start, finished: bench.finished - bench.start,
                        chart: since(bench.chart), progress: since(bench.progress)}
                     : {error: `no finished run after ${cap} ms (input seen: ${
                           bench.start !== null}, script_finished seen: ${
                           bench.finished !== null}, chart seen: ${bench.chart !== null})`});
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
    pages: tuple[str, ...] = PAGES
    actions: tuple[str, ...] = ACTIONS


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
    progress: float | None = None  # to the first progress indication, if one appeared
    busy: float | None = None  # the page's main thread busy meanwhile (TaskDuration)


@dataclass
class Results:
    qrels_s: float = 0.0
    runs_chart_s: float = 0.0
    first_page: list[Timing] | None = None  # on a fresh server each
    server_start: list[float] | None = None  # s: each fresh server's command to its health
    actions: dict[tuple[str, str], list[Timing]] | None = None  # (page, action) -> repeats
    floor: dict[tuple[str, str], list[Timing]] | None = None  # the same on the floor
    floor_record_s: float = 0.0  # floor_record.py's run, for information
    load: list[float] | None = None  # the 1-minute load average after each timed action
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


SERVER_SCRIPT = "dashboard/serve.py"  # README's command: the app behind its warm-up
# Pages with as many rows as K asks for: the drill-down's ranks, side-by-side lists and a
# grading row per unjudged id (some 70 at K = 95, 5 at K = 11), Compare's rank movement
# (down to 2 K). The floor records them at every K it will show (floor_k), not only at three.
K_SIZED = ("Drill-down", "Compare")
FIRST_K = 10  # the dashboard's K after the uploads (floor_record.K_VALUES[0])
FLOOR_SCRIPT = "benchmarks/floor_app.py"  # the floor: the recorded pages sent again
FLOOR_RECORDER = "benchmarks/floor_record.py"


def start_server(log: Path, script: str = SERVER_SCRIPT, *args: str
                 ) -> tuple[subprocess.Popen, str]:
    """`streamlit run SCRIPT [-- ARGS]` (the dashboard: dashboard/serve.py) on a free
    localhost port; waits for its health check (the dashboard's server answers at once; its
    warm-up carries on on a thread)."""
    port = free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", script,
             "--server.headless", "true", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             *(["--", *args] if args else [])],
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


def record_floor(config: Config, collection: Collection, out_dir: Path) -> Path:
    """benchmarks/floor_record.py on the collection, for the pages timed: the recording the
    floor serves (its log beside it), on the pages whose drawing grows with K (K_SIZED) at
    every K the floor will show there too."""
    recording, log = out_dir / "floor.pickle", out_dir / "floor_record.log"
    exact = [f"{title}={','.join(map(str, ks))}"
             for title, ks in floor_k(config, collection).items() if title in K_SIZED]
    with log.open("wb") as output:
        done = subprocess.run(
            [sys.executable, FLOOR_RECORDER, str(collection.qrels),
             *(str(run) for run in collection.runs), "--out", str(recording),
             "--pages", ",".join(config.pages), *(f"--k={k}" for k in exact)],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, check=False)
    if done.returncode:
        raise SystemExit(f"recording the pages for the floor failed; see {log}")
    return recording


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
    `chart`, to the first chart drawn instead; and the main thread's busy time meanwhile."""
    busy = main_thread_busy(page)
    page.evaluate(ARM_JS)
    action()
    # the pointer off the control at once: a tooltip that the resting pointer would open
    # after its delay is not the action's result
    page.mouse.move(*PARKED_POINTER)
    timing = finish(page, chart=chart)
    return replace(timing, busy=None if busy is None else main_thread_busy(page) - busy)


_DEVTOOLS: dict[object, object] = {}  # page -> its DevTools protocol session (new_page)


def main_thread_busy(page) -> float | None:
    """Seconds the page's main thread has been busy so far (Chromium's TaskDuration)."""
    session = _DEVTOOLS.get(page)
    if session is None:
        return None
    metrics = session.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def finish(page, *, chart: bool = False) -> Timing:
    """The armed clock's reading once the run is over (see FINISH_JS)."""
    result = page.evaluate(FINISH_JS, [QUIET_MS, WAIT_CAP_S * 1000, chart])
    if "error" in result:
        raise RuntimeError(result["error"])
    end = result["chart"] if chart else result["elapsed"]
    shown = None if result["progress"] is None else result["progress"] / 1000
    return Timing(end / 1000, result["finished"] / 1000, shown)


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


def main_area(page):
    return page.locator('[data-testid="stMain"]')


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
    combobox = sidebar(page).get_by_role("combobox", name="Runs shown (the first is the baseline)")
    return add_option(page, combobox, name)


def add_option(page, combobox, name: str) -> Timing:
    """Pick `name` in a multiselect's list, then close the list (off the clock: while it is
    open, the rest of the page is hidden from the accessibility tree)."""
    combobox.click()
    timing = timed(page, page.get_by_role("option", name=name, exact=True).click)
    combobox.press("Escape")
    page.get_by_role("listbox").wait_for(state="hidden")
    settle(page)
    return timing


def choose_option(page, label: str, name: str) -> Timing:
    """Pick `name` in the main area's selectbox labelled `label` (the list closes itself).
    The box is scrolled into view and left to settle first, off the clock: a click that
    lands while the main area is still scrolling focuses the box without opening its list."""
    box = main_area(page).get_by_role("combobox", name=label, exact=True)
    box.scroll_into_view_if_needed()
    settle(page)
    box.click()
    return timed(page, page.get_by_role("option", name=name, exact=True).click)


def multiselect(area, label: str):
    """The multiselect labelled `label` in `area` (its chips' buttons are in it)."""
    return area.locator('[data-testid="stMultiSelect"]').filter(
        has=area.page.get_by_text(label, exact=True))


def switch(page, area, text: str):
    """The toggle whose label starts with `text` (a label may end with a metric's name)."""
    return area.locator('[data-testid="stCheckbox"]').filter(has_text=text).locator("label")


def upload(page, nth: int, files: list[Path], *, chart: bool = False) -> Timing:
    field = page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(nth)
    return timed(page, lambda: field.set_input_files([str(f) for f in files]), chart=chart)


def remove_upload(page, file_name: str) -> Timing:
    button = sidebar(page).get_by_role("button", name=f"Remove {file_name}", exact=True)
    return timed(page, button.click)


class Plan:
    """The values each action changes to, carried on from page to page, so that every
    action changes something and every "new" value is new to the server."""

    def __init__(self, collection: Collection, repeats: int):
        self.repeats = repeats
        self.runs = [path.stem for path in collection.runs]
        self.k_seen = itertools.cycle(K_SEEN)
        self.k_new = (k for k in itertools.count(K_NEW_FROM) if k not in K_SEEN)
        self.k_far = itertools.count(K_FAR_FROM, K_FAR_STEP)
        self.gains = itertools.cycle(GAINS)
        self.fusion_k = itertools.count(FUSION_K_FROM)
        self.queries = iter(query_ids(collection.qrels)[100::37])

    # Each action yields its `repeats` timings one at a time (measure_pages takes them in
    # turn from the dashboard and the floor); what it undoes after the last one runs when it
    # is exhausted.
    def each(self, action: Callable[[], Timing]) -> Iterator[Timing]:
        for _ in range(self.repeats):
            yield action()

    def back_and_forth(self, away: Callable[[], Timing], back: Callable[[], Timing]
                       ) -> Iterator[Timing]:
        """away, back, away, ... timed; then back once more (off the clock) after an odd
        number, so that the next action starts from the state this one found."""
        for number in range(self.repeats):
            yield away() if number % 2 == 0 else back()
        if self.repeats % 2:
            back()

    def switched_on(self, page, area, text: str) -> Iterator[Timing]:
        """A toggle turned on, each time at a K the server has not computed (set off the
        clock), and off again after (off the clock)."""
        for _ in range(self.repeats):
            change_k(page, next(self.k_new))
            timing = timed(page, switch(page, area, text).click)
            timed(page, switch(page, area, text).click)
            yield timing


def query_ids(qrels: Path) -> list[str]:
    """The qrels' query ids, in order of first appearance."""
    with qrels.open(encoding="utf-8") as lines:
        return list(dict.fromkeys(line.split(maxsplit=1)[0] for line in lines if line.strip()))


def runs_shown(page, plan: Plan) -> Iterator[Timing]:
    last = plan.runs[-1]
    return plan.back_and_forth(lambda: hide_run(page, last), lambda: show_run(page, last))


def pick_query(page, plan: Plan) -> Timing:
    """The drill-down's query picker: its id typed (off the clock) and its option clicked;
    ids the list lacks (queries without a relevant id are not scored) are skipped."""
    box = main_area(page).get_by_role("combobox", name="Query", exact=True)
    for query in plan.queries:
        box.click()
        box.fill(query)
        option = page.get_by_role("option").filter(has_text=query).first
        try:
            option.wait_for(timeout=3000)
        except Exception:  # not listed: the next id
            box.press("Escape")
            continue
        return timed(page, option.click)
    raise RuntimeError("no query of the qrels is listed in the drill-down's picker")


def next_query(page) -> Timing:
    button = main_area(page).get_by_role("button", name=re.compile(r"\bNext\b"))
    return timed(page, button.click)


def next_query_key(page) -> Timing:
    """The "N" shortcut, pressed with the focus on no input (off the clock)."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    return timed(page, lambda: page.keyboard.press("n"))


def change_candidate(page, plan: Plan) -> Iterator[Timing]:
    last = plan.runs[-1]
    widget = multiselect(main_area(page), "Candidates (after)")
    remove = lambda: timed(page, widget.get_by_role(  # noqa: E731
        "button", name=f"Remove {last}", exact=True).click)
    add = lambda: add_option(page, widget.get_by_role("combobox"), last)  # noqa: E731
    return plan.back_and_forth(remove, add)


def fused_run(page, plan: Plan) -> Iterator[Timing]:
    """The sidebar's "Fuse runs (hybrid)": the first two runs, RRF at a k not used before
    (set off the clock), "Add the fused run" timed; then the fused run removed (its Remove
    button, off the clock)."""
    area = sidebar(page)
    if not area.get_by_role("button", name="Add the fused run").is_visible():
        area.locator("summary", has_text="Fuse runs").click()
        settle(page)
    chooser = multiselect(area, "Runs to fuse")
    for name in plan.runs[:2]:
        if not chooser.get_by_role("button", name=f"Remove {name}", exact=True).count():
            add_option(page, chooser.get_by_role("combobox"), name)
    field = area.get_by_role("spinbutton", name="k of 1/(k + rank)")
    for _ in range(plan.repeats):
        field.fill(str(next(plan.fusion_k)))
        timed(page, lambda: field.press("Enter"))
        timing = timed(page, area.get_by_role("button", name="Add the fused run").click)
        settle(page)
        timed(page, area.get_by_role("button", name="Remove", exact=True).first.click)
        yield timing


def action_steps(page, plan: Plan) -> dict[str, Callable[[], Iterator[Timing]]]:
    """Each action of PAGE_ACTIONS but "open": its `repeats` timings, on the page open."""
    k_seen, k_new = plan.k_seen, plan.k_new
    baseline, other = plan.runs[0], plan.runs[1 % len(plan.runs)]
    return {
        "K (seen)": lambda: plan.each(lambda: change_k(page, next(k_seen))),
        "K (new)": lambda: plan.each(lambda: change_k(page, next(k_new))),
        "K (far)": lambda: plan.each(lambda: change_k(page, next(plan.k_far))),
        "DCG gain": lambda: plan.each(lambda: change_gain(page, next(plan.gains))),
        "run shown": lambda: runs_shown(page, plan),
        "query (picker)": lambda: plan.each(lambda: pick_query(page, plan)),
        "query (Next)": lambda: plan.each(lambda: next_query(page)),
        "query (N key)": lambda: plan.each(lambda: next_query_key(page)),
        "baseline": lambda: plan.back_and_forth(
            lambda: choose_option(page, "Baseline (before)", other),
            lambda: choose_option(page, "Baseline (before)", baseline)),
        "candidate": lambda: change_candidate(page, plan),
        "all pairs": lambda: plan.switched_on(page, main_area(page), "Compare every pair"),
        "best-run marks": lambda: plan.switched_on(page, main_area(page),
                                                   "Mark each metric's best run"),
        "weight search": lambda: plan.switched_on(page, main_area(page),
                                                  "Search the weight of a weighted CombSUM"),
        "fused run": lambda: fused_run(page, plan),
    }


# --- the measurements -------------------------------------------------------------------


def new_page(browser):
    """A page in a new browser context (an empty cache, as a new user has), the clock's
    watcher installed."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    page.set_default_timeout(LOCATE_S * 1000)
    _DEVTOOLS[page] = context.new_cdp_session(page)
    _DEVTOOLS[page].send("Performance.enable")
    return page


def measure_first_page(browser, config: Config, out_dir: Path, results: Results) -> None:
    """`repeats` times: a new server process, a new browser context, page.goto, and the
    clock from the navigation's start to the first page fully drawn (the bundled sample's
    Overview)."""
    results.first_page, results.server_start = [], []
    for number in range(1, config.repeats + 1):
        progress(f"first page on a fresh server {number}/{config.repeats}")
        started = time.monotonic()
        process, base = start_server(out_dir / "streamlit_fresh.log")
        results.server_start.append(time.monotonic() - started)
        try:
            page = new_page(browser)
            page.goto(base, wait_until="commit")
            results.first_page.append(finish(page))
            page.context.close()
        finally:
            stop_server(process)


def measure_uploads(page, base: str, collection: Collection, results: Results) -> None:
    """(a): My files (opened by the link's source=upload, so that the sample is not read),
    then the qrels, then every run at once."""
    progress("opening the dashboard")
    page.goto(f"{base}/?source=upload")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    settle(page)
    # the link's source=upload has chosen My files; a click on it then would start no run
    if not sidebar(page).get_by_role("radio", name="My files").is_checked():
        timed(page, sidebar(page).get_by_text("My files", exact=True).click)
    progress("uploading the qrels")
    results.qrels_s = upload(page, 0, [collection.qrels]).seconds
    progress("uploading the runs")
    results.runs_chart_s = upload(page, 1, collection.runs, chart=True).seconds


@dataclass
class Side:
    """An app the actions are timed on, the dashboard or its floor, in its own page."""
    page: object  # Playwright's
    steps: dict[str, Callable[[], Iterator[Timing]]]  # action_steps on its own Plan
    timings: dict[tuple[str, str], list[Timing]]  # (page, action) -> repeats
    current: str = "Overview"  # the page it shows (the uploads, or the floor's opening)


def new_side(page, collection: Collection, repeats: int) -> Side:
    return Side(page, action_steps(page, Plan(collection, repeats)), {})


def arrive(side: Side, title: str) -> Iterator[Timing]:
    """The page's link, from the page shown (from Method notes when it is the page)."""
    if side.current == title:
        open_page(side.page, BOUNCE_PAGE)
    side.current = title
    yield open_page(side.page, title)


def come_back(side: Side, title: str, count: int) -> Iterator[Timing]:
    """`count` times: Method notes, then the page's link (timed)."""
    for _ in range(count):
        open_page(side.page, BOUNCE_PAGE)
        yield open_page(side.page, title)


def in_turn(sides: list[Side], make: Callable[[Side], Iterator[Timing]], count: int,
            load: list[float], *, flipped: bool = False) -> list[list[Timing]]:
    """`count` timings from each side's run of `make`, one at a time and the sides in turn,
    the first side first, then the last first, and so on (the last first to begin with when
    `flipped`); then each run is finished (what it undoes off the clock after its last
    repeat). The load average is read after each timing."""
    runs = [make(side) for side in sides]
    timings: list[list[Timing]] = [[] for _ in sides]
    for number in range(count):
        order = range(len(sides)) if (number % 2 == 0) != flipped else reversed(range(len(sides)))
        for at in order:
            sides[at].page.bring_to_front()
            timings[at].append(next(runs[at]))
            load.append(os.getloadavg()[0])
    for run in runs:
        for _ in run:  # no more repeats: only what the action undoes after them
            pass
    return timings


def wanted_actions(title: str, config: Config, collection: Collection) -> list[str]:
    """The actions timed on `title`, in order: asked for, and drawable with these runs."""
    return [a for a in PAGE_ACTIONS[title] if a in config.actions
            and RUNS_NEEDED.get(a, 1) <= len(collection.runs)]


def floor_k(config: Config, collection: Collection) -> dict[str, tuple[int, ...]]:
    """Page title -> every K the floor shows there, in order: the K it arrives with, then
    the K the actions type (a Plan's, consumed as measure_pages does on the floor: the slow
    actions, timed on the dashboard alone, type theirs there only)."""
    plan = Plan(collection, config.repeats)
    typed = {"K (seen)": plan.k_seen, "K (new)": plan.k_new, "K (far)": plan.k_far}
    slow_k = ("best-run marks", "all pairs", "weight search")  # each at a new K (switched_on)
    shown, now = {}, FIRST_K
    for title in config.pages:
        wanted = wanted_actions(title, config, collection)
        if not wanted:
            continue
        ks = [now]
        for action in wanted:
            if action in typed:
                ks += [next(typed[action]) for _ in range(config.repeats)]
            elif action in slow_k:  # the dashboard's K moves on; the floor's stays
                for _ in range(config.repeats):
                    next(plan.k_new)
        shown[title] = tuple(dict.fromkeys(ks))
        now = ks[-1]
    return shown


def measure_pages(sides: list[Side], collection: Collection, config: Config,
                  results: Results) -> None:
    """(b): on every page, each of its actions `repeats` times, on the dashboard (the first
    side) and on the floor (the second, when there is one; not the slow actions), one
    repeat on each in turn. Opening a page is timed first from the page timed before it
    (from Method notes for the first), then from Method notes."""
    results.load = []
    again = config.repeats - 1  # openings from Method notes, after the first
    for title in config.pages:
        wanted = wanted_actions(title, config, collection)
        if not wanted:
            continue
        progress(f"timing {title}: {', '.join(wanted)}")
        first = in_turn(sides, lambda side, title=title: arrive(side, title), 1,
                        results.load)
        for action in wanted:
            if action == "open":
                continue
            timed_on = sides[:1] if action in SLOW_ACTIONS else sides
            timings = in_turn(timed_on, lambda side, action=action: side.steps[action](),
                              config.repeats, results.load)
            for side, found in zip(timed_on, timings, strict=True):
                side.timings[title, action] = found
        if "open" in wanted:
            later = in_turn(sides, lambda side, title=title: come_back(side, title, again),
                            again, results.load, flipped=True)
            for side, opening, reopenings in zip(sides, first, later, strict=True):
                side.timings[title, "open"] = opening + reopenings
    results.actions = sides[0].timings
    results.floor = sides[1].timings if len(sides) > 1 else {}


def open_floor(page, base: str) -> None:
    """The floor's first page (its recording read), off the clock."""
    progress("opening the floor")
    page.goto(base)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    settle(page)


def measure_memory(page, server_pid: int, collection: Collection, results: Results) -> None:
    """(c): on the Overview, replace the last run file by a new one, reading RSS after each."""
    open_page(page, BOUNCE_PAGE)
    open_page(page, "Overview")
    last = collection.runs[-1]
    results.rss_replacements, results.replacement_s = [], []
    for number, replacement in enumerate(collection.replacements, start=1):
        progress(f"replacement upload {number}/{len(collection.replacements)}")
        remove_upload(page, last.name)
        results.replacement_s.append(upload(page, 1, [replacement]).seconds)
        results.rss_replacements.append(rss_mib(server_pid))
        last = replacement


def needs_floor(config: Config) -> bool:
    """Whether an action asked for is timed against the floor."""
    return any(action not in (*SLOW_ACTIONS, FIRST_PAGE) for action in config.actions)


def run_benchmark(config: Config, collection: Collection, out_dir: Path) -> Results:
    """The fresh-server first page (when asked); the floor's recording; then one dashboard
    server for (a), (b), (c) and the floor's server beside it for (b); on a failure, keep a
    screenshot of each page in out_dir."""
    from playwright.sync_api import sync_playwright

    results = Results()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if FIRST_PAGE in config.actions:
            measure_first_page(browser, config, out_dir, results)
        recording = None
        if needs_floor(config):
            progress("recording the pages for the floor (benchmarks/floor_record.py)")
            started = time.perf_counter()
            recording = record_floor(config, collection, out_dir)
            results.floor_record_s = time.perf_counter() - started
        servers = [start_server(out_dir / "streamlit.log")]
        try:
            if recording is not None:
                servers.append(start_server(out_dir / "floor.log", FLOOR_SCRIPT, str(recording)))
            pages = [new_page(browser) for _ in servers]
            (process, base), page = servers[0], pages[0]
            try:
                measure_uploads(page, base, collection, results)
                results.rss_after_uploads = rss_mib(process.pid)
                if recording is not None:
                    open_floor(pages[1], servers[1][1])
                sides = [new_side(p, collection, config.repeats) for p in pages]
                measure_pages(sides, collection, config, results)
                results.rss_after_pages = rss_mib(process.pid)
                if collection.replacements:
                    measure_memory(page, process.pid, collection, results)
            except Exception:
                for name, shown in zip(("failure", "failure_floor"), pages, strict=False):
                    shown.screenshot(path=str(out_dir / f"{name}.png"), full_page=True)
                progress(f"failed; the pages at that moment: {out_dir / 'failure*.png'}")
                raise
        finally:
            for process, _ in servers:
                stop_server(process)
        browser.close()
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
    """Print every figure with its target; True when every target of issue 46 is met."""
    megabytes = sum(p.stat().st_size for p in collection.runs) / 1e6
    print(f"{config.runs} runs x {config.queries:,} queries x {config.depth} ids "
          f"({megabytes:.0f} MB of runs), headless Chromium, medians of {config.repeats}")
    print(f"Machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} over the last "
          "minute (this benchmark included): other load inflates every figure")
    print(f"Clock: {clock_definition()}")
    if results.floor:
        print(f"Floor: benchmarks/floor_app.py, the pages recorded by benchmarks/floor_record.py "
              f"({results.floor_record_s:.0f} s), each change timed on it alternately")
    apart = report_uploads(config, results)
    verdicts = report_actions(targets_for(config.queries), seconds_for(config.queries),
                              results, config.repeats)
    if collection.replacements:
        apart += report_memory(collection, results)
    print(f"\nIssue 26's targets for (a) and (c): {sum(apart)} of {len(apart)} met")
    print(f"\n{sum(verdicts)} of {len(verdicts)} targets met")
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


def action_target(targets: Targets | Seconds, title: str, action: str) -> float:
    if action == "open":
        return targets.open
    return targets.compare if title == "Compare" else targets.action


@dataclass(frozen=True)
class Figures:
    """One side's medians of one (page, action), in seconds."""
    median: float
    low: float
    high: float
    script: float | None  # to the server's script_finished message
    rest: float | None  # after it: the last messages' transfer, the drawing
    busy: float | None  # the page's main thread (TaskDuration)


def figures(timings: list[Timing], progress: bool = False) -> Figures:
    """The medians of `timings`: of their clock, or with `progress` of the time to their
    first progress indication (then without the clock's parts)."""
    if progress:
        shown = [t.seconds if t.progress is None else min(t.progress, t.seconds)
                 for t in timings]
        return Figures(statistics.median(shown), min(shown), max(shown), None, None, None)
    clock = [t.seconds for t in timings]
    busy = [t.busy for t in timings if t.busy is not None]
    return Figures(statistics.median(clock), min(clock), max(clock),
                   statistics.median(t.finished for t in timings),
                   statistics.median(t.seconds - t.finished for t in timings),
                   statistics.median(busy) if busy else None)


def cells(found: Figures | None, *, spread: bool) -> str:
    """A side's columns: median (min, max when `spread`), script, rest, busy."""
    if found is None:
        return f"{'-':>{42 if spread else 28}}"
    numbers = [found.median, *([found.low, found.high] if spread else []), found.script,
               found.rest, found.busy]
    return "".join("      -" if n is None else f"{n:7.2f}" for n in numbers)


def report_actions(targets: Targets, seconds: Seconds, results: Results, repeats: int
                   ) -> list[bool]:
    """(b), one row per (page, action): the dashboard's figures, the floor's, the ratio of
    their medians against its target (issue 46) and issue 26's target in seconds beside it,
    for information. "script" is the median time to the server's script_finished message,
    as the page handled it; "rest" is the median of the time after it: the browser
    receiving and drawing what the run sent, and the status widget's fade (a page busy
    drawing handles the message late, so "rest" is a floor of the drawing's share); "busy"
    the median time the page's main thread was busy over the action, which tells the
    browser's share. A slow action has two rows, against targets in seconds: to the first
    progress indication (or to the result, when none appeared before it) and to the result.
    Then the actions furthest from their floor, and the load meanwhile."""
    verdicts: list[bool] = []
    ratios: list[tuple[float, str]] = []
    print(f"\n(b) medians of {repeats} in seconds; "
          "script: to the server's script_finished message; rest: after it (the last "
          "messages' transfer, the drawing); busy: the page's main thread (Chromium's "
          "TaskDuration); ratio: dashboard / floor")
    print(f"    {'':<18} {'':<26}{'dashboard':^42}{'floor':^28}{'ratio to the floor':^27}"
          "issue 26 (info)")
    print(f"    {'page':<18} {'action':<26}" + "".join(
        f"{c:>7}" for c in ("median", "min", "max", "script", "rest", "busy",
                            "median", "script", "rest", "busy")) + "    ratio  target")

    def row(title: str, action: str, mine: Figures, floor: Figures | None, target: str,
            passed: bool, info: str = "") -> None:
        verdicts.append(passed)
        ratio = "-" if floor is None else f"{mine.median / floor.median:.2f}x"
        print(f"    {title:<18} {action:<26}{cells(mine, spread=True)}"
              f"{cells(floor, spread=False)}{ratio:>9}  {target:<8}{verdict(passed)}  {info}")

    for title in PAGES:
        for action in PAGE_ACTIONS[title]:
            timings = results.actions.get((title, action))
            if not timings:
                continue
            if action in SLOW_ACTIONS:
                mine = figures(timings, progress=True)
                row(title, f"{action}: progress", mine, None, f"< {targets.progress:g} s",
                    mine.median < targets.progress)
                mine = figures(timings)
                row(title, f"{action}: result", mine, None, f"< {targets.result:g} s",
                    mine.median < targets.result)
                continue
            mine, floor = figures(timings), figures(results.floor[title, action])
            target, old = (action_target(targets, title, action),
                           action_target(seconds, title, action))
            ratio = mine.median / floor.median
            ratios.append((ratio, f"{title}, {action}"))
            row(title, action, mine, floor, f"< {target:g}x", ratio < target,
                f"< {old:g} s {'ok' if mine.median < old else 'over'}")
    if results.first_page:
        mine = figures(results.first_page)
        row(FRESH_PAGE, FIRST_PAGE, mine, None, f"< {targets.first_page:g} s",
            mine.median < targets.first_page)
        # for information: the server reads the pages' code in before it answers (serve.py),
        # so from the command the wait is its start and then the first page
        whole = [start + t.seconds for start, t in zip(results.server_start, results.first_page,
                                                       strict=True)]
        print(f"    {'':<18} {'(from the command)':<26}{statistics.median(whole):7.2f}"
              f"{min(whole):7.2f}{max(whole):7.2f}   the server's start (median "
              f"{statistics.median(results.server_start):.2f} s), then the first page")
    if ratios:
        furthest = sorted(ratios, reverse=True)[:5]
        print("    furthest from the floor: " + "; ".join(
            f"{name} {ratio:.2f}x" for ratio, name in furthest))
    if results.load:
        print(f"    load average (1 minute) after each of the {len(results.load)} timings: "
              f"min {min(results.load):.2f}, median {statistics.median(results.load):.2f}, "
              f"max {max(results.load):.2f}")
    return verdicts


def report_memory(collection: Collection, results: Results) -> list[bool]:
    readings = results.rss_replacements
    growth = slope(readings)
    small, flat = readings[-1] < RSS_TARGET_MIB, growth < SLOPE_TARGET_MIB
    print("\n(c) server memory (VmRSS of streamlit and its children)")
    print(f"  {'after the uploads':<36}{results.rss_after_uploads:6.0f} MiB")
    print(f"  {'after the page timings':<36}{results.rss_after_pages:6.0f} MiB   (info: every "
          "K and gain timed is kept in the caches)")
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


def names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


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
    parser.add_argument("--pages", type=names, help="comma-separated page titles to time "
                        f"(default every page: {', '.join(PAGES)})")
    parser.add_argument("--actions", type=names, help="comma-separated actions to time, on "
                        f"the pages that have them (default every action: {', '.join(ACTIONS)})")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK.queries} queries, {QUICK.runs} runs, {QUICK.repeats} "
                        f"repeats, {QUICK.replacements} replacement uploads")
    args = parser.parse_args()
    defaults = QUICK if args.quick else FULL
    values = {field: getattr(defaults, field) if getattr(args, field) is None
              else getattr(args, field) for field in Config.__dataclass_fields__}
    for field, known in (("pages", PAGES), ("actions", ACTIONS)):
        spelled = {name.casefold(): name for name in known}
        unknown = [name for name in values[field] if name.casefold() not in spelled]
        if unknown:
            parser.error(f"unknown {field} {unknown}; {field}: {', '.join(known)}")
        values[field] = tuple(spelled[name.casefold()] for name in values[field])
    return Config(**values)


def main() -> None:
    config = parse_config()
    out_dir = DEFAULT_OUT / f"browser_{config.queries}x{config.depth}"
    progress(f"writing the collection to {out_dir}")
    collection = write_collection(config, out_dir)
    results = run_benchmark(config, collection, out_dir)
    report(config, collection, results)


if __name__ == "__main__":
    main()
