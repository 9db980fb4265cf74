from __future__ import annotations

import importlib

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from metrics.core.kernel import SUMMARY_MEASURES
from metrics.core.sample import load_sample
from metrics.stats.bootstrap import resample_counts
from metrics.stats.intervals import bootstrap, wilson

# the module that draws the sweep's bands (not a re-exported function)
summary_module = importlib.import_module("metrics.stats.summary")


@pytest.mark.parametrize("successes,trials", [(0, 5), (7, 9), (9, 9), (31, 100), (1, 1)])
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_matches_statsmodels(successes, trials, level):
    low, high = proportion_confint(successes, trials, alpha=1 - level, method="wilson")
    interval = wilson(successes, trials, confidence_level=level)
    assert interval.low == pytest.approx(low, abs=1e-12)
    assert interval.high == pytest.approx(high, abs=1e-12)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError, match="successes"):
        wilson(5, 3)


def test_bootstrap_is_reproducible_and_brackets_the_mean():
    values = np.random.default_rng(1).random((50, 3))
    first = bootstrap(values, rng=np.random.default_rng(7))
    second = bootstrap(values, rng=np.random.default_rng(7))
    assert first == second
    for interval, mean in zip(first, values.mean(axis=0), strict=True):
        assert interval.low <= mean <= interval.high
    other = bootstrap(values, rng=np.random.default_rng(8))
    assert other != first


def test_bootstrap_agrees_with_scipy_percentile_bootstrap_within_noise():
    from scipy.stats import bootstrap as scipy_bootstrap

    values = np.random.default_rng(3).random(200)
    ours = bootstrap(values, n_resamples=4000, rng=np.random.default_rng(0))[0]
    theirs = scipy_bootstrap(
        (values,), np.mean, n_resamples=4000, method="percentile", rng=np.random.default_rng(1)
    ).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=0.01)
    assert ours.high == pytest.approx(theirs.high, abs=0.01)


def test_evaluation_intervals_reproduce_to_the_last_digit():
    first = load_sample().summary()
    second = load_sample().summary()
    assert first.equals(second)


def test_confidence_level_widens_the_interval():
    from metrics.vocabulary.conventions import Conventions

    narrow = load_sample(conventions=Conventions(confidence_level=0.8)).run("baseline")
    wide = load_sample(conventions=Conventions(confidence_level=0.99)).run("baseline")
    for key in ("R", "Hit", "nDCG"):
        assert wide.summary[key].high - wide.summary[key].low > (
            narrow.summary[key].high - narrow.summary[key].low
        )


@pytest.mark.parametrize("n", [1, 7, 3_000])
def test_resample_counts_are_one_draw_of_every_resample_whatever_the_blocks(n):
    """Drawing in blocks saves memory; the counts must equal those of a single draw."""
    n_resamples = 250
    draws = np.random.default_rng(11).integers(0, n, size=(n_resamples, n))
    expected = np.array([np.bincount(row, minlength=n) for row in draws], dtype=float)
    counts = resample_counts(n, n_resamples=n_resamples, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(counts, expected)
    assert (counts.sum(axis=1) == n).all()


@pytest.mark.parametrize("k", [2, 5, 9])
def test_sweep_intervals_at_the_chosen_k_are_the_summary_intervals(k):
    """The sweep's bands come from the same draws as the summary: equal at K, to the bit."""
    evaluation = load_sample(k)
    bands = {(run, at, key): (low, high)
             for run, at, key, low, high in evaluation.sweep_intervals()}
    lo, hi = evaluation.sweep_range
    assert len(bands) == len(evaluation.runs) * (hi - lo + 1) * 9
    for run in evaluation.runs:
        for m in SUMMARY_MEASURES:
            summary = run.summary[m.key]
            assert bands[run.name, k, m.summary_key] == (summary.low, summary.high)


def test_a_selection_reads_each_run_s_sweep_once_and_as_the_full_evaluation(monkeypatch):
    """Hiding, reordering or renaming runs selects from the evaluation: every run's sweep
    means and bands are computed once, and each equals the full evaluation's."""
    evaluation = load_sample(5)
    names = evaluation.run_names
    full = {(run, at, key): (low, high)
            for run, at, key, low, high in evaluation.sweep_intervals()}
    calls = []
    original = summary_module.resampled_queries
    monkeypatch.setattr(summary_module, "resampled_queries",
                        lambda *a, **kw: calls.append(1) or original(*a, **kw))
    picked = evaluation.select(names[::-1][:2], {names[-1]: "renamed"})
    again = picked.sweep_intervals()
    assert calls == []  # no bootstrap drawn again
    for run, at, key, low, high in again:
        original_name = names[-1] if run == "renamed" else run
        assert full[original_name, at, key] == (low, high)
    means = picked.sweep_means("renamed")
    np.testing.assert_array_equal(means["nDCG"], evaluation.sweep_means(names[-1])["nDCG"])
    means["nDCG"][:] = -1  # a caller's copy: the memo is not changed through it
    assert (evaluation.sweep_means(names[-1])["nDCG"] >= 0).all()
