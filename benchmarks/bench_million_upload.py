"""Peak memory of the dashboard scoring an upload of a million queries and two one-id runs.

    python benchmarks/bench_million_upload.py [--queries 1000000] [--pages overview,compare]

A measurement, not a test: it prints one line per step and always exits 0 unless a page
fails. The collection is the shape of the large upload the hostile-input probe made (48 MB
at a million queries: each query one relevant id, two runs of one id a query). It is
uploaded through the dashboard itself, in process, with Streamlit's AppTest: the sidebar's
"My files" uploaders, then the pages asked for, so that what is measured is what a server
holds for one session (the engine's calls through the dashboard's store, the bootstrap's
intervals, the page's frames). The peak is this process's maximum resident set size
(getrusage), which includes Python, Streamlit and the collection's bytes themselves; run it
under `/usr/bin/time -v` for the same figure from outside.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
PAGES = {"overview": None, "sweep": "app_pages/sweep.py", "heatmap": "app_pages/heatmap.py",
         "compare": "app_pages/compare.py", "overlap": "app_pages/overlap.py"}


def collection(queries: int) -> tuple[bytes, bytes, bytes]:
    """Qrels and two runs: the first finds half the relevant ids, the second 60%."""
    qrels = "".join(f"q{i} 0 d{i} 1\n" for i in range(queries)).encode()
    runs = tuple("".join(f"q{i} Q0 d{i if i % share else i + 1} 1 1.0 x\n"
                         for i in range(queries)).encode() for share in (2, 5))
    return qrels, *runs


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--pages", default="overview,compare")
    args = parser.parse_args()
    started = time.perf_counter()
    qrels, first, second = collection(args.queries)
    size = (len(qrels) + len(first) + len(second)) / 2**20
    print(f"collection: {args.queries:,} queries, {size:.0f} MB of files; "
          f"peak {peak_mb():,.0f} MB", flush=True)
    app = AppTest.from_file(str(APP), default_timeout=1800)
    app.run()
    print(f"sample page: peak {peak_mb():,.0f} MB", flush=True)
    app.radio(key="load.source").set_value("upload").run()
    app.file_uploader(key="load.qrels").set_value(("qrels.txt", qrels, "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [("a.run", first, "text/plain"), ("b.run", second, "text/plain")])
    for page in args.pages.split(","):
        step = time.perf_counter()
        if PAGES[page]:
            app.switch_page(PAGES[page])
        app.run()
        failed = [e.value for e in app.exception] + [e.value for e in app.error]
        shown = " ".join(e.value for kind in ("markdown", "caption", "title", "subheader")
                         for e in getattr(app, kind))
        scored = f"{args.queries:,}".replace(",", "\\,") in shown or f"{args.queries:,}" in shown
        print(f"{page}: {time.perf_counter() - step:,.1f} s, peak {peak_mb():,.0f} MB, "
              f"{len(app.dataframe)} tables, {len(app.get('vega_lite_chart'))} charts, "
              f"the upload's {args.queries:,} queries named on the page: {scored}"
              + (f"; FAILED: {failed}" if failed else ""), flush=True)
        if app.exception:
            return 1
    print(f"total {time.perf_counter() - started:,.1f} s, peak {peak_mb():,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
