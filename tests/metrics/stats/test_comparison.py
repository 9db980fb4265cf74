"""metrics.compare: paired tests against scipy/statsmodels, hand-computed cases, reproducibility."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from metrics.stats.comparison import (
    Comparison,
    PairedTest,
    benjamini_hochberg,
    compare,
    holm,
    regressions,
)
from metrics.vocabulary.conventions import DEFAULT_SEED
from tests.marks import thorough_after


def _ids(n: int) -> list[str]:
    return [f"q{i}" for i in range(n)]


def _pair(before: np.ndarray, after: np.ndarray, metric: str = "nDCG@10") -> dict:
    return {"base": {metric: np.asarray(before)}, "cand": {metric: np.asarray(after)}}


def _random_pair(seed: int, n: int, shift: float, noise: float = 0.2) -> dict:
    rng = np.random.default_rng(seed)
    before = rng.uniform(0, 1, n)
    after = np.clip(before + shift + rng.normal(0, noise, n), 0, 1)
    return _pair(before, after)


def _only(comparison: Comparison) -> PairedTest:
    (test,) = comparison.tests
    return test


# --------------------------------------------------------------------------- t and Wilcoxon


@pytest.mark.parametrize("seed, n, shift", [(1, 12, 0.1), (2, 60, 0.0), (3, 300, 0.03)])
def test_t_and_wilcoxon_equal_scipy_on_the_same_differences(
    seed: int, n: int, shift: float
) -> None:
    test = _only(compare("base", _random_pair(seed, n, shift), _ids(n), n_permutations=200))
    d = test.differences
    assert test.p_t == stats.ttest_rel(d, np.zeros(n)).pvalue
    assert test.p_t == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-12)
    assert test.p_wilcoxon == stats.wilcoxon(d).pvalue
    # the rounding to 12 decimals does not move the p-values of the raw paired scores
    assert test.p_t == pytest.approx(stats.ttest_rel(test.after, test.before).pvalue, rel=1e-6)
    assert test.p_wilcoxon == pytest.approx(stats.wilcoxon(test.after, test.before).pvalue)


@pytest.mark.parametrize("seed", thorough_after(range(40), keep=8))
def test_wilcoxon_on_small_samples_with_ties_and_zeros_equals_scipy(seed: int) -> None:
    """Up to 13 queries with tied or zero differences, the p-value comes from the
    vectorised sign-flip test; it must equal stats.wilcoxon's own (slow) one exactly."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    # scores on a coarse grid, as per-query metrics are: ties and zeros are common
    before = rng.integers(0, 4, n) / 4
    after = np.clip(before + rng.integers(-2, 3, n) / 4, 0, 1)
    if not (after - before).any():
        after[0] = 1 - before[0] or 1.0
    test = _only(compare("base", _pair(before, after), _ids(n), n_permutations=200))
    assert test.p_wilcoxon == stats.wilcoxon(test.differences).pvalue


def test_t_and_wilcoxon_on_a_case_worked_by_hand() -> None:
    # differences 0.1, 0.2, 0.3, 0.4, -0.1: mean 0.18, sd (ddof=1) sqrt(0.037)
    before = np.array([0.5, 0.5, 0.5, 0.5, 0.5])
    after = np.array([0.6, 0.7, 0.8, 0.9, 0.4])
    test = _only(compare("base", _pair(before, after), _ids(5), n_permutations=100))
    t = 0.18 / (math.sqrt(0.037) / math.sqrt(5))
    assert test.p_t == pytest.approx(2 * stats.t.sf(t, df=4), rel=1e-9)
    assert test.wins == 4 and test.losses == 1 and test.ties == 0
    untied = _only(
        compare(
            "base",
            _pair(before, np.array([0.6, 0.7, 0.8, 0.9, 0.45])),
            _ids(5),
            n_permutations=100,
        )
    )
    # |d| = 0.1, 0.2, 0.3, 0.4, 0.05 -> the loss has rank 1, W- = 1. Sign patterns with
    # W- <= 1: {} and {rank 1} -> 2 of 32; two-sided p = 2 * 2 / 32 = 0.125.
    assert untied.p_wilcoxon == pytest.approx(0.125, abs=1e-12)


