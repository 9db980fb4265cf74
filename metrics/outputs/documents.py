"""The JSON documents the commands print, and their writer: the score document (the
evaluation's contract, `metrics.snapshot.contract`, with each run's cost and its summary per
slice), the paired comparison's (and compare --by's rows per slice). Every key is documented
in README and only ever added; floats stay unrounded, and NaN is written null."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import orjson

from metrics.context.cost import Cost
from metrics.core.evaluate import Evaluation
from metrics.explain.slices import Slice
from metrics.snapshot.contract import summary_dict, to_dict
from metrics.stats.comparison import Comparison
from metrics.vocabulary.names import Spec


def score_document(evaluation: Evaluation, slices: Sequence[Slice] = (),
                   costs: Sequence[Cost] = (), measures: Sequence[Spec] | None = None
                   ) -> dict[str, Any]:
    """The score command's document: the evaluation's contract (`to_dict`, with `measures`
    alone when given). With slices (--by), each run carries its summary per slice, shaped
    like its own summary; with costs (--tokens-per-chunk, --corpus), what its context costs
    at K and at k."""
    document = to_dict(evaluation, measures)
    summary = evaluation.summary_specs if measures is None else tuple(measures)
    runs = document["runs"]
    for run, cost in zip(runs, costs, strict=False):
        run["cost"] = cost.as_dict()
    if slices:
        for run in runs:
            run["slices"] = [
                {"facet": piece.facet, "value": piece.value, "queries": piece.queries,
                 "too_small": piece.too_small,
                 "summary": summary_dict(piece.summary[run["name"]], evaluation.k, summary)}
                for piece in slices
            ]
    return document


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


def write_json(document: dict[str, Any]) -> None:
    """The document as one line on standard output. orjson writes the per-query records of
    10,000 queries in 10 ms where json.dumps takes 85 ms (benchmarks/bench_engine.py
    --profile), and it writes null, never an invalid NaN."""
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")
