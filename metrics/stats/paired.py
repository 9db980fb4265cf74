"""Paired tests on per-query differences (after - before), one column per compared pair.

- ``paired_differences``: the differences, rounded so that float noise is a tie;
- ``paired_bootstrap``: the bootstrap interval (percentile or BCa) of the mean difference (the same
  resampled queries for every column, the same draws ``metrics.stats.intervals.bootstrap`` makes);
- ``sign_flip_pvalues``: the paired randomization (sign-flip) test of the mean difference
  (Smucker, Allan and Carterette 2007), two-sided, with the +1 correction:
  p = (1 + hits) / (1 + B); the same flips for every column;
- ``t_pvalue`` and ``wilcoxon_pvalue``: scipy.stats.ttest_rel and scipy.stats.wilcoxon with
  scipy's defaults; the exact sign-flip test that wilcoxon picks for up to 13 queries with ties
  or zeros runs vectorised, same p-value; ``t_pvalues`` and ``wilcoxon_pvalues`` give the same
  p of every column of a comparison in one call of scipy's (its per-call overhead, about
  0.6 ms a test, was half of a comparison's time);
- ``effect_size``: the mean difference over the sample standard deviation (ddof=1).

Randomness comes only from the Generator passed in, drawn in a fixed way for given shapes, so
the same inputs and generator state give identical floats. scipy is imported inside the
functions that need it: importing scipy.stats costs the command line ~0.8 s of start-up.
"""

from __future__ import annotations

import numpy as np

from metrics.stats.bca import bootstrap_bounds
from metrics.stats.bootstrap import draw_resamples
from metrics.stats.validate import (
    check_count,
    check_fraction,
    check_generator,
    check_number,
    check_values,
)
from metrics.vocabulary.conventions import check_permutations

__all__ = [
    "DIFFERENCE_NOISE",
    "effect_size",
    "check_delta",
    "harmed",
    "is_harmed",
    "paired_bootstrap",
    "paired_differences",
    "sign_flip_pvalues",
    "t_pvalue",
    "t_pvalues",
    "wilcoxon_pvalue",
    "wilcoxon_pvalues",
]

# Per-query differences are rounded to this many decimals before anything else, so that two
# scores that differ only by float noise (0.1 + 0.2 vs 0.3) count as a tie, not a win.
_DECIMALS = 12
# A difference within this distance of a threshold counts as on it: below the rounding above,
# a gap is float noise.
DIFFERENCE_NOISE = 1e-12
# A permuted mean within this distance of the observed mean counts as "at least as extreme":
# means of scores in [0, 1] that differ by less are float noise, and counting them as ties can
# only make the p-value (very slightly) more conservative.
_TIE_TOLERANCE = 1e-10
# Sign flips are drawn and applied in chunks of at most this many (flip, query) cells, so
# memory stays bounded (about 32 MB of float64) whatever the number of queries. The chunk size
# depends on n only, so the draws -- and the p-values -- are a function of (seed, n, B).
_CHUNK_CELLS = 1 << 22
# Up to this many queries, stats.wilcoxon (method="auto") answers ties or zero differences
# with an exact test over all 2^n sign flips; wilcoxon_pvalue runs that test vectorised.
_WILCOXON_SIGN_FLIPS = 13
# Up to this many queries stats.wilcoxon (method="auto") picks an exact test when a column has
# no ties or zeros; beyond, always the normal approximation (scipy's _wilcoxon_iv).
_WILCOXON_EXACT = 50


def _as_differences(values: object, ndim: int) -> np.ndarray:
    """values as a float array of ndim dimensions, at least 2 queries, every value finite."""
    return check_values("differences", values, ndim=ndim, least=2)


def _is_constant(differences: np.ndarray) -> bool:
    """Every query changed by the same amount (zero included): the standard deviation is 0."""
    return bool((differences == differences[0]).all())


