"""A small collection a walk can upload: human labels (on every query, or on a sample of
them), a noisy judge's labels on every query, three runs, the queries' texts with a facet,
and a corpus. Seeded: the same seed writes the same bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RUNS = ("bm25", "dense", "hybrid")
INTENTS = ("lookup", "how-to", "troubleshooting")
WORDS = ("invoice", "refund", "token", "webhook", "export", "region", "plan", "login", "report",
         "quota", "audit", "sync")


@dataclass(frozen=True)
class Collection:
    folder: Path
    human_everywhere: bool  # the human labels cover every query (no judge-only query)

    def path(self, name: str) -> Path:
        return self.folder / name

    @property
    def run_files(self) -> list[Path]:
        return [self.path(f"{name}.run") for name in RUNS]

    def uploads(self) -> dict[str, object]:
        """What `tests.dashboard.conftest.upload` takes: runs, qrels, and the text files."""
        return dict(
            runs=[(p.name, p.read_bytes()) for p in self.run_files],
            qrels=self.path("human.txt").read_bytes(),
            queries=("queries.csv", self.path("queries.csv").read_bytes()),
            corpus=("corpus.jsonl", self.path("corpus.jsonl").read_bytes()),
            judge=("judge.txt", self.path("judge.txt").read_bytes()),
        )


def write_collection(folder: Path, *, seed: int, queries: int = 24, docs: int = 14,
                     human_everywhere: bool = False) -> Collection:
    """Queries q00..; each has `docs` candidate ids, about a quarter relevant (grades 1-2),
    one query in eight with no relevant id; the judge flips about a fifth of the grades."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    labelled = set(range(queries)) if human_everywhere else set(
        rng.choice(queries, queries // 2, replace=False).tolist())
    human, judge, texts, corpus = [], [], ["query_id,text,intent"], []
    runs: dict[str, list[str]] = {name: [] for name in RUNS}
    for q in range(queries):
        query = f"q{q:02d}"
        topic = rng.choice(WORDS, 3, replace=False)
        texts.append(f"{query},how do I {topic[0]} the {topic[1]} {topic[2]},"
                     f"{INTENTS[q % len(INTENTS)]}")
        grade = np.where(rng.random(docs) < 0.25, rng.integers(1, 3, docs), 0)
        if q % 8 == 7:
            grade[:] = 0
        judged = grade.copy()
        flip = rng.random(docs) < 0.2
        judged[flip] = np.where(grade[flip] > 0, 0, 1)
        for d in range(docs):
            doc = f"{query}-d{d:02d}"
            if q in labelled:
                human.append(f"{query} 0 {doc} {grade[d]}\n")
            judge.append(f"{query} 0 {doc} {judged[d]}\n")
            corpus.append(json.dumps({"_id": doc, "title": f"{topic[d % 3]} {d}",
                                      "text": f"About {' '.join(topic)}: note {d}."}))
        for i, name in enumerate(RUNS):
            score = (grade > 0) * (0.3 + 0.3 * i) + rng.random(docs)
            for rank, d in enumerate(np.argsort(-score)[:10]):
                runs[name].append(f"{query} Q0 {query}-d{d:02d} {rank + 1} {score[d]:.4f} "
                                  f"{name}\n")
    collection = Collection(folder, human_everywhere)
    collection.path("human.txt").write_text("".join(human))
    collection.path("judge.txt").write_text("".join(judge))
    collection.path("queries.csv").write_text("\n".join(texts) + "\n")
    collection.path("corpus.jsonl").write_text("\n".join(corpus) + "\n")
    for name, lines in runs.items():
        collection.path(f"{name}.run").write_text("".join(lines))
    return collection
