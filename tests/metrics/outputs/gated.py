"""A small collection a gate reads, written as files: forty queries with one relevant id each;
the baseline finds it at rank 1 on every query, a worse candidate at rank 1 on the first ten
and nowhere on the rest, and a candidate the same as the baseline; a queries file whose texts
are the query ids spelled out. What compare, the JUnit report, the comment and the action's
step are tested on."""

from __future__ import annotations

import json
from pathlib import Path

QUERIES = 40
KEPT = 10  # queries the worse candidate still answers


def write_gated(folder: Path, ids=None) -> dict[str, Path]:
    """The files, by name: qrels, base, worse, same, queries. `ids` replaces the query ids
    (hostile ones: no white space, which a TREC line splits at)."""
    ids = list(ids) if ids is not None else [f"q{i:02d}" for i in range(QUERIES)]
    folder.mkdir(parents=True, exist_ok=True)
    files = {name: folder / name for name in ("qrels.txt", "base.run", "worse.run",
                                                "same.run", "queries.jsonl")}
    files["qrels.txt"].write_text("".join(f"{q} 0 rel{i} 1\n" for i, q in enumerate(ids)))
    base = "".join(f"{q} Q0 rel{i} 1 9 b\n{q} Q0 x{i} 2 8 b\n" for i, q in enumerate(ids))
    files["base.run"].write_text(base)
    files["same.run"].write_text(base)
    files["worse.run"].write_text("".join(
        f"{q} Q0 rel{i} 1 9 w\n" if i < KEPT else f"{q} Q0 x{i} 1 9 w\n{q} Q0 y{i} 2 8 w\n"
        for i, q in enumerate(ids)))
    files["queries.jsonl"].write_text("".join(
        json.dumps({"_id": q, "text": f"what is {q}?"}) + "\n" for q in ids))
    return {name.split(".")[0]: path for name, path in files.items()}
