"""Standardised scores (issue 51, section 3): z-scores against a file of standards in trec_eval
-Z's format or against the runs loaded, and Phi(z) (Webber, Moffat and Zobel 2008).

- The z-score rule against a plain loop written from trec_eval 10.0's `convert_zscores.c`
  (hypothesis: deviations of 0, figures equal to the mean, standards missing).
- Against the runs loaded, per query and figure: the standardised figures of the runs have
  mean 0 and sample standard deviation 1 wherever the runs differ; Phi(z) lies in [0, 1] and
  keeps each query's order of the runs; means and intervals read the standardised figures.
- `--standardise FILE --format trec_eval -q` on random collections with a mean file made as
  trec_eval's `test/make_zscore_file.py` makes it: every line against the plain loop over the
  raw figures (themselves checked against trec_eval elsewhere) and, when TREC_EVAL names a
  trec_eval 10.0 binary, byte for byte against its own `-q -c -Z` output.
- The reader of standards refuses a bad line naming the file and the line.
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.cli import main
from metrics.core.evaluate import evaluate
from metrics.core.standardise import standard_name, standardise
from metrics.explain.query import query_figures, standardised_query
from metrics.io import LoadError, load_qrels, load_run
from metrics.io.standards import load_standards
from metrics.stats.standardise import population, unit_scores, z_scores
from metrics.vocabulary.conventions import Conventions
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.core.test_against_trec_eval import random_collection, write_files

MISSING = -1000000.0  # trec_eval's MISSING_ZSCORE_VALUE


def trec_eval_z(value: float, standard: tuple[float, float] | None) -> float:
    """trec_eval 10.0's te_convert_to_zscore for one figure, as a plain loop would: the
    missing value where there is no standard, or a deviation of 0 off the mean."""
    if standard is None:
        return MISSING
    mean, deviation = standard
    if deviation:
        return (value - mean) / deviation
    return 0.0 if value == mean else MISSING


numbers = st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 2))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(numbers, st.one_of(st.none(), st.tuples(
    numbers, st.one_of(st.just(0.0), st.floats(0.01, 3))))), min_size=1, max_size=30))
def test_z_scores_follow_trec_eval_10s_rule(cases):
    values = np.array([v for v, _ in cases])
    mean = np.array([s[0] if s else np.nan for _, s in cases])
    deviation = np.array([s[1] if s else np.nan for _, s in cases])
    z, why = z_scores(values, mean, deviation)
    for i, (value, standard) in enumerate(cases):
        expected = trec_eval_z(value, standard)
        if expected == MISSING:
            assert math.isnan(z[i]) and why[i] > 0
        else:
            assert z[i] == pytest.approx(expected, abs=1e-12) and why[i] == 0


def several_runs(seed: int, n_runs: int = 4):
    """One random collection's qrels and n_runs runs over its queries (many tied scores)."""
    qrels, _ = random_collection(seed)
    rng = np.random.default_rng(seed + 77)
    pool = sorted({d for docs in qrels.values() for d in docs}) + [f"x{i}" for i in range(9)]
    runs = []
    for r in range(n_runs):
        lists = {q: list(rng.choice(pool, size=int(rng.integers(1, min(len(pool), 15) + 1)),
                                    replace=False)) for q in qrels if rng.random() > 0.05}
        runs.append((f"run{r}", lists))
    return qrels, runs


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("scale", ["z", "cdf"])
def test_against_the_runs_loaded_each_query_is_centred_and_scaled(seed, scale):
    qrels, lists = several_runs(seed)
    evaluation = evaluate(make_qrels(qrels), [make_run(x, name=n) for n, x in lists], 5,
                          measures=["INST", "Compat", "Rprec"])
    raw = {spec.key: np.stack([r.curves(spec.key)[:, spec.k(5) - 1] for r in evaluation.runs])
           for spec in evaluation.summary_specs}
    found = standardise(evaluation, scale=scale)
    runs = found.evaluation.runs
    for spec in evaluation.summary_specs:
        figures = np.stack([r.curves(spec.key)[:, spec.k(5) - 1] for r in runs])
        z = figures if scale == "z" else None
        if scale == "cdf":
            assert np.all((figures >= 0) & (figures <= 1) | np.isnan(figures)), spec.key
            # Phi keeps each query's order of the runs
            differ = raw[spec.key].std(axis=0) > 0
            for q in np.flatnonzero(differ):
                assert (np.argsort(raw[spec.key][:, q], kind="stable").tolist()
                        == np.argsort(figures[:, q], kind="stable").tolist()), spec.key
            continue
        spread = raw[spec.key].std(axis=0, ddof=1)
        for q in range(z.shape[1]):
            if spread[q] > 0:
                assert z[:, q].mean() == pytest.approx(0, abs=1e-9)
                assert z[:, q].std(ddof=1) == pytest.approx(1, abs=1e-9)
            else:  # every run scores the mean: 0
                np.testing.assert_array_equal(z[:, q], 0)
        # the means are those of the standardised figures over the scored queries
        for i, run in enumerate(runs):
            assert run.summary[spec.key].mean == pytest.approx(
                z[i, found.evaluation.scored].mean(), abs=1e-12)
            assert run.summary[spec.key].method == "bootstrap"
    assert found.evaluation.standardised_words in found.evaluation.notes()["nDCG"]


