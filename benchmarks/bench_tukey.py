"""Time the randomized Tukey HSD at issue 48's size: 10 runs x 10,000 queries x 10,000
permutations, within 10 s on 2 cores.

    python benchmarks/bench_tukey.py [--runs 10] [--queries 10000] [--permutations 10000]
                                     [--repeats 3]

A measurement, not a test: it prints the median wall-clock and CPU seconds (user + sys of
every thread: on a shared machine the CPU column moves less with other load) and always exits
0. The scores are seeded, shaped like per-query figures (a query's difficulty, runs a little
apart, clipped to [0, 1]); each repeat is one call of ``metrics.tukey_hsd`` and a read of its
classic p (computed on first read), as a page or the command line would.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics import tukey_hsd  # noqa: E402

TARGET_SECONDS = 10.0


def scores(queries: int, runs: int, seed: int = 48) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(0.45, 0.2, (queries, 1)) + rng.normal(0, 0.15, (queries, runs))
                   + np.linspace(0, 0.02, runs), 0, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    table = scores(args.queries, args.runs)
    warm = tukey_hsd(table[:50], n_permutations=10, rng=1)  # imports and the table, once
    assert warm.p_classic.shape == (args.runs, args.runs)
    walls, cpus = [], []
    for _ in range(args.repeats):
        wall, cpu = time.perf_counter(), os.times()
        found = tukey_hsd(table, n_permutations=args.permutations, rng=1)
        classic = found.p_classic  # computed on first read
        assert classic.shape == (args.runs, args.runs)
        walls.append(time.perf_counter() - wall)
        after = os.times()
        cpus.append(after.user - cpu.user + after.system - cpu.system)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.runs} runs x {args.queries:,} queries x {args.permutations:,} permutations, "
          f"{os.cpu_count()} cores, load {load:.1f}; medians of {args.repeats}")
    print(f"  wall {wall:.2f} s (each: {', '.join(f'{w:.2f}' for w in walls)}), "
          f"CPU {cpu:.2f} s (each: {', '.join(f'{c:.2f}' for c in cpus)})")
    verdict = "PASS" if wall <= TARGET_SECONDS else "MISS"
    print(f"{verdict}: target {TARGET_SECONDS:g} s wall")


if __name__ == "__main__":
    main()
