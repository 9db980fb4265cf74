"""--interval bca: the summary's, the sweep's and the paired comparison's bootstrap intervals
are BCa over the very resamples the percentile ones use."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import Conventions, compare_evaluation, evaluate
from metrics.stats.bca import bca_bounds
from metrics.stats.bootstrap import bootstrap_means, resample_counts
from metrics.vocabulary import SUMMARY_MEASURES, comparison_method
from tests.metrics.decide.test_fragility import collection

BCA = Conventions(interval_method="bca", n_resamples=400)


@pytest.mark.parametrize("seed", range(3))
def test_the_summary_and_sweep_intervals_are_bca_over_the_same_resamples(seed):
    qrels, runs = collection(seed)
    evaluation = evaluate(qrels, runs, 5, BCA)
    percentile = evaluate(qrels, runs, 5, Conventions(n_resamples=400))
    counts = resample_counts(int(evaluation.scored.sum()), n_resamples=400,
                             rng=np.random.default_rng(BCA.seed))
    moved = 0
    for run in evaluation.runs:
        values = evaluation.per_query_scores(run.name)
        for m in SUMMARY_MEASURES:
            got = run.summary[m.key]
            if m.interval == "wilson":  # Hit@K keeps its Wilson interval
                assert got == percentile.run(run.name).summary[m.key]
                continue
            column = values[m.key][:, None]
            expected = bca_bounds(column, bootstrap_means(column, counts),
                                  confidence_level=0.95)
            # one column or several: the resampled means may differ in their last bit
            assert (got.low, got.high) == pytest.approx(
                (expected.low[0], expected.high[0]), abs=1e-12), m.key
            moved += got != percentile.run(run.name).summary[m.key]
    assert moved > 0  # BCa is not the percentile interval under another name
    at_k = {(r, key): (lo, hi) for r, k, key, lo, hi in evaluation.sweep_intervals() if k == 5}
    for run in evaluation.runs:
        for m in SUMMARY_MEASURES:
            summary = run.summary[m.key]
            assert at_k[run.name, m.summary_key] == (summary.low, summary.high)


def test_the_paired_interval_is_bca_and_says_so():
    qrels, runs = collection(0)
    evaluation = evaluate(qrels, runs, 5, BCA)
    comparison = compare_evaluation(evaluation, n_permutations=500, n_resamples=400)
    assert comparison.interval_method == "bca"
    differences = np.column_stack([t.differences for t in comparison.tests])
    counts = resample_counts(len(differences), n_resamples=400,
                             rng=np.random.default_rng(BCA.seed))
    expected = bca_bounds(differences, bootstrap_means(differences, counts),
                          confidence_level=0.95)
    assert [t.low for t in comparison.tests] == pytest.approx(list(expected.low), abs=1e-12)
    assert [t.high for t in comparison.tests] == pytest.approx(list(expected.high), abs=1e-12)
    assert "paired BCa bootstrap interval" in comparison_method(comparison)["interval"]
    assert "BCa bootstrap over queries" in BCA.sentences()["interval"]
    percentile = compare_evaluation(evaluate(qrels, runs, 5, Conventions(n_resamples=400)),
                                    n_permutations=500, n_resamples=400)
    assert [t.p_randomization for t in percentile.tests] == [
        t.p_randomization for t in comparison.tests]  # the same draws, only the bounds move