def test_all_zero_differences_give_p_one_not_nan() -> None:
    before = np.array([0.2, 0.5, 0.0, 1.0])
    test = _only(compare("base", _pair(before, before.copy()), _ids(4), n_permutations=500))
    assert (test.p_t, test.p_wilcoxon, test.p_randomization, test.p_adjusted) == (1.0,) * 4
    assert test.effect_size == 0.0


def test_the_same_change_everywhere_pins_p_t_and_leaves_the_effect_size_undefined() -> None:
    before = np.array([0.1, 0.2, 0.3, 0.4])
    test = _only(compare("base", _pair(before, before + 0.1), _ids(4), n_permutations=500))
    assert test.wins == 4 and test.losses == 0
    assert test.p_t == 0.0
    assert math.isnan(test.effect_size)
    comparison = compare("base", _pair(before, before + 0.1), _ids(4), n_permutations=500)
    assert "effect size undefined" in comparison.verdict(comparison.tests[0])
    assert comparison.rows()[0]["effect_size"] is None


# --------------------------------------------------------------------------- randomization


def _scipy_sign_flip(after: np.ndarray, before: np.ndarray, seed: int) -> float:
    result = stats.permutation_test(
        (after, before),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=100_000,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


@pytest.mark.parametrize(
    "seed, n, shift",
    thorough_after([
        (10, 12, 0.15),  # 2^12 sign patterns: scipy enumerates them all (exact p)
        (11, 12, 0.0),
        (12, 40, 0.08),  # a real effect
        (13, 40, 0.0),  # none
        (14, 150, 0.03),
    ], keep=3),
)
def test_randomization_matches_scipy_permutation_test(seed: int, n: int, shift: float) -> None:
    data = _random_pair(seed, n, shift)
    n_permutations = 10_000
    test = _only(compare("base", data, _ids(n), n_permutations=n_permutations, rng=seed))
    reference = _scipy_sign_flip(data["cand"]["nDCG@10"], data["base"]["nDCG@10"], seed)
    p = test.p_randomization
    error = math.sqrt(reference * (1 - reference) / n_permutations)
    assert abs(p - reference) < 4 * error + 2e-3, (p, reference)


def test_randomization_p_has_the_plus_one_correction() -> None:
    # 40 positive differences: only the identity and its mirror image (together probability
    # 2^-39 per draw) reach the observed |mean|, so no draw counts and p = (1 + 0) / (1 + B).
    before = np.zeros(40)
    after = np.linspace(0.1, 0.5, 40)
    test = _only(compare("base", _pair(before, after), _ids(40), n_permutations=999))
    assert test.p_randomization == 1 / 1000


def test_randomization_is_chunked_without_changing_its_meaning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import metrics.stats.paired as module  # where compare's sign flips are drawn

    data = _random_pair(5, 50, 0.05)
    whole = _only(compare("base", data, _ids(50), n_permutations=3000, rng=1)).p_randomization
    monkeypatch.setattr(module, "_CHUNK_CELLS", 50 * 7)  # 7 flips per chunk
    chunked = _only(compare("base", data, _ids(50), n_permutations=3000, rng=1)).p_randomization
    assert chunked != whole  # the patch took effect: other chunks draw another stream
    error = math.sqrt(whole * (1 - whole) / 3000)
    assert abs(whole - chunked) < 6 * error + 1e-3


# --------------------------------------------------------------------------- corrections


def test_holm_and_bh_on_a_case_worked_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04;
    # running max -> 0.02, 0.03, 0.06, 0.06; back in the original order:
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02], rtol=1e-12)
    # BH: sorted times 4/1, 4/2, 4/3, 4/4 -> 0.02, 0.02, 0.04, 0.04; running min from the top
    # leaves them; original order:
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02], rtol=1e-12)
    # capped at 1 and monotone: Holm of 0.5, 0.6 -> 1.0, max(1.0, 0.6) = 1.0
    np.testing.assert_array_equal(holm([0.6, 0.5]), [1.0, 1.0])
    # BH: 0.3 * 2 = 0.6, 0.9 * 2/2 = 0.9 -> running min from the top: 0.6, 0.9
    np.testing.assert_allclose(benjamini_hochberg([0.9, 0.3]), [0.9, 0.6], rtol=1e-12)
    assert holm([]).size == 0 and benjamini_hochberg([]).size == 0


