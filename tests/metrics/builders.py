"""Build Qrels and Run objects straight from dicts, so measure tests need no files."""

from __future__ import annotations

from metrics.io import Qrels, Run


def make_qrels(judgments: dict[str, dict[str, int]], source: str = "qrels") -> Qrels:
    rows = [(q, d, g) for q, docs in judgments.items() for d, g in docs.items()]
    return Qrels.from_rows(
        source,
        list(judgments),
        [r[0] for r in rows],
        [r[1] for r in rows],
        [r[2] for r in rows],
        range(1, len(rows) + 1),
    )


def make_run(lists: dict[str, list[str]], name: str = "run") -> Run:
    return Run.from_lists(name, lists)
