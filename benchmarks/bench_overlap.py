"""Time the overlap matrix as the Overlap page and `python -m metrics overlap` run it.

    python benchmarks/bench_overlap.py [--queries 5000] [--runs 5] [--depth 100] [--repeats 5]

A measurement, not a test: it prints medians and always exits 0. The collection is the
browser benchmark's (benchmarks/browser.py), scored at K = 10 and at K = 100. Timed: every
pair of runs' Jaccard, RBO, relevant ids only one finds and hybrid ceiling with their
bootstrap intervals (metrics.overlap), beside a plain Python loop over the same lists for
Jaccard alone, the figure every other tool computes (the OpenSearch workbench, scripts).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.browser import Config, write_collection  # noqa: E402
from metrics import RunSource, evaluate_files, overlap  # noqa: E402


def median_of(repeats: int, task) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        task()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_jaccard(evaluation, k: int) -> None:
    """Jaccard of every pair's top K by Python sets, one query at a time."""
    lists = {}
    for run in evaluation.runs:
        by_query: dict[str, list[str]] = {}
        for query, doc in zip(run.run.query, run.run.doc, strict=True):
            by_query.setdefault(query, []).append(doc)
        lists[run.name] = {q: set(docs[:k]) for q, docs in by_query.items()}
    names = list(lists)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for query in evaluation.scored_ids:
                x, y = lists[a].get(query, set()), lists[b].get(query, set())
                _ = len(x & y) / len(x | y) if x | y else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    out = ROOT / "benchmarks" / "out" / f"browser_{args.queries}x{args.depth}"
    out.mkdir(parents=True, exist_ok=True)
    collection = write_collection(Config(queries=args.queries, runs=args.runs, depth=args.depth,
                                         repeats=1, replacements=0), out)
    sources = [RunSource(path) for path in collection.runs]
    print(f"{args.runs} runs ({args.runs * (args.runs - 1) // 2} pairs) x {args.queries:,} "
          f"queries x {args.depth} ids; medians of {args.repeats}\n")
    print("| K | overlap matrix, 5 figures + intervals | plain loop, Jaccard only | ratio |")
    print("|---|---|---|---|")
    for k in (10, 100):
        evaluation = evaluate_files(collection.qrels, sources, k)
        ours = median_of(args.repeats, lambda evaluation=evaluation: overlap(evaluation))
        plain = median_of(max(1, args.repeats // 2),
                          lambda evaluation=evaluation, k=k: plain_jaccard(evaluation, k))
        print(f"| {k} | {ours:.3f} s | {plain:.3f} s | {plain / ours:.1f}x |")


if __name__ == "__main__":
    main()
