"""The reference for the end-to-end benchmark: TREC files -> dicts -> pytrec_eval -> JSON.

    python benchmarks/pytrec_eval_script.py QRELS RUN [--k 10] [--all]

Written the way people write it: a plain loop over the lines into nested dicts, one
`RelevanceEvaluator` for P, recall, map_cut and ndcg_cut at every cutoff 1..100 plus
recip_rank, then `json.dump` to standard output.

To match what `python -m metrics ... --k 10 --sweep 1:100 --format json` writes, the JSON
holds the per-query values at K (`{"queries": {qid: {"P_10": ...}}}`) and the mean of
every measure at every cutoff (`"means"`, the sweep). `--all` dumps pytrec_eval's whole
per-query result instead (every measure at every cutoff, about 4 million numbers on the
10,000-query collection), which is slower to write.
"""

from __future__ import annotations

import argparse
import json
import sys

import pytrec_eval

CUTOFFS = ",".join(map(str, range(1, 101)))
MEASURES = {
    f"P.{CUTOFFS}",
    f"recall.{CUTOFFS}",
    f"map_cut.{CUTOFFS}",
    f"ndcg_cut.{CUTOFFS}",
    "recip_rank",
}


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            qid, _, docid, grade = line.split()
            qrels.setdefault(qid, {})[docid] = int(grade)
    return qrels


def read_run(path: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            qid, _, docid, _, score, _ = line.split()
            run.setdefault(qid, {})[docid] = float(score)
    return run


def evaluate(qrels: dict, run: dict) -> dict[str, dict[str, float]]:
    return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)


def summarise(results: dict[str, dict[str, float]], k: int) -> dict:
    """Per-query values at K and the mean of every measure (one pass over the queries)."""
    at_k = [f"P_{k}", f"recall_{k}", f"map_cut_{k}", f"ndcg_cut_{k}", "recip_rank"]
    queries: dict[str, dict[str, float]] = {}
    sums: dict[str, float] = {}
    for qid, values in results.items():
        queries[qid] = {m: values[m] for m in at_k}
        for measure, value in values.items():
            sums[measure] = sums.get(measure, 0.0) + value
    n = max(len(results), 1)
    return {"k": k, "queries": queries, "means": {m: total / n for m, total in sums.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--all", action="store_true", help="dump every per-query value")
    args = parser.parse_args()
    results = evaluate(read_qrels(args.qrels), read_run(args.run))
    json.dump(results if args.all else summarise(results, args.k), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
