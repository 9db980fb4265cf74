"""Time the leakage check as the dashboard and `python -m metrics leakage` run it.

    python benchmarks/bench_leakage.py [--queries 5000] [--runs 5] [--depth 100] [--repeats 3]

A measurement, not a test: it prints the medians and always exits 0. No peer tool checks
leakage, so the figures are absolute: the time a reader waits the first time the Overview
shows the leakage warning (it is cached afterwards), on this machine.

The collection is generated, seeded: `--queries` queries of 6 to 14 words; each query has a
pool of 1.2 x depth chunk ids and `--runs` runs each retrieve `--depth` of its pool; the qrels
judge 3 ids a query. Every chunk is 40 to 80 words; one query in a hundred is copied into one
of its retrieved chunks (half verbatim, half with a third of its words changed, which the
3-gram rule must still find or rightly miss). Its words are made up ("w123"), so no query
reads as a sentence: every query is checked (`every_query=True`), which times the matching
itself. Timed, per repeat: `retrieved_or_judged`
(the candidates from the qrels and the runs) and `find_leaks` on them (scope retrieved), and
`find_leaks` streaming every chunk (scope corpus).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics import Corpus, Qrels, Run, find_leaks, load_queries, retrieved_or_judged  # noqa: E402

SEED = 16
LEAK_SHARE = 0.01
WORDS = [f"w{i}" for i in range(20_000)]


def collection(n_queries: int, n_runs: int, depth: int):
    rng = random.Random(SEED)
    texts = {f"q{i:05d}": " ".join(rng.choices(WORDS, k=rng.randint(6, 14)))
             for i in range(n_queries)}
    pools = {q: [f"d{i:05d}_{j}" for j in range(int(1.2 * depth))]
             for i, q in enumerate(texts)}
    runs = [Run.from_lists(f"run{r}", {q: rng.sample(pool, depth) for q, pool in pools.items()})
            for r in range(n_runs)]
    judged = [(q, pool[j], 1) for q, pool in pools.items() for j in range(3)]
    qrels = Qrels.from_rows("qrels", list(texts), [q for q, _, _ in judged],
                            [d for _, d, _ in judged], [g for _, _, g in judged],
                            list(range(1, len(judged) + 1)))
    chunks = {}
    for q, pool in pools.items():
        for doc in pool:
            chunks[doc] = " ".join(rng.choices(WORDS, k=rng.randint(40, 80)))
        if rng.random() < LEAK_SHARE:
            words = texts[q].split()
            if rng.random() < 0.5:
                words = [w if rng.random() > 1 / 3 else rng.choice(WORDS) for w in words]
            chunks[pool[0]] += " " + " ".join(words)
    lines = "".join(f"{q}\t{t}\n" for q, t in texts.items()).encode()
    queries = load_queries(lines, file_name="queries.tsv")
    corpus = Corpus("corpus", tuple(chunks), ("",) * len(chunks), tuple(chunks.values()))
    return queries, qrels, runs, corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    queries, qrels, runs, corpus = collection(args.queries, args.runs, args.depth)
    print(f"{args.queries:,} queries x {args.runs} runs x {args.depth} ids, {len(corpus):,} "
          f"chunks (generated in {time.perf_counter() - started:.1f} s)")
    timings: dict[str, list[float]] = {"candidates": [], "retrieved": [], "corpus": []}
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        candidates = retrieved_or_judged(qrels, runs)
        t1 = time.perf_counter()
        found = find_leaks(queries, corpus, candidates=candidates, every_query=True)
        t2 = time.perf_counter()
        streamed = find_leaks(queries, zip(corpus.doc_ids, corpus.texts, strict=True),
                              every_query=True)
        t3 = time.perf_counter()
        timings["candidates"].append(t1 - t0)
        timings["retrieved"].append(t2 - t1)
        timings["corpus"].append(t3 - t2)
    print(f"leaks found: {len(found.leaks):,} (retrieved scope), {len(streamed.leaks):,} "
          "(corpus scope)")
    for name, label in (("candidates", "retrieved_or_judged (the candidates)"),
                        ("retrieved", "find_leaks, scope retrieved"),
                        ("corpus", "find_leaks, scope corpus (every chunk streamed)")):
        values = timings[name]
        print(f"  {label:50} median {statistics.median(values):6.2f} s "
              f"(min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
