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
engine's summary), its latency's mean with a bootstrap interval over the queries, and the
latency's p50 and p95 as points (numpy's linear percentile; the intervals of a percentile
come with issue 49's latency figures). Then TF-IDF against BM25: the paired difference of
nDCG@10 (the headline) and of each query's latency, each with its paired bootstrap interval.

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
SEED = metrics.DEFAULT_SEED


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
    rows = []
    for name, result in results.items():
        summary = evaluation.run(name).summary
        ms = np.array([result.latency_ms[q] for q in result.query_ids
                       if q in result.latency_ms])
        mean_iv = metrics.bootstrap(ms[:, None], rng=SEED)[0]
        p50, p95 = np.percentile(ms, [50, 95])
        rows.append([name, interval(summary["nDCG"]), interval(summary["R"]),
                     f"{mean_iv.mean:.2f} [{mean_iv.low:.2f}, {mean_iv.high:.2f}]",
                     f"{p50:.2f}", f"{p95:.2f}", f"{len(result.failures)}"])
    for run in stored.runs:
        rows.append([run.name, interval(run.summary["nDCG"]), interval(run.summary["R"]),
                     "-", "-", "-", "-"])
    header = ["retriever", f"nDCG@{K}", f"R@{K}", "latency mean ms", "p50 ms", "p95 ms",
              "failed"]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)))

    comparison = metrics.headline_comparison(evaluation, f"nDCG@{K}", baseline="bm25")
    print()
    print(metrics.headlines(comparison, f"nDCG@{K}")[0])
    both = [q for q in results["bm25"].query_ids
            if q in results["bm25"].latency_ms and q in results["tfidf"].latency_ms]
    difference = np.array([results["tfidf"].latency_ms[q] - results["bm25"].latency_ms[q]
                           for q in both])
    paired = metrics.bootstrap(difference[:, None], rng=SEED)[0]
    p95 = {name: np.percentile(list(r.latency_ms.values()), 95) for name, r in results.items()}
    print(f"latency, tfidf - bm25 per query (ms, {len(both):,} queries both answered): "
          f"{paired.mean:+.2f} [{paired.low:+.2f}, {paired.high:+.2f}] (paired bootstrap, "
          f"95%); p95 ratio tfidf/bm25 {p95['tfidf'] / p95['bm25']:.2f}")


if __name__ == "__main__":
    main()