def paired_differences(after: np.ndarray, before: np.ndarray) -> np.ndarray:
    """after - before, elementwise, rounded to 12 decimals so float noise is a tie (no -0.0)."""
    after, before = np.asarray(after, dtype=float), np.asarray(before, dtype=float)
    if after.shape != before.shape:
        raise ValueError(f"after has shape {after.shape} but before has shape {before.shape}")
    differences = np.round(after - before, _DECIMALS)
    differences[differences == 0] = 0.0  # no -0.0 after rounding
    return differences


def is_harmed(differences: object, delta: object) -> np.ndarray:
    """Which queries lose more than delta (a loss of exactly delta is not harm): the harm
    the risk figures count and the queries a harm profile reads; the arguments checked."""
    return harmed(check_values("differences", differences, ndim=(1, 2), least=0),
                  check_delta(delta))


def harmed(differences: np.ndarray, delta: float) -> np.ndarray:
    """is_harmed's rule on checked arguments: a loss beyond delta and float noise."""
    return differences < -delta - DIFFERENCE_NOISE


def check_delta(delta: object) -> float:
    """A harm threshold: a number from 0 to 1, in the metric's units."""
    return check_number("delta", delta, low=0, high=1, meaning="the metric's units")


def paired_bootstrap(
    differences: np.ndarray,
    *,
    confidence_level: float,
    n_resamples: int,
    rng: np.random.Generator,
    method: str = "percentile",
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap interval (low, high) of the mean of each column of differences (n, m):
    percentile (the seed's) or BCa (`method`, the interval_method convention).

    Resampling queries resamples the pairs together, so this is the paired bootstrap of the
    mean difference; every column uses the same resampled queries.
    """
    differences = _as_differences(differences, 2)
    confidence_level = check_fraction("confidence_level", confidence_level)
    n_resamples = check_count("n_resamples", n_resamples)
    rng = check_generator(rng)
    resamples = draw_resamples(differences.shape[0], n_resamples=n_resamples, rng=rng)
    return bootstrap_bounds(differences, resamples.means(differences)[0],
                            confidence_level=confidence_level, method=method)


def sign_flip_pvalues(
    differences: np.ndarray, *, n_permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """Two-sided paired randomization p of the mean of each column of differences (n, m).

    Each of n_permutations draws flips the sign of every query's difference with probability
    1/2 -- the same flips for every column -- and counts the draws whose |mean| reaches the
    observed |mean|; p = (1 + count) / (1 + n_permutations). A flip vector s in {-1, +1}^n is
    drawn as bits b in {0, 1}^n (s = 2b - 1), so one chunk of flips costs one matrix product:
    sum(s * d) = 2 (b @ d) - sum(d).
    """
    differences = _as_differences(differences, 2)
    n_permutations = check_permutations(n_permutations)
    rng = check_generator(rng)
    n, _ = differences.shape
    total = differences.sum(axis=0)
    threshold = np.abs(total) - _TIE_TOLERANCE * n  # compared on sums: mean * n
    count = np.zeros(differences.shape[1], dtype=np.int64)
    rows = max(1, _CHUNK_CELLS // n)
    n_bytes = (n + 7) // 8
    # one chunk's flips as floats, written over in place: a fresh 32 MB array per chunk
    # costs more in page faults than the product does
    chunk = np.empty((min(rows, n_permutations), n))
    for start in range(0, n_permutations, rows):
        size = min(rows, n_permutations - start)
        packed = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = chunk[:size]
        np.copyto(bits, np.unpackbits(packed, axis=1, count=n))
        flipped = 2.0 * (bits @ differences) - total
        count += (np.abs(flipped) >= threshold).sum(axis=0)
    return (1.0 + count) / (1.0 + n_permutations)


def t_pvalue(differences: np.ndarray) -> float:
    """Two-sided paired t-test p of per-query differences (n,): scipy.stats.ttest_rel."""
    return float(t_pvalues(_as_differences(differences, 1)[:, None])[0])


def t_pvalues(differences: np.ndarray) -> np.ndarray:
    """t_pvalue of each column of differences (n, m), in one call of scipy's."""
    differences = _as_differences(differences, 2)
    # Every query changed by the same amount: the standard deviation is 0 and scipy returns
    # nan (all zero) or t = +-inf, p = 0.0 (non-zero) -- or, when float noise leaves a tiny
    # spread, an arbitrary value. Pin both cases so they do not depend on that noise: no
    # change -> p = 1.0, the same non-zero change everywhere -> p = 0.0.
    constant = (differences == differences[0]).all(axis=0)
    p = np.where(differences[0] == 0, 1.0, 0.0)
    if not constant.all():
        from scipy import stats  # imported here: it costs the command line ~0.8 s of start-up

        # one contiguous row per column: each row is summed as a 1-D array is, so every p
        # has the digits of a call on that column alone. ttest_rel(a, b) is the one-sample
        # t-test of a - b; passing the rounded differences keeps it consistent with the
        # other tests.
        rows = np.ascontiguousarray(differences[:, ~constant].T)
        p[~constant] = stats.ttest_rel(rows, np.zeros_like(rows), axis=-1).pvalue
    return p


def wilcoxon_pvalue(differences: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of per-query differences (n,): scipy.stats.wilcoxon
    with its defaults (zero_method="wilcox", method="auto")."""
    return float(wilcoxon_pvalues(_as_differences(differences, 1)[:, None])[0])


def wilcoxon_pvalues(differences: np.ndarray) -> np.ndarray:
    """wilcoxon_pvalue of each column of differences (n, m). Beyond _WILCOXON_EXACT queries
    scipy's method="auto" is the normal approximation whatever the data, so the columns go
    to scipy in one call; below, its choice depends on each column's ties and zeros."""
    differences = _as_differences(differences, 2)
    if len(differences) <= _WILCOXON_EXACT:
        return np.array([_wilcoxon_column(column) for column in differences.T])
    from scipy import stats

    # Every difference zero: scipy's default zero_method="wilcox" drops them all and,
    # depending on the version, raises or warns and returns nan/1.0. Nothing changed, so
    # there is no evidence of a difference: p = 1.0.
    moved = differences.any(axis=0)
    p = np.ones(differences.shape[1])
    if moved.any():
        rows = np.ascontiguousarray(differences[:, moved].T)  # as t_pvalues: 1-D digits
        p[moved] = stats.wilcoxon(rows, axis=-1).pvalue
    return p


def _wilcoxon_column(differences: np.ndarray) -> float:
    if not differences.any():
        return 1.0  # nothing changed (see wilcoxon_pvalues)
    from scipy import stats

    is_nonzero = differences != 0
    nonzero = differences[is_nonzero]
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    if (ties or len(nonzero) < len(differences)) and len(differences) <= _WILCOXON_SIGN_FLIPS:
        # stats.wilcoxon's own choice here is an exact test over every sign flip, but it
        # calls its statistic once per flip in Python (~0.2 s a test, 2.5 s for the sample's
        # comparison). The same test with the statistic vectorised: flips keep |d|, so the
        # ranks are fixed; zeros are dropped from the ranking (zero_method="wilcox").
        ranks = np.zeros(len(differences))
        ranks[is_nonzero] = stats.rankdata(np.abs(nonzero))

        def rank_sum_of_positives(d: np.ndarray, axis: int) -> np.ndarray:
            return np.sum((d > 0) * ranks, axis=axis)

        return float(
            stats.permutation_test(
                (differences,), rank_sum_of_positives, permutation_type="samples",
                vectorized=True, n_resamples=9999, alternative="two-sided",
            ).pvalue
        )
    return float(stats.wilcoxon(differences).pvalue)


def effect_size(differences: np.ndarray) -> float:
    """Mean over the sample standard deviation (ddof=1) of per-query differences (n,)."""
    differences = _as_differences(differences, 1)
    if _is_constant(differences):
        # sd = 0: 0.0 when nothing changed; nan (undefined, not inf) when every query changed
        # by the same non-zero amount.
        return 0.0 if differences[0] == 0 else float("nan")
    return float(differences.mean() / differences.std(ddof=1))