@pytest.mark.parametrize("seed", range(5))
def test_holm_and_bh_equal_statsmodels_on_random_p_values(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, size=int(rng.integers(1, 40))) ** 2
    p[: len(p) // 3] = p[0]  # some ties
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], rtol=1e-12)
    np.testing.assert_allclose(
        benjamini_hochberg(p), multipletests(p, method="fdr_bh")[1], rtol=1e-12
    )


@pytest.mark.parametrize("bad", [[0.1, -0.01], [0.2, 1.5], [float("nan")], [[0.1, 0.2]]])
def test_corrections_reject_values_that_are_not_p_values(bad: list) -> None:
    for adjust in (holm, benjamini_hochberg):
        with pytest.raises(ValueError, match=r"p-values"):
            adjust(bad)


def _many_pairs(seed: int = 7, n: int = 80) -> dict:
    rng = np.random.default_rng(seed)
    metrics = ["nDCG@10", "Recall@10", "MRR@10"]
    base = {m: rng.uniform(0, 1, n) for m in metrics}
    return {
        "base": base,
        "rerank": {m: np.clip(v + rng.normal(0.05, 0.15, n), 0, 1) for m, v in base.items()},
        "worse": {m: np.clip(v + rng.normal(-0.06, 0.15, n), 0, 1) for m, v in base.items()},
        "same": {m: v.copy() for m, v in base.items()},
    }


@pytest.mark.parametrize("correction, adjust", [("holm", holm), ("bh", benjamini_hochberg)])
def test_the_family_is_every_candidate_metric_pair(
    correction: str, adjust: Callable[[np.ndarray], np.ndarray]
) -> None:
    comparison = compare(
        "base", _many_pairs(), _ids(80), correction=correction, n_permutations=2000
    )
    assert comparison.n_comparisons == 9 == len(comparison.tests)
    raw = np.array([t.p_randomization for t in comparison.tests])
    np.testing.assert_array_equal([t.p_adjusted for t in comparison.tests], adjust(raw))
    assert all(t.significant == (t.p_adjusted < 0.05) for t in comparison.tests)
    assert [(t.candidate, t.metric) for t in comparison.tests[:4]] == [
        ("rerank", "nDCG@10"),
        ("rerank", "Recall@10"),
        ("rerank", "MRR@10"),
        ("worse", "nDCG@10"),
    ]


def test_no_correction_leaves_the_p_values_alone() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), correction="none", n_permutations=500)
    assert all(t.p_adjusted == t.p_randomization for t in comparison.tests)


# --------------------------------------------------------------------------- reproducibility


def test_same_seed_gives_identical_results_and_another_seed_does_not() -> None:
    rng = np.random.default_rng(3)
    before = rng.uniform(0, 1, 50)
    after = np.clip(before + rng.normal(0.04, 0.14, 50), 0, 1)  # borderline: p near 0.05
    data = _pair(before, after)
    first = compare("base", data, _ids(50), rng=99)
    second = compare("base", data, _ids(50), rng=99)
    assert first == second
    assert first.rows() == second.rows()
    np.testing.assert_array_equal(first.tests[0].differences, second.tests[0].differences)
    assert compare("base", data, _ids(50)) == compare("base", data, _ids(50), rng=DEFAULT_SEED)
    assert compare("base", data, _ids(50)).seed == DEFAULT_SEED
    other = compare("base", data, _ids(50), rng=100)
    assert 0.005 < first.tests[0].p_randomization < 0.5
    assert other.tests[0].p_randomization != first.tests[0].p_randomization
    assert (other.tests[0].low, other.tests[0].high) != (first.tests[0].low, first.tests[0].high)
    # a Generator is accepted (and consumed); the comparison then records no seed
    from_generator = compare("base", data, _ids(50), rng=np.random.default_rng(99))
    assert from_generator.seed is None
    assert from_generator.tests == first.tests


