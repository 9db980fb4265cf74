"""The block-by-block engine at scale: Parquet runs, peak memory from the operating system.

    python benchmarks/bench_blocks.py generate --queries 1000000     # qrels + 3 runs, Parquet
    python benchmarks/bench_blocks.py run --queries 1000000 --repeats 1
    python benchmarks/bench_blocks.py check --queries 10000          # same digits as in memory

`generate` writes OUT/blocks_<N>/qrels.parquet and run0..run2.parquet (OUT defaults to
benchmarks/out/, git-ignored): N queries with 5 to 15 judged ids each (grades 0 to 3, one
query in 25 without a relevant id), each run 100 ids a query (about half the judged ids
retrieved, the rest drawn from a 50-million-id corpus), scores rounded to two decimals so
ties are common, written query by query in the qrels' order (as a batch pipeline writes them;
`--shuffled` writes the rows in random order instead, which the engine spills to one file
per block first). Same seed, same files.

`run` times the command line, `python -m metrics --engine blocks --k 10 --sweep 1:100` over
the three runs (the summary with intervals at K = 10 and the sweep's means and bands at K =
1..100), each repetition in a fresh child process whose peak resident memory is read from
the operating system (`os.wait4`'s rusage, ru_maxrss); medians are printed. `--engine
memory` times the in-memory engine the same way (for comparison at sizes it can hold).

`check` evaluates the same files with both engines in this process and compares every
summary figure, every sweep mean and band and every per-query figure at K, float for float.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path(__file__).resolve().parent / "out"
DEPTH = 100
RUNS = 3
CORPUS = 50_000_000
CHUNK = 10_000  # queries generated and written at once


def folder(out: Path, queries: int, shuffled: bool) -> Path:
    return out / f"blocks_{queries}{'_shuffled' if shuffled else ''}"


def _ids(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pc.cast(pa.array(numbers), pa.string()), "")


def generate(out: Path, queries: int, *, seed: int = 7, shuffled: bool = False) -> Path:
    where = folder(out, queries, shuffled)
    where.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    judged = rng.integers(5, 16, size=queries)
    grades = [rng.choice(4, size=int(n), p=[0.5, 0.3, 0.13, 0.07]) for n in judged]
    for i in range(0, queries, 25):
        grades[i][:] = 0  # one query in 25 without a relevant id
    owner = np.repeat(np.arange(queries), judged)
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(judged) - judged, judged)
    pq.write_table(pa.table({"query_id": _ids("q", owner),
                             "doc_id": _ids("j", owner * 16 + slot),
                             "grade": pa.array(np.concatenate(grades))}),
                   where / "qrels.parquet")
    for r in range(RUNS):
        path = where / f"run{r}.parquet"
        schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                            ("score", pa.float64())])
        tables = []
        with pq.ParquetWriter(path, schema) as writer:
            for start in range(0, queries, CHUNK):
                table = _run_chunk(rng, start, min(start + CHUNK, queries), judged)
                if shuffled:
                    tables.append(table)
                else:
                    writer.write_table(table)
            if shuffled:
                whole = pa.concat_tables(tables)
                whole = whole.take(pa.array(rng.permutation(whole.num_rows)))
                writer.write_table(whole, row_group_size=1 << 20)
    return where


def _run_chunk(rng: np.random.Generator, start: int, stop: int, judged: np.ndarray) -> pa.Table:
    n = stop - start
    queries = np.arange(start, stop)
    column = np.arange(DEPTH)[None, :]
    hit = (column < judged[start:stop, None]) & (rng.random((n, DEPTH)) < 0.5)
    corpus = rng.integers(0, CORPUS, size=(n, DEPTH))
    # a retrieved judged id is named as the qrels name it ("j..."), any other from the corpus
    judged_ids = queries[:, None] * 16 + column
    score = np.round(rng.random((n, DEPTH)) + hit * 0.3, 2)
    order = np.argsort(-score, axis=1, kind="stable")
    rows = np.arange(n)[:, None]
    hit, corpus, judged_ids, score = (a[rows, order] for a in (hit, corpus, judged_ids, score))
    ids = pc.if_else(pa.array(hit.ravel()), _ids("j", judged_ids.ravel()),
                     _ids("c", corpus.ravel()))
    return pa.table({"query_id": _ids("q", np.repeat(queries, DEPTH)), "doc_id": ids,
                     "score": pa.array(score.ravel())})


def command(where: Path, engine: str, extra: list[str]) -> list[str]:
    runs = sum((["--run", str(where / f"run{r}.parquet")] for r in range(RUNS)), [])
    return [sys.executable, "-m", "metrics", "--engine", engine, "--qrels",
            str(where / "qrels.parquet"), *runs, "--k", "10", "--sweep", "1:100",
            "--max-input-mb", "100000", *extra]


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak resident memory (GB) of one child
    process (the machine may be shared: CPU time says what the work cost)."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        error = child.stderr.read().decode()
    seconds = time.perf_counter() - start
    if child.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({child.returncode}):\n{error}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024 / 1024  # ru_maxrss is in KB on Linux


def run(where: Path, engine: str, repeats: int, extra: list[str]) -> None:
    times, cpus, peaks = [], [], []
    for i in range(repeats):
        load = os.getloadavg()[0]
        seconds, cpu, peak = timed(command(where, engine, extra))
        times.append(seconds)
        cpus.append(cpu)
        peaks.append(peak)
        print(f"  repeat {i + 1}: {seconds:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.2f} GB "
              f"(load average {load:.1f} before, {os.getloadavg()[0]:.1f} after)", flush=True)
    rows = pq.ParquetFile(where / "run0.parquet").metadata.num_rows
    print(f"{where.name}: {RUNS} runs x {rows:,} rows, --engine {engine}: "
          f"median {statistics.median(times):.1f} s wall, {statistics.median(cpus):.1f} s CPU, "
          f"peak resident memory "
          f"{statistics.median(peaks):.2f} GB (median of {repeats}; max {max(peaks):.2f} GB)")


def check(where: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from metrics.core.blocks import evaluate_blocks
    from metrics.core.evaluate import evaluate
    from metrics.core.files import RunSource
    from metrics.io import load_qrels, load_run

    qrels, _ = load_qrels(where / "qrels.parquet", max_bytes=1 << 40)
    paths = [where / f"run{r}.parquet" for r in range(RUNS)]
    memory = evaluate(qrels, [load_run(p, max_bytes=1 << 40)[0] for p in paths], 10,
                      sweep=(1, 100))
    blocks = evaluate_blocks(qrels, [RunSource(p) for p in paths], 10, sweep=(1, 100))
    same = blocks.sweep_intervals() == memory.sweep_intervals()
    for got, want in zip(blocks.runs, memory.runs, strict=True):
        same &= got.summary == want.summary
        same &= all(np.array_equal(got.at_k[key], values)
                    for key, values in memory.per_query_scores(want.name).items())
        same &= all(np.array_equal(got.sweep_means[key], values)
                    for key, values in memory.sweep_means(want.name).items())
    print(f"{where.name}: {len(memory.scored_ids):,} scored queries; every summary figure, "
          f"sweep mean and band and per-query figure at K equal: {same}")
    if not same:
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=("generate", "run", "check"))
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--shuffled", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engine", choices=("blocks", "memory"), default="blocks")
    args, extra = parser.parse_known_args()
    where = folder(args.out, args.queries, args.shuffled)
    if args.task == "generate" or not (where / f"run{RUNS - 1}.parquet").exists():
        start = time.perf_counter()
        generate(args.out, args.queries, shuffled=args.shuffled)
        print(f"generated {where} in {time.perf_counter() - start:.0f} s", flush=True)
    if args.task == "run":
        run(where, args.engine, args.repeats, extra)
    elif args.task == "check":
        check(where)


if __name__ == "__main__":
    main()
