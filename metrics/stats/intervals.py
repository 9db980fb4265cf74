"""Intervals around a mean over queries: Wilson for 0/1 outcomes, percentile or BCa bootstrap
otherwise (the resamples are ``metrics.stats.bootstrap``'s)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from metrics.stats.bca import bootstrap_bounds
from metrics.stats.bootstrap import resamples_from
from metrics.stats.validate import (
    check_count,
    check_fraction,
    check_integer,
    check_rng,
    check_values,
)
from metrics.vocabulary.conventions import (
    CONVENTION_BY_FIELD,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
)

__all__ = ["Interval", "bootstrap", "wilson"]


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    method: str  # "wilson" or "bootstrap"
    confidence_level: float


def wilson(successes: int, trials: int, *,
           confidence_level: float = DEFAULT_CONFIDENCE) -> Interval:
    """Wilson score interval for a proportion (Wilson 1927); (0, 0, 0) when there are no trials."""
    successes, trials, confidence_level = _wilson_iv(successes, trials, confidence_level)
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


def bootstrap(
    values: np.ndarray,
    *,
    confidence_level: float = DEFAULT_CONFIDENCE,
    n_resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | int,
    method: str = "percentile",
) -> list[Interval]:
    """Bootstrap interval of the mean of each column of values (n, m): percentile (the
    seed's) or BCa (`method`, the interval_method convention), over the resampled queries
    a Generator draws (it moves on) or an integer seed's (the summary's draw on that seed)."""
    values, confidence_level, n_resamples, rng = _bootstrap_iv(
        values, confidence_level, n_resamples, rng, method)
    resamples = resamples_from(rng, values.shape[0], n_resamples=n_resamples)
    low, high = bootstrap_bounds(values, resamples.means(values)[0],
                                 confidence_level=confidence_level, method=method)
    means = values.mean(axis=0) if values.shape[0] else np.zeros(values.shape[1])
    return [
        Interval(float(m), float(lo), float(hi), "bootstrap", confidence_level)
        for m, lo, hi in zip(means, low, high, strict=True)
    ]


def _wilson_iv(successes: object, trials: object,
               confidence_level: object) -> tuple[int, int, float]:
    confidence_level = check_fraction("confidence_level", confidence_level)
    trials = check_integer("trials", trials)
    successes = check_integer("successes", successes)
    if successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    return successes, trials, confidence_level


def _bootstrap_iv(values: object, confidence_level: object, n_resamples: object, rng: object,
                  method: object) -> tuple[np.ndarray, float, int, np.random.Generator | int]:
    """values as (n, m) finite floats (a 1-D array is one column), the level, the resamples,
    and rng as the Generator or the seed it is; a method the convention does not know fails
    here, before anything is drawn."""
    values = check_values("values", values, ndim=(1, 2))
    confidence_level = check_fraction("confidence_level", confidence_level)
    n_resamples = check_count("n_resamples", n_resamples)
    generator, seed = check_rng(rng, none=False)
    CONVENTION_BY_FIELD["interval_method"].choice(method)
    return (values[:, None] if values.ndim == 1 else values, confidence_level, n_resamples,
            generator if seed is None else seed)
