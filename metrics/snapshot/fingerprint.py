"""Fingerprints of a query set and of runs: SHA-256 over canonical sorted rows, not file bytes.

The same judgments written as TREC, CSV or JSONL, in any line order, give the same fingerprint:

- qrels: every query id (sorted, queries without judgments included) and every
  (query, doc, grade) judgment (sorted), grades as integers;
- run: each query's ranked list as scored (queries sorted, ids kept in rank order); scores,
  the run's name and the TREC tag column are not part of it, since only the order is scored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from metrics.core.evaluate import Evaluation
from metrics.io import Qrels, Run

__all__ = ["evaluation_fingerprints", "fingerprint_qrels", "fingerprint_run", "short"]

_QRELS_TAG = b"retrieval-compare qrels v1\n"
_RUN_TAG = b"retrieval-compare run v1\n"


def _digest(tag: bytes, payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(tag + text.encode("utf-8")).hexdigest()


def _qrels_digest(query_ids: Sequence, rows: list[tuple[str, str, int]]) -> str:
    return _digest(_QRELS_TAG, {"queries": sorted(map(str, query_ids)), "judgments": sorted(rows)})


def fingerprint_qrels(qrels: Qrels) -> str:
    """SHA-256 of the query ids and the sorted (query, doc, grade) rows: 'sha256:<hex>'."""
    rows = list(zip(map(str, qrels.query), map(str, qrels.doc), map(int, qrels.grade), strict=True))
    return _qrels_digest(qrels.query_ids, rows)


def fingerprint_run(run: Run) -> str:
    """SHA-256 of each query's ranked list as scored (queries sorted, ranks kept)."""
    lists: dict[str, list[str]] = {}
    for query, doc in zip(run.query, run.doc, strict=True):
        lists.setdefault(str(query), []).append(str(doc))
    return _digest(_RUN_TAG, sorted(lists.items()))


def evaluation_fingerprints(evaluation: Evaluation) -> dict:
    """{"qrels": fingerprint, "runs": {run name: fingerprint}} of an Evaluation."""
    return {
        "qrels": fingerprint_qrels(evaluation.qrels),
        "runs": {run.name: fingerprint_run(run.run) for run in evaluation.runs},
    }


def short(fingerprint: str) -> str:
    """The first 12 hex digits, as a sentence quotes a fingerprint."""
    return fingerprint.removeprefix("sha256:")[:12]
