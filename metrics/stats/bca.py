"""Bias-corrected and accelerated (BCa) bootstrap interval of the mean of each column.

The arithmetic of scipy.stats.bootstrap(method="BCa") (scipy 1.17's ``_bca_interval``; Efron
and Tibshirani 1993, sections 14.3 and 15.4), given a bootstrap distribution of means drawn
elsewhere (``metrics.stats.bootstrap.bootstrap_means``), for all columns at once:

- bias correction z0 = Phi^-1(share of resampled means below the estimate), a resampled mean
  equal to the estimate counting one half (scipy's ``_percentile_of_score``);
- acceleration a = sum(U^3) / n^3 / (6 (sum(U^2) / n^2)^(3/2)) with U = (n - 1)(mean of the
  leave-one-out means - each leave-one-out mean); for the mean these are (sum - x_i)/(n - 1);
- levels Phi(z0 + (z0 + z) / (1 - a (z0 + z))) for z = Phi^-1(alpha / 2) and -z;
- each column's quantiles at its own levels, interpolated as scipy.stats.quantile's default
  (Hyndman and Fan type 7: j + g = p B + 1 - p, 1-based), which bootstrap uses.

Degenerate columns, where scipy returns nan with a warning, get finite bounds instead:

- every value equal (one query included): the bootstrap distribution is that one value and
  so is the mean; the interval is (value, value), as exact as an interval can be, and is not
  a fallback;
- z0 infinite (every resampled mean on one side of the estimate) or a level nan (an
  acceleration 0/0 when float noise leaves no spread): BCa is undefined; the column gets the
  percentile interval (``metrics.stats.bootstrap.percentile_bounds``) and ``fell_back`` says so,
  so a caller can print "percentile" beside it.

Phi and Phi^-1 come from statistics.NormalDist (erfc, and Wichura's AS241, ~1e-16), one call
per column and level: importing scipy.stats would cost the command line ~0.8 s of start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from metrics.stats.bootstrap import Resamples, as_resamples, percentile_bounds
from metrics.stats.validate import check_fraction, check_values

__all__ = ["BcaBounds", "bca_bounds", "bca_from_counts"]

_NORMAL = NormalDist()
_CDF = np.frompyfunc(_NORMAL.cdf, 1, 1)
_INV_CDF = np.frompyfunc(_NORMAL.inv_cdf, 1, 1)


_TIE_TOLERANCE = 1e-12  # relative: a resampled mean this close to the estimate ties


@dataclass(frozen=True, eq=False)
class BcaBounds:
    """BCa bounds of each column; ``z0`` and ``acceleration`` as computed (nan or inf where
    undefined), kept so a reader can see why a column fell back."""

    low: np.ndarray
    high: np.ndarray
    fell_back: np.ndarray  # bool: this column holds the percentile interval instead
    z0: np.ndarray
    acceleration: np.ndarray


def _phi(x: np.ndarray) -> np.ndarray:
    return _CDF(x).astype(float) if x.size else np.zeros(x.shape)


def _phi_inverse(p: np.ndarray) -> np.ndarray:
    """Phi^-1 of p in [0, 1]: -inf at 0 and +inf at 1, like scipy.special.ndtri."""
    z = np.where(p < 0.5, -np.inf, np.inf)
    inner = (p > 0) & (p < 1)
    if inner.any():
        z[inner] = _INV_CDF(p[inner]).astype(float)
    return z


def _quantiles(distribution: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Quantile of each column of distribution (B, m) at levels (k, m): scipy.stats.quantile's
    'linear' arithmetic (``_quantile_hf``), so the bounds match scipy's to the last bits."""
    ordered = np.sort(distribution, axis=0)
    size = ordered.shape[0]
    jg = levels * size + (1 - levels)
    jp1 = jg // 1
    j = jp1 - 1
    g = jg % 1
    g[j < 0] = 0
    j = np.clip(j, 0, size - 1).astype(np.int64)
    jp1 = np.clip(jp1, 0, size - 1).astype(np.int64)
    return (1 - g) * np.take_along_axis(ordered, j, axis=0) + g * np.take_along_axis(
        ordered, jp1, axis=0
    )


def _as_matrix(name: str, array: object, rows: str = "queries") -> np.ndarray:
    return check_values(name, array, ndim=2, rows=rows)


