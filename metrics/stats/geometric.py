"""A geometric mean over queries on arrays (trec_eval's gm_map): its value, a percentile
bootstrap interval over queries, and a paired bootstrap interval of two runs' difference.

- `geometric_mean(values, floor)`: exp(mean(log(max(v, floor)))), trec_eval 10.0's
  te_calc_avg_meas_s_gm over per-query logs of max(AP, MIN_GEO_MEAN).
- `geometric_interval(values, resamples, ...)`: the geometric mean of each resample of the
  queries (resampled means of the logs, exponentiated), the percentile interval of those.
- `geometric_difference(a, b, resamples, ...)`: gm(a) - gm(b) and the percentile interval of
  the same difference over the same resamples (the pairs resampled together).
"""

from __future__ import annotations

import numpy as np

from metrics.stats.bootstrap import Resamples, percentile_bounds


def _logs(values: np.ndarray, floor: float) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"one figure per query expected, got shape {values.shape}")
    if np.isnan(values).any():
        raise ValueError("a geometric mean needs every query's figure: some are undefined")
    if (values < 0).any():
        raise ValueError("a geometric mean needs figures of 0 or more")
    return np.log(np.maximum(values, floor))


def geometric_mean(values: np.ndarray, floor: float) -> float:
    """exp(mean(log(max(v, floor)))); NaN over no query."""
    logs = _logs(values, floor)
    return float(np.exp(logs.mean())) if logs.size else float("nan")


def _resampled(logs: np.ndarray, resamples: Resamples) -> np.ndarray:
    if resamples.n != logs.size:
        raise ValueError(f"values hold {logs.size:,} queries; the resamples draw "
                         f"{resamples.n:,}")
    return np.exp(resamples.means(logs[:, None])[0][:, 0])


def geometric_interval(values: np.ndarray, resamples: Resamples, *, floor: float,
                       confidence_level: float) -> tuple[float, float, float]:
    """(geometric mean, low, high): the percentile bootstrap over the resampled queries."""
    logs = _logs(values, floor)
    if not logs.size:
        return (float("nan"),) * 3
    low, high = percentile_bounds(_resampled(logs, resamples),
                                  confidence_level=confidence_level)
    return float(np.exp(logs.mean())), float(low), float(high)


def geometric_difference(a: np.ndarray, b: np.ndarray, resamples: Resamples, *, floor: float,
                         confidence_level: float) -> tuple[float, float, float]:
    """(gm(a) - gm(b), low, high): both on the same resampled queries, the percentile
    interval of their difference (a paired bootstrap)."""
    logs_a, logs_b = _logs(a, floor), _logs(b, floor)
    if logs_a.size != logs_b.size:
        raise ValueError(f"paired figures need the same queries: {logs_a.size:,} and "
                         f"{logs_b.size:,}")
    if not logs_a.size:
        return (float("nan"),) * 3
    difference = _resampled(logs_a, resamples) - _resampled(logs_b, resamples)
    low, high = percentile_bounds(difference, confidence_level=confidence_level)
    return (float(np.exp(logs_a.mean()) - np.exp(logs_b.mean())), float(low), float(high))
