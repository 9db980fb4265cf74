"""Time `python -m metrics --engine spark` on a modest collection in local mode.

    python benchmarks/bench_spark.py [--queries 100000] [--depth 100] [--runs 1] [--k 10]
                                     [--master local[2]] [--sweep 1:20] [--in-memory]

A measurement, not a test: it writes a seeded collection as Parquet into benchmarks/out/spark/
(qrels: 1-12 graded judgments a query, a few queries without a relevant id; each run: `depth`
ids a query with a rank column), then runs the command line once as a separate process, as
a user would (`--format json`, output discarded), and prints its wall-clock time, its peak
resident memory and the JVM's (each from the operating system: the process's own, and
Spark's JVM's as /proc reports it while it runs). With --in-memory it also writes the same
rows as CSV and times the in-memory command on them the same way, for the side by side.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "spark"


def ids(prefix: str, values: np.ndarray) -> pa.Array:
    return pa.array(np.char.add(prefix, values.astype(str)).astype(object), pa.string())


def write_collection(queries: int, depth: int, runs: int, seed: int = 27,
                     csv: bool = False) -> tuple[list[str], list[str]]:
    """The Parquet files, the command line's --qrels and --run arguments; and the same for
    CSV copies of them when `csv`."""
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    per_query = rng.integers(1, 13, size=queries)
    query = np.repeat(np.arange(queries), per_query)
    # the j-th id a query may see is (7 q + 31 j) mod 5,000: distinct for each query; the
    # qrels judge its first 1-12, a run draws from its first 400 (repeats among them)
    first = np.cumsum(per_query) - per_query
    doc = (7 * query + 31 * (np.arange(len(query)) - np.repeat(first, per_query))) % 5000
    grade = rng.integers(0, 4, size=len(query))
    grade[np.isin(query, np.arange(0, queries, 9))] = 0  # no relevant id
    table = pa.table({"query_id": ids("q", query), "doc_id": ids("d", doc), "grade": grade})
    pq.write_table(table, OUT / "qrels.parquet")
    argv = ["--qrels", str(OUT / "qrels.parquet")]
    as_csv = []
    if csv:
        pacsv.write_csv(table, OUT / "qrels.csv")
        as_csv = ["--qrels", str(OUT / "qrels.csv")]
    for r in range(runs):
        query = np.repeat(np.arange(queries), depth)
        doc = (7 * query + 31 * rng.integers(0, 400, size=len(query))) % 5000
        rank = np.tile(np.arange(1, depth + 1), queries)
        path = OUT / f"run{r}.parquet"
        table = pa.table({"query_id": ids("q", query), "doc_id": ids("d", doc), "rank": rank})
        pq.write_table(table, path, row_group_size=1 << 20)
        argv += ["--run", f"run{r}={path}"]
        if csv:
            pacsv.write_csv(table, OUT / f"run{r}.csv")
            as_csv += ["--run", f"run{r}={OUT / f'run{r}.csv'}"]
    return argv, as_csv


def timed(command: list[str]) -> tuple[float, int, float, float]:
    """(wall-clock seconds, exit status, the process's peak resident MB, its largest
    descendant's), the peaks read from /proc every half second."""
    peaks: dict[int, float] = {}
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)

    def watch() -> None:
        while process.poll() is None:
            for pid in [process.pid, *descendants(process.pid)]:
                peaks[pid] = max(peaks.get(pid, 0.0), rss_mb(pid))
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    code = process.wait()
    elapsed = time.perf_counter() - start
    watcher.join()
    own = peaks.pop(process.pid, 0.0)
    return elapsed, code, own, max(peaks.values(), default=0.0)


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):  # the peak resident set
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        found += [int(c) for c in children]
        frontier += [int(c) for c in children]
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--sweep", default=None, help="FROM:TO, also scored per query")
    parser.add_argument("--in-memory", action="store_true",
                        help="also time the in-memory command on the same rows as CSV")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    inputs, csv_inputs = write_collection(args.queries, args.depth, args.runs,
                                          csv=args.in_memory)
    print(f"wrote {args.queries:,} queries x {args.depth} ids x {args.runs} run(s) as Parquet "
          f"in {time.perf_counter() - start:.1f} s")
    tail = ["--k", str(args.k), "--format", "json"] + (["--sweep", args.sweep]
                                                       if args.sweep else [])
    command = [sys.executable, "-m", "metrics", "--engine", "spark", "--spark-master",
               args.master, *inputs, *tail]
    elapsed, code, driver, child = timed(command)
    print(f"python -m metrics --engine spark --spark-master {args.master}: {elapsed:.1f} s "
          f"wall clock, exit {code}; peak resident memory: Python driver {driver:,.0f} MB, "
          f"largest child (the JVM, or a Python worker) {child:,.0f} MB")
    if args.in_memory:
        elapsed, code, own, _ = timed([sys.executable, "-m", "metrics", *csv_inputs,
                                       "--max-input-mb", "4096", *tail])
        print(f"python -m metrics (in memory, the same rows as CSV): {elapsed:.1f} s wall "
              f"clock, exit {code}; peak resident memory {own:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
