"""The JSON contract for scripts: an Evaluation, and a paired Comparison, as plain dicts.

Every key here is documented in README and read by snapshots (`metrics.snapshot`), so keys
are only ever added. Metric names are the figures' labels under K and the conventions
(`Spec.label`): they carry the chosen K when read at it ("MRR@10"), none when read over the
whole list ("MRR" under rr=full); floats stay unrounded (the text writers in
`metrics.cli.text` round for people, this does not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from metrics.context.cost import Cost
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.decide.compare import Comparison
from metrics.explain.slices import Slice
from metrics.spark.evaluate import SparkEvaluation
from metrics.stats.intervals import Interval
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.names import Spec
from metrics.vocabulary.spark import WHAT_IT_HOLDS


def to_dict(evaluation: Evaluation, slices: Sequence[Slice] = (),
            costs: Sequence[Cost] = (), measures: Sequence[Spec] | None = None
            ) -> dict[str, Any]:
    """The JSON contract documented in README: metric names are the figures' labels. With
    slices (--by), each run carries its summary per slice, shaped like its own summary;
    with costs (--tokens-per-chunk, --corpus), what its context costs at K and at k. The
    figures are the evaluation's (the defaults, then those asked for), or `measures` alone
    (score --metric); figures asked for add "measures": what each one's name sets."""
    k = evaluation.k
    summary = evaluation.summary_specs if measures is None else tuple(measures)
    per_query = evaluation.query_specs if measures is None else tuple(measures)
    runs = [_run_dict(evaluation, run, summary, per_query) for run in evaluation.runs]
    for run, cost in zip(runs, costs, strict=False):
        run["cost"] = cost.as_dict()
    if slices:
        for run in runs:
            run["slices"] = [
                {"facet": piece.facet, "value": piece.value, "queries": piece.queries,
                 "too_small": piece.too_small,
                 "summary": _summary_dict(piece.summary[run["name"]], k,
                                          evaluation.conventions, summary)}
                for piece in slices
            ]
    document = {
        "k": k,
        "conventions": evaluation.conventions.as_dict()
        | {"sentences": evaluation.conventions.sentences()},
        "query_set": {
            "queries": len(evaluation.query_set.query_ids),
            "scored": len(evaluation.scored_ids),
            "excluded": evaluation.excluded_ids,
        },
        "runs": runs,
    }
    if evaluation.asked or measures is not None:
        document["measures"] = measures_dict(
            evaluation, summary if measures is not None else evaluation.asked)
    return document


def measures_dict(evaluation: Evaluation, specs: Sequence[Spec]) -> dict[str, dict[str, Any]]:
    """Each figure shown: its measure's name, the parameters its name gives and what they
    (and its reading of the data) say beside it."""
    notes = evaluation.notes(specs)
    return {spec.label(evaluation.k, evaluation.conventions): {"measure": spec.measure.name,
                                       "parameters": dict(spec.parameters),
                                       "note": notes.get(spec.key, "")}
            for spec in specs}


def _summary_dict(summary: dict[str, Interval], k: int, conventions: Conventions,
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


def _run_dict(evaluation: Evaluation, run: RunEvaluation, summary: Sequence[Spec],
              shown: Sequence[Spec]) -> dict[str, Any]:
    k, c = evaluation.k, evaluation.conventions
    per_query = evaluation.per_query_scores(run.name)
    # columns via tolist() (C-speed conversion to Python numbers), then one dict per query
    columns = {
        "query_id": evaluation.scored_ids,
        "class": run.classes.tolist(),
        "repeats": run.aligned.repeats[evaluation.scored].tolist(),
    } | {spec.label(k, c, summary=False): per_query[spec.key].tolist() for spec in shown}
    sweep = evaluation.sweep_means(run.name)
    names = {s.name() for s in summary} | {"k"}
    sweep = {key: values for key, values in sweep.items() if key in names}
    sweep_columns = {key: values.tolist() for key, values in sweep.items()}
    return {
        "name": run.name,
        "repeats": run.repeats,
        "missing_queries": list(run.missing_queries),
        "ignored_queries": list(run.aligned.ignored_queries),
        "summary": _summary_dict(run.summary, k, c, summary),
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


def spark_dict(evaluation: SparkEvaluation, measures: Sequence[Spec] | None = None
               ) -> dict[str, Any]:
    """A Spark evaluation under the same contract, for the figures it holds: the keys of
    `to_dict` it can fill (k, conventions, query_set; per run its name, repeats, missing
    queries, summary, per-query figures and, when a sweep was scored, the sweep), and
    "engine" and "holds" saying what it leaves out."""
    k, c = evaluation.k, evaluation.conventions
    summary = evaluation.summary_specs if measures is None else tuple(measures)
    per_query = evaluation.query_specs if measures is None else tuple(measures)
    runs = []
    for run in evaluation.runs:
        values = evaluation.per_query_scores(run.name)
        columns = {
            "query_id": evaluation.scored_ids,
            "repeats": run.table.column("repeats").to_numpy()[evaluation.scored].tolist(),
        } | {spec.label(k, c, summary=False): values[spec.key].tolist() for spec in per_query}
        found = {"name": run.name, "repeats": run.repeats,
                 "missing_queries": list(run.missing_queries),
                 "summary": _summary_dict(run.summary, k, c, summary),
                 "queries": _records(columns)}
        if evaluation.sweep_range is not None:
            names = {s.name() for s in summary} | {"k"}
            found["sweep"] = _records({key: values.tolist() for key, values
                                       in evaluation.sweep_means(run.name).items()
                                       if key in names})
        runs.append(found)
    return {
        "k": k,
        "conventions": evaluation.conventions.as_dict()
        | {"sentences": evaluation.conventions.sentences()},
        "query_set": {"queries": len(evaluation.query_ids),
                      "scored": len(evaluation.scored_ids),
                      "excluded": evaluation.excluded_ids},
        "runs": runs,
        "engine": "spark",
        "holds": WHAT_IT_HOLDS,
    }


def _records(columns: dict[str, list]) -> list[dict[str, Any]]:
    keys = list(columns)
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def comparison_dict(evaluation: Evaluation, comparison: Comparison) -> dict[str, Any]:
    """A pure function of the inputs (no timestamp): identical calls print identical bytes."""
    return {
        "k": evaluation.k,
        "conventions": evaluation.conventions.as_dict(),
        "query_set": {"scored": len(evaluation.scored_ids), "excluded": evaluation.excluded_ids},
        "baseline": comparison.baseline,
        "candidates": list(comparison.candidates),
        "metrics": list(comparison.metrics),
        "test": "paired randomization (sign flip), two-sided",
        "correction": comparison.correction,
        "n_comparisons": comparison.n_comparisons,
        "alpha": comparison.alpha,
        "n_permutations": comparison.n_permutations,
        "n_resamples": comparison.n_resamples,
        "seed": comparison.seed,
        "comparisons": comparison.rows(),
    }


def slice_rows(facet: str, pieces: Sequence[tuple[str, Comparison]]) -> list[dict]:
    """compare --by: every slice's comparison rows, each naming its facet and slice."""
    return [row | {"facet": facet, "slice": label}
            for label, comparison in pieces for row in comparison.rows()]
