"""The judge's report against independent figures: the prediction-powered, human-only and
judge-only intervals against ppi-python on the engine's per-query figures; the confusion
matrix, rates and bias against plain loops over the files' lines; the label sets' orderings
against the agreement of two evaluations; the sample check on a sample chosen by a run's
scores."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.context.judge import judge_report, label_coverage, ppi_headlines, sample_checks
from metrics.core.files import RunSource, evaluate_files
from metrics.vocabulary import format as fmt
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.judge import PPI_IS_HUMAN_ONLY, SAMPLE_CHECK_ALPHA
from tests.metrics.capped import run_capped
from tests.metrics.context.judged_files import write_judged

ppi_py = pytest.importorskip("ppi_py")
EVERY = Conventions(empty_queries="zero")
RUNS = ("bm25", "dense", "hybrid")


def _evaluations(paths, conventions=EVERY, k=5):
    runs = [RunSource(paths[name]) for name in RUNS]
    return (evaluate_files(paths["human"], runs, k, conventions),
            evaluate_files(paths["judge"], runs, k, conventions))


def _lines(path):
    return {(q, d): int(g) for q, _, d, g in (line.split() for line in
                                               path.read_text().splitlines())}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    paths = write_judged(tmp_path_factory.mktemp("judged"))
    human, judge = _evaluations(paths)
    return paths, human, judge


@pytest.mark.parametrize("lam", [None, 1.0])
def test_every_ppi_interval_is_ppi_python_s_on_the_per_query_figures(judged, lam):
    paths, human, judge = judged
    report = judge_report(human, judge, lam=lam)
    labelled = set(human.scored_ids)
    in_sample = np.array([q in labelled for q in judge.scored_ids])
    order = [judge.scored_ids.index(q) for q in human.scored_ids]
    for found in report.figures:
        y = human.per_query_scores(found.run)[found.key]
        f_all = judge.per_query_scores(found.run)[found.key]
        low, high = ppi_py.ppi_mean_ci(y, f_all[order], f_all[~in_sample], alpha=0.05, lam=lam)
        assert found.ppi.low == pytest.approx(max(0.0, float(low[0])), abs=1e-12)
        assert found.ppi.high == pytest.approx(min(1.0, float(high[0])), abs=1e-12)
        c_low, c_high = ppi_py.classical_mean_ci(y, alpha=0.05)
        assert found.human.low == pytest.approx(max(0.0, float(np.ravel(c_low)[0])))
        assert found.human.high == pytest.approx(min(1.0, float(np.ravel(c_high)[0])))
        assert found.judge.mean == pytest.approx(f_all.mean())
        assert found.bias.mean == pytest.approx(np.mean(f_all[order] - y))


def test_paired_ppi_is_ppi_python_s_on_the_per_query_differences(judged):
    paths, human, judge = judged
    report = judge_report(human, judge)
    labelled = set(human.scored_ids)
    in_sample = np.array([q in labelled for q in judge.scored_ids])
    order = [judge.scored_ids.index(q) for q in human.scored_ids]
    assert {(c.run, c.baseline) for c in report.comparisons} == {("dense", "bm25"),
                                                               ("hybrid", "bm25")}
    for found in report.comparisons:
        y = (human.per_query_scores(found.run)[found.key]
             - human.per_query_scores("bm25")[found.key])
        f = (judge.per_query_scores(found.run)[found.key]
             - judge.per_query_scores("bm25")[found.key])
        low, high = ppi_py.ppi_mean_ci(y, f[order], f[~in_sample], alpha=0.05)
        assert found.ppi.low == pytest.approx(max(-1.0, float(low[0])), abs=1e-12)
        assert found.ppi.high == pytest.approx(min(1.0, float(high[0])), abs=1e-12)


def test_coverage_confusion_and_rates_from_the_lines(judged):
    paths, human, judge = judged
    report = judge_report(human, judge)
    h, j = _lines(paths["human"]), _lines(paths["judge"])
    both = set(h) & set(j)
    assert report.coverage.both_pairs == len(both)
    assert report.coverage.human_queries == len({q for q, _ in h})
    assert report.coverage.judge_queries == len({q for q, _ in j})
    grades = report.grades
    for (q, d) in list(both)[:50]:
        assert grades.grades.index(h[q, d]) >= 0
    expected = np.zeros_like(grades.confusion)
    for pair in both:
        expected[grades.grades.index(h[pair]), grades.grades.index(j[pair])] += 1
    assert (grades.confusion == expected).all()
    negatives = [pair for pair in both if h[pair] < 1]
    positives = [pair for pair in both if h[pair] >= 1]
    assert grades.false_relevant.mean == pytest.approx(
        sum(j[p] >= 1 for p in negatives) / len(negatives))
    assert grades.false_nonrelevant.mean == pytest.approx(
        sum(j[p] < 1 for p in positives) / len(positives))
    assert grades.weighted_kappa is not None  # grades 0, 1, 2


def test_orderings_are_the_two_label_sets_over_the_labelled_queries(judged):
    paths, human, judge = judged
    report = judge_report(human, judge)
    ndcg = next(a for a in report.agreements if a.first.startswith("nDCG"))
    labelled = set(human.scored_ids)
    judge_means = {run: float(np.mean([v for q, v in zip(judge.scored_ids,
                                                          judge.per_query_scores(run)["nDCG"],
                                                          strict=True) if q in labelled]))
                   for run in RUNS}
    assert ndcg.means_second == pytest.approx(tuple(judge_means[r] for r in RUNS))
    assert ndcg.means_first == pytest.approx(tuple(human.run(r).summary["nDCG"].mean
                                                   for r in RUNS))


def test_random_samples_rarely_fail_the_check(judged):
    """The check's false alarms on truly random samples: at most its level, give or take
    the Monte Carlo error of 300 draws."""
    _, _, judge = judged
    rng = np.random.default_rng(11)
    alarms = 0
    for _ in range(300):
        mask = np.zeros(len(judge.scored_ids), dtype=bool)
        mask[rng.choice(len(mask), size=20, replace=False)] = True
        alarms += any(c.flagged for c in sample_checks(judge, mask, "nDCG"))
    assert alarms / 300 <= SAMPLE_CHECK_ALPHA + 0.02


def test_the_queries_a_run_did_best_on_fail_the_check(judged):
    _, _, judge = judged
    scores = judge.per_query_scores("hybrid")["nDCG"]
    mask = np.zeros(len(scores), dtype=bool)
    mask[np.argsort(-scores, kind="stable")[:20]] = True
    flagged = [c for c in sample_checks(judge, mask, "nDCG") if c.flagged]
    assert "hybrid" in {c.run for c in flagged}
    assert all(c.labelled_mean > c.unlabelled_mean for c in flagged)


def test_a_chosen_sample_is_flagged_by_the_report(tmp_path, judged):
    _, _, judge = judged
    scores = judge.per_query_scores("hybrid")["nDCG"]
    best = np.argsort(-scores, kind="stable")[:20]
    paths = write_judged(tmp_path, chosen=[int(judge.scored_ids[i][1:]) for i in best])
    assert judge_report(*_evaluations(paths)).sample_flagged


def test_evaluations_that_exclude_empty_queries_are_refused(judged):
    paths, _, _ = judged
    human, judge = _evaluations(paths, Conventions())
    with pytest.raises(ValueError, match="every query"):
        judge_report(human, judge)


def test_label_coverage_names_human_queries_the_judge_never_saw(tmp_path):
    paths = write_judged(tmp_path)
    with paths["human"].open("a") as extra:
        extra.write("q_only_human 0 d1 1\n")
    human, judge = _evaluations(paths)
    coverage = label_coverage(human.qrels, judge.qrels)
    assert coverage.human_not_judged == ("q_only_human",)
    report = judge_report(human, judge)
    assert report.n_labelled == coverage.both_queries == coverage.human_queries - 1


def test_with_every_query_human_labelled_the_headline_reads_the_human_only_figures(tmp_path):
    """No query is judge-only: there is nothing to weigh the judge on, so the
    prediction-powered figures are the human-only ones, and the headline says so (it used to
    format the missing weight and raise a TypeError)."""
    paths = write_judged(tmp_path, queries=30, chosen=list(range(30)))
    report = judge_report(*_evaluations(paths))
    assert report.n_unlabelled == 0
    said = ppi_headlines(report, "nDCG")
    assert len(said) == len(RUNS) - 1
    for sentence, found in zip(said, [c for c in report.comparisons if c.key == "nDCG"],
                               strict=True):
        assert PPI_IS_HUMAN_ONLY in sentence
        assert "lambda" not in sentence and "None" not in sentence
        assert fmt.difference(found.human.mean, found.human.low, found.human.high) in sentence
    for found in (*report.figures, *report.comparisons):
        assert found.lambda_undefined and found.ppi == found.human


def test_human_labels_without_a_non_relevant_grade_leave_the_rate_and_kappa_undefined(
        tmp_path):
    """Humans who graded only relevant ids (as a pool of positives often is): no pair both
    grade is human non-relevant, so the false relevant rate has no denominator and binary
    kappa one human class. Both are undefined with their reasons, never 0.000 [0.000, 0.000];
    the ids the judge calls relevant that no human graded, the judge's error no rate sees,
    are counted from the lines."""
    paths = write_judged(tmp_path)
    human_lines = [line for line in paths["human"].read_text().splitlines()
                   if int(line.split()[3]) >= 1]
    paths["human"].write_text("".join(f"{line}\n" for line in human_lines))
    report = judge_report(*_evaluations(paths))
    g = report.grades
    rate = g.false_relevant
    assert (rate.part, rate.whole) == (0, 0)
    assert np.isnan([rate.mean, rate.low, rate.high]).all()
    assert rate.undefined == "no pair both label sets grade is one the humans judge not relevant"
    assert np.isnan(g.binary_kappa.kappa)
    assert g.binary_kappa.undefined.startswith("the humans gave every pair the same category")
    h, j = _lines(paths["human"]), _lines(paths["judge"])
    labelled = {q for q, _ in h}
    assert g.relevant_ungraded == sum(grade >= 1 and q in labelled and (q, d) not in h
                                      for (q, d), grade in j.items())
    assert g.relevant_ungraded > 0
    # the other rate still has its denominator: the human-relevant pairs both grade
    positives = [pair for pair in set(h) & set(j)]
    assert g.false_nonrelevant.whole == len(positives)
    assert g.false_nonrelevant.basis.startswith(
        f"{g.false_nonrelevant.part:,} of the {len(positives):,} pairs both label sets grade")
    document = g.as_dict()
    assert document["false_relevant"]["undefined"] == rate.undefined
    assert document["binary_kappa"]["undefined"] == g.binary_kappa.undefined
    assert document["false_nonrelevant"]["undefined"] is None


@pytest.mark.parametrize("command", [["judge"], ["compare", "--labels", "ppi"]])
def test_a_long_doc_id_in_the_labels_costs_its_bytes_once(tmp_path, command):
    """One 1 MB doc id among 300 label lines: the pairs both label sets grade were once
    matched as fixed-width text, every row as wide as the longest id (300 x 4 MB a copy, a
    few copies a label set); in 2 GB of address space both commands run as plain scoring
    does."""
    long = "D" * (1 << 20)
    human, judge, run = tmp_path / "human.txt", tmp_path / "judge.txt", tmp_path / "a.run"
    human.write_text("".join(f"q{i} 0 d{i} {i % 2}\n" for i in range(300))
                     + f"q1 0 {long} 1\n")
    judge.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(300)) + f"q1 0 {long} 0\n")
    run.write_text("".join(f"q{i} Q0 d{i} 1 1.0 x\n" for i in range(300)))
    done = run_capped([*command, "--qrels", str(human), "--judge-qrels", str(judge),
                       "--run", str(run), "--run", f"b={run}", "--format", "json"],
                      cap_mb=2048, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert b"out of memory" not in done.stderr
