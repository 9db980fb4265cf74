"""Two real retrievers evaluated live over a real corpus, compared with their latency.

    python benchmarks/live_retrievers.py [COLLECTION_DIR] [--out OUT_DIR] [--concurrency N]

Needs the `bench` extra (bm25s, scikit-learn). COLLECTION_DIR (default /work/real, else
benchmarks/out/stdlib/) is what benchmarks/stdlib_collection.py writes: corpus.jsonl (the
standard library's docstrings, BEIR), queries.jsonl and qrels.txt. Over it, the same two
retrievers stdlib_collection.py builds, made here from its own functions (`bm25_index`,
`top`) so that they are the same: BM25 (bm25s: Lucene's variant, English stopwords) over
title + text, and TF-IDF cosine (scikit-learn's TfidfVectorizer, sublinear tf, English
stopwords) over title + text, each answering one query's text with its top 100 (chunk id,
score). Each is called live on every query by `metrics.evaluate_retriever` (20 warm-up calls
not counted, each call timed with perf_counter), its TREC run and timings written to OUT_DIR
(default benchmarks/out/live/, git-ignored), and scored against the qrels at K = 10.

The table: each retriever's nDCG@10 and Recall@10 with their bootstrap intervals (the
engine's summary), and its latency's mean, p50 and p95 each with its bootstrap interval:
the engine's latency figures (`metrics.timed`, the ones `compare --timings` prints), read
over the scored queries, a quantile's interval being the percentile bootstrap of the
quantile over the resampled queries. Then TF-IDF against BM25: the paired difference of
nDCG@10 (the headline) and of latency (the mean of the per-query differences, the difference
of p95s and their ratio, read on the same resampled queries), each with its interval.

Latency is wall time on a shared machine: read the ratio between the two, not the numbers
alone. The stored bm25.run and tfidf.run of the collection are scored too, beside the live
runs: the figures differ only where tied scores are ordered differently (stdlib_collection
writes ties in corpus order with ranks; a TREC run read by score orders them by doc id).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
# Python puts this folder first on sys.path, where coverage.py would pass for the coverage
# package (numba, which bm25s uses when present, imports it): the same guard as
# stdlib_collection.py's
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import metrics  # noqa: E402
from benchmarks.stdlib_collection import DEPTH, bm25_index, top  # noqa: E402

DEFAULT_COLLECTION = Path("/work/real")
DEFAULT_OUT = HERE / "out" / "live"
K = 10
WARMUP = 20


def read_corpus(path: Path) -> tuple[list[str], list[str]]:
    """The chunk ids and their texts (title + text, as stdlib_collection indexes them)."""
    ids, texts = [], []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            chunk = json.loads(line)
            ids.append(chunk["_id"])
            texts.append(f"{chunk.get('title', '')} {chunk['text']}")
    return ids, texts


def bm25_retriever(ids: list[str], texts: list[str]):
    """BM25 over the texts: a query's text -> its top DEPTH (chunk id, score)."""
    import bm25s

    def tokens(strings: list[str]) -> list[list[str]]:
        return bm25s.tokenize(strings, stopwords="en", return_ids=False, show_progress=False)

    scores = bm25_index(tokens(texts))

    def search(text: str) -> list[tuple[str, float]]:
        return [(ids[i], score) for i, score in top(scores(tokens([text])[0]), DEPTH)]

    return search


def tfidf_retriever(ids: list[str], texts: list[str]):
    """TF-IDF cosine over the texts: a query's text -> its top DEPTH (chunk id, score)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    documents = vectorizer.fit_transform(texts).T.tocsr()  # rows are unit length: cosine

    def search(text: str) -> list[tuple[str, float]]:
        cosine = (vectorizer.transform([text]) @ documents).toarray().ravel()
        return [(ids[i], score) for i, score in top(cosine, DEPTH)]

    return search


def interval(iv) -> str:
    return f"{iv.mean:.3f} [{iv.low:.3f}, {iv.high:.3f}]"


def milliseconds(figure, *, signed: bool = False) -> str:
    """A latency figure with its interval in ms, two decimals ('2.78 [2.45, 3.12]'); an
    undefined one in the engine's words."""
    if figure.undefined is not None:
        return metrics.format.undefined(figure.undefined)
    sign = "+" if signed else ""
    return (f"{figure.value:{sign}.2f} [{figure.low:{sign}.2f}, "
            f"{figure.high:{sign}.2f}]")


def live_timings(results: dict) -> dict[str, metrics.RunTimings]:
    """Each live run's latencies as the engine reads a timings file: one value a query."""
    timings = {}
    for name, result in results.items():
        ids = tuple(sorted(result.latency_ms))
        timings[name] = metrics.RunTimings(name, f"{name} (live)", ids, {
            metrics.vocabulary.timings.LATENCY: np.array([result.latency_ms[q] for q in ids],
                                                         dtype=float)})
    return timings


