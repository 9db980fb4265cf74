"""Random collections for the Spark tests: graded judgments, queries without a relevant id,
runs with tied scores and ranks, repeated ids, queries a run leaves out and queries the qrels
do not know; written as CSV for the in-memory readers and as rows for Spark."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.core.evaluate import Evaluation, evaluate
from metrics.io import load_qrels, load_run
from metrics.vocabulary.conventions import Conventions


@dataclass(frozen=True)
class Collection:
    qrels: pd.DataFrame  # query_id, doc_id, grade, in file order
    runs: dict[str, pd.DataFrame]  # name -> query_id, doc_id, rank and/or score, file order

    def in_memory(self, k: int, conventions: Conventions | None = None,
                  sweep: tuple[int, int] | None = None) -> Evaluation:
        """The in-memory engine on the same rows, read from CSV as the command line reads."""
        qrels, _ = load_qrels(self.qrels.to_csv(index=False).encode(), file_name="qrels.csv")
        runs = [load_run(frame.to_csv(index=False).encode(), file_name=f"{name}.csv",
                         run_name=name)[0] for name, frame in self.runs.items()]
        return evaluate(qrels, runs, k, conventions, sweep=sweep)


def random_collection(seed: int, *, queries: int = 60, docs: int = 40, depth: int = 15,
                      runs: int = 2, max_grade: int = 3, order: str = "rank") -> Collection:
    """`queries` queries (a few without a relevant id, a few with no judgment above 0), each
    run answering most of them with up to `depth` ids drawn with repeats; `order` "rank"
    writes a rank column with ties, "score" only tied scores; a few run queries are unknown
    to the qrels."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        judged = rng.choice(docs, size=int(rng.integers(0, 12)), replace=False)
        empty = rng.random() < 0.15  # no relevant id: excluded from the means
        for d in judged:
            grade = 0 if empty else int(rng.integers(-1 if q % 7 == 0 else 0, max_grade + 1))
            rows.append((f"q{q}", f"d{d}", grade))
        if not len(judged):
            rows.append((f"q{q}", "d0", 0))
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])
    qrels = qrels.sample(frac=1, random_state=seed).reset_index(drop=True)  # interleaved
    frames = {}
    for r in range(runs):
        lines = []
        for q in range(queries + 3):  # three queries the qrels do not know
            if rng.random() < 0.1:
                continue  # a query the run leaves out
            n = int(rng.integers(0, depth + 1))
            ids = rng.integers(0, docs, size=n)  # with repeats
            ranks = np.sort(rng.integers(1, depth + 1, size=n))  # with ties
            scores = np.round(rng.random(n), 1)  # many ties
            lines += [(f"q{q}", f"d{d}", int(rank), float(score))
                      for d, rank, score in zip(ids, ranks, scores, strict=True)]
        frame = pd.DataFrame(lines, columns=["query_id", "doc_id", "rank", "score"])
        frame = frame.sample(frac=1, random_state=seed + r).reset_index(drop=True)
        frames[f"run{r}"] = frame.drop(columns="score") if order == "rank" else frame.drop(
            columns="rank")
    return Collection(qrels, frames)