def test_the_same_draws_serve_every_pair() -> None:
    # a pair's figures do not depend on which other pairs share the call
    data = _many_pairs()
    together = compare("base", data, _ids(80), n_permutations=2000, correction="none")
    alone = compare(
        "base",
        data,
        _ids(80),
        candidates=["worse"],
        metrics=["Recall@10"],
        n_permutations=2000,
        correction="none",
    )
    a, b = together.test("worse", "Recall@10"), _only(alone)
    assert (a.p_randomization, a.p_t, a.p_wilcoxon) == (b.p_randomization, b.p_t, b.p_wilcoxon)
    assert a.low == pytest.approx(b.low, abs=1e-12) and a.high == pytest.approx(b.high, abs=1e-12)


@pytest.mark.parametrize("correction, method", [("holm", "percentile"), ("bh", "bca"),
                                                ("none", "percentile")])
def test_a_comparison_restricted_to_some_metrics_is_those_metrics_compared_alone(
    correction: str, method: str
) -> None:
    data = _many_pairs(n=120)
    options = dict(n_permutations=2000, correction=correction, alpha=0.05, rng=11,
                   interval_method=method)
    together = compare("base", data, _ids(120), **options)
    for metrics in (["Recall@10"], ["MRR@10", "nDCG@10"]):
        narrow = together.restricted(metrics)
        alone = compare("base", data, _ids(120), metrics=metrics, **options)
        assert (narrow.metrics, narrow.n_comparisons) == (alone.metrics, alone.n_comparisons)
        assert [(t.candidate, t.metric) for t in narrow.tests] == [
            (t.candidate, t.metric) for t in alone.tests]
        for a, b in zip(narrow.tests, alone.tests, strict=True):
            assert (a.p_randomization, a.p_t, a.p_wilcoxon, a.p_adjusted, a.significant) == (
                b.p_randomization, b.p_t, b.p_wilcoxon, b.p_adjusted, b.significant)
            assert a.low == pytest.approx(b.low, abs=1e-12)
            assert a.high == pytest.approx(b.high, abs=1e-12)
    # the family shrank: under Holm the adjusted p of one metric alone is smaller
    if correction == "holm":
        wide = together.test("worse", "Recall@10").p_adjusted
        assert together.restricted(["Recall@10"]).test("worse", "Recall@10").p_adjusted < wide
    with pytest.raises(ValueError, match="compared metrics.*P@10"):
        together.restricted(["P@10"])


# --------------------------------------------------------------------------- intervals


def test_bootstrap_interval_contains_the_mean_difference() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=200)
    for test in comparison.tests:
        assert test.low <= test.difference <= test.high
        assert test.difference == pytest.approx(test.after_mean - test.before_mean, abs=1e-11)


def test_bootstrap_interval_is_the_intervals_module_bootstrap_of_the_differences() -> None:
    from metrics.stats.intervals import bootstrap

    data = _random_pair(4, 70, 0.05)
    test = _only(compare("base", data, _ids(70), n_permutations=100, rng=5))
    (reference,) = bootstrap(test.differences, rng=np.random.default_rng(5))
    assert (test.low, test.high) == (reference.low, reference.high)


def test_identical_runs_tie_everywhere() -> None:
    data = _many_pairs()
    test = compare("base", data, _ids(80), candidates=["same"], n_permutations=1000).tests[0]
    assert (test.low, test.high, test.difference) == (0.0, 0.0, 0.0)
    assert test.p_randomization == 1.0 and test.p_adjusted == 1.0 and not test.significant
    assert (test.wins, test.ties, test.losses) == (0, 80, 0)


# --------------------------------------------------------------------------- counts and effect


def test_wins_ties_losses_and_effect_size_by_hand() -> None:
    before = np.array([0.5, 0.5, 0.3, 0.1 + 0.2, 1.0, 0.0])
    after = np.array([0.7, 0.4, 0.3, 0.3, 0.6, 0.2])
    # differences 0.2, -0.1, 0, 0 (float noise 0.3 - 0.30000000000000004), -0.4, 0.2
    test = _only(compare("base", _pair(before, after), _ids(6), n_permutations=100))
    assert (test.wins, test.ties, test.losses) == (2, 2, 2)
    np.testing.assert_allclose(test.differences, [0.2, -0.1, 0.0, 0.0, -0.4, 0.2], atol=1e-15)
    # mean -0.1/6; squares of deviations from the mean: sum d^2 - 6 mean^2 = 0.25 - 0.01/6
    mean = -0.1 / 6
    sd = math.sqrt((0.25 - 6 * mean**2) / 5)
    assert test.difference == pytest.approx(mean, abs=1e-15)
    assert test.effect_size == pytest.approx(mean / sd, rel=1e-12)
    assert test.before_mean == pytest.approx(2.6 / 6) and test.after_mean == pytest.approx(2.5 / 6)


