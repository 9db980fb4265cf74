"""One loader's parsed rows, handed from a format's reader to the qrels or run checks."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from metrics.io.report import ReportLine


@dataclass(eq=False)
class Rows:
    """One loader's parsed rows, before the checks that qrels and runs each make."""

    query: np.ndarray | pa.Array | list[str]
    doc: np.ndarray | pa.Array | list
    line: np.ndarray
    lines_read: int
    grade: np.ndarray | None = None  # qrels
    sort_keys: list[tuple[str, object, str]] = field(default_factory=list)  # run, after query
    score: np.ndarray | None = None  # run: float64 per row as read; None without a score column
    query_ids: np.ndarray | None = None  # JSONL: every record's query, empty lists included
    query_lines: list[int] = field(default_factory=list)  # JSONL: the line of each of those
    dropped: list[ReportLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    comments: int = 0  # TREC: comment lines skipped
    wide_lines: int = 0  # TREC runs: lines with fields after the sixth
