"""Intervals around a mean over queries: Wilson for 0/1 outcomes, percentile bootstrap otherwise.

The bootstrap resamples the query set; every metric (and both runs of a paired comparison)
is evaluated on the same resampled queries, drawn once from a seeded numpy Generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

_DRAWS_PER_BLOCK = 1 << 18


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    method: str  # "wilson" or "bootstrap"
    confidence_level: float


def _check_confidence(confidence_level: float) -> None:
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}")


def wilson(successes: int, trials: int, *, confidence_level: float = 0.95) -> Interval:
    """Wilson score interval for a proportion (Wilson 1927); (0, 0, 0) when there are no trials."""
    _check_confidence(confidence_level)
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return Interval(0.0, 0.0, 0.0, "wilson", confidence_level)
    # stdlib quantile (AS241, ~1e-16): importing scipy.stats would cost the CLI ~0.8 s
    z = NormalDist().inv_cdf(1 - (1 - confidence_level) / 2)
    p = successes / trials
    denominator = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denominator
    half = z * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denominator
    low, high = float(max(0.0, centre - half)), float(min(1.0, centre + half))
    return Interval(p, low, high, "wilson", confidence_level)


def resample_counts(n: int, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each of n queries is drawn in each resample: shape (n_resamples, n).

    A resample's mean of any per-query vector v is then counts @ v / n, so all metrics share
    the same draws without materialising n_resamples x n x metrics values.
    """
    if n == 0:
        return np.zeros((n_resamples, 0))
    counts = np.empty((n_resamples, n))
    # Blocks of ~2 MB of draws: one (n_resamples, n) draw array costs a fresh process
    # 0.2 s of page faults (10,000 queries). The stream is the same as one draw of it all.
    block = max(1, _DRAWS_PER_BLOCK // n)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        draws = rng.integers(0, n, size=(rows, n))
        draws += (np.arange(rows) * n)[:, None]
        counts[start : start + rows] = np.bincount(draws.ravel(), minlength=rows * n).reshape(
            rows, n
        )
    return counts


def bootstrap_means(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Resampled means of each column of values (n, m) -> (n_resamples, m)."""
    n = values.shape[0]
    if n == 0:
        return np.zeros((counts.shape[0],) + values.shape[1:])
    return counts @ values / n


def percentile_bounds(
    distribution: np.ndarray, *, confidence_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of a bootstrap distribution along axis 0."""
    _check_confidence(confidence_level)
    alpha = 1 - confidence_level
    low, high = np.quantile(distribution, [alpha / 2, 1 - alpha / 2], axis=0)
    return low, high


def bootstrap(
    values: np.ndarray,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    rng: np.random.Generator,
    method: str = "percentile",
) -> list[Interval]:
    """Bootstrap interval of the mean of each column of values (n, m): percentile (the
    seed's) or BCa (`method`, the interval_method convention)."""
    from metrics.stats.bca import bootstrap_bounds  # it builds on this module

    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    counts = resample_counts(values.shape[0], n_resamples=n_resamples, rng=rng)
    low, high = bootstrap_bounds(values, bootstrap_means(values, counts),
                                 confidence_level=confidence_level, method=method)
    means = values.mean(axis=0) if values.shape[0] else np.zeros(values.shape[1])
    return [
        Interval(float(m), float(lo), float(hi), "bootstrap", confidence_level)
        for m, lo, hi in zip(means, low, high, strict=True)
    ]