def test_runs_that_all_score_the_same_standardise_to_0_whatever_the_float_noise():
    # 0.4 three times: numpy's mean and deviation carry noise (6e-17), statistics' do not
    values = np.array([[0.4, 0.1, 1 / 3], [0.4, 0.2, 1 / 3], [0.4, 0.3, 1 / 3]])
    mean, deviation = population(values)
    for q in (0, 2):  # exactly where every run scores the same
        assert mean[q] == statistics.mean(values[:, q])
        assert deviation[q] == statistics.stdev(values[:, q]) == 0
    assert mean[1] == pytest.approx(0.2) and deviation[1] == pytest.approx(0.1)
    z, why = z_scores(values, mean, deviation)
    assert (z[:, 0] == 0).all() and (z[:, 2] == 0).all() and not why.any()
    assert (unit_scores(z[:, 0]) == 0.5).all()


def test_population_is_the_mean_and_sample_deviation_as_make_zscore_file():
    values = np.array([[0.1, 0.5], [0.3, 0.5], [0.8, 0.5]])
    mean, deviation = population(values)
    for q in range(2):
        assert mean[q] == pytest.approx(statistics.mean(values[:, q]))
        assert deviation[q] == pytest.approx(statistics.stdev(values[:, q]))
    assert unit_scores(np.array([0.0]))[0] == 0.5


def mean_file(tmp_path, qrels, runs, names):
    """trec_eval's test/make_zscore_file.py over the runs' raw figures: per query and
    measure, statistics.mean and statistics.stdev, written to 4 decimals."""
    evaluation = evaluate(make_qrels(qrels), [make_run(x, name=n) for n, x in runs], 10,
                          measures=names)
    lines = []
    ids = [str(q) for q in evaluation.query_set.query_ids]
    for spec in evaluation.summary_specs:
        name = standard_name(spec, evaluation)
        figures = np.stack([r.curves(spec.key)[:, spec.k(10) - 1] for r in evaluation.runs])
        for q, qid in enumerate(ids):
            if q % 7 == 3:
                continue  # a query without standards: trec_eval's missing value
            column = figures[:, q].tolist()
            lines.append(f"{qid} {name} {statistics.mean(column):6.4f} "
                         f"{statistics.stdev(column):6.4f}")
    path = tmp_path / "zscores"
    path.write_text("\n".join(lines) + "\n")
    return path


TREC_EVAL = os.environ.get("TREC_EVAL")
Z_NAMES = ["P_5", "P_10", "recall_10", "ndcg_cut_10", "map", "recip_rank", "Rprec", "bpref",
           "num_ret", "num_rel_ret"]


@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_z_lines_equal_the_plain_loop_and_trec_eval(tmp_path, capsys, seed):
    qrels, runs = several_runs(seed, 5)
    standards = mean_file(tmp_path, qrels, runs, Z_NAMES)
    qrels_path, run_path = write_files(tmp_path, qrels, {
        q: {d: float(len(docs) - i) for i, d in enumerate(docs)}
        for q, docs in runs[0][1].items()}, np.random.default_rng(seed))
    argv = ["--qrels", str(qrels_path), "--run", f"tag={run_path}", "--k", "10",
            "--empty-queries", "zero", "--format", "trec_eval", "-q"]
    for name in Z_NAMES:
        argv += ["--metric", name]
    assert main([*argv, "--standardise", str(standards)]) == 0
    ours = capsys.readouterr().out
    # the plain loop: the raw figures of the same run, each against its standard
    labels, _ = load_qrels(qrels_path)
    run, _ = load_run(run_path, labels=labels)
    raw = evaluate(labels, [run], 10, Conventions(empty_queries="zero"), measures=Z_NAMES)
    table = load_standards(standards)
    written = {tuple(x.strip() for x in line.split("\t")[:2]): line.split("\t")[2]
               for line in ours.splitlines()}
    checked = 0
    for spec in raw.summary_specs:
        name = standard_name(spec, raw)
        if name not in Z_NAMES:
            continue
        values = raw.runs[0].curves(spec.key)[:, spec.k(10) - 1]
        for qid, value in zip(raw.query_set.query_ids, values, strict=True):
            expected = trec_eval_z(float(value), table.get(str(qid), name))
            assert written["Z" + name, str(qid)] == f"{expected:6.4f}", (name, qid)
            checked += 1
    assert checked == len(Z_NAMES) * len(raw.query_set.query_ids)
    if TREC_EVAL:
        measures = ["-m", "runid", "-m", "num_q", "-m", "P.5,10", "-m", "recall.10", "-m",
                    "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "Rprec", "-m",
                    "bpref", "-m", "num_ret", "-m", "num_rel_ret"]
        theirs = subprocess.run([TREC_EVAL, "-q", "-c", "-Z", str(standards), *measures,
                                 str(qrels_path), str(run_path)], capture_output=True,
                                text=True, check=True).stdout
        assert sorted(ours.splitlines()) == sorted(theirs.splitlines())


