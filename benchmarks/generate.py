"""Generate a seeded benchmark collection as TREC files: qrels and one run.

    python benchmarks/generate.py [OUT_DIR] [--queries 10000] [--depth 100] [--seed 7]

writes OUT_DIR/qrels_<N>.txt (`qid 0 docid grade`) and OUT_DIR/run_<N>.txt
(`qid Q0 docid rank score tag`), OUT_DIR defaulting to benchmarks/out/ (git-ignored).

The collection imitates a real one: each query has 20 to 50 judged ids (grades -1 to 3,
mostly 0 and 1), about 4% of queries have no relevant id at all (excluded by the engine),
the run returns `depth` distinct ids per query drawn from the judged ids and from a
10-million-document corpus (so most retrieved ids are unjudged and a quarter of the
relevant ids are never retrieved). Scores are rounded to two decimals, so ties are
frequent; the file lists each query's ids by score, ties in random order (rank column
1..depth in file order), so the trec_eval tie-break (doc id descending) has work to do.
Same seed, same bytes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent / "out"
CORPUS = 10_000_000  # doc ids doc0000000 .. doc9999999
GRADES = np.array([-1, 0, 1, 2, 3])
GRADE_WEIGHTS = np.array([0.03, 0.55, 0.22, 0.13, 0.07])
NO_RELEVANT_SHARE = 0.04  # queries whose judged ids are all non-relevant


def paths(out_dir: Path, queries: int) -> tuple[Path, Path]:
    return out_dir / f"qrels_{queries}.txt", out_dir / f"run_{queries}.txt"


def generate(
    out_dir: Path, *, queries: int = 10_000, depth: int = 100, seed: int = 7
) -> tuple[Path, Path]:
    """Write the qrels and run files; return their paths."""
    if queries < 1 or depth < 1:
        raise ValueError(f"queries and depth must be positive, got {queries} and {depth}")
    rng = np.random.default_rng(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = paths(out_dir, queries)
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    for number in range(queries):
        qid = f"q{number + 1:05d}"
        n_judged = int(rng.integers(20, 51))
        # distinct ids: judged ones first, then unjudged candidates for the rest of the list
        ids = _distinct(rng, n_judged + depth)
        judged, pool = ids[:n_judged], ids[n_judged:]
        grades = rng.choice(GRADES, size=n_judged, p=GRADE_WEIGHTS)
        if rng.random() < NO_RELEVANT_SHARE:
            grades = np.minimum(grades, 0)
        # a relevant id is retrieved with probability 0.75, a judged non-relevant one 0.5
        retrieved = rng.random(n_judged) < np.where(grades > 0, 0.75, 0.5)
        picked = np.concatenate([judged[retrieved], pool])[:depth]
        picked_grades = np.concatenate([grades[retrieved], np.zeros(len(pool), dtype=int)])
        picked_grades = picked_grades[:depth]
        # higher grades score higher on average; two decimals make ties frequent
        scores = np.round(
            np.clip(0.35 + 0.12 * np.maximum(picked_grades, 0) + rng.normal(0, 0.12, depth), 0, 1),
            2,
        )
        names = [f"doc{d:07d}" for d in picked]
        # the retriever's order: score descending, ties in an arbitrary order of its own
        # (trec_eval and the engine re-sort ties by doc id descending, ignoring the rank)
        order = np.lexsort((rng.random(depth), -scores))
        for rank, i in enumerate(order, start=1):
            run_lines.append(f"{qid} Q0 {names[i]} {rank} {scores[i]:.2f} bench\n")
        qrels_lines.extend(f"{qid} 0 doc{d:07d} {g}\n" for d, g in zip(judged, grades, strict=True))
    qrels_path.write_text("".join(qrels_lines), encoding="utf-8")
    run_path.write_text("".join(run_lines), encoding="utf-8")
    return qrels_path, run_path


def _distinct(rng: np.random.Generator, n: int) -> np.ndarray:
    """n distinct corpus ids in random order (collisions are rare in a 10M corpus)."""
    ids = rng.integers(0, CORPUS, size=n + 8)
    _, first = np.unique(ids, return_index=True)
    ids = ids[np.sort(first)]
    while len(ids) < n:  # pragma: no cover - needs many collisions
        ids = np.unique(np.concatenate([ids, rng.integers(0, CORPUS, size=n)]))
    return ids[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100, help="retrieved ids per query")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    qrels, run = generate(args.out_dir, queries=args.queries, depth=args.depth, seed=args.seed)
    print(f"wrote {qrels} and {run}")


if __name__ == "__main__":
    main()
