"""Build Qrels and Run objects straight from dicts, so measure tests need no files."""

from __future__ import annotations

import numpy as np

from metrics.io import Qrels, Run


def make_qrels(judgments: dict[str, dict[str, int]], source: str = "qrels") -> Qrels:
    rows = [(q, d, g) for q, docs in judgments.items() for d, g in docs.items()]
    return Qrels(
        source=source,
        query_ids=np.array(list(judgments), dtype=object),
        query=np.array([r[0] for r in rows], dtype=object),
        doc=np.array([r[1] for r in rows], dtype=object),
        grade=np.array([r[2] for r in rows], dtype=np.int64),
        line=np.arange(1, len(rows) + 1, dtype=np.int64),
    )


def make_run(lists: dict[str, list[str]], name: str = "run") -> Run:
    rows = [(q, d) for q, docs in lists.items() for d in docs]
    return Run(
        name=name,
        source=name,
        query=np.array([r[0] for r in rows], dtype=object),
        doc=np.array([r[1] for r in rows], dtype=object),
        line=np.arange(1, len(rows) + 1, dtype=np.int64),
    )
