"""Standardised scores on arrays: each query's figure as a z-score against a population of
runs (trec_eval -Z; Webber, Moffat and Zobel 2008), and mapped into [0, 1] through the
standard normal CDF as Webber et al. do.

- `population(values)`: per query, the mean and the sample standard deviation (n - 1, as
  trec_eval's `test/make_zscore_file.py`, Python's statistics.stdev) over the runs (axis 0).
- `z_scores(values, mean, deviation)`: (value - mean) / deviation, trec_eval 10.0's
  `te_convert_to_zscore` rule: where the deviation is 0, 0 when the value is the mean and
  undefined otherwise; undefined where the mean is (no figure in the standards). Undefined is
  NaN here (trec_eval prints -1000000), with the reason kept beside it.
- `unit_scores(z)`: Phi(z), in [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# the complementary error function, elementwise (NaN stays NaN): Phi without scipy, which the
# command line does not load to score
_ERFC = np.vectorize(math.erfc, otypes=[float])

# why a standardised figure is undefined, by code (0: defined)
UNDEFINED_REASONS = {
    1: "no mean and standard deviation for the query and measure",
    2: "the standard deviation is 0 and the figure differs from the mean",
    3: "fewer than two runs to standardise against",
}


@dataclass(frozen=True, eq=False)
class Population:
    """What a standardised evaluation was standardised against: its scale ("z" or "cdf") and,
    per figure key, each query's mean and standard deviation (the query set's order; NaN
    where the standards hold none), so that one query's standardisation can be written out."""

    scale: str = "z"
    moments: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def population(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(runs, ...) figures -> the mean and sample standard deviation over the runs (NaN for
    the deviation of fewer than two runs)."""
    values = np.asarray(values, dtype=float)
    mean = values.mean(axis=0)
    if values.shape[0] < 2:
        return mean, np.full(mean.shape, np.nan)
    # every run the same: the mean is that figure and the deviation 0, exactly, as
    # statistics.mean and stdev give them; numpy's sums leave float noise there (three runs at
    # 0.4: a deviation of 6e-17 and a mean a bit off 0.4), which made each z -0.816, not 0
    same = (values == values[0]).all(axis=0)
    return (np.where(same, values[0], mean),
            np.where(same, 0.0, values.std(axis=0, ddof=1)))


def z_scores(values: np.ndarray, mean: np.ndarray, deviation: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """The z-scores and, beside each, why it is undefined (a code of UNDEFINED_REASONS, 0
    when defined)."""
    values = np.asarray(values, dtype=float)
    mean, deviation = np.broadcast_arrays(np.asarray(mean, float), np.asarray(deviation, float))
    why = np.zeros(np.broadcast_shapes(values.shape, mean.shape), dtype=np.int8)
    missing = np.isnan(mean)
    flat = ~missing & (deviation == 0)
    why[np.broadcast_to(missing, why.shape)] = 1
    why[np.broadcast_to(np.isnan(deviation) & ~missing, why.shape)] = 3
    why[(np.broadcast_to(flat, why.shape)) & (values != mean)] = 2
    spread = np.where(flat | np.isnan(deviation), 1.0, deviation)
    z = np.where(flat, 0.0, (values - mean) / spread)
    return np.where(why > 0, np.nan, z), why


def unit_scores(z: np.ndarray) -> np.ndarray:
    """Phi(z): a z-score mapped into [0, 1] by the standard normal CDF (NaN stays NaN)."""
    return 0.5 * _ERFC(-np.asarray(z, dtype=float) / math.sqrt(2.0))
