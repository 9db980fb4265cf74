"""The JSON documents the commands print, and their writer: the score document (the
evaluation's contract, `metrics.snapshot.contract`, with each run's cost and its summary per
slice), the paired comparison's (compare --by's rows per slice, every pair's, each test's
risk, the fragility check, the snapshot a baseline came from). Every key is documented
in README and only ever added; floats stay unrounded, and NaN is written null."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from metrics.context.cost import Cost
from metrics.core.evaluate import Evaluation
from metrics.core.geometric import GeometricDifference
from metrics.decide.fragility import Fragility
from metrics.decide.leaderboard import AllPairs, Leaderboard
from metrics.decide.risk import risks
from metrics.explain.slices import Slice
from metrics.io import Queries
from metrics.snapshot import Snapshot
from metrics.snapshot.contract import summary_dict, to_dict
from metrics.stats.comparison import Comparison
from metrics.stats.intervals import Interval
from metrics.stats.topic_set_size import TopicSetSize
from metrics.vocabulary.comparisons import comparison_method
from metrics.vocabulary.format import json_escaped
from metrics.vocabulary.measures import geometric_summary
from metrics.vocabulary.names import Spec
from metrics.vocabulary.power import TOPIC_SET_METHOD
from metrics.vocabulary.tukey import ANOVA_METHOD, TUKEY_METHOD


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
                 "summary": summary_dict(piece.summary[run["name"]], evaluation.k,
                                         evaluation.conventions, summary)}
                for piece in slices
            ]
    if getattr(evaluation, "standardised", ""):  # every figure is a standardised one
        document["standardised"] = evaluation.standardised
    return document


def geometric_document(summaries: dict[str, dict[str, Interval]]) -> dict[str, Any]:
    """The geometric summaries (gm_map): per summary, its rule, interval method and each
    run's value with its interval (`metrics.core.geometric`)."""
    out = {}
    for key, runs in summaries.items():
        summary = geometric_summary(key)
        out[key] = {"name": summary.name, "rule": summary.rule, "interval": summary.interval,
                    "runs": {name: {"value": i.mean, "low": i.low, "high": i.high,
                                    "confidence_level": i.confidence_level}
                             for name, i in runs.items()}}
    return out


def geometric_comparison_document(differences: Sequence[GeometricDifference]
                                  ) -> dict[str, Any]:
    """compare's geometric summaries (gm_map): per summary, how the difference is read and
    each candidate's difference from the baseline with its paired interval."""
    out: dict[str, Any] = {}
    for found in differences:
        entry = out.setdefault(found.summary.key, {"method": found.summary.paired,
                                                   "comparisons": []})
        entry["comparisons"].append({
            "candidate": found.a, "baseline": found.b, "difference": found.difference,
            "low": found.low, "high": found.high, "confidence_level": found.confidence_level})
    return out


def comparison_dict(evaluation: Evaluation, comparison: Comparison) -> dict[str, Any]:
    """A pure function of the inputs (no timestamp): identical calls print identical bytes."""
    standardised = getattr(evaluation, "standardised", "")
    return {
        **({"standardised": standardised} if standardised else {}),
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
        "min_effect": comparison.min_effect,
        "method": comparison_method(comparison),
    }


def slice_rows(facet: str, pieces: Sequence[tuple[str, Comparison]]) -> list[dict]:
    """compare --by: every slice's comparison rows, each naming its facet and slice."""
    return [row | {"facet": facet, "slice": label}
            for label, comparison in pieces for row in comparison.rows()]


def all_pairs_json(pairs: AllPairs) -> dict[str, Any]:
    """What --all-pairs puts in the compare JSON: every pair's rows, and the matrices and
    letters per metric. Read by the Tukey HSD (--test tukey), the baseline's comparison stays
    as it is (it gates the build) and every pair is the HSD's: "pairs" and "all_pairs"."""
    every = {"all_pairs": pairs.as_dict(), "pairs": pairs.pair_rows(),
             "all_pairs_method": pairs_method(pairs)}
    if pairs.test == "tukey":
        return every
    return {"comparisons": [row for c in pairs.comparisons for row in c.rows()],
            "n_comparisons": pairs.n_comparisons, **every}


