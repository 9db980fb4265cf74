"""Comparison of live runs against a snapshot run's per-query figures, the note that says
when a candidate is the very run the snapshot froze, and the module-level comparability checks
over snapshots (typed or as JSON dicts) and Evaluations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from metrics.core.compare import drawn_as_the_summary, figures_of
from metrics.core.evaluate import Evaluation
from metrics.snapshot.codec import as_snapshot
from metrics.snapshot.comparable import Basis, differences, evaluation_basis, refusal
from metrics.snapshot.fingerprint import fingerprint_run, short
from metrics.snapshot.schema import Snapshot, created_minute, tool_version
from metrics.stats.comparison import Comparison, compare
from metrics.vocabulary import MEASURE_BY_KEY
from metrics.vocabulary.format import listing
from metrics.vocabulary.names import default_spec

__all__ = ["check_comparable", "compare_with_snapshot", "mismatches", "same_run_note",
           "same_runs", "snapshot_scores"]


def _side(item: Snapshot | Mapping | Evaluation) -> tuple[Basis, Snapshot | None]:
    if isinstance(item, Snapshot | Mapping):
        snapshot = as_snapshot(item)
        return snapshot.basis, snapshot
    return evaluation_basis(item), None


def mismatches(
    reference: Snapshot | Mapping | Evaluation,
    other: Snapshot | Mapping | Evaluation,
    *,
    names: tuple[str, str] | None = None,
    flags: bool = True,
) -> list[str]:
    """Why two snapshots (or a snapshot and an Evaluation) cannot be set side by side: see
    ``Snapshot.mismatches``. Default names: "the first snapshot" / "this snapshot" for two
    snapshots, else "the snapshot" / "this evaluation"."""
    (first, one), (second, two) = _side(reference), _side(other)
    if names is None:
        if one is not None and two is not None:
            names = ("the first snapshot", "this snapshot")
        else:
            names = tuple("the snapshot" if s is not None else "this evaluation"
                          for s in (one, two))
    return differences(first, second, names, flags=flags)


def check_comparable(
    reference: Snapshot | Mapping | Evaluation,
    other: Snapshot | Mapping | Evaluation,
    *,
    flags: bool = True,
) -> None:
    """Raise ValueError listing every mismatch (see ``mismatches``); return None if comparable."""
    problems = mismatches(reference, other, flags=flags)
    if problems:
        one, two = (as_snapshot(x).describe() if isinstance(x, Snapshot | Mapping)
                    else "this evaluation" for x in (reference, other))
        raise ValueError(refusal(
            f"cannot compare {two} with {one}", problems,
            "Figures compare only over the same query set and labels, at the same K, under "
            "the same conventions."))


def snapshot_scores(
    snapshot: Snapshot | Mapping,
    query_ids: Sequence[str],
    *,
    run: str | None = None,
    metrics: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """``Snapshot.scores`` of a snapshot given typed or as its JSON dict."""
    return as_snapshot(snapshot).scores(query_ids, run=run, metrics=metrics)


def compare_with_snapshot(
    evaluation: Evaluation,
    snapshot: Snapshot | Mapping,
    *,
    run: str | None = None,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    **options,
) -> Comparison:
    """Live runs against a snapshot run's per-query figures as the baseline, paired by query.

    The baseline is the snapshot's run named ``run`` (default its first), named
    "NAME (snapshot DATE)" in the Comparison; the candidates are the Evaluation's runs (default
    all). Refuses (ValueError) a snapshot of another query set or labels, K or conventions.
    ``metrics`` are measure keys or names (the snapshot must hold their per-query figures);
    ``options`` go to ``metrics.stats.comparison.compare``; the interval's level and method, the
    resamples and the seed default to the evaluation's conventions.
    """
    snapshot = as_snapshot(snapshot)
    snapshot.check_comparable(evaluation)
    evaluation, keys = figures_of(evaluation, metrics)
    specs = [evaluation.spec(key) for key in keys]
    ids = evaluation.scored_ids
    before = snapshot.scores(ids, run=run, metrics=specs)
    baseline = f"{snapshot.run(run).name} (snapshot {created_minute(snapshot.header)})"
    names = list(candidates or evaluation.run_names)
    while baseline in names:
        baseline += "'"
    scores: dict[str, dict[str, np.ndarray]] = {baseline: before}
    for name in names:
        values = evaluation.per_query_scores(name)
        scores[name] = {evaluation.label(key): values[key] for key in keys}
    return compare(baseline, scores, ids, candidates=names, metrics=list(before),
                   **drawn_as_the_summary(evaluation, options))


def same_runs(
    snapshot: Snapshot | Mapping,
    evaluation: Evaluation,
    *,
    run: str | None = None,
    candidates: Sequence[str] | None = None,
) -> list[str]:
    """The candidates (default every run of the Evaluation) whose run fingerprint is that of
    the snapshot's run ``run`` (default its first): the same ranked lists."""
    chosen = as_snapshot(snapshot).run(run)
    names = list(candidates or evaluation.run_names)
    return [name for name in names
            if fingerprint_run(evaluation.run(name).run) == chosen.fingerprint]


def same_run_note(
    snapshot: Snapshot | Mapping,
    evaluation: Evaluation,
    *,
    run: str | None = None,
    candidates: Sequence[str] | None = None,
) -> str | None:
    """One sentence when a candidate of ``compare_with_snapshot`` is the snapshot's own run
    (the same run fingerprint), else None: "reranked is the same run as the snapshot's
    baseline (run fingerprint 3f2a...): the same ranked lists, so any difference is in the
    snapshot's figures, not in the retriever; ..." followed by whether their per-query
    figures agree (when the two are comparable)."""
    snapshot = as_snapshot(snapshot)
    chosen = snapshot.run(run)
    same = same_runs(snapshot, evaluation, run=run, candidates=candidates)
    if not same:
        return None
    verb = "is" if len(same) == 1 else "are each"
    note = (f"{listing(same, limit=5)} {verb} the same run as the snapshot's {chosen.name} (run "
            f"fingerprint {short(chosen.fingerprint)}): the same ranked lists, so any difference "
            "is in the snapshot's figures, not in the retriever")
    if snapshot.mismatches(evaluation):
        return note + "."
    ids = evaluation.scored_ids
    keys = [key for key in MEASURE_BY_KEY
            if snapshot.column(chosen, default_spec(key)) is not None]
    try:
        before = snapshot.scores(ids, run=run, metrics=keys)
    except ValueError:
        return note + "."
    differing = set()
    for name in same:
        live = evaluation.per_query_scores(name)
        for key in (key for key in keys if key in live):
            then = before[snapshot.label(default_spec(key))]
            now = np.asarray(live[key], dtype=float)
            differing.update(np.flatnonzero(~np.isclose(then, now, rtol=0, atol=1e-12)).tolist())
    if not differing:
        return note + "; their per-query figures agree."
    return (note + f"; yet their per-query figures differ on {len(differing)} of {len(ids)} "
            "queries, so the snapshot's figures are not what this run scores now (snapshot "
            f"written by version {snapshot.header.tool_version or 'unknown'}, this is "
            f"{tool_version()}; its figures fingerprint: {snapshot.verification}).")
