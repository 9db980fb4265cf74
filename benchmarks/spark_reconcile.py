"""Spark's own ranking measures beside this engine's, on the same run: the README's
reconciliation table.

    python benchmarks/spark_reconcile.py [--queries 300] [--k 10] [--seed 5]

One random collection (graded labels 0-3, a sixth of the queries without a relevant id, lists
with repeated ids, a few queries the run leaves out) is scored by
`pyspark.mllib.evaluation.RankingMetrics` (each query's list as given, and with its repeats
blanked: each replaced by an id no label names, so that it keeps its slot and scores nothing,
as here; the labels are the query's relevant ids, best grade first: from Python, Spark takes
no relevance values) and by this engine (`metrics.evaluate_spark`, in the same Spark session), under
its defaults and under the conventions that ask for Spark's reading. It prints a Markdown
table; tests/metrics/spark/test_reconcile.py runs the same function and checks that every
figure read under Spark's conventions equals Spark's on the lists with repeats blanked.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics import Conventions, evaluate_spark, spark_session  # noqa: E402
from metrics.vocabulary.spark import (  # noqa: E402
    DIFFERENCES,
    EMPTY_QUERIES_DIFFERENCE,
    REPEATS_DIFFERENCE,
)


@dataclass(frozen=True)
class Row:
    spark_name: str  # Spark's method
    ours: str  # this engine's figure under its defaults
    spark: float  # Spark on the lists as given
    spark_first: float  # Spark on the lists with their repeats blanked
    default: float  # this engine, its defaults
    matched: float  # this engine under `conventions`
    conventions: str  # the flags that give Spark's reading
    cause: str


def collection(queries: int, seed: int):
    """(qrels rows, run rows): (query, doc, grade) and (query, doc, rank)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        empty = q % 6 == 0  # no relevant id
        docs = rng.choice(200, size=int(rng.integers(1, 25)), replace=False)
        qrels += [(f"q{q}", f"d{d}", 0 if empty else int(rng.integers(0, 4))) for d in docs]
        if q % 11 == 5:
            continue  # the run leaves it out
        pool = np.concatenate([docs, rng.integers(0, 200, size=30)])
        ids = rng.choice(pool, size=int(rng.integers(5, 30)))  # repeats
        run += [(f"q{q}", f"d{d}", rank + 1) for rank, d in enumerate(ids)]
    return qrels, run


def spark_figures(spark, qrels, run, k: int, *, first_only: bool) -> dict[str, float]:
    """RankingMetrics on (prediction, labels) per query: the labels are the relevant ids, best
    grade first (the order its nDCG reads the ideal list in)."""
    from pyspark.mllib.evaluation import RankingMetrics

    labels: dict[str, list[tuple[str, int]]] = {}
    for q, d, g in qrels:
        labels.setdefault(q, [])
        if g >= 1:
            labels[q].append((d, g))
    lists: dict[str, list[str]] = {}
    for q, d, _ in run:
        shown = lists.setdefault(q, [])
        # a repeat keeps its slot and scores nothing here: an id no label names stands in it
        shown.append(f"repeat {len(shown)}" if first_only and d in shown else d)
    rows = [(lists.get(q, []), [d for d, _ in sorted(judged, key=lambda pair: -pair[1])])
            for q, judged in labels.items()]
    metrics = RankingMetrics(spark.sparkContext.parallelize(rows, 2))
    return {"precisionAtK": metrics.precisionAt(k), "recallAtK": metrics.recallAt(k),
            "meanAveragePrecisionAtK": metrics.meanAveragePrecisionAt(k),
            "ndcgAtK": metrics.ndcgAt(k), "meanAveragePrecision": metrics.meanAveragePrecision}


def ours(spark, qrels, run, k: int, conventions: Conventions, *, binary: bool = False):
    frame = spark.createDataFrame(
        [(q, d, min(g, 1) if binary else g) for q, d, g in qrels], "query_id string, "
        "doc_id string, grade long")
    lists = spark.createDataFrame(run, "query_id string, doc_id string, rank long")
    return evaluate_spark(frame, {"run": lists}, k, conventions).run("run").summary


def reconcile(spark, *, queries: int = 300, k: int = 10, seed: int = 5) -> list[Row]:
    qrels, run = collection(queries, seed)
    given = spark_figures(spark, qrels, run, k, first_only=False)
    first = spark_figures(spark, qrels, run, k, first_only=True)
    default = ours(spark, qrels, run, k, Conventions())
    zero = Conventions(empty_queries="zero")
    readings = {
        "precisionAtK": (zero, "--empty-queries zero"),
        "recallAtK": (zero, "--empty-queries zero"),
        "meanAveragePrecisionAtK": (Conventions(empty_queries="zero", recall_denominator="min"),
                                    "--empty-queries zero --recall-denominator min"),
        "ndcgAtK": (zero, "--empty-queries zero, labels read as 0/1"),
        "meanAveragePrecision": (Conventions(empty_queries="zero", ap="full"),
                                 "--empty-queries zero --ap full"),
    }
    rows = []
    for difference in DIFFERENCES:
        conventions, flags = readings[difference.spark]
        matched = ours(spark, qrels, run, k, conventions,
                       binary=difference.spark == "ndcgAtK")[difference.ours].mean
        label = difference.ours if difference.spark != "meanAveragePrecision" else "map"
        rows.append(Row(difference.spark, f"{label}@{k}" if label != "map" else label,
                        given[difference.spark], first[difference.spark],
                        default[difference.ours].mean, matched, flags, difference.cause))
    return rows


def markdown(rows: list[Row]) -> str:
    lines = ["| Spark | this engine | Spark, lists as given | Spark, repeats blanked | "
             "this engine, default | this engine, Spark's reading | flags | why |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.spark_name} | {r.ours} | {r.spark:.5f} | {r.spark_first:.5f} | "
              f"{r.default:.5f} | {r.matched:.5f} | `{r.conventions}` | {r.cause} |"
              for r in rows]
    return "\n".join(lines + ["", f"Every row: {EMPTY_QUERIES_DIFFERENCE}; "
                              f"{REPEATS_DIFFERENCE}."])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    spark = spark_session(args.master, shuffle_partitions=2)
    spark.sparkContext.setLogLevel("ERROR")
    try:
        print(markdown(reconcile(spark, queries=args.queries, k=args.k, seed=args.seed)))
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