def bca_bounds(
    values: np.ndarray, distribution: np.ndarray, *, confidence_level: float
) -> BcaBounds:
    """BCa interval of the mean of each column of values (n, m), given distribution
    (n_resamples, m): the resampled means of the same columns. No queries: (0, 0), the mean
    ``metrics.stats.intervals.bootstrap`` reports for them."""
    values = _as_matrix("values", values)
    distribution = _as_matrix("distribution", distribution, "resamples")
    confidence_level = check_fraction("confidence_level", confidence_level)
    n, m = values.shape
    if distribution.shape[1] != m or distribution.shape[0] < 1:
        raise ValueError(
            f"distribution must hold at least one resample of each of the {m} columns, "
            f"got shape {distribution.shape}"
        )
    if n == 0:
        zeros, nan = np.zeros(m), np.full(m, np.nan)
        return BcaBounds(zeros, zeros.copy(), np.zeros(m, bool), nan, nan.copy())
    constant = (values == values[0]).all(axis=0)
    if constant.all():  # one query included: no jackknife to take
        first = values[0].copy()
        nan = np.full(m, np.nan)
        return BcaBounds(first, first.copy(), np.zeros(m, bool), nan, nan.copy())

    # One contiguous row per column, every sum along it (pairwise, as np.mean sums scipy's
    # one sample): the estimate's last bit decides whether a resampled mean ties with it,
    # and a column's bounds do not depend on which other columns came with it.
    samples = np.ascontiguousarray(values.T)
    estimate = samples.mean(axis=1)
    # A resampled mean within float noise of the estimate ties with it (counts one half, as
    # scipy counts exact ties): per-query figures are often multiples of 1/K, so many
    # resampled means equal the estimate, and whether the matrix product that computed them
    # rounded up or down must not move the interval.
    noise = _TIE_TOLERANCE * np.maximum(1.0, np.abs(estimate))
    share = (
        np.count_nonzero(distribution < estimate - noise, axis=0)
        + np.count_nonzero(distribution <= estimate + noise, axis=0)
    ) / (2 * distribution.shape[0])
    z0 = _phi_inverse(share)

    with np.errstate(divide="ignore", invalid="ignore"):
        leave_one_out = (samples.sum(axis=1, keepdims=True) - samples) / (n - 1)
        u = (n - 1) * (leave_one_out.mean(axis=1, keepdims=True) - leave_one_out)
        numerator = (u**3).sum(axis=1) / n**3
        denominator = (u**2).sum(axis=1) / n**2
        acceleration = 1 / 6 * numerator / denominator ** (3 / 2)

        z_alpha = float(_phi_inverse(np.array([(1 - confidence_level) / 2]))[0])
        shifted = z0 + np.array([[z_alpha], [-z_alpha]])  # (2, m): low, high
        levels = _phi(z0 + shifted / (1 - acceleration * shifted))

    defined = np.isfinite(z0) & np.isfinite(levels).all(axis=0)
    fell_back = ~constant & ~defined
    bca = defined & ~constant
    low, high = np.empty(m), np.empty(m)
    if bca.any():
        low[bca], high[bca] = _quantiles(distribution[:, bca], levels[:, bca])
    if fell_back.any():
        low[fell_back], high[fell_back] = percentile_bounds(
            distribution[:, fell_back], confidence_level=confidence_level
        )
    low[constant] = high[constant] = values[0, constant]
    return BcaBounds(low, high, fell_back, z0, acceleration)


def bca_from_counts(
    values: np.ndarray, counts: np.ndarray | Resamples, *, confidence_level: float
) -> BcaBounds:
    """bca_bounds of values (n, m) over the resampled queries `counts` describes (Resamples
    from ``metrics.stats.bootstrap.draw_resamples``, or a table (n_resamples, n))."""
    values = _as_matrix("values", values)
    resamples = as_resamples(counts)
    if resamples.n != values.shape[0]:
        raise ValueError(
            f"counts must have one column per query ({values.shape[0]}), got shape "
            f"{resamples.shape}"
        )
    return bca_bounds(values, resamples.means(values)[0], confidence_level=confidence_level)


def bootstrap_bounds(values: np.ndarray, distribution: np.ndarray, *, confidence_level: float,
                     method: str = "percentile") -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the mean of each column of values (n, m) from its resampled means, by
    the interval_method convention: "percentile" (the seed's) or "bca"."""
    if method == "bca":
        bounds = bca_bounds(values, distribution, confidence_level=confidence_level)
        return bounds.low, bounds.high
    if method != "percentile":
        raise ValueError(f"interval_method must be one of percentile, bca, got {method!r}")
    return percentile_bounds(distribution, confidence_level=confidence_level)
