"""Frozen snapshots of an evaluation, fingerprints, drift, and comparison against a snapshot.

A snapshot is the JSON contract of ``metrics.output.to_dict`` (K, conventions, query set, and
per run its summary, per-query figures, sweep, suggestion and diagnosis) with three additions:
a ``snapshot`` header (format, version, tool version, timestamp, label), the query set's
fingerprint (``query_set.fingerprint``) and each run's fingerprint (``runs[i].fingerprint``).

A fingerprint is a SHA-256 over canonical sorted rows, not over file bytes, so the same
judgments written as TREC, CSV or JSONL, in any line order, give the same fingerprint:

- qrels: every query id (sorted, queries without judgments included) and every
  (query, doc, grade) judgment (sorted), grades as integers;
- run: each query's ranked list as scored (queries sorted, ids kept in rank order); scores,
  the run's name and the TREC tag column are not part of it, since only the order is scored.

Figures are comparable only over the same query set, labels, K and conventions: drift rows
and comparisons against a snapshot refuse anything else with a ValueError that says what
differs. Pure: json, hashlib and numpy; no pandas, streamlit or altair.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import TYPE_CHECKING

import numpy as np

from metrics.compare import DEFAULT_COMPARED, Comparison, compare
from metrics.conventions import Conventions
from metrics.io import Qrels, Run
from metrics.measures import MEASURE_BY_KEY, SUMMARY_MEASURES
from metrics.output import to_dict

if TYPE_CHECKING:
    from metrics.evaluate import Evaluation

__all__ = [
    "DISTRIBUTION",
    "FORMAT",
    "VERSION",
    "check_comparable",
    "compare_with_snapshot",
    "created_minute",
    "drift_rows",
    "dumps",
    "evaluation_fingerprints",
    "fingerprint_qrels",
    "fingerprint_run",
    "load",
    "loads",
    "mismatches",
    "save",
    "snapshot_run",
    "snapshot_scores",
    "to_snapshot",
    "tool_version",
]

FORMAT = "retrieval-compare snapshot"
VERSION = 1
DISTRIBUTION = "retrieval-compare"
_CONVENTION_FIELDS = tuple(f.name for f in dataclasses.fields(Conventions))
_QRELS_TAG = b"retrieval-compare qrels v1\n"
_RUN_TAG = b"retrieval-compare run v1\n"


# --------------------------------------------------------------------------- fingerprints


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


# --------------------------------------------------------------------------- snapshots


def tool_version() -> str:
    """The installed version of the retrieval-compare distribution ('unknown' if not installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def _timestamp(created: str | _dt.datetime | None) -> str:
    if created is None:
        created = _dt.datetime.now(_dt.UTC)
    if isinstance(created, _dt.datetime):
        if created.tzinfo is None:
            raise ValueError(f"created must carry a time zone, got naive {created.isoformat()}")
        return created.isoformat(timespec="seconds")
    if not isinstance(created, str) or not created:
        raise ValueError(f"created must be a datetime or an ISO 8601 string, got {created!r}")
    return created


def to_snapshot(
    evaluation: Evaluation,
    *,
    label: str | None = None,
    created: str | _dt.datetime | None = None,
) -> dict:
    """A JSON-ready dict: ``to_dict(evaluation)`` plus fingerprints and a snapshot header.

    ``created`` defaults to now (UTC, seconds); ``label`` (e.g. "before the index rebuild")
    defaults to None. The result holds plain JSON types only, so ``load(save(...))`` gives an
    equal dict, floats identical to the last bit.
    """
    fingerprints = evaluation_fingerprints(evaluation)
    data = to_dict(evaluation)
    data["query_set"]["fingerprint"] = fingerprints["qrels"]
    for run in data["runs"]:
        run["fingerprint"] = fingerprints["runs"][run["name"]]
    header = {
        "format": FORMAT,
        "version": VERSION,
        "tool": DISTRIBUTION,
        "tool_version": tool_version(),
        "created": _timestamp(created),
        "label": label,
    }
    # one pass through the encoder: tuples become lists, numpy scalars are caught here
    return json.loads(_dumps({"snapshot": header, **data}))


def _dumps(data: dict) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise ValueError(f"snapshot is not plain JSON: {error}") from None


def dumps(snapshot: Mapping, *, source: str = "<snapshot>") -> str:
    """A snapshot as the text of its file (checked first): what save() writes."""
    _check(snapshot, source)
    return _dumps(dict(snapshot)) + "\n"


def save(snapshot: Mapping, path: str | os.PathLike) -> None:
    """Write a snapshot as UTF-8 JSON (checked first, so a bad dict never leaves a bad file)."""
    text = dumps(snapshot, source=os.fspath(path))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def load(path: str | os.PathLike) -> dict:
    """Read and check a snapshot file; ValueError naming the file on anything else."""
    where = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return loads(text, source=where)


def loads(text: str | bytes, *, source: str = "<snapshot>") -> dict:
    """A snapshot from JSON text (an upload's bytes, say), checked like ``load``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{source}: not a snapshot: not valid JSON ({error})") from None
    _check(data, source)
    return data


def _check(data: object, source: str) -> None:
    def fail(problem: str):
        raise ValueError(f"{source}: not a snapshot: {problem}")

    if not isinstance(data, Mapping):
        fail("expected a JSON object")
    header = data.get("snapshot")
    if not isinstance(header, Mapping) or header.get("format") != FORMAT:
        fail(f'no "snapshot" header with format "{FORMAT}"')
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        fail(f"snapshot version must be an integer, got {version!r}")
    if version > VERSION:
        fail(
            f"written in snapshot format {version} by {header.get('tool')} "
            f"{header.get('tool_version')}; this is {tool_version()}, which reads up to {VERSION}"
        )
    k = data.get("k")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        fail(f"k must be a positive integer, got {k!r}")
    conventions = data.get("conventions")
    if not isinstance(conventions, Mapping):
        fail("no conventions")
    missing = [name for name in _CONVENTION_FIELDS if name not in conventions]
    if missing:
        fail(f"conventions lack {', '.join(missing)}")
    query_set = data.get("query_set")
    if not isinstance(query_set, Mapping) or not isinstance(query_set.get("fingerprint"), str):
        fail("no query_set fingerprint")
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs:
        fail("no runs")
    for i, run in enumerate(runs):
        if not isinstance(run, Mapping) or not isinstance(run.get("name"), str):
            fail(f"run {i + 1} has no name")
        for key in ("summary", "queries", "fingerprint"):
            if key not in run:
                fail(f"run {run['name']!r} has no {key}")
        if not isinstance(run["queries"], list) or not all(
            isinstance(row, Mapping) and isinstance(row.get("query_id"), str)
            for row in run["queries"]
        ):
            fail(f"run {run['name']!r}: queries must be objects with a query_id")


# --------------------------------------------------------------------------- comparability


def _basis(data: Mapping) -> tuple[int, dict, str]:
    conventions = {name: data["conventions"][name] for name in _CONVENTION_FIELDS}
    return data["k"], conventions, data["query_set"]["fingerprint"]


def _evaluation_basis(evaluation: Evaluation) -> tuple[int, dict, str]:
    fingerprint = evaluation_fingerprints(evaluation)["qrels"]
    return evaluation.k, evaluation.conventions.as_dict(), fingerprint


# the conventions a command-line flag sets (n_resamples has none)
_FLAGS = {
    "k": "--k",
    "recall_denominator": "--recall-denominator",
    "gain": "--gain",
    "rr": "--rr",
    "ap": "--ap",
    "relevance_level": "--relevance-level",
    "order": "--order",
    "confidence_level": "--confidence-level",
    "seed": "--seed",
}


def _flag(field: str, flags: bool) -> str:
    return f" ({_FLAGS[field]})" if flags and field in _FLAGS else ""


def mismatches(
    reference: Mapping | Evaluation,
    other: Mapping | Evaluation,
    *,
    names: tuple[str, str] | None = None,
    flags: bool = True,
) -> list[str]:
    """Why two snapshots (or a snapshot and an Evaluation) cannot be set side by side.

    One sentence per difference in query-set fingerprint, K or a convention, naming both
    values ("K differs: 5 in the snapshot, 10 in this evaluation (--k)"); empty when
    comparable. ``names`` say how to call the two (default "the snapshot" / "this
    evaluation", or "the first snapshot" / "this snapshot" for two snapshots); ``flags``
    adds the command-line flag that sets each, for readers of the command line.
    """
    first, second = names or _default_names(reference, other)
    k1, conventions1, fingerprint1 = _any_basis(reference)
    k2, conventions2, fingerprint2 = _any_basis(other)
    problems = []
    if fingerprint1 != fingerprint2:
        problems.append(
            f"the query set or its labels differ: qrels fingerprint {_short(fingerprint1)} in "
            f"{first}, {_short(fingerprint2)} in {second}"
        )
    if k1 != k2:
        problems.append(f"K differs: {k1} in {first}, {k2} in {second}{_flag('k', flags)}")
    for field in _CONVENTION_FIELDS:
        if conventions1[field] != conventions2[field]:
            problems.append(
                f"convention {field} differs: {conventions1[field]!r} in {first}, "
                f"{conventions2[field]!r} in {second}{_flag(field, flags)}"
            )
    return problems


def _default_names(reference: object, other: object) -> tuple[str, str]:
    if isinstance(reference, Mapping) and isinstance(other, Mapping):
        return "the first snapshot", "this snapshot"
    first = "the snapshot" if isinstance(reference, Mapping) else "this evaluation"
    second = "the snapshot" if isinstance(other, Mapping) else "this evaluation"
    return first, second


def _any_basis(item: Mapping | Evaluation) -> tuple[int, dict, str]:
    if isinstance(item, Mapping):
        _check(item, "snapshot")
        return _basis(item)
    return _evaluation_basis(item)


def _short(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:12]


def created_minute(header: Mapping) -> str:
    """When a snapshot was made, from its "snapshot" header, to the minute, as a person
    reads it: '2024-05-01 09:00'."""
    return str(header.get("created", ""))[:16].replace("T", " ")


def _name(snapshot: Mapping, position: int | None = None) -> str:
    header = snapshot["snapshot"]
    label = header.get("label")
    what = f"the snapshot of {created_minute(header)}" + (f" ({label!r})" if label else "")
    return what if position is None else f"{what} (#{position + 1})"


def check_comparable(
    reference: Mapping | Evaluation, other: Mapping | Evaluation, *, flags: bool = True
) -> None:
    """Raise ValueError listing every mismatch (see ``mismatches``); return None if comparable."""
    problems = mismatches(reference, other, flags=flags)
    if problems:
        first = _name(reference) if isinstance(reference, Mapping) else "this evaluation"
        second = _name(other) if isinstance(other, Mapping) else "this evaluation"
        raise ValueError(
            f"cannot compare {second} with {first}: "
            + "; ".join(problems)
            + ". Figures compare only over the same query set and labels, at the same K, "
            "under the same conventions."
        )


# --------------------------------------------------------------------------- drift


def drift_rows(snapshots: Sequence[Mapping]) -> list[dict]:
    """Each run's summary figures over snapshots of one query set, K and conventions.

    One row per (snapshot, run, summary metric), snapshots in the order given (sort them by
    ``created`` first if that is the order wanted): snapshot (its position), created, label,
    tool_version, run, run_fingerprint, metric (summary key, e.g. "MRR"), label_at_k
    ("MRR@10"), mean, low, high, interval. Refuses (ValueError naming the snapshot and what
    differs) a snapshot whose query-set fingerprint, K or conventions differ from the first's.
    An Evaluation is set beside snapshots by passing ``to_snapshot(evaluation)``.
    """
    if isinstance(snapshots, Mapping) or not isinstance(snapshots, Sequence) or not snapshots:
        raise ValueError("drift needs a non-empty list of snapshots")
    for position, snapshot in enumerate(snapshots):
        _check(snapshot, f"snapshot #{position + 1}")
    reference = snapshots[0]
    for position, snapshot in enumerate(snapshots[1:], start=1):
        problems = mismatches(reference, snapshot, names=("the first", "this one"))
        if problems:
            raise ValueError(
                f"cannot show {_name(snapshot, position)} beside {_name(reference, 0)}: "
                + "; ".join(problems)
                + ". Drift is read only over one frozen query set, at one K, under the same "
                "conventions."
            )
    rows = []
    for position, snapshot in enumerate(snapshots):
        header = snapshot["snapshot"]
        k = snapshot["k"]
        for run in snapshot["runs"]:
            for measure in SUMMARY_MEASURES:
                label = measure.label(k)
                figure = run["summary"].get(label)
                if figure is None:
                    continue
                rows.append(
                    {
                        "snapshot": position,
                        "created": header["created"],
                        "label": header.get("label"),
                        "tool_version": header.get("tool_version"),
                        "run": run["name"],
                        "run_fingerprint": run["fingerprint"],
                        "metric": measure.summary_key,
                        "label_at_k": label,
                        "mean": figure["mean"],
                        "low": figure["low"],
                        "high": figure["high"],
                        "interval": figure["interval"],
                    }
                )
    return rows


# --------------------------------------------------------------------------- comparison


def snapshot_run(snapshot: Mapping, name: str | None = None) -> Mapping:
    """One run of a snapshot: the named one, or the first (its baseline)."""
    runs = snapshot["runs"]
    if name is None:
        return runs[0]
    for run in runs:
        if run["name"] == name:
            return run
    raise ValueError(
        f"the snapshot has no run named {name!r}; it has: {', '.join(r['name'] for r in runs)}"
    )


def snapshot_scores(
    snapshot: Mapping,
    query_ids: Sequence[str],
    *,
    run: str | None = None,
    metrics: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """A snapshot run's per-query figures at its K, paired to ``query_ids`` (in that order).

    Keys are summary labels ("nDCG@10", "MRR@10") of the measure keys asked for (default the
    family ``compare`` tests). ValueError if a query id has no figure in the snapshot, or the
    snapshot scored a query ``query_ids`` leaves out.
    """
    chosen = snapshot_run(snapshot, run)
    k = snapshot["k"]
    rows = {row["query_id"]: row for row in chosen["queries"]}
    ids = [str(q) for q in query_ids]
    missing = [q for q in ids if q not in rows]
    extra = sorted(set(rows) - set(ids))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no figure for {len(missing)} scored queries ({_some(missing)})")
        if extra:
            parts.append(f"figures for {len(extra)} queries not scored here ({_some(extra)})")
        raise ValueError(f"snapshot run {chosen['name']!r} does not pair: " + "; ".join(parts))
    scores = {}
    for key in metrics or DEFAULT_COMPARED:
        measure = MEASURE_BY_KEY[key]
        column = measure.label(k, summary=False)
        values = [rows[q].get(column) for q in ids]
        if any(not isinstance(v, int | float) or not math.isfinite(v) for v in values):
            raise ValueError(f"snapshot run {chosen['name']!r} lacks per-query {column} figures")
        scores[measure.label(k)] = np.asarray(values, dtype=float)
    return scores


def _some(ids: list[str], limit: int = 5) -> str:
    return ", ".join(ids[:limit]) + (" ..." if len(ids) > limit else "")


def compare_with_snapshot(
    evaluation: Evaluation,
    snapshot: Mapping,
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
    ``metrics`` are measure keys; ``options`` go to ``metrics.compare.compare``.
    """
    check_comparable(snapshot, evaluation)
    keys = tuple(metrics or DEFAULT_COMPARED)
    unknown = [key for key in keys if key not in MEASURE_BY_KEY]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(MEASURE_BY_KEY)}")
    ids = evaluation.scored_ids
    before = snapshot_scores(snapshot, ids, run=run, metrics=keys)
    when = created_minute(snapshot["snapshot"])
    baseline = f"{snapshot_run(snapshot, run)['name']} (snapshot {when})"
    names = list(candidates or evaluation.run_names)
    while baseline in names:
        baseline += "'"
    scores: dict[str, dict[str, np.ndarray]] = {baseline: before}
    for name in names:
        values = evaluation.per_query_scores(name)
        scores[name] = {MEASURE_BY_KEY[key].label(evaluation.k): values[key] for key in keys}
    return compare(baseline, scores, ids, candidates=names, metrics=list(before), **options)
