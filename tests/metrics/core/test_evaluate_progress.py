"""evaluate_prepared's progress callback: called before each run with its name and once
after the last, and the figures are those of a call without it."""

from __future__ import annotations

import metrics
from metrics.core.evaluate import evaluate_prepared
from metrics.core.prepared import prepare


def test_progress_is_called_before_each_run_and_changes_nothing():
    evaluation = metrics.load_sample()
    prepared = prepare(evaluation.qrels, [r.run for r in evaluation.runs])
    calls = []
    seen = evaluate_prepared(prepared, 5, progress=lambda *call: calls.append(call))
    names = evaluation.run_names
    assert calls == [(i, len(names), name) for i, name in enumerate(names)] + [
        (len(names), len(names), None)]
    plain = evaluate_prepared(prepared, 5)
    for got, want in zip(seen.runs, plain.runs, strict=True):
        assert got.summary == want.summary