def test_per_query_arrays_are_kept_read_only() -> None:
    test = _only(compare("base", _random_pair(1, 20, 0.1), _ids(20), n_permutations=100))
    assert test.differences.shape == test.before.shape == test.after.shape == (20,)
    with pytest.raises(ValueError):
        test.differences[0] = 1.0


# --------------------------------------------------------------------------- verdicts and rows


def test_verdict_wording() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=5000)
    better = comparison.test("rerank", "Recall@10")
    sentence = comparison.verdict(better)
    assert better.significant
    counts = f"better on {better.wins} of 80 queries, worse on {better.losses}; "
    assert sentence.startswith(counts)
    interval = f"[{better.low:+.3f}, {better.high:+.3f}]"
    assert f"; difference {better.difference:+.3f} {interval}; " in sentence
    assert "unlikely to be noise after Holm correction (p " in sentence
    assert sentence.endswith(f"effect size {better.effect_size:.3f}")
    assert comparison.verdict(comparison.test("same", "MRR@10")).startswith("no query changed")

    rng = np.random.default_rng(0)
    before = rng.uniform(0, 1, 30)
    noisy = compare("base", _pair(before, before + rng.normal(0, 0.1, 30)), _ids(30), rng=1)
    test = noisy.tests[0]
    assert not test.significant
    assert f"could be noise after Holm correction (adjusted p = {test.p_adjusted:.3f})" in (
        noisy.verdict(test)
    )
    bh = compare("base", _many_pairs(), _ids(80), correction="bh", n_permutations=500)
    assert "Benjamini-Hochberg correction" in bh.verdict(bh.tests[0])
    with pytest.raises(ValueError, match="PairedTest"):
        comparison.verdict("rerank")


def test_rows_are_flat_and_json_friendly() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=500)
    rows = comparison.rows()
    assert len(rows) == 9
    text = json.dumps(rows, allow_nan=False)
    assert json.loads(text) == rows
    for row in rows:
        assert all(type(v) in (str, int, float, bool) or v is None for v in row.values())
        assert "differences" not in row
    assert rows[0]["candidate"] == "rerank" and rows[0]["n_comparisons"] == 9


def test_regressions_are_significantly_worse_candidates() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=5000)
    assert regressions(comparison, "nDCG@10") == ["worse"]
    assert regressions(comparison, "Recall@10") == ["worse"]
    assert comparison.test("rerank", "Recall@10").significant  # better is not a regression
    assert regressions(comparison, "MRR@10", alpha=0.5) == ["worse"]
    assert regressions(comparison, "nDCG@10", alpha=1e-9) == []
    with pytest.raises(ValueError, match="'P@5'"):
        regressions(comparison, "P@5")


def test_lookup_of_an_unknown_pair_names_it() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=100)
    with pytest.raises(ValueError, match="'nope'"):
        comparison.test("nope", "nDCG@10")
    with pytest.raises(ValueError, match="'P@5'"):
        comparison.test("rerank", "P@5")


# --------------------------------------------------------------------------- validation


