"""The JSON contract of an evaluation (any driver's: in memory, block by block, on Spark): the
document `python -m metrics --format json` prints and every snapshot holds
(`metrics.snapshot`), as plain dicts.

Every key here is documented in README and read by snapshots, so keys are only ever added.
Metric names are the figures' labels under K and the conventions (`Spec.label`): they carry
the chosen K when read at it ("MRR@10"), none when read over the whole list ("MRR" under
rr=full); floats stay unrounded (the text writers in `metrics.outputs.text` round for
people, this does not). Every driver's result fills the same keys with the same figures; only
"engine" (absent for the in-memory one) says which scored it. What a command adds around it
(the slices, the costs, a comparison) is written by `metrics.outputs.documents`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrics.core.blocks import BlockEvaluation, BlockRun
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.spark.evaluate import SparkEvaluation, SparkRun
from metrics.stats.intervals import Interval
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.engines import DEFAULT_ENGINE
from metrics.vocabulary.names import Spec


def to_dict(evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
            measures: Sequence[Spec] | None = None) -> dict[str, Any]:
    """The JSON contract documented in README: metric names are the figures' labels. The figures
    are the evaluation's (the defaults, then those asked for), or `measures` alone (score
    --metric); figures asked for add "measures": what each one's name sets."""
    k = evaluation.k
    summary = evaluation.summary_specs if measures is None else tuple(measures)
    per_query = evaluation.query_specs if measures is None else tuple(measures)
    document = {
        "k": k,
        "conventions": evaluation.conventions.as_dict()
        | {"sentences": evaluation.conventions.sentences()},
        "query_set": {
            "queries": len(evaluation.query_ids),
            "scored": len(evaluation.scored_ids),
            "excluded": evaluation.excluded_ids,
        },
        "runs": [_run_dict(evaluation, run, summary, per_query) for run in evaluation.runs],
    }
    if evaluation.asked or measures is not None:
        document["measures"] = measures_dict(
            evaluation, summary if measures is not None else evaluation.asked)
    if evaluation.engine != DEFAULT_ENGINE:
        document["engine"] = evaluation.engine
    return document


def measures_dict(evaluation: Evaluation, specs: Sequence[Spec]) -> dict[str, dict[str, Any]]:
    """Each figure shown: its measure's name, the parameters its name gives and what they
    (and its reading of the data) say beside it."""
    notes = evaluation.notes(specs)
    return {spec.label(evaluation.k, evaluation.conventions): {"measure": spec.measure.name,
                                       "parameters": dict(spec.parameters),
                                       "note": notes.get(spec.key, "")}
            for spec in specs}


def summary_dict(summary: dict[str, Interval], k: int, conventions: Conventions,
                  specs: Sequence[Spec]) -> dict[str, dict[str, Any]]:
    return {
        spec.label(k, conventions): {
            "mean": interval.mean,
            "low": interval.low,
            "high": interval.high,
            "interval": interval.method,
        }
        for spec in specs
        for interval in [summary[spec.key]]
    }


def _run_dict(evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
              run: RunEvaluation | BlockRun | SparkRun, summary: Sequence[Spec],
              shown: Sequence[Spec]) -> dict[str, Any]:
    k, c = evaluation.k, evaluation.conventions
    per_query = evaluation.per_query_scores(run.name)
    # columns via tolist() (C-speed conversion to Python numbers), then one dict per query
    columns = {
        "query_id": evaluation.scored_ids,
        "class": run.classes.tolist(),
        "repeats": evaluation.query_repeats(run.name).tolist(),
    } | {spec.label(k, c, summary=False): per_query[spec.key].tolist() for spec in shown}
    sweep = evaluation.sweep_means(run.name)
    names = {s.name() for s in summary} | {"k"}
    sweep = {key: values for key, values in sweep.items() if key in names}
    sweep_columns = {key: values.tolist() for key, values in sweep.items()}
    return {
        "name": run.name,
        "repeats": run.repeats,
        "missing_queries": list(run.missing_queries),
        "ignored_queries": list(run.ignored_queries),
        "summary": summary_dict(run.summary, k, c, summary),
        "queries": _records(columns),
        "suggestion": run.suggestion.as_dict(),
        "diagnosis": [
            {
                "failure": f.failure,
                "flagged": bool(f.flagged),
                "figure": f.figure,
                "threshold": f.threshold,
                "sentence": f.sentence,
            }
            for f in run.diagnosis
        ],
        "sweep": _records(sweep_columns),
    }


def _records(columns: dict[str, list]) -> list[dict[str, Any]]:
    keys = list(columns)
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns.values(), strict=True)]
