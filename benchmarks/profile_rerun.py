"""Where one script run's time goes after a change of K (or of the DCG gain), page by page.

    python benchmarks/profile_rerun.py [--queries 5000] [--runs 5] [--repeats 3] [--lines 12]

A measurement, not a test. The browser benchmark's collection (benchmarks/browser.py writes
it; this script writes it too when missing) is uploaded into the app under
streamlit.testing's AppTest; then on each page K alternates 20/10 and the gain
exponential/linear, as the browser benchmark does, and a sampling profiler (one look at the
script thread's stack every millisecond) sorts the run's time into stages by the innermost
frame that belongs to one:

    waiting         a lock, event or future: waiting for a result another thread makes
    engine          metrics/ (scoring, bootstrap, paired tests, explanations)
    frames          dashboard/frames.py, exports.py, report.py (pandas tables from the engine)
    Altair spec     altair/ and the chart modules (building and validating the spec)
    serialisation   pyarrow, protobuf and Streamlit's marshalling of dataframes and charts
    Streamlit       the rest of Streamlit (widgets, session state, page runner)
    other           everything else (the page scripts' own lines, the standard library)

`--lines N` adds, under each page, the N lines of the dashboard's own code (the innermost
dashboard frame of each sample: a page's section, a view, a cache step) that the samples
fall under most, with their stage: which section of the page the time is spent on.

What it cannot see: sending the messages to the browser and the browser's drawing. Those are
the browser benchmark's "rest" column (its median minus the time to the server's
script_finished message, "script"); its floor columns tell what they cost for the same page
with nothing to compute.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from browser import FULL, Config, write_collection  # noqa: E402
from generate import DEFAULT_OUT  # noqa: E402

PAGES = {
    "Overview": None,
    "K sweep": "app_pages/sweep.py",
    "Per-query heatmap": "app_pages/heatmap.py",
    "Drill-down": "app_pages/drilldown.py",
    "Compare": "app_pages/compare.py",
}
# innermost first: the first stage whose marker is in a frame's file name takes the sample
STAGES = (
    # a thread blocked on another's result (a check started ahead, an entry another thread
    # makes): without this stage the wait counts as the Streamlit code further out
    ("waiting", ("/threading.py", "/concurrent/futures/")),
    ("Altair spec", ("/altair/", "/jsonschema/", "/referencing/", "/narwhals/",
                     "dashboard/views/chart_base.py", "dashboard/views/charts.py",
                     "dashboard/views/comparison_charts.py", "dashboard/views/overlap_charts.py",
                     "dashboard/views/risk_charts.py")),
    ("serialisation", ("/pyarrow/", "/google/protobuf/", "streamlit/dataframe_util.py",
                       "streamlit/elements/lib/column_config_utils.py",
                       "streamlit/elements/arrow.py", "streamlit/elements/vega_charts.py")),
    ("engine", (f"{ROOT / 'metrics'}/",)),
    ("frames", ("dashboard/views/frames.py", "dashboard/views/highlight.py",
                "dashboard/report/")),
    ("Streamlit", ("/streamlit/",)),
)
INTERVAL_S = 0.001


def stage_of(frame) -> str:
    files = []
    while frame is not None:
        files.append(frame.f_code.co_filename)
        frame = frame.f_back
    for name in files:  # innermost first
        for stage, markers in STAGES:
            if any(marker in name for marker in markers):
                return stage
    return "other"


def dashboard_line(frame) -> str:
    """The innermost frame in the dashboard's own code, as 'path:line (function)'."""
    while frame is not None:
        name = frame.f_code.co_filename
        if "dashboard/" in name:
            return f"{name.split('dashboard/', 1)[1]}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back
    return "?"


