"""Time metrics.fusion against ranx on the same two runs, and print a Markdown table.

    python benchmarks/bench_fusion.py [--repeats 5] [--keep-numba-cache]

A measurement, not a test: it always exits 0. The runs are benchmarks/out/browser_5000x100/
run1.run and run2.run (5,000 queries x 100 ids, scores to 4 decimals, the same ids re-ranked
under two seeded noises) with qrels_5000.txt, written by benchmarks/browser.py's seeded
collection when absent. Both tools fuse already-loaded runs: loading is not timed.

Timed, each a median of `--repeats` after one untimed first call, the two tools alternating:
  RRF (k = 60):    metrics.fuse(runs, method="rrf")
                   ranx.fuse(runs, norm=None, method="rrf", params={"k": 60})
  CombSUM min-max: metrics.fuse(runs, method="combsum", norm="minmax")
                   ranx.fuse(runs, norm="min-max", method="sum")
This engine's time includes the fused run's order (score descending, ties by doc id) and its
doc id strings; ranx returns its numba dicts unsorted. ranx is numba-compiled with
parallel=True: its first call compiles the fusion functions, shown apart from the
steady-state median, and is a true compile because NUMBA_CACHE_DIR points at a fresh
temporary directory (`--keep-numba-cache` uses ranx's own cache instead: a second process
then only loads it). The CPU column (user + system, every thread) shows the parallel work.

Info row: the cross-fitted weight search of metrics.fusion (11 weights of weighted CombSUM,
each fusing every query, scored by one metrics.evaluate call); ranx has no cross-fitting
(its optimize_fusion tunes in sample). An agreement check compares both tools' fused score
of every (query, doc) pair: CombSUM must agree to rounding; RRF differs where a run's scores
tie, which this engine ranks by trec_eval's rule (doc id descending) and ranx by numba's
unstable argsort.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Python puts this folder on sys.path, where coverage.py would pass for the coverage package
# that numba looks for: it is taken off, and put back only to import browser.py
sys.path = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != HERE]

from metrics import load_qrels, load_run  # noqa: E402
from metrics.context.fusion import cross_fitted_weights, fuse  # noqa: E402

OUT = HERE / "out" / "browser_5000x100"
TASKS = {  # label -> (our keyword arguments, ranx keyword arguments)
    "RRF (k = 60)": ({"method": "rrf"}, {"norm": None, "method": "rrf", "params": {"k": 60}}),
    "CombSUM min-max": ({"method": "combsum", "norm": "minmax"},
                        {"norm": "min-max", "method": "sum"}),
}


def collection() -> tuple[Path, Path, Path]:
    paths = OUT / "run1.run", OUT / "run2.run", OUT / "qrels_5000.txt"
    if not all(path.exists() for path in paths):
        sys.path.insert(0, str(HERE))
        try:
            from browser import Config, write_collection
        finally:
            sys.path.remove(str(HERE))
        print(f"writing the seeded collection to {OUT} ...", file=sys.stderr)
        OUT.mkdir(parents=True, exist_ok=True)
        write_collection(Config(queries=5000, runs=2, depth=100, repeats=0, replacements=0),
                         OUT)
    return paths


def clocked(call: Callable[[], object]) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def load_ranx(keep_cache: bool):
    if not keep_cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-")
    try:
        import ranx
    except ImportError as exc:
        return None, f"ranx not installed ({exc}); `pip install ranx` to time it beside"
    from importlib.metadata import version

    return ranx, f"ranx {version('ranx')}, numba {version('numba')}"


def agreement(ours, theirs, inputs) -> tuple[int, float, float, bool]:
    """(pairs, largest |difference|, share of pairs within 1e-9, whether every pair beyond
    1e-9 has a score tied within its query in some input run) over the fused pairs."""
    theirs = theirs.to_dict()
    pairs = list(zip(ours.query.tolist(), ours.doc.tolist(), ours.score.tolist(), strict=True))
    diffs = [abs(score - theirs[q].get(d, float("inf"))) for q, d, score in pairs]
    tied = set()
    for run in inputs:
        rows = list(zip(run.query.tolist(), run.doc.tolist(), run.score.tolist(), strict=True))
        counts = Counter((q, s) for q, _, s in rows)
        tied |= {(q, d) for q, d, s in rows if counts[q, s] > 1}
    explained = all((q, d) in tied for (q, d, _), diff in zip(pairs, diffs, strict=True)
                    if diff >= 1e-9)
    extra = max(sum(map(len, theirs.values())) - len(diffs), 0)
    return len(diffs) + extra, max(diffs), sum(d < 1e-9 for d in diffs) / len(diffs), explained


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep-numba-cache", action="store_true")
    args = parser.parse_args()
    run1, run2, qrels_path = collection()
    ranx, ranx_note = load_ranx(args.keep_numba_cache)

    ours = [load_run(run1)[0], load_run(run2)[0]]
    qrels, _ = load_qrels(qrels_path)
    theirs, load_s = None, 0.0
    if ranx is not None:
        load_s, _, theirs = clocked(lambda: [ranx.Run.from_file(str(p), kind="trec")
                                             for p in (run1, run2)])

    rows, agreements = [], []
    for label, (mine, other) in TASKS.items():
        first_ours, _, fused = clocked(lambda mine=mine: fuse(ours, **mine))
        first_ranx, fused_ranx = None, None
        if ranx is not None:
            first_ranx, _, fused_ranx = clocked(lambda other=other: ranx.fuse(theirs, **other))
        times: dict[str, list[tuple[float, float]]] = {"ours": [], "ranx": []}
        for repeat in range(args.repeats):
            order = ["ours", "ranx"] if repeat % 2 == 0 else ["ranx", "ours"]
            for tool in order:
                if tool == "ours":
                    times["ours"].append(clocked(lambda mine=mine: fuse(ours, **mine))[:2])
                elif ranx is not None:
                    times["ranx"].append(clocked(
                        lambda other=other: ranx.fuse(theirs, **other))[:2])
        rows.append((label, first_ours, times["ours"], first_ranx, times["ranx"]))
        if ranx is not None:
            agreements.append((label, *agreement(fused[0], fused_ranx, ours)))

    fit_s, _, fit = clocked(lambda: cross_fitted_weights(qrels, ours))

    print(f"Fusion of two runs, {len(ours[0].query_ids):,} queries x 100 ids "
          f"({len(ours[0].doc_ids):,} lines each); median of {args.repeats}, wall (CPU) "
          f"seconds; {ranx_note}.\n")
    print("| fusion | this engine | ranx | ranx ÷ engine | engine first call | "
          "ranx first call (numba compile) |")
    print("|---|---|---|---|---|---|")
    for label, first_ours, mine, first_ranx, other in rows:
        wall = statistics.median(t for t, _ in mine)
        cpu = statistics.median(c for _, c in mine)
        if other:
            their_wall = statistics.median(t for t, _ in other)
            their_cpu = statistics.median(c for _, c in other)
            theirs_cell = f"{their_wall:.3f} ({their_cpu:.3f})"
            ratio, first = f"{their_wall / wall:.1f}x", f"{first_ranx:.2f}"
        else:
            theirs_cell, ratio, first = "skipped", "-", "-"
        print(f"| {label} | {wall:.3f} ({cpu:.3f}) | {theirs_cell} | {ratio} | "
              f"{first_ours:.3f} | {first} |")
    print(f"| cross-fitted weight search (info: 11 weights, evaluate included) | {fit_s:.2f} "
          "| - | - | - | - |")
    print(f"\nWeight search: {fit.sentence}")
    if ranx is not None:
        cache = ("its own on-disk cache" if args.keep_numba_cache
                 else "a fresh NUMBA_CACHE_DIR, so a true compile")
        print(f"ranx loaded both runs in {load_s:.1f} s (untimed above; numba compiles its "
              f"loaders too); its first call used {cache}.")
        for label, pairs, largest, share, explained in agreements:
            why = (" Every pair beyond it has a score tied within its query in an input run."
                   if explained and share < 1 else "")
            print(f"Agreement, {label}: {pairs:,} (query, doc) pairs, largest |engine − ranx| "
                  f"{largest:.2e}, {share:.1%} within 1e-9.{why}")


if __name__ == "__main__":
    main()
