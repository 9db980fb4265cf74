"""Time the dashboard's re-render after changing K on 5 runs x 5,000 queries x 100 ids, without
a browser.

    python benchmarks/dashboard_rerender.py [--queries 5000] [--runs 5] [--repeats 5]

The collection comes from benchmarks/generate.py (one qrels file, one run of 100 ids per
query, in benchmarks/out/); the other runs are that run with its scores perturbed by a seeded
noise, so that each ranks differently. Every figure is a median over `--repeats`.

(a) The data layer, as the app calls it (dashboard/cache.py, outside a Streamlit server):
    first load   read_uploads (parse the qrels and every run) + build_view at K = 10,
                 every cache empty;
    K, seen      build_view at a K already scored (a hit in the store) plus the
                 frames and charts the Overview draws;
    K, new       build_view at a K not scored yet: the engine re-scores every run.
(b) A whole script run of the Overview page under streamlit.testing's AppTest after the
    K input changes, to a K seen before and to a new one: the app script, the sidebar,
    every widget, the dataframes and the chart specs, as the server would send them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import DEFAULT_OUT, generate, paths  # noqa: E402

from dashboard.data import cache  # noqa: E402
from dashboard.data.cache import FileBytes  # noqa: E402
from dashboard.views import chart_base, charts, frames  # noqa: E402
from metrics import Conventions  # noqa: E402


def collection(queries: int, runs: int) -> tuple[bytes, list[tuple[str, bytes]]]:
    qrels_path, run_path = paths(DEFAULT_OUT, queries)
    if not (qrels_path.exists() and run_path.exists()):
        generate(DEFAULT_OUT, queries=queries)
    lines = run_path.read_bytes().decode().splitlines()
    fields = [line.split() for line in lines]
    scores = np.array([float(f[4]) for f in fields])
    out = []
    for i in range(runs):
        noisy = scores + np.random.default_rng(i).normal(0, 0.05 * i, len(scores))
        text = "".join(f"{f[0]} Q0 {f[2]} {f[3]} {s:.4f} run{i}\n"
                       for f, s in zip(fields, noisy, strict=True))
        out.append((f"run{i}.run", text.encode()))
    return qrels_path.read_bytes(), out


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.0f} ms"


def draw_overview(view: cache.View) -> None:
    """What the Overview page computes besides the widgets: its frames and its chart spec."""
    evaluation = view.evaluation
    frames.summary_table(evaluation)
    frames.counts_table(evaluation)
    charts.interval_bars(evaluation.summary(), chart_base.run_scale(view.colour_domain),
                         k=evaluation.k, confidence_level=0.95,
                         n_queries=len(evaluation.scored_ids)).to_dict()


def data_layer(qrels: bytes, runs: list[tuple[str, bytes]], repeats: int) -> dict[str, list]:
    times: dict[str, list] = {"first load": [], "K, seen": [], "K, new": []}
    conventions = Conventions()
    for repeat in range(repeats):
        cache.store().clear()
        uploads = [FileBytes(name, payload) for name, payload in runs]
        start = time.perf_counter()
        inputs = cache.read_uploads(FileBytes("qrels.txt", qrels), uploads, Conventions(),
                                    viewer="benchmark")
        names = inputs.run_names
        view = cache.build_view(inputs, names, {}, 10, conventions)
        draw_overview(view)
        times["first load"].append(time.perf_counter() - start)

        new_k = 11 + repeat  # never scored before in this repeat
        start = time.perf_counter()
        draw_overview(cache.build_view(inputs, names, {}, new_k, conventions))
        times["K, new"].append(time.perf_counter() - start)

        start = time.perf_counter()
        draw_overview(cache.build_view(inputs, names, {}, 10, conventions))
        times["K, seen"].append(time.perf_counter() - start)
    return times


def whole_script(qrels: bytes, runs: list[tuple[str, bytes]], repeats: int) -> dict[str, list]:
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=600)
    app.run()
    app.radio(key="load.source").set_value("upload").run()
    app.file_uploader(key="load.qrels").set_value(("qrels.txt", qrels, "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [(name, payload, "text/plain") for name, payload in runs]).run()
    if app.exception or app.error:
        raise SystemExit(f"the app failed: {[e.value for e in (*app.exception, *app.error)]}")
    times: dict[str, list] = {"script, K seen": [], "script, K new": []}
    for repeat in range(repeats):
        start = time.perf_counter()
        app.number_input(key="settings.k").set_value(20 + repeat).run()
        times["script, K new"].append(time.perf_counter() - start)
        app.number_input(key="settings.k").set_value(10).run()  # back to a seen K
        start = time.perf_counter()
        app.number_input(key="settings.k").set_value(20 + repeat).run()
        times["script, K seen"].append(time.perf_counter() - start)
        assert not app.exception, [e.value for e in app.exception]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-script", action="store_true", help="only (a), no AppTest")
    args = parser.parse_args()

    qrels, runs = collection(args.queries, args.runs)
    print(f"{args.runs} runs x {args.queries:,} queries x 100 ids "
          f"({sum(len(p) for _, p in runs) / 1e6:.0f} MB of runs); medians of {args.repeats}")
    results = data_layer(qrels, runs, args.repeats)
    if not args.skip_script:
        results |= whole_script(qrels, runs, args.repeats)
    for name, samples in results.items():
        print(f"  {name:<16}{median_ms(samples)}")


if __name__ == "__main__":
    main()