def test_defaults_take_every_other_run_and_every_baseline_metric_in_order() -> None:
    comparison = compare("base", _many_pairs(), _ids(80), n_permutations=100)
    assert comparison.candidates == ("rerank", "worse", "same")
    assert comparison.metrics == ("nDCG@10", "Recall@10", "MRR@10")
    assert comparison.query_ids == tuple(_ids(80))
    assert comparison.correction == "holm" and comparison.alpha == 0.05
    assert comparison.n_resamples == 1000 and comparison.n_permutations == 100


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"baseline": "nope"}, "'nope'"),
        ({"candidates": ["ghost"]}, "'ghost'"),
        ({"candidates": ["base"]}, "'base'"),
        ({"candidates": ["rerank", "rerank"]}, "'rerank'"),
        ({"candidates": []}, "empty"),
        ({"metrics": ["P@5"]}, "'P@5'"),
        ({"correction": "bonferroni"}, "'bonferroni'"),
        ({"confidence_level": 1.5}, "1.5"),
        ({"alpha": 0.0}, "alpha"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"n_permutations": 2.5}, "n_permutations"),
        # 10^12 sign flips held compare past any wait: bounded as --permutations is
        ({"n_permutations": 10**12}, r"n_permutations must be an integer from 1 to 1,000,000"),
        ({"rng": -3}, "-3"),
        ({"rng": "seed"}, "'seed'"),
        ({"query_ids": _ids(79)}, r"\(80,\)"),
        ({"query_ids": ["q0"] * 80}, "'q0'"),
        ({"query_ids": ["q0"]}, "at least 2"),
        ({"query_ids": "q0q1"}, "'q0q1'"),
    ],
)
def test_bad_inputs_raise_value_error_naming_the_value(kwargs: dict, match: str) -> None:
    arguments = {"baseline": "base", "scores": _many_pairs(), "query_ids": _ids(80)}
    arguments.update(kwargs)
    baseline = arguments.pop("baseline")
    scores = arguments.pop("scores")
    query_ids = arguments.pop("query_ids")
    with pytest.raises(ValueError, match=match):
        compare(baseline, scores, query_ids, **arguments)


def test_bad_scores_raise_value_error_naming_run_and_metric() -> None:
    data = _many_pairs()
    data["worse"]["Recall@10"] = data["worse"]["Recall@10"][:-1]
    with pytest.raises(ValueError, match=r"'worse'.*'Recall@10'"):
        compare("base", data, _ids(80))
    data = _many_pairs()
    del data["rerank"]["MRR@10"]
    with pytest.raises(ValueError, match=r"'rerank'.*'MRR@10'"):
        compare("base", data, _ids(80))
    data = _many_pairs()
    data["base"]["nDCG@10"][3] = np.nan
    with pytest.raises(ValueError, match=r"'base'.*'nDCG@10'.*nan"):
        compare("base", data, _ids(80))
    with pytest.raises(ValueError, match="no candidate"):
        compare("base", {"base": data["base"]}, _ids(80))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30))
def test_adjusted_p_values_are_capped_monotone_and_ordered(p: list[float]) -> None:
    raw = np.array(p)
    order = np.argsort(raw, kind="stable")
    for adjusted in (holm(raw), benjamini_hochberg(raw)):
        assert ((adjusted >= raw) & (adjusted <= 1)).all()
        assert (np.diff(adjusted[order]) >= 0).all()
    assert (benjamini_hochberg(raw) <= holm(raw) + 1e-15).all()


def test_adjusted_redoes_only_the_correction() -> None:
    rng = np.random.default_rng(5)
    scores = {
        "base": {"m1": rng.random(30), "m2": rng.random(30)},
        "cand": {"m1": rng.random(30), "m2": rng.random(30)},
    }
    ids = [f"q{i}" for i in range(30)]
    holm_first = compare("base", scores, ids, n_permutations=2000, rng=3)
    for correction, alpha in (("bh", 0.1), ("none", 0.01), ("holm", 0.05)):
        fresh = compare("base", scores, ids, correction=correction, alpha=alpha,
                        n_permutations=2000, rng=3)
        assert holm_first.adjusted(correction, alpha) == fresh
    with pytest.raises(ValueError, match="correction must be one of"):
        holm_first.adjusted("bonferroni")



def test_verdict_counts_read_with_thousands_separators() -> None:
    """'better on 1,150 of 1,200 queries': counts are written as every other count is."""
    n = 1_200
    before = np.full(n, 0.5)
    after = np.where(np.arange(n) < 1_150, 1.0, 0.0)
    comparison = compare("base", _pair(before, after, "RR@10"), _ids(n), n_permutations=200,
                         n_resamples=200)
    sentence = comparison.verdict(comparison.tests[0])
    assert sentence.startswith("better on 1,150 of 1,200 queries, worse on 50")

