"""A realistic collection for the outputs' tests, written as files the command line reads:
sixty queries with graded labels, four runs of unequal quality (one clearly better than the
baseline, so that some differences are significant) under long names full of LaTeX's special
characters, and the figures a paper adds beside the defaults."""

from __future__ import annotations

from pathlib import Path

import numpy as np

# long run names, every LaTeX special among them (no '=': NAME=FILE splits on the first one)
RUN_NAMES = (
    "BM25 baseline (k1 1.2, b 0.75) #1",
    "dense_e5-large + RRF @ 60% & rerank_top-100",
    "cross~encoder^{reranked} $alpha$ \\ v2",
    "title-only BM25 with a rather long descriptive name_for_the_table",
)
# figures a paper adds beside the summary's: at K, at another cutoff, of the whole list
ADDED = ("P(rel=2)@10", "Rprec", "ERR@20", "R@100", "RBP(p=0.8)")
QUALITY = (0.0, 1.6, 0.8, -0.4)  # how far each run lifts the relevant ids up its list


def write_collection(folder: Path, seed: int = 44, queries: int = 60,
                     depth: int = 100) -> tuple[Path, list[str]]:
    """The qrels file and one `NAME=FILE` argument per run."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], [[] for _ in RUN_NAMES]
    for q in range(queries):
        docs = [f"d{q}-{i}" for i in range(depth + 40)]
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=30)
        qrels += [f"q{q:03d} 0 {doc} {grade}" for doc, grade in zip(docs, grades, strict=False)]
        for lines, lift in zip(runs, QUALITY, strict=True):
            score = rng.normal(size=len(docs))
            score[:30] += lift * (grades > 0)
            order = np.argsort(-score)[:depth]
            lines += [f"q{q:03d} Q0 {docs[i]} {rank} {score[i]:.6f} run"
                      for rank, i in enumerate(order, 1)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    arguments = []
    for i, (name, lines) in enumerate(zip(RUN_NAMES, runs, strict=True)):
        path = folder / f"run{i}.txt"
        path.write_text("\n".join(lines) + "\n")
        arguments.append(f"{name}={path}")
    return folder / "qrels.txt", arguments
