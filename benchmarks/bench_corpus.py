"""Time reading the texts of the retrieved ids from a large corpus file, and its peak memory.

    python benchmarks/bench_corpus.py [--passages 2000000] [--runs 5] [--queries 5000]
                                      [--depth 100] [--repeats 3] [--tsv]

A measurement, not a test: it prints PASS/MISS against the targets and always exits 0.

The corpus is generated, seeded, into benchmarks/out/ (git-ignored) when absent:
`corpus_<N>.jsonl`, BEIR's corpus.jsonl (`{"_id": "d0000001", "title": "", "text": ...}`,
as BEIR's MS MARCO, whose titles are empty), N passages of 10 to 110 words, about 60 on
average (MS MARCO's mean), words of 1 to 12 letters; with `--tsv` also `corpus_<N>.tsv`, the
same passages as MS MARCO's collection.tsv (`d0000001<TAB>text`). The ids wanted are those
`--runs` runs of `--queries` queries x `--depth` ids would retrieve: each query has a pool of
1.2 x depth ids drawn from the corpus (1% of them absent from it), and each run retrieves
`--depth` of its query's pool, so the runs overlap as retrievers do; the distinct ids of all
runs (about 520,000 with the defaults) are the ids asked for.

Each of `--repeats` reads runs in a fresh Python process: it builds the wanted ids (untimed),
then times `metrics.io.corpus.read_corpus(path, ids)` and reports its own peak resident
memory (ru_maxrss of RUSAGE_SELF) before and after the read. The table shows the median, min
and max time and the largest peak over the repeats: the whole process's real peak, imports
and the wanted ids included. (Linux keeps a parent's resident size as a child's starting
ru_maxrss, so the files are generated in a child process too, and this parent stays small:
no numpy here.)

Targets: median read < 30 s and process peak < 1 GB (10^9 bytes), on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
SEED = 14
TARGET_SECONDS = 30.0
TARGET_BYTES = 10**9
ABSENT_SHARE = 0.01  # wanted ids the corpus does not hold
_BATCH = 100_000  # passages written at a time


def doc_id(code: int) -> str:
    return f"d{code:07d}"


def corpus_paths(passages: int, tsv: bool) -> dict[str, Path]:
    paths = {"beir": OUT / f"corpus_{passages}.jsonl"}
    if tsv:
        paths["tsv"] = OUT / f"corpus_{passages}.tsv"
    return paths


def wanted_path(passages: int, runs: int, queries: int, depth: int) -> Path:
    return OUT / f"wanted_{passages}_{runs}x{queries}x{depth}.npy"


def generate(passages: int, tsv: bool, runs: int, queries: int, depth: int) -> None:
    """The corpus files and the wanted ids, written once (seeded, same bytes every time)."""
    OUT.mkdir(parents=True, exist_ok=True)
    generate_corpus(passages, tsv)
    path = wanted_path(passages, runs, queries, depth)
    if not path.exists():
        generate_wanted(path, passages, runs, queries, depth)


def generate_corpus(passages: int, tsv: bool) -> None:
    import numpy as np

    todo = {fmt: path for fmt, path in corpus_paths(passages, tsv).items() if not path.exists()}
    if not todo:
        return
    print(f"writing {', '.join(p.name for p in todo.values())} ...", flush=True)
    rng = np.random.default_rng(SEED)
    pool, starts = _word_pool(rng)
    parts = {fmt: path.with_suffix(path.suffix + ".part") for fmt, path in todo.items()}
    handles = {fmt: part.open("w", encoding="utf-8") for fmt, part in parts.items()}
    try:
        for first in range(1, passages + 1, _BATCH):
            count = min(_BATCH, passages + 1 - first)
            words = rng.integers(10, 111, count)  # mean 60
            begin = rng.integers(0, len(starts) - 111, count)
            texts = [pool[starts[b] : starts[b + n] - 1]
                     for b, n in zip(begin.tolist(), words.tolist(), strict=True)]
            codes = range(first, first + count)
            if "beir" in handles:
                handles["beir"].write("".join(
                    f'{{"_id": "{doc_id(c)}", "title": "", "text": "{t}"}}\n'
                    for c, t in zip(codes, texts, strict=True)))
            if "tsv" in handles:
                handles["tsv"].write("".join(
                    f"{doc_id(c)}\t{t}\n" for c, t in zip(codes, texts, strict=True)))
    finally:
        for handle in handles.values():
            handle.close()
    for fmt, part in parts.items():
        part.replace(todo[fmt])


def _word_pool(rng) -> tuple[str, list[int]]:
    """Four million words of a 50,000-word vocabulary joined by spaces, and where each starts:
    a passage is a slice of it, which writes two million passages in seconds."""
    import numpy as np

    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)
    lengths = np.clip(rng.geometric(0.2, 50_000), 1, 12)
    vocabulary = [bytes(rng.choice(letters, n)).decode() for n in lengths.tolist()]
    draws = rng.zipf(1.3, 4_000_000) % len(vocabulary)
    words = [vocabulary[i] for i in draws.tolist()]
    starts = np.r_[0, np.cumsum([len(w) + 1 for w in words])].tolist()
    return " ".join(words) + " ", starts


def generate_wanted(path: Path, passages: int, runs: int, queries: int, depth: int) -> None:
    """The codes of the ids the runs retrieve, (runs, queries, depth); codes above
    `passages` are ids the corpus does not hold."""
    import numpy as np

    rng = np.random.default_rng(SEED + 1)
    pool_size = int(depth * 1.2)
    pools = rng.integers(1, passages + 1, (queries, pool_size))
    absent = rng.random((queries, pool_size)) < ABSENT_SHARE
    pools[absent] = passages + rng.integers(1, 1_000_000, int(absent.sum()))
    picks = np.argsort(rng.random((runs, queries, pool_size)), axis=2)[:, :, :depth]
    wanted = np.take_along_axis(np.broadcast_to(pools, picks.shape[:2] + (pool_size,)), picks, 2)
    np.save(path, wanted.astype(np.int32))


def child(corpus: str, wanted: str) -> None:
    """One timed read, in this process; its figures as one JSON line."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from metrics.io.corpus import read_corpus

    ids = [doc_id(code) for code in np.unique(np.load(wanted)).tolist()]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    found, report = read_corpus(corpus, ids)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "seconds": seconds, "rss_before_kib": before, "rss_after_kib": after,
        "wanted": report.wanted, "found": report.found, "missing": report.missing,
        "lines": report.lines_read, "words": found.words_per_chunk,
    }))


