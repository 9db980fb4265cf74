"""What a person sees while a large Parquet run is uploaded, read and scored, in a real browser.

    python benchmarks/bench_large_upload.py [--queries 48000] [--depth 100]

A measurement, not a test: it prints one line per phase and exits 0 unless the page never
shows its summary. The collection is generated, seeded, into benchmarks/out/large_upload/
(git-ignored): qrels (10 judged ids a query, grades 0-3) and one run of `--depth` ids a query
whose ids are 32-character hex strings (chunk UUIDs, as vector stores name them) and whose
scores are full doubles, so that the Parquet file is about 197 MB at 48,000 queries (under
the server's 200 MB an upload; Streamlit counts 10^6 bytes a MB). The dashboard starts on a
free port (benchmarks/browser.py's server), headless Chromium (Debian's /usr/bin/chromium
through Playwright) opens "My files", uploads the qrels, then the run, and from the run's
input event polls the page every 100 ms until the Overview's summary is drawn, recording:

- when the run's reading status ("Reading run.parquet (… MB)…") first shows, when it says
  "Read … in N s", when the scoring bar first shows and each text it shows, and when the
  summary appears;
- the browser's own responsiveness: how long each poll (a `page.evaluate` round trip) took;
  a frozen page would stall them (the largest is printed);
- the server's peak resident memory (VmRSS of the streamlit process and its children,
  sampled each poll).

Screenshots of the sidebar's reading status and of the scoring bar go to
benchmarks/out/large_upload/ (reading.png, scoring.png, done.png).
"""

from __future__ import annotations

import argparse
import binascii
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from browser import rss_mib, start_server, stop_server  # the dashboard benchmark's server

OUT = Path(__file__).resolve().parent / "out" / "large_upload"
CHROMIUM = "/usr/bin/chromium"


def hex_ids(rng: np.random.Generator, n: int) -> pa.Array:
    raw = binascii.hexlify(rng.bytes(16 * n))
    return pa.array(np.frombuffer(raw, dtype="S32")).cast(pa.string())


def generate(queries: int, depth: int, seed: int = 11) -> tuple[Path, Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    qrels, run = OUT / f"qrels-{queries}.parquet", OUT / f"run-{queries}x{depth}.parquet"
    if qrels.exists() and run.exists():
        return qrels, run
    rng = np.random.default_rng(seed)
    judged = hex_ids(rng, queries * 10)
    query_ids = pa.array([f"q{i}" for i in range(queries)])
    pq.write_table(pa.table({
        "query_id": pa.array(np.repeat(np.arange(queries), 10)).cast(pa.string()),
        "doc_id": judged,
        "grade": pa.array(rng.choice(4, size=queries * 10, p=[0.4, 0.3, 0.2, 0.1]))}), qrels)
    del query_ids
    with pq.ParquetWriter(run, pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                                          ("score", pa.float64())])) as writer:
        step = 5_000
        for start in range(0, queries, step):
            stop = min(start + step, queries)
            n = (stop - start) * depth
            ids = hex_ids(rng, n).to_numpy(zero_copy_only=False).astype(object)
            # a third of each query's judged ids come back, at random ranks
            for i, q in enumerate(range(start, stop)):
                ranks = rng.choice(depth, size=3, replace=False)
                ids[i * depth + ranks] = judged.slice(q * 10, 3).to_numpy(zero_copy_only=False)
            writer.write_table(pa.table({
                "query_id": pa.array(np.repeat(np.arange(start, stop), depth)).cast(pa.string()),
                "doc_id": pa.array(ids, pa.string()),
                "score": pa.array(np.sort(rng.random(n).reshape(-1, depth))[:, ::-1].ravel())}))
    return qrels, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=48_000)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    started = time.perf_counter()
    qrels, run = generate(args.queries, args.depth)
    size = run.stat().st_size / 1e6
    print(f"collection: {args.queries:,} queries x {args.depth} ids, run {size:,.1f} MB, "
          f"qrels {qrels.stat().st_size / 1e6:,.1f} MB ({time.perf_counter() - started:.0f} s)",
          flush=True)
    server, base = start_server(OUT / "server.log")
    try:
        return measure(base, server.pid, qrels, run)
    finally:
        stop_server(server)


def measure(base: str, pid: int, qrels: Path, run: Path) -> int:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(base)
        page.wait_for_selector("text=Summary at K", timeout=120_000)
        page.get_by_text("My files").click()
        page.wait_for_timeout(1500)
        inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        inputs.nth(0).set_input_files(str(qrels))
        page.wait_for_selector("text=Upload a qrels file and at least one run", timeout=120_000,
                               state="attached")
        page.wait_for_timeout(3000)
        clock = time.perf_counter()
        inputs.nth(1).set_input_files(str(run))
        seen: dict[str, float] = {}
        texts: list[tuple[float, str]] = []
        worst_poll, peak = 0.0, 0.0
        shots = {"reading": False, "scoring": False}
        while True:
            now = time.perf_counter() - clock
            if now > 900:
                print("MISS: no summary after 900 s")
                return 1
            polled = time.perf_counter()
            state = page.evaluate("""() => {
                const t = document.body.innerText;
                const bar = document.querySelector('[data-testid="stProgress"]');
                return {reading: /Reading run-[^\\n]*MB\\)…/.test(t),
                        read: /Read run-[^\\n]* in [0-9.]+ s/.test(t),
                        scoring: !!bar, bar: bar ? bar.innerText : '',
                        done: /Summary at K/.test(t),
                        refused: /File must be [0-9.]+MB or smaller/.test(t)};
            }""")
            worst_poll = max(worst_poll, time.perf_counter() - polled)
            if state["refused"]:
                print(f"MISS: the browser refused {run.name} ({run.stat().st_size / 1e6:,.1f} MB) "
                      "as over the upload bound")
                return 1
            peak = max(peak, rss_mib(pid))
            for key in ("reading", "read", "scoring", "done"):
                if state[key] and key not in seen:
                    seen[key] = now
                    print(f"{now:7.1f} s  {key}", flush=True)
            if state["bar"] and (not texts or texts[-1][1] != state["bar"]):
                texts.append((now, state["bar"]))
                print(f"{now:7.1f} s  bar: {state['bar']!r}", flush=True)
            for key in shots:
                if state[key] and not shots[key]:
                    page.screenshot(path=str(OUT / f"{key}.png"))
                    shots[key] = True
            if state["done"]:
                page.wait_for_timeout(1500)
                page.screenshot(path=str(OUT / "done.png"))
                break
            page.wait_for_timeout(100)
        print(f"first feedback (reading status) {seen.get('reading', float('nan')):.1f} s after "
              f"the input event; read {seen.get('read', float('nan')):.1f} s; scoring bar "
              f"{seen.get('scoring', float('nan')):.1f} s; summary {seen['done']:.1f} s; "
              f"slowest browser poll {worst_poll * 1000:,.0f} ms; server peak RSS "
              f"{peak:,.0f} MiB", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
