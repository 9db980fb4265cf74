"""A small collection with human labels on a sample of its queries and a biased judge's
labels on all of them, written as TREC files (the judge tests' fixture)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_judged(folder: Path, *, queries: int = 60, labelled: int = 20, seed: int = 7,
                 chosen: list[int] | None = None) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    paths = {name: folder / f"{name}.txt" for name in ("human", "judge")}
    paths |= {name: folder / f"{name}.run" for name in ("bm25", "dense", "hybrid")}
    drawn = set(rng.choice(queries, labelled, replace=False).tolist())
    sample = set(chosen) if chosen is not None else drawn  # the same collection either way
    human, judge = [], []
    runs: dict[str, list[str]] = {"bm25": [], "dense": [], "hybrid": []}
    for q in range(queries):
        relevant = rng.random(12) < 0.25
        grade = np.where(relevant, rng.integers(1, 3, 12), 0)
        judged = grade.copy()
        judged[(grade == 0) & (rng.random(12) < 0.2)] = 1
        judged[(grade > 0) & (rng.random(12) < 0.25)] = 0
        for d in range(12):
            if q in sample:
                human.append(f"q{q} 0 d{d} {grade[d]}\n")
            judge.append(f"q{q} 0 d{d} {judged[d]}\n")
        for i, name in enumerate(runs):
            score = relevant * (0.4 + 0.4 * i) + rng.random(12) + (q % 5 == 0) * relevant
            for rank, d in enumerate(np.argsort(-score)[:6]):
                runs[name].append(f"q{q} Q0 d{d} {rank + 1} {score[d]:.5f} {name}\n")
    paths["human"].write_text("".join(human))
    paths["judge"].write_text("".join(judge))
    for name, lines in runs.items():
        paths[name].write_text("".join(lines))
    return paths