def pairs_method(pairs: AllPairs) -> dict[str, str]:
    """How every pair was read, in sentences: "letters", and "test" and "anova" for the
    Tukey HSD."""
    method = {"letters": pairs.sentence()}
    if pairs.test == "tukey":
        method |= {"test": TUKEY_METHOD, "anova": ANOVA_METHOD}
    return method


def leaderboard_document(board: Leaderboard, pairs: AllPairs | None = None) -> dict[str, Any]:
    """The leaderboard command's document: the standings; with every pair tested
    (--test), "test", the pairs' rows, matrices and letters, and how they were read."""
    document = board.as_dict()
    if pairs is not None:
        document |= {"test": pairs.test, "all_pairs": pairs.as_dict(),
                     "pairs": pairs.pair_rows(), "all_pairs_method": pairs_method(pairs)}
    return document


def topic_set_json(sizes: dict[str, TopicSetSize]) -> dict[str, Any]:
    """What power --delta adds: the queries a future set needs per metric, and the method."""
    return {"topic_set_method": TOPIC_SET_METHOD,
            "topic_set_sizes": [{"metric": label, **size.as_dict()}
                                for label, size in sizes.items()]}


def fragility_json(found: Fragility) -> dict[str, Any]:
    return {"fragility": found.rows(), "fragility_summary": found.summary,
            "fragility_tried": [{"convention": c, "choice": v} for c, v in found.tried],
            "fragility_skipped": [{"convention": c, "why": why} for c, why in found.skipped]}


def snapshot_source(snapshot: Snapshot, path: Path, run_name: str | None,
                    note: str | None = None) -> dict[str, Any]:
    """What the baseline of a comparison against a snapshot was, how its figures were
    verified, and the same-run note if any (for the JSON output)."""
    header = snapshot.header
    run = snapshot.run(run_name)
    return {
        "file": str(path),
        "created": header.created,
        "label": header.label,
        "tool_version": header.tool_version,
        "run": run.name,
        "run_fingerprint": run.fingerprint,
        "query_set_fingerprint": snapshot.query_set_fingerprint,
        "figures_fingerprint": header.figures_fingerprint,
        "verification": snapshot.verification,
        "verified": snapshot.verified,
        "same_run": note,
    }


def add_risk(data: dict[str, Any], comparison: Comparison, delta: float,
             queries: Queries | None = None) -> None:
    """Each row of the comparison's own tests gains "risk" (slices' rows keep theirs out);
    each of the worst losses carries the query's figure before and after (the baseline's and
    the candidate's), and with a queries file its query's text."""
    found = {(r.candidate, r.metric): r.as_dict() for r in risks(comparison, delta=delta)}
    position = {query: i for i, query in enumerate(comparison.query_ids)}
    for (candidate, metric), risk in found.items():
        test = comparison.test(candidate, metric)
        for loss in risk["worst"]:
            at = position[loss["query_id"]]
            loss["before"], loss["after"] = float(test.before[at]), float(test.after[at])
            if queries is not None:
                loss["text"] = queries.text(loss["query_id"])
    for row in data.get("comparisons", []):
        if row["baseline"] == comparison.baseline and "slice" not in row:
            row["risk"] = found.get((row["candidate"], row["metric"]))


def write_json(document: dict[str, Any]) -> None:
    """The document as one line on standard output. orjson writes the per-query records of
    10,000 queries in 10 ms where json.dumps takes 85 ms (benchmarks/bench_engine.py
    --profile), and it writes null, never an invalid NaN; it escapes the C0 controls only,
    so every other character no output writes as it is (DEL, C1, a line separator, a
    bidirectional override) is written as its JSON escape (`format.json_escaped`): the ids
    read back exactly."""
    sys.stdout.write(json_text(document))


def json_text(document: dict[str, Any]) -> str:
    """The document as write_json writes it, one line, for a file."""
    text = orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return json_escaped(text) + "\n"
