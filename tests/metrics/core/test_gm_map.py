"""gm_map (issue 51): trec_eval 10.0's geometric mean of AP, a summary that is not a mean of
per-query figures, with its own interval and paired comparison.

- The value against pytrec_eval's gm_map (trec_eval's own code: per query log(max(AP,
  0.00001)), exponentiated mean) on random collections with many ties and queries of AP 0; a
  query the run never answers counts AP 0, as trec_eval -c.
- The percentile bootstrap interval and the paired difference's against a plain loop over
  the same resampled queries (each resample's queries listed one by one, math.log and
  math.exp).
- Refused on standardised figures; its name read in every spelling.
"""

from __future__ import annotations

import json
import math
import os
import subprocess

import numpy as np
import pytest
import pytrec_eval

from metrics.cli import main
from metrics.core.evaluate import evaluate
from metrics.core.files import RunSource, evaluate_files
from metrics.core.geometric import (
    geometric_difference_of,
    geometric_differences,
    geometric_means,
)
from metrics.core.standardise import standardise
from metrics.stats.bootstrap import resampled_queries
from metrics.vocabulary.gates import EXIT_USAGE
from metrics.vocabulary.measures import GM_MAP, geometric_summary, split_summaries
from tests.marks import THOROUGH
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_against_trec_eval import random_collection, write_files

FLOOR = 0.00001  # trec_eval's MIN_GEO_MEAN


def reference_gm_map(qrels: dict, run: dict) -> float:
    """pytrec_eval's per-query gm_map (the log of max(AP, floor)) over the queries with a
    relevant id; a query the run never answers adds log(floor) (trec_eval -c)."""
    scored = [q for q, docs in qrels.items() if any(g > 0 for g in docs.values())]
    found = pytrec_eval.RelevanceEvaluator({q: qrels[q] for q in scored}, {"gm_map"}).evaluate(
        {q: docs for q, docs in run.items() if q in scored})
    logs = [found[q]["gm_map"] if q in found else math.log(FLOOR) for q in scored]
    return math.exp(sum(logs) / len(logs))


def two_runs(seed: int):
    qrels, run = random_collection(seed)
    rng = np.random.default_rng(seed + 5)
    pool = sorted({d for docs in qrels.values() for d in docs}) + ["x1", "x2", "x3"]
    other = {q: {d: float(rng.integers(0, 4)) for d in
                 rng.choice(pool, size=int(rng.integers(1, min(len(pool), 12) + 1)),
                            replace=False)}
             for q in qrels if rng.random() > 0.1}
    return qrels, run, other


def scored_lists(run: dict) -> dict:
    # trec_eval breaks ties by doc id descending
    return {q: [d for d, s in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]
            for q, docs in run.items()}


@pytest.mark.parametrize("seed", range(30))
def test_gm_map_equals_pytrec_evals(seed):
    qrels, run, other = two_runs(seed)
    evaluation = evaluate(make_qrels(qrels), [make_run(scored_lists(run), name="a"),
                                              make_run(scored_lists(other), name="b")], 5)
    found = geometric_means(evaluation)
    for name, source in (("a", run), ("b", other)):
        expected = reference_gm_map(qrels, source)
        assert found[name].mean == pytest.approx(expected, rel=1e-12, abs=1e-15), (seed, name)
        assert found[name].low <= found[name].mean <= found[name].high


def test_a_query_of_ap_0_weighs_as_the_floor():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    evaluation = evaluate(make_qrels(qrels), [make_run({"q1": ["a"], "q2": ["z"]}, name="r")],
                          5)
    assert geometric_means(evaluation)["r"].mean == pytest.approx(math.sqrt(1 * FLOOR))


def plain_gm(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, FLOOR)) for v in values) / len(values))


@pytest.mark.parametrize("seed", range(4))
def test_intervals_against_a_plain_loop(seed):
    qrels, run, other = two_runs(seed + 100)
    evaluation = evaluate(make_qrels(qrels), [make_run(scored_lists(run), name="a"),
                                              make_run(scored_lists(other), name="b")], 5)
    held = evaluation.with_measures([GM_MAP.of])
    key = held.resolve(GM_MAP.of).key
    ap = {n: held.per_query_scores(n)[key].tolist() for n in ("a", "b")}
    c = held.conventions
    counts = resampled_queries(len(ap["a"]), seed=c.seed,
                               n_resamples=c.n_resamples).counts()
    gm = {n: [] for n in ap}
    for row in counts:
        drawn = [q for q, times in enumerate(row) for _ in range(int(times))]
        for n in ap:
            gm[n].append(plain_gm([ap[n][q] for q in drawn]))
    tail = (1 - c.confidence_level) / 2
    found = geometric_means(evaluation)
    for n in ap:
        low, high = np.quantile(gm[n], [tail, 1 - tail])
        assert (found[n].low, found[n].high) == pytest.approx((low, high), rel=1e-9)
        assert found[n].mean == pytest.approx(plain_gm(ap[n]), rel=1e-12)
    paired = geometric_difference_of(evaluation, "a", "b")
    differences = np.array(gm["a"]) - np.array(gm["b"])
    low, high = np.quantile(differences, [tail, 1 - tail])
    assert (paired.low, paired.high) == pytest.approx((low, high), rel=1e-9, abs=1e-12)
    assert paired.difference == pytest.approx(plain_gm(ap["a"]) - plain_gm(ap["b"]), rel=1e-12)


