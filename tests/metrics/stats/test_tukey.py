"""metrics.stats.tukey: the classic Tukey HSD p against scipy's studentized_range with the
two-way residual variance of statsmodels' OLS fit (and statsmodels' pairwise_tukeyhsd on a
one-way design); the randomized p against a plain Python loop over the same permutations;
the two against each other on normal data; the family-wise error by simulation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from metrics.stats import tukey
from metrics.stats.paired import sign_flip_pvalues
from metrics.stats.tukey import (
    permuted_ranges,
    studentized_range_pvalues,
    tukey_hsd,
    tukey_hsd_figures,
)
from metrics.vocabulary.conventions import MAX_PERMUTATIONS
from tests.marks import THOROUGH


def _scores(rng: np.random.Generator, n: int, m: int, shift: float = 0.05) -> np.ndarray:
    """Per-query figures in [0, 1]: queries of varied difficulty, runs a little apart."""
    return np.clip(rng.normal(0.45, 0.2, (n, 1)) + rng.normal(0, 0.15, (n, m))
                   + shift * np.arange(m), 0, 1)


# --------------------------------------------------------------------------- the classic p


@pytest.mark.parametrize("seed, n, m", [(1, 25, 4), (2, 60, 6), (3, 8, 10)])
def test_the_classic_p_is_the_studentized_range_of_the_two_way_residual(seed, n, m):
    scores = _scores(np.random.default_rng(seed), n, m)
    frame = pd.DataFrame([(t, s, scores[t, s]) for t in range(n) for s in range(m)],
                         columns=["topic", "system", "score"])
    fit = smf.ols("score ~ C(system) + C(topic)", frame).fit()  # no interaction
    found = tukey_hsd(scores, n_permutations=10, rng=0)
    means = scores.mean(axis=0)
    for i in range(m):
        for j in range(m):
            if i == j:
                assert found.p_classic[i, j] == 1.0
                continue
            q = abs(means[i] - means[j]) / math.sqrt(fit.mse_resid / n)
            expected = stats.studentized_range.sf(q, m, fit.df_resid)
            assert found.p_classic[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-14)
            assert found.effect_sizes[i, j] == pytest.approx(
                (means[i] - means[j]) / math.sqrt(fit.mse_resid), rel=1e-9)


def test_the_classic_p_is_statsmodels_pairwise_tukeyhsd_on_a_one_way_design():
    """pairwise_tukeyhsd pools the groups' variance (one-way): handed that variance and its
    N - k degrees of freedom, studentized_range_pvalues gives its p of every pair."""
    rng = np.random.default_rng(7)
    n, m = 20, 5
    scores = _scores(rng, n, m, shift=0.06)
    groups = np.repeat(np.arange(m), n)
    data = scores.T.ravel()
    result = pairwise_tukeyhsd(data, groups)
    means = scores.mean(axis=0)
    within = sum(((scores[:, k] - means[k]) ** 2).sum() for k in range(m)) / (n * m - m)
    first, second = np.triu_indices(m, 1)
    found = studentized_range_pvalues(means[first] - means[second], residual_variance=within,
                                      residual_df=n * m - m, n_queries=n, n_runs=m)
    assert np.allclose(found, result.pvalues, rtol=1e-9, atol=1e-14)


def test_with_two_runs_the_classic_p_is_the_paired_t_test():
    """Two runs: the residual variance is half the variance of the paired differences and
    q = t sqrt(2), so Tukey's p is ttest_rel's."""
    scores = _scores(np.random.default_rng(11), 40, 2)
    found = tukey_hsd(scores, n_permutations=10, rng=0)
    expected = stats.ttest_rel(scores[:, 1], scores[:, 0]).pvalue
    assert found.p_classic[0, 1] == pytest.approx(expected, rel=1e-8)


# --------------------------------------------------------------------------- the randomized p


def _lexicographic(index: int, m: int) -> list[int]:
    """The permutation of range(m) that `index` names in lexicographic order, decoded in the
    factorial number system (independently of the engine's table)."""
    left, out = list(range(m)), []
    for place in range(m - 1, -1, -1):
        digit, index = divmod(index, math.factorial(place))
        out.append(left.pop(digit))
    return out


def _plain_loop_p(scores: np.ndarray, n_permutations: int, seed: int,
                  chunk: int) -> list[list[float]]:
    """The randomized Tukey HSD written as a loop, from the same draws: per chunk, one
    integer per (permutation, query) naming a permutation (up to 10 runs) or m uniform keys
    per (permutation, query) sorted (beyond); run s of a permuted query gets the score of run
    perm[s]; a pair's p is (1 + permutations whose range of sums reaches its gap) / (1 + B)."""
    rng = np.random.default_rng(seed)
    n, m = scores.shape
    rows = [[float(v) for v in row] for row in scores]
    ranges = []
    for start in range(0, n_permutations, chunk):
        size = min(chunk, n_permutations - start)
        if m <= 10:
            drawn = rng.integers(0, math.factorial(m), size=(size, n), dtype=np.int64)
            perms = [[_lexicographic(int(u), m) for u in row] for row in drawn]
        else:
            keys = rng.random((size, n, m))
            perms = [[sorted(range(m), key=list(k).__getitem__) for k in row] for row in keys]
        for b in range(size):
            sums = [0.0] * m
            for t in range(n):
                for s in range(m):
                    sums[s] += rows[t][perms[b][t][s]]
            ranges.append(max(sums) - min(sums))
    totals = [sum(row[s] for row in rows) for s in range(m)]
    p = [[1.0] * m for _ in range(m)]
    for i in range(m):
        for j in range(m):
            if i != j:
                gap = abs(totals[i] - totals[j]) - 1e-10 * n
                hits = sum(1 for r in ranges if r >= gap)
                p[i][j] = (1 + hits) / (1 + n_permutations)
    return p


@pytest.mark.parametrize("n, m, permutations", [(12, 4, 300), (9, 7, 120), (6, 11, 60),
                                                 (5, 2, 200)])
def test_the_randomized_p_is_a_plain_loop_over_the_same_permutations(n, m, permutations):
    scores = _scores(np.random.default_rng(n * m), n, m, shift=0.08)
    found = tukey_hsd(scores, n_permutations=permutations, rng=5)
    assert found.p_randomized.tolist() == _plain_loop_p(scores, permutations, 5,
                                                        chunk=permutations)
    assert found.null_ranges.shape == (permutations,)


def test_chunks_and_threads_change_no_digit(monkeypatch):
    """Seven permutations a chunk, then the chunks in threads: the draws are those of the
    plain loop drawing seven at a time, and threads change nothing."""
    scores = _scores(np.random.default_rng(3), 10, 5)
    monkeypatch.setattr(tukey, "_CHUNK_CELLS", 7 * 10 * 5)
    alone = tukey_hsd(scores, n_permutations=100, rng=9)
    assert alone.p_randomized.tolist() == _plain_loop_p(scores, 100, 9, chunk=7)
    monkeypatch.setattr(tukey, "_THREADED_CELLS", 0)
    threaded = tukey_hsd(scores, n_permutations=100, rng=9)
    assert np.array_equal(threaded.p_randomized, alone.p_randomized)
    assert np.array_equal(threaded.null_ranges, alone.null_ranges)


def test_every_figure_reads_the_permutations_a_call_of_its_own_would():
    rng = np.random.default_rng(4)
    stack = np.stack([_scores(rng, 30, 6), _scores(rng, 30, 6, shift=0.0)], axis=2)
    together = tukey_hsd_figures(stack, n_permutations=500, rng=21)
    for k, found in enumerate(together):
        assert found == tukey_hsd(stack[:, :, k], n_permutations=500, rng=21)
    assert np.array_equal(permuted_ranges(stack, n_permutations=500, rng=21)[:, 1],
                          together[1].null_ranges)


def test_a_seed_or_a_generator_gives_the_same_draws():
    scores = _scores(np.random.default_rng(8), 15, 3)
    by_seed = tukey_hsd(scores, n_permutations=200, rng=42)
    by_generator = tukey_hsd(scores, n_permutations=200, rng=np.random.default_rng(42))
    assert by_seed == by_generator and by_seed.seed == 42 and by_generator.seed is None


def test_runs_that_never_differ_and_an_additive_table():
    """The same scores in every run: every p is 1, every effect 0. An exactly additive table
    (V_E = 0): the classic p is 0 for runs apart and the effect sizes undefined."""
    same = np.repeat(np.linspace(0, 1, 8)[:, None], 3, axis=1)
    found = tukey_hsd(same, n_permutations=100, rng=1)
    assert (found.p_randomized == 1).all() and (found.p_classic == 1).all()
    assert (found.effect_sizes == 0).all()
    additive = np.linspace(0, 0.5, 8)[:, None] + np.array([0.0, 0.1, 0.3])
    found = tukey_hsd(additive, n_permutations=100, rng=1)
    assert found.p_classic[0, 2] == 0.0 and math.isnan(found.effect_sizes[0, 2])


@pytest.mark.parametrize("kwargs, message", [
    (dict(scores=np.zeros((1, 3))), "at least 2 queries"),
    (dict(scores=np.zeros((5, 1))), "at least 2 runs"),
    (dict(scores=np.zeros((5, 3)), n_permutations=0), "n_permutations"),
    (dict(scores=np.zeros((5, 3)), rng=-1), "rng"),
    (dict(scores=np.full((5, 3), np.inf)), "finite"),
])
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tukey_hsd(**kwargs)


def test_significance_reads_either_p():
    scores = _scores(np.random.default_rng(2), 40, 4, shift=0.1)
    found = tukey_hsd(scores, n_permutations=1000, rng=3)
    assert np.array_equal(found.significant(0.05), found.p_randomized < 0.05)
    assert np.array_equal(found.significant(0.05, method="classic"), found.p_classic < 0.05)
    with pytest.raises(ValueError, match="method"):
        found.significant(0.05, method="holm")


# --------------------------------------------------------------------------- against each other


def _normal(rng: np.random.Generator, n: int, m: int, shifts: np.ndarray) -> np.ndarray:
    """The two-way model with normal errors: a query effect, a run effect, a residual."""
    return rng.normal(0, 1, (n, 1)) + shifts[None, :] + rng.normal(0, 0.3, (n, m))


@pytest.mark.parametrize("permutations, tolerance", [
    (2_000, 0.03), pytest.param(40_000, 0.015, marks=THOROUGH)])
def test_on_normal_data_the_randomized_p_is_close_to_the_classic(permutations, tolerance):
    rng = np.random.default_rng(17)
    scores = _normal(rng, 120, 5, np.array([0.0, 0.02, 0.05, 0.08, 0.1]))
    found = tukey_hsd(scores, n_permutations=permutations, rng=18)
    apart = np.abs(found.p_randomized - found.p_classic)
    assert apart.max() <= tolerance, (found.p_randomized, found.p_classic)


def _family_rejects(replications: int, permutations: int, seed: int) -> float:
    """The share of families (5 runs drawn equal over 30 queries) in which some pair's
    randomized p is below 0.05."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(replications):
        scores = _normal(rng, 30, 5, np.zeros(5))
        found = tukey_hsd(scores, n_permutations=permutations, rng=rng)
        rejected += bool((found.p_randomized < 0.05).any())
    return rejected / replications


def test_the_family_wise_error_is_alpha_by_simulation():
    """400 families (Monte Carlo standard error ~0.011): a smaller version of the thorough
    check below."""
    assert 0.025 <= _family_rejects(400, 500, seed=31) <= 0.08


@THOROUGH
def test_the_family_wise_error_is_alpha_over_2000_families():
    """Issue 48's check: runs drawn equal, 2,000 replications, the share of families with
    any rejection at 0.05 lies in [0.04, 0.06]."""
    rate = _family_rejects(2_000, 1_000, seed=32)
    print(f"family-wise rejection rate over 2,000 families: {rate:.4f}")
    assert 0.04 <= rate <= 0.06


@pytest.mark.parametrize("kwargs, message", [
    (dict(residual_variance=-1.0), "residual_variance"),
    (dict(residual_df=0), "residual_df"),
    (dict(n_runs=1), "n_runs"),
    (dict(differences=[float("nan")]), "finite"),
])
def test_the_classic_p_refuses_bad_arguments(kwargs, message):
    given = dict(differences=[0.1], residual_variance=0.02, residual_df=20, n_queries=11,
                 n_runs=3) | kwargs
    with pytest.raises(ValueError, match=message):
        studentized_range_pvalues(**given)


@pytest.mark.parametrize("draw", [
    lambda n: tukey_hsd(np.zeros((4, 3)), n_permutations=n, rng=0),
    lambda n: permuted_ranges(np.zeros((4, 3, 1)), n_permutations=n, rng=0),
    lambda n: sign_flip_pvalues(np.zeros((4, 1)), n_permutations=n,
                                rng=np.random.default_rng(0)),
], ids=["tukey_hsd", "permuted_ranges", "sign_flip_pvalues"])
def test_the_permutations_are_bounded_before_any_is_drawn(draw):
    """10^12 draws held a command past any wait: every randomization test refuses more than
    MAX_PERMUTATIONS at once, as --permutations does."""
    with pytest.raises(ValueError, match=rf"n_permutations must be an integer from 1 to "
                       rf"{MAX_PERMUTATIONS:,}, got {10**12}"):
        draw(10**12)
    draw(1)
