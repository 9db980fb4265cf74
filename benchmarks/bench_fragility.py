"""Time the fragility check as Compare and `compare --fragility` run it.

    python benchmarks/bench_fragility.py [--queries 5000] [--runs 5] [--depth 100] [--k 10]
                                         [--repeats 5]

A measurement, not a test: it prints medians and always exits 0. The collection is the
browser benchmark's (benchmarks/browser.py: generate.py's qrels and base run, then `--runs`
seeded re-rankings of it, TREC files in benchmarks/out/), scored at K. Timed, per repeat:

- the comparison the page shows (every candidate against the first run, 8 metrics, 10,000
  sign flips): the reference the check is read against;
- the check without the TREC order (what the page waits when the runs are not TREC files);
- the check with the runs read again in the other order (the first time: reading 5 files);
- the naive way, for contrast: each alternative scored and compared whole
  (metrics.evaluate + compare_evaluation per choice), which is what the check must agree with.

No peer tool checks whether a verdict survives another convention, so the figures are
absolute, and the ratio to the comparison says what the check adds to a page.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.browser import Config, write_collection  # noqa: E402
from metrics import (  # noqa: E402
    RunSource,
    compare_evaluation,
    evaluate,
    evaluate_files,
    fragility,
)
from metrics.core.files import rereader  # noqa: E402
from metrics.decide.fragility import alternatives  # noqa: E402

OUT = ROOT / "benchmarks" / "out"


def median_of(repeats: int, task) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = task()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    out = OUT / f"browser_{args.queries}x{args.depth}"
    out.mkdir(parents=True, exist_ok=True)
    config = Config(queries=args.queries, runs=args.runs, depth=args.depth, repeats=1,
                    replacements=0)
    collection = write_collection(config, out)
    sources = [RunSource(path) for path in collection.runs]
    evaluation = evaluate_files(collection.qrels, sources, args.k)
    print(f"{args.runs} runs x {len(evaluation.scored_ids):,} scored queries x {args.depth} "
          f"ids, K = {args.k}; medians of {args.repeats}\n")

    compare_s, comparison = median_of(args.repeats, lambda: compare_evaluation(evaluation))
    check_s, found = median_of(args.repeats, lambda: fragility(evaluation, comparison))
    reread = rereader(sources, evaluation)
    order_s, with_order = median_of(args.repeats,
                                    lambda: fragility(evaluation, comparison, reread=reread))

    def naive():
        tried, _ = alternatives(evaluation, reread)
        for field, value in tried:
            conventions = dataclasses.replace(evaluation.conventions, **{field: value})
            if field == "order":
                runs = reread(value)
            else:
                runs = [run.run for run in evaluation.runs]
            compare_evaluation(evaluate(evaluation.qrels, runs, args.k, conventions))

    naive_s, _ = median_of(max(1, args.repeats // 2), naive)
    rows = [
        ("comparison shown (reference)", compare_s, ""),
        ("fragility check, no TREC order", check_s, f"{len(found.tried)} alternatives"),
        ("fragility check, TREC order read again", order_s,
         f"{len(with_order.tried)} alternatives"),
        ("naive: each alternative scored and compared whole", naive_s, ""),
    ]
    print("| step | median | ÷ comparison | note |\n|---|---|---|---|")
    for name, seconds, note in rows:
        print(f"| {name} | {seconds:.2f} s | {seconds / compare_s:.2f} | {note} |")
    print(f"\n{with_order.summary}")


if __name__ == "__main__":
    main()
