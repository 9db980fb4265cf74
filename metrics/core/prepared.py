"""The runs aligned on the query set, once: everything that does not depend on K or on any
convention but the relevance level and what to do with ids equal to their query id, so that
re-scoring at another K, gain or interval skips the id matching."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from metrics.core.ranking import AlignedRun, QuerySet, align, longest_list, prepare_query_set
from metrics.io import LoadReport, Qrels, ReportLine, Run
from metrics.vocabulary import CONVENTION_BY_FIELD

IDENTICAL_REASON = "the doc id is the query id: dropped (identical ids dropped, as BEIR does)"
UNJUDGED_NOTE = ("judged only: {count} retrieved ids without a grade >= 0 for their query, in "
                 "{queries} queries, are left out of the scores (--unjudged drop)")


@dataclass(frozen=True, eq=False)
class Prepared:
    """Runs aligned on the query set: everything that does not depend on K or on any
    convention but the relevance level, so re-scoring at another K skips the id matching."""

    qrels: Qrels
    query_set: QuerySet
    runs: tuple[Run, ...]
    aligned: tuple[AlignedRun, ...]
    identical_ids: str = "keep"  # the convention the runs were read under
    # run name -> source lines of the ids dropped for equalling their query id ("drop")
    identical_lines: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def longest(self) -> int:
        return max(int(a.list_length.max(initial=0)) for a in self.aligned)


def prepare(qrels: Qrels, runs: Sequence[Run], *, relevance_level: int = 1,
            identical_ids: str = "keep") -> Prepared:
    """The runs aligned on the query set at a relevance level; under identical_ids="drop",
    without the ids equal to their query id (counted per run)."""
    if not runs:
        raise ValueError("evaluate needs at least one run")
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {names}")
    CONVENTION_BY_FIELD["identical_ids"].choice(identical_ids)  # a bad value fails here
    identical_lines = {}
    if identical_ids == "drop":
        kept = []
        for run in runs:
            run, lines = run.without_identical_ids()
            kept.append(run)
            identical_lines[run.name] = lines
        runs = kept
    query_set = prepare_query_set(qrels, relevance_level=relevance_level)
    # one column past the longest list, the width every evaluation scores at: aligned at
    # it, not copied by each evaluation (10 MB a run on 5,000 queries x 100 ids), nor padded
    # here after (a copy of every array: a fifth of the weight search's time, which aligns
    # a fused run per weight)
    width = max(longest_list(query_set, run) for run in runs) + 1
    return Prepared(qrels, query_set, tuple(runs),
                    tuple(align(query_set, run, width=width) for run in runs),
                    identical_ids, identical_lines)


def with_identical(reports: dict[str, LoadReport] | None,
                    lines: dict[str, np.ndarray]) -> dict[str, LoadReport] | None:
    """Each run's load report with the ids dropped for equalling their query id."""
    if not reports or not lines:
        return reports
    return {name: report.with_dropped(ReportLine(int(line), IDENTICAL_REASON)
                                      for line in lines.get(name, ()))
            if len(lines.get(name, ())) else report
            for name, report in reports.items()}


def with_unjudged(reports: dict[str, LoadReport] | None, read: Sequence[AlignedRun],
                  condensed: Sequence[AlignedRun]) -> dict[str, LoadReport] | None:
    """Each run's load report noting how many ids judged-only scoring removed: a count, not
    a line each (most retrieved ids of a large collection are unjudged); the lines stay used,
    since the ids are read and only left out of this convention's scores."""
    if not reports:
        return reports
    notes = {}
    for before, after in zip(read, condensed, strict=True):
        removed = int(before.returned.sum()) - int(after.returned.sum())
        if removed:
            queries = int((before.returned & ~before.graded).any(axis=1).sum())
            notes[before.name] = UNJUDGED_NOTE.format(count=f"{removed:,}", queries=f"{queries:,}")
    return {name: replace(report, notes=report.notes + (notes[name],)) if name in notes
            else report for name, report in reports.items()}


def lists_as_read(run, query_set: QuerySet, unjudged: str) -> AlignedRun:
    """A RunEvaluation's lists as read: judged-only scoring holds them condensed, so the
    ids it left out (those worth labelling, or another choice's scores) are aligned again."""
    return align(query_set, run.run) if unjudged == "drop" else run.aligned