def measure(corpus: Path, wanted: Path, repeats: int) -> list[dict]:
    figures = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(corpus), str(wanted)],
            capture_output=True, text=True, check=True,
        )
        figures.append(json.loads(done.stdout))
    return figures


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(fmt: str, corpus: Path, figures: list[dict]) -> bool:
    seconds = [f["seconds"] for f in figures]
    median = statistics.median(seconds)
    peak = max(f["rss_after_kib"] for f in figures) * 1024
    before = max(f["rss_before_kib"] for f in figures) * 1024
    first = figures[0]
    print(f"\n{fmt}: {corpus.name}, {corpus.stat().st_size / 1e9:.2f} GB, "
          f"{first['lines']:,} lines, {first['words']:.1f} words a passage kept")
    print(f"  wanted {first['wanted']:,} distinct ids: {first['found']:,} found, "
          f"{first['missing']:,} not in the corpus")
    print(f"  read_corpus   median {median:6.2f} s  (min {min(seconds):.2f}, max "
          f"{max(seconds):.2f}, {len(seconds)} runs)   target < {TARGET_SECONDS:.0f} s   "
          f"{verdict(median < TARGET_SECONDS)}")
    print(f"  peak memory   {peak / 1e6:6.0f} MB  (process, imports and wanted ids included; "
          f"{before / 1e6:.0f} MB before the read)   target < {TARGET_BYTES / 1e9:.0f} GB   "
          f"{verdict(peak < TARGET_BYTES)}")
    return median < TARGET_SECONDS and peak < TARGET_BYTES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=5_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tsv", action="store_true", help="also time the TSV corpus")
    parser.add_argument("--child", nargs=2, metavar=("CORPUS", "WANTED"), help=argparse.SUPPRESS)
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    shape = (args.runs, args.queries, args.depth)
    if args.child:
        child(*args.child)
        return
    if args.generate:
        generate(args.passages, args.tsv, *shape)
        return
    subprocess.run([sys.executable, *sys.argv, "--generate"], check=True)
    corpora = corpus_paths(args.passages, args.tsv)
    wanted = wanted_path(args.passages, *shape)
    print(f"{args.runs} runs x {args.queries:,} queries x {args.depth} ids over "
          f"{args.passages:,} passages; {os.cpu_count()} cores")
    passed = [report(fmt, path, measure(path, wanted, args.repeats))
              for fmt, path in corpora.items()]
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"\n(this parent's peak, a floor under each child's: {own / 1e6:.0f} MB)")
    print("all targets met" if all(passed) else "some targets missed")


if __name__ == "__main__":
    main()
