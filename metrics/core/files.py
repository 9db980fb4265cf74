"""Files in, Evaluation out: the one path the command line, the dashboard and the sample share.

`read_qrels` and `read_run` load one file each (the dashboard caches them one by one);
`distinct_names` is the one rule for two runs given the same name; `evaluate_files` chains
them for the command line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from metrics.core.diversity import Subtopics
from metrics.core.evaluate import Evaluation, evaluate
from metrics.io import MAX_INPUT_BYTES, LoadReport, Qrels, ReportLine, Run, load_qrels, load_run
from metrics.io.names import plain_name
from metrics.io.subtopics import load_intent_probabilities, load_subtopic_qrels
from metrics.vocabulary.conventions import Conventions

Source = str | os.PathLike | bytes


@dataclass(frozen=True)
class RunSource:
    source: Source
    name: str | None = None  # defaults to the file name without its extension
    file_name: str | None = None  # needed when source is bytes (an upload)
    format: str = "auto"  # detected from the content unless named


def read_qrels(
    source: Source, *, file_name: str | None = None, format: str = "auto",
    max_bytes: int = MAX_INPUT_BYTES, normalize_ids: str = "none",
) -> tuple[Qrels, LoadReport]:
    return load_qrels(source, file_name=file_name, format=format, max_bytes=max_bytes,
                      normalize_ids=normalize_ids)


def read_run(
    spec: RunSource, conventions: Conventions, *, max_bytes: int = MAX_INPUT_BYTES,
    normalize_ids: str = "none", labels: Qrels | Callable[[], Qrels] | None = None,
) -> tuple[Run, LoadReport]:
    """One run file, ordered as the conventions say (rank column or score, and the precision
    scores are compared at), refused beyond `max_bytes` of (expanded) input, its ids read
    as `normalize_ids` says (as written by default, or in NFC), and matched to `labels`'
    ids when given (see `load_run`)."""
    return load_run(
        spec.source,
        file_name=spec.file_name,
        format=spec.format,
        order=conventions.order,
        score_precision=conventions.score_precision,
        run_name=spec.name,
        max_bytes=max_bytes,
        normalize_ids=normalize_ids,
        labels=labels,
    )


def distinct_names(names: Sequence[str]) -> list[str]:
    """The one rule for repeated run names: the first keeps its name, later ones get " (2)",
    " (3)", ... (skipping any name already taken), so that every run keeps its own place.
    Names are compared as they look (`plain_name`: NFKC, no invisible or bidirectional
    control characters), so 'baseline' and 'baseline' with a zero-width space are one name."""
    taken = {plain_name(name) for name in names}
    seen: dict[str, int] = {}
    out = []
    for name in names:
        key = plain_name(name)
        if key not in seen:
            seen[key] = 1
            out.append(name)
            continue
        while True:
            seen[key] += 1
            candidate = f"{key} ({seen[key]})"
            if candidate not in taken:
                break
        taken.add(candidate)
        out.append(candidate)
    return out


def load_runs(
    runs: Sequence[RunSource], conventions: Conventions, *, max_bytes: int = MAX_INPUT_BYTES,
    normalize_ids: str = "none", labels: Qrels | Callable[[], Qrels] | None = None,
) -> tuple[list[Run], dict[str, LoadReport]]:
    """Every run, named distinctly (a renamed run's load report says why), matched to
    `labels`' ids when given."""
    loaded = [read_run(spec, conventions, max_bytes=max_bytes, normalize_ids=normalize_ids,
                       labels=labels) for spec in runs]
    names = distinct_names([run.name for run, _ in loaded])
    runs_out, reports = [], {}
    for (run, report), name in zip(loaded, names, strict=True):
        if name != run.name:
            note = f"named {name!r}: an earlier run is already named {run.name!r}"
            report = replace(report, notes=(*report.notes, note))
            run = run.renamed(name)
        runs_out.append(run)
        reports[name] = report
    return runs_out, reports


def evaluate_files(
    qrels: Source | None,
    runs: Sequence[RunSource],
    k: int,
    conventions: Conventions | None = None,
    *,
    qrels_name: str | None = None,
    qrels_format: str = "auto",
    sweep: tuple[int, int] | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
    normalize_ids: str = "none",
) -> Evaluation:
    """Load and score. Without qrels, the labels come from the first run's JSONL file, whose
    records carry both `retrieved` and `relevant`. `normalize_ids="nfc"` reads every id of
    every file in Unicode NFC."""
    conventions = conventions or Conventions()
    if not runs:
        raise ValueError("give at least one run")
    if qrels is None:
        loaded, reports = load_runs(runs, conventions, max_bytes=max_bytes)
        _labels_in(reports[loaded[0].name], runs[0])
        labels, qrels_report = read_qrels(runs[0].source, file_name=runs[0].file_name,
                                          format=qrels_format, max_bytes=max_bytes)
        return evaluate(labels, loaded, k, conventions, sweep=sweep, reports=reports,
                        qrels_report=qrels_report)
    # The labels load in a second thread while the runs load (arrow and numpy release the
    # GIL for most of the work), and each run's ids are matched to them as soon as both are
    # read. A bad qrels file is still the error reported first.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(read_qrels, qrels, file_name=qrels_name, format=qrels_format,
                              max_bytes=max_bytes, normalize_ids=normalize_ids)
        try:
            loaded, reports = load_runs(runs, conventions, max_bytes=max_bytes,
                                        normalize_ids=normalize_ids,
                                        labels=lambda: pending.result()[0])
        finally:
            labels, qrels_report = pending.result()
    return evaluate(
        labels, loaded, k, conventions, sweep=sweep, reports=reports, qrels_report=qrels_report
    )


def read_subtopics(source: Source, intents: Source | None = None, *,
                   max_bytes: int = MAX_INPUT_BYTES) -> tuple[Subtopics, list[LoadReport]]:
    """The subtopic qrels (and intent probabilities, when a file gives them) the diversity
    measures read, and their load reports."""
    judged, report = load_subtopic_qrels(source, max_bytes=max_bytes)
    if intents is None:
        return Subtopics(judged), [report]
    probabilities, intents_report = load_intent_probabilities(intents, max_bytes=max_bytes)
    return Subtopics(judged, probabilities), [report, intents_report]


def _labels_in(report: LoadReport, first: RunSource) -> None:
    """Without qrels the labels come from the first run, which must then be JSONL: any other
    run carries no labels, and reading it as a qrels file would blame the wrong box."""
    if report.format != "jsonl":
        raise ValueError(
            f"{report.source}: no qrels given, and a {report.format.upper()} run carries no "
            "labels to score it against: give the labels with --qrels FILE (only a JSONL run "
            "whose records carry both 'retrieved' and 'relevant' stands without them)")


def rereader(runs: Sequence[RunSource], evaluation: Evaluation, *,
             max_bytes: int = MAX_INPUT_BYTES,
             normalize_ids: str = "none") -> Callable[[str], list[Run]] | None:
    """The runs read again in another TREC order, for the fragility check: None when no run
    is a TREC file (only those have both a score and a rank column to order by)."""
    if not any(run.report is not None and run.report.format == "trec" for run in evaluation.runs):
        return None

    def reread(order: str) -> list[Run]:
        conventions = replace(evaluation.conventions, order=order)
        return load_runs(runs, conventions, max_bytes=max_bytes,
                         normalize_ids=normalize_ids)[0]

    return reread


__all__ = ["ReportLine", "RunSource", "distinct_names", "evaluate_files", "load_runs",
           "read_qrels", "read_run", "read_subtopics", "rereader"]