@pytest.mark.parametrize(("text", "problem"), [
    ("q1 P_5 0.5\n", "4 fields"),
    ("q1 P_5 0.5 0.1\nq1 P_5 half 0.1\n", "line 2: the mean must be a number"),
    ("q1 P_5 0.5 -0.1\n", "line 1: the standard deviation must be 0 or more"),
    ("q1 P_5 0.5 nan\n", "must be finite"),
    ("q1 P_5 0.5 0.1\nq2 P_5 0.5 0.1\nq1 P_5 0.4 0.2\n", "line 3: query 'q1', measure 'P_5' "
     "is given twice"),
])
def test_a_bad_file_of_standards_is_refused_with_its_line(tmp_path, text, problem):
    path = tmp_path / "standards.txt"
    path.write_text(text)
    with pytest.raises(LoadError, match="standards.txt") as refused:
        load_standards(path)
    assert problem in str(refused.value)


def test_a_standardised_evaluation_takes_no_raw_figure_and_one_run_has_no_population():
    qrels = make_qrels({"q": {"a": 1}})
    two = evaluate(qrels, [make_run({"q": ["a"]}, name="A"), make_run({"q": ["b"]}, name="B")],
                   1)
    with pytest.raises(ValueError, match="cannot be added raw"):
        standardise(two).evaluation.with_measures(["Rprec"])
    with pytest.raises(ValueError, match="two runs or more"):
        standardise(evaluate(qrels, [make_run({"q": ["a"]})], 1))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", ["z", "cdf"])
def test_one_query_s_standardisation_is_written_out_from_a_plain_loop(seed, scale):
    qrels, lists = several_runs(seed)
    evaluation = evaluate(make_qrels(qrels), [make_run(x, name=n) for n, x in lists], 5,
                          measures=["Rprec"])
    found = standardise(evaluation, scale=scale).evaluation
    for query in found.scored_ids[:6]:
        written = standardised_query(found, evaluation, query)
        assert len(written) == len(evaluation.runs) * len(evaluation.summary_specs)
        raw, shown = query_figures(evaluation, query), query_figures(found, query)
        for row in written.itertuples():
            column = raw[row.metric].tolist()  # every run loaded: the population
            assert row.raw == column[list(raw["run"]).index(row.run)]
            assert row.mean == pytest.approx(statistics.mean(column), abs=1e-12)
            assert row.deviation == pytest.approx(statistics.stdev(column), abs=1e-12)
            expected = trec_eval_z(row.raw, (statistics.mean(column), statistics.stdev(column)))
            figure = float(shown.loc[shown["run"] == row.run, row.metric].iloc[0])
            if expected == MISSING:
                assert math.isnan(row.z) and row.undefined and math.isnan(figure)
                continue
            assert row.z == pytest.approx(expected, abs=1e-9) and row.undefined == ""
            assert row.shown == figure  # what the drill-down's figures table shows
            assert row.shown == pytest.approx(
                expected if scale == "z" else statistics.NormalDist().cdf(expected), abs=1e-9)


def test_against_a_file_a_query_without_standards_is_undefined_and_says_why(tmp_path):
    qrels, runs = next(found for found in map(several_runs, range(40))
                       if len(found[0]) > 3)  # the fourth query has no standards
    standards = load_standards(mean_file(tmp_path, qrels, runs, Z_NAMES))
    evaluation = evaluate(make_qrels(qrels), [make_run(x, name=n) for n, x in runs], 10)
    found = standardise(evaluation, standards).evaluation
    without = str(evaluation.query_set.query_ids[3])
    written = standardised_query(found, evaluation, without)
    ndcg = written[written["metric"] == "nDCG"]
    assert ndcg["mean"].isna().all() and ndcg["z"].isna().all()
    assert set(ndcg["undefined"]) == {"no mean and standard deviation for the query and measure"}
    with pytest.raises(ValueError, match="not standardised"):
        standardised_query(evaluation, evaluation, without)
