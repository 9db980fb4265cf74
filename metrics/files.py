"""Files in, Evaluation out: the one path the command line, the dashboard and the sample share."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from metrics.conventions import Conventions
from metrics.evaluate import Evaluation, evaluate
from metrics.io import LoadReport, Run, load_qrels, load_run

Source = str | os.PathLike | bytes


@dataclass(frozen=True)
class RunSource:
    source: Source
    name: str | None = None  # defaults to the file name without its extension
    file_name: str | None = None  # needed when source is bytes (an upload)
    format: str = "auto"  # detected from the content unless named


def load_runs(
    runs: Sequence[RunSource], *, order: str = "score"
) -> tuple[list[Run], dict[str, LoadReport]]:
    loaded, reports = [], {}
    for spec in runs:
        run, report = load_run(
            spec.source, name=spec.file_name, format=spec.format, order=order, run_name=spec.name
        )
        if run.name in reports:
            raise ValueError(
                f"{run.source}: a second run is named {run.name!r}; "
                "give it another name with NAME=FILE"
            )
        loaded.append(run)
        reports[run.name] = report
    return loaded, reports


def evaluate_files(
    qrels: Source | None,
    runs: Sequence[RunSource],
    k: int,
    conventions: Conventions | None = None,
    *,
    qrels_name: str | None = None,
    qrels_format: str = "auto",
    sweep: tuple[int, int] | None = None,
) -> Evaluation:
    """Load and score. Without qrels, the labels come from the first run's JSONL file, whose
    records carry both `retrieved` and `relevant`."""
    conventions = conventions or Conventions()
    if not runs:
        raise ValueError("give at least one run")
    if qrels is None:
        qrels, qrels_name = runs[0].source, runs[0].file_name
    # The labels load in a second thread while the runs load: arrow and numpy release the
    # GIL for most of the work. A bad qrels file is still the error reported first.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(load_qrels, qrels, name=qrels_name, format=qrels_format)
        try:
            loaded, reports = load_runs(runs, order=conventions.order)
        finally:
            labels, qrels_report = pending.result()
    return evaluate(
        labels, loaded, k, conventions, sweep=sweep, reports=reports, qrels_report=qrels_report
    )
