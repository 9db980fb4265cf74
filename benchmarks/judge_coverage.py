"""Coverage of the prediction-powered intervals when a model judge labels every query and
humans a random sample of them (metrics.stats.ppi, as `python -m metrics judge` builds them).

    python benchmarks/judge_coverage.py [--queries 5000] [--sizes 50,100,200]
                                        [--replications 2000] [--judges 40] [--seed 29]

A measurement, not a test: it prints a Markdown table and always exits 0. The population:
`--queries` queries of 20 candidate ids each, a share of them truly relevant (the share
varies by query), and two runs (A, and a better B) that rank the relevant ids higher with
noise. The judge labels every (query, id) with a false relevant rate of 5% to 35% and a false
non-relevant rate of 10% to 40%, both depending on the query (harder queries fool it more), so
its figures are biased. The engine scores both runs under the true labels and under each of
`--judges` independent draws of the judge's labels (every query counts: empty_queries
"zero"). A replication takes one judge draw and a fresh human sample of n queries, and builds
the 95% human-only interval (the n queries' true figures), the judge-only interval (every
query under the judge), plain PPI (lambda 1) and PPI++ (tuned lambda), for nDCG@10 of each run
and for B minus A; the truth is the population's mean true figure. Coverage is the share of
replications whose interval holds the truth; width the median interval width. The Monte Carlo
standard error of a coverage p over R replications is sqrt(p (1 - p) / R): 0.005 at 0.95 and
R = 2000.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics.core.evaluate import evaluate  # noqa: E402
from metrics.io.rows import Qrels, Run  # noqa: E402
from metrics.stats.ppi import clt_mean, ppi_mean  # noqa: E402
from metrics.vocabulary.conventions import Conventions  # noqa: E402

TARGET = 0.93
CANDIDATES = 20
K = 10
METRIC = "nDCG"
METHODS = ("human only", "judge only", "PPI (lambda 1)", "PPI++ (tuned)")


def population(queries: int, rng: np.random.Generator) -> dict:
    """True grades (0/1/2), each query's judge error rates, and runs A and B as lists."""
    share = rng.beta(2, 8, size=queries)  # the share of relevant candidates varies by query
    relevant = rng.random((queries, CANDIDATES)) < share[:, None]
    grades = np.where(relevant, rng.integers(1, 3, size=relevant.shape), 0)
    hardness = rng.random(queries)
    false_relevant = 0.05 + 0.30 * hardness
    false_nonrelevant = 0.10 + 0.30 * hardness
    runs = {}
    for name, signal in (("A", 1.0), ("B", 1.6)):
        score = relevant * signal + rng.normal(size=relevant.shape)
        order = np.argsort(-score, axis=1)[:, :K]
        runs[name] = Run.from_lists(name, {f"q{q}": [f"d{d}" for d in order[q]]
                                           for q in range(queries)})
    return {"grades": grades, "false_relevant": false_relevant,
            "false_nonrelevant": false_nonrelevant, "runs": runs}


def qrels_of(grades: np.ndarray, source: str) -> Qrels:
    queries, candidates = grades.shape
    ids = [f"q{q}" for q in range(queries)]
    query = np.repeat(np.array(ids, dtype=object), candidates)
    doc = np.tile(np.array([f"d{d}" for d in range(candidates)], dtype=object), queries)
    return Qrels.from_rows(source, ids, query, doc, grades.ravel(),
                           np.arange(1, grades.size + 1))


def judge_grades(pop: dict, rng: np.random.Generator) -> np.ndarray:
    """One draw of the judge's labels: relevant ids missed, non-relevant ones called
    relevant (grade 1), at each query's rates."""
    grades = pop["grades"]
    u = rng.random(grades.shape)
    judged = grades.copy()
    judged[(grades > 0) & (u < pop["false_nonrelevant"][:, None])] = 0
    judged[(grades == 0) & (u < pop["false_relevant"][:, None])] = 1
    return judged


def figures(grades: np.ndarray, runs: dict, source: str) -> dict[str, np.ndarray]:
    """Per-query nDCG@10 of A, B and B - A, every query counting."""
    evaluation = evaluate(qrels_of(grades, source), list(runs.values()), K,
                          Conventions(empty_queries="zero"))
    a = evaluation.per_query_scores("A")[METRIC]
    b = evaluation.per_query_scores("B")[METRIC]
    return {"A": a, "B": b, "B - A": b - a}


def simulate(queries: int, sizes: list[int], replications: int, judges: int,
             seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    pop = population(queries, rng)
    truth = figures(pop["grades"], pop["runs"], "truth")
    judged = [figures(judge_grades(pop, rng), pop["runs"], f"judge {j}") for j in range(judges)]
    rows = []
    for n in sizes:
        draws = np.random.default_rng([seed, n])
        hits = {(t, m): [] for t in truth for m in METHODS}
        widths = {(t, m): [] for t in truth for m in METHODS}
        for r in range(replications):
            judge = judged[r % judges]
            labelled = np.zeros(queries, dtype=bool)
            labelled[draws.choice(queries, size=n, replace=False)] = True
            for target, true in truth.items():
                y, f = true[labelled], judge[target][labelled]
                u = judge[target][~labelled]
                built = {"human only": clt_mean(y, confidence_level=0.95),
                         "judge only": clt_mean(judge[target], confidence_level=0.95),
                         "PPI (lambda 1)": ppi_mean(y, f, u, lam=1.0, confidence_level=0.95),
                         "PPI++ (tuned)": ppi_mean(y, f, u, confidence_level=0.95)}
                for method, estimate in built.items():
                    hits[target, method].append(estimate.covers(true.mean()))
                    widths[target, method].append(estimate.width)
        for target in truth:
            bias = float(np.mean([j[target].mean() for j in judged]) - truth[target].mean())
            for method in METHODS:
                rows.append({"n": n, "target": target, "method": method,
                             "coverage": float(np.mean(hits[target, method])),
                             "width": float(np.median(widths[target, method])),
                             "judge_bias": bias})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| n | figure | interval | coverage | median width | width / human-only |",
             "|---:|---|---|---:|---:|---:|"]
    human = {(r["n"], r["target"]): r["width"] for r in rows if r["method"] == "human only"}
    for r in rows:
        mark = "" if r["method"] == "judge only" or r["coverage"] >= TARGET else " (below)"
        lines.append(f"| {r['n']} | nDCG@{K} {r['target']} | {r['method']} | "
                     f"{r['coverage']:.3f}{mark} | {r['width']:.4f} | "
                     f"{r['width'] / human[r['n'], r['target']]:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--sizes", default="50,100,200")
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--judges", type=int, default=40)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = simulate(args.queries, [int(s) for s in args.sizes.split(",")],
                    args.replications, args.judges, args.seed)
    biases = {r["target"]: r["judge_bias"] for r in rows}
    print(table(rows))
    print()
    print(f"{args.queries:,} queries, {args.replications:,} replications per n, "
          f"{args.judges} judge draws, seed {args.seed}; the judge's mean bias on nDCG@{K}: "
          + ", ".join(f"{t} {b:+.3f}" for t, b in biases.items())
          + f"; {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