def report_lines(evaluation, found, *, failed: dict[str, int], stored=None,
                 baseline: str = "bm25", k: int = K) -> list[str]:
    """What the example prints: each run's effectiveness and latency figures with their
    intervals (`found`: metrics.timed over the evaluation's scored queries), the stored runs'
    effectiveness below them, then each other run against `baseline`: the nDCG@k headline
    and the paired latency differences and p95 ratio with their intervals, and how the
    latency intervals were made."""
    level = metrics.format.confidence(evaluation.conventions.confidence_level)
    rows = []
    for name in evaluation.run_names:
        summary = evaluation.run(name).summary
        cost = found.of(name)
        latency = (["no timings"] * 3 if cost is None else
                   [milliseconds(cost.figure(s)) for s in ("mean", "p50", "p95")])
        rows.append([name, interval(summary["nDCG"]), interval(summary["R"]), *latency,
                     f"{failed.get(name, 0)}"])
    for run in stored.runs if stored is not None else ():
        rows.append([run.name, interval(run.summary["nDCG"]), interval(run.summary["R"]),
                     "-", "-", "-", "-"])
    header = ["retriever", f"nDCG@{k}", f"R@{k}", "latency mean ms", "p50 ms", "p95 ms",
              "failed"]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, ["-" * w for w in widths], *rows]]
    comparison = metrics.headline_comparison(evaluation, f"nDCG@{k}", baseline=baseline)
    lines += ["", *metrics.headlines(comparison, f"nDCG@{k}")]
    for pair in found.pairs:
        if pair.column != metrics.vocabulary.timings.LATENCY or pair.baseline != baseline:
            continue
        ratio = pair.ratio("p95")
        lines.append(
            f"latency, {pair.candidate} - {pair.baseline} ({pair.n:,} scored queries both "
            f"answered; {level} intervals, paired bootstrap): mean of the per-query "
            f"differences {milliseconds(pair.difference('mean'), signed=True)} ms; p95 "
            f"difference {milliseconds(pair.difference('p95'), signed=True)} ms; p95 ratio "
            + (metrics.format.undefined(ratio.undefined) if ratio.undefined is not None else
               metrics.vocabulary.timings.ratio_interval(ratio.value, ratio.low, ratio.high)))
    if found.runs:
        lines.append("latency intervals: " + metrics.vocabulary.timings.QUANTILE_INTERVAL
                     .format(level=level))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", nargs="?", type=Path, help="the collection's folder "
                        "(default /work/real, else benchmarks/out/stdlib/)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="where the runs and timings go (default benchmarks/out/live/)")
    parser.add_argument("--concurrency", type=int, default=1, help="calls at once (1)")
    args = parser.parse_args()
    collection = args.collection or (DEFAULT_COLLECTION if DEFAULT_COLLECTION.is_dir()
                                     else HERE / "out" / "stdlib")
    if not (collection / "corpus.jsonl").is_file():
        sys.exit(f"{collection}/corpus.jsonl not found: run benchmarks/stdlib_collection.py")
    args.out.mkdir(parents=True, exist_ok=True)
    queries = metrics.load_queries(collection / "queries.jsonl")
    qrels, _ = metrics.load_qrels(collection / "qrels.txt")

    started = time.perf_counter()
    ids, texts = read_corpus(collection / "corpus.jsonl")
    built = {}
    retrievers = {}
    for name, make in (("bm25", bm25_retriever), ("tfidf", tfidf_retriever)):
        began = time.perf_counter()
        retrievers[name] = make(ids, texts)
        built[name] = time.perf_counter() - began
    print(f"{len(ids):,} chunks read and indexed in {time.perf_counter() - started:.1f} s "
          f"(bm25 {built['bm25']:.1f} s, tfidf {built['tfidf']:.1f} s); {len(queries):,} "
          f"queries, {args.concurrency} call(s) at a time, {WARMUP} warm-up calls each")

    results = {}
    for name, search in retrievers.items():
        results[name] = metrics.evaluate_retriever(
            search, queries, DEPTH, run_name=name, warmup=WARMUP,
            concurrency=args.concurrency, qrels=qrels, eval_k=K,
            out=args.out / f"{name}.run", timings_out=args.out / f"{name}.timings.csv")
        result = results[name]
        print(f"{name}: {result.answered:,} answered, {len(result.failures):,} failed, "
              f"{len(result.empty):,} with no id, in {result.wall_s:.1f} s -> "
              f"{args.out / (name + '.run')}, {args.out / (name + '.timings.csv')}")

    # both live runs in one evaluation: the same query set, compared query by query
    evaluation = metrics.evaluate(qrels, [results["bm25"].run, results["tfidf"].run], K)
    stored = metrics.evaluate_files(collection / "qrels.txt", [
        metrics.RunSource(collection / f"{name}.run", name=f"{name} (stored)")
        for name in retrievers], K)
    found = metrics.timed(evaluation.run_names, evaluation.scored_ids,
                          live_timings(results), evaluation.conventions, baseline="bm25")
    print()
    print("\n".join(report_lines(evaluation, found, stored=stored,
                                 failed={n: len(r.failures) for n, r in results.items()})))


if __name__ == "__main__":
    main()