class Sampler:
    """Samples the stack of every thread running the app script."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.lines: Counter[tuple[str, str]] = Counter()  # (stage, dashboard line)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                probe, in_script = frame, False
                while probe is not None:
                    if "dashboard/" in probe.f_code.co_filename:
                        in_script = True
                        break
                    probe = probe.f_back
                if in_script:
                    stage = stage_of(frame)
                    self.counts[stage] += 1
                    self.lines[stage, dashboard_line(frame)] += 1
            time.sleep(INTERVAL_S)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def page_bytes(app) -> int:
    """The serialised size of every element the page sends (what goes over the WebSocket)."""
    def walk(node):
        yield node
        for child in getattr(node, "children", {}).values():
            yield from walk(child)
    return sum(node.proto.ByteSize() for node in walk(app._tree)
               if hasattr(getattr(node, "proto", None), "ByteSize"))


def open_uploaded(qrels: Path, runs: list[Path]):
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    app.run()
    app.radio(key="load.source").set_value("upload").run()
    app.file_uploader(key="load.qrels").set_value((qrels.name, qrels.read_bytes(), "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [(run.name, run.read_bytes(), "text/plain") for run in runs]).run()
    if app.exception or app.error:
        raise SystemExit(f"the app failed: {[e.value for e in (*app.exception, *app.error)]}")
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=FULL.queries)
    parser.add_argument("--runs", type=int, default=FULL.runs)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lines", type=int, default=0,
                        help="under each page, the N dashboard lines most time is spent under")
    parser.add_argument("--new-k", action="store_true",
                        help="every change of K to a K never used before (the browser "
                        "benchmark's K (new)), and no change of the gain")
    args = parser.parse_args()
    config = Config(queries=args.queries, runs=args.runs, depth=FULL.depth, repeats=1,
                    replacements=0)
    collection = write_collection(config, DEFAULT_OUT / f"browser_{args.queries}x{FULL.depth}")
    app = open_uploaded(collection.qrels, collection.runs)
    ks, gains = [20, 10], ["exponential", "linear"]
    unused = iter(k for k in range(11, FULL.depth) if k != 20)  # --new-k: 11, 12, ...
    changes = (f"{args.repeats} changes to a new K" if args.new_k else
               f"{args.repeats} changes of K and {args.repeats} of the gain")
    print(f"{args.runs} runs x {args.queries:,} queries x {FULL.depth} ids under AppTest; "
          f"median ms per script run over {changes}; sampled every "
          f"{INTERVAL_S * 1000:.0f} ms")
    columns = [stage for stage, _ in STAGES] + ["other"]
    print(f"  {'page':<18}{'whole run':>10}" + "".join(f"{c:>14}" for c in columns)
          + f"{'sent':>10}")
    for page, path in PAGES.items():
        if path:
            app.switch_page(path).run()
        runs: list[tuple[float, Counter]] = []
        lines: Counter[tuple[str, str]] = Counter()
        for repeat in range(args.repeats if args.new_k else 2 * args.repeats):
            if args.new_k:
                widget, value = app.number_input(key="settings.k"), next(unused)
            elif repeat % 2 == 0:
                widget, value = app.number_input(key="settings.k"), ks[repeat // 2 % 2]
            else:
                widget, value = app.radio(key="settings.gain"), gains[repeat // 2 % 2]
            widget.set_value(value)
            with Sampler() as sampler:
                start = time.perf_counter()
                app.run()
                elapsed = time.perf_counter() - start
            if app.exception:
                raise SystemExit(f"{page}: {[e.value for e in app.exception]}")
            runs.append((elapsed, sampler.counts))
            lines.update(sampler.lines)
        whole = statistics.median(e for e, _ in runs) * 1000
        shares = {c: statistics.median(e * counts[c] / max(1, sum(counts.values()))
                                       for e, counts in runs) * 1000 for c in columns}
        print(f"  {page:<18}{whole:>8.0f}ms" + "".join(f"{shares[c]:>12.0f}ms" for c in columns)
              + f"{page_bytes(app) / 1e3:>8.0f}kB")
        total = max(1, sum(lines.values()))
        for (stage, line), count in lines.most_common(args.lines):
            print(f"      {100 * count / total:5.1f}%  {stage:<14}{line}")


if __name__ == "__main__":
    main()