def test_every_candidate_at_once_reads_as_each_alone():
    """The figures read and the queries drawn once for every candidate change nothing."""
    qrels, run, other = two_runs(7)
    _, third, _ = two_runs(8)
    evaluation = evaluate(make_qrels(qrels), [make_run(scored_lists(lists), name=name)
                                              for name, lists in (("a", run), ("b", other),
                                                                  ("c", third))], 5)
    together = geometric_differences(evaluation, "a", ["b", "c"])
    assert together == tuple(geometric_difference_of(evaluation, name, "a") for name in "bc")
    assert [d.a for d in together] == ["b", "c"] and {d.b for d in together} == {"a"}
    with pytest.raises(ValueError, match="no run named 'z'"):
        geometric_differences(evaluation, "a", ["z"])


def test_refused_on_standardised_figures():
    qrels, run, other = two_runs(3)
    evaluation = evaluate(make_qrels(qrels), [make_run(scored_lists(run), name="a"),
                                              make_run(scored_lists(other), name="b")], 5,
                          measures=["AP(read=full)"])
    with pytest.raises(ValueError, match="no logarithm"):
        geometric_means(standardise(evaluation).evaluation)


def test_every_spelling_names_it():
    for name in ("gm_map", "GM_MAP", "GMAP", " gm_map "):
        assert geometric_summary(name) is GM_MAP
    assert geometric_summary("map") is None


def test_names_split_into_the_summaries_and_the_measures_in_order():
    assert split_summaries(["P@5", "GMAP", "map", "gm_map"]) == ((GM_MAP,), ["P@5", "map"])
    assert split_summaries(["ndcg"]) == ((), ["ndcg"])


TREC_EVAL = os.environ.get("TREC_EVAL")


@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_all_line_equals_pytrec_eval_and_trec_eval(tmp_path, capsys, seed):
    """`--metric gm_map --format trec_eval` under --empty-queries zero (trec_eval -c): the
    gm_map all line as pytrec_eval's figure prints it (%6.4f) and, when TREC_EVAL names a
    trec_eval 10.0 binary, byte for byte as its own -c -m map -m gm_map."""
    qrels, run, _ = two_runs(seed + 200)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    argv = ["--qrels", str(qrels_path), "--run", f"tag={run_path}", "--format", "trec_eval",
            "--empty-queries", "zero", "--metric", "map", "--metric", "gm_map"]
    assert main(argv) == 0
    ours = capsys.readouterr().out.splitlines()
    gm = [line for line in ours if line.startswith("gm_map")]
    # every qrels query scored: those without a relevant id and those unanswered at AP 0
    found = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(
        {q: d for q, d in run.items() if q in qrels})
    logs = [found[q]["gm_map"] if q in found else math.log(FLOOR) for q in qrels]
    assert gm == [f"{'gm_map':<22}\tall\t{math.exp(sum(logs) / len(logs)):6.4f}"]
    assert [line.split("\t")[0].strip() for line in ours] == ["runid", "num_q", "map",
                                                              "gm_map"]
    if TREC_EVAL:
        theirs = subprocess.run([TREC_EVAL, "-c", "-m", "runid", "-m", "num_q", "-m", "map",
                                 "-m", "gm_map", str(qrels_path), str(run_path)],
                                capture_output=True, text=True, check=True).stdout
        assert ours == theirs.splitlines()


def test_named_alone_trec_eval_prints_it_alone_and_a_bad_engine_is_refused(tmp_path, capsys):
    qrels, run, _ = two_runs(1)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(1))
    argv = ["--qrels", str(qrels_path), "--run", str(run_path), "--metric", "GM_MAP"]
    assert main([*argv, "--format", "trec_eval"]) == 0
    assert [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()] == [
        "runid", "num_q", "gm_map"]
    assert main([*argv, "--engine", "blocks"]) == EXIT_USAGE
    assert "default --engine" in capsys.readouterr().err


@THOROUGH  # ~1.4 s: compare's tests, headline and risk run too
def test_compare_reads_each_candidates_paired_difference(tmp_path, capsys):
    """`compare --metric gm_map --format json`: each candidate's difference of gm_map from
    the baseline's with the engine's paired interval; refused against a snapshot."""
    qrels, run, other = two_runs(7)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(7))
    other_path = tmp_path / "other.txt"
    other_path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in other.items()
                                  for d, s in docs.items()))
    argv = ["compare", "--qrels", str(qrels_path), "--run", f"a={run_path}", "--run",
            f"b={other_path}", "--metric", "gm_map", "--metric", "P", "--format", "json",
            "--permutations", "100"]
    assert main(argv) == 0
    found = json.loads(capsys.readouterr().out)["geometric"]["gm_map"]
    (row,) = found["comparisons"]
    evaluation = evaluate_files(qrels_path, [RunSource(run_path, name="a"),
                                             RunSource(other_path, name="b")], 10)
    expected = geometric_difference_of(evaluation, "b", "a")
    assert (row["candidate"], row["baseline"]) == ("b", "a")
    assert (row["difference"], row["low"], row["high"]) == pytest.approx(
        (expected.difference, expected.low, expected.high), rel=1e-12)
    assert found["method"] == GM_MAP.paired
