"""Prediction-powered inference for a mean over queries, on arrays (Angelopoulos, Bates,
Fannjiang, Jordan and Zrnic 2023, "Prediction-powered inference"; the power-tuned weight of
Angelopoulos, Duchi and Zrnic 2023, "PPI++").

A few queries carry the gold figure Y (scored under human labels) and a prediction f of it
(the same figure under a model judge's labels); many more carry only f. With weight lam,

    estimate = lam * mean(f over the unlabelled) + mean(Y - lam * f over the labelled)

is unbiased for the mean of Y whatever the judge's errors, and its variance, by the CLT, is
lam^2 Var(f) / N + Var(Y - lam f) / n. lam = 1 is plain PPI, lam = 0 the human-only mean;
PPI++'s tuned lam = Cov(Y, f) / ((1 + n / N) Var(f)), clipped to [0, 1], minimises that
variance (Cov over the labelled queries, Var(f) over all of them). Variances divide by the
count (ddof 0) and the interval is the normal one, as the authors' ppi-python does; a paired
comparison is the same construction on per-query differences.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from metrics.stats.validate import check_fraction, check_number

__all__ = ["MeanEstimate", "clt_mean", "ppi_mean", "tuned_lambda"]


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its normal interval, and what built it."""

    mean: float
    low: float
    high: float
    se: float  # standard error
    method: str  # "ppi" (a weight lam) or "clt" (one sample)
    lam: float | None  # the weight on the judge (None for a one-sample mean)
    n_labelled: int  # queries with the gold figure (for "clt": the queries averaged)
    n_unlabelled: int  # queries with only the prediction (0 for "clt")
    confidence_level: float

    @property
    def width(self) -> float:
        return self.high - self.low

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def clipped(self, low: float, high: float) -> MeanEstimate:
        """The interval cut to the figure's range (a mean of figures in [0, 1] lies in it):
        what is cut off holds no possible value, so coverage cannot fall."""
        return replace(self, low=max(self.low, low), high=min(self.high, high))


def _z(confidence_level: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence_level) / 2)


def _vector(name: str, values: object, least: int) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one value per query (1-d), got shape {array.shape}")
    if len(array) < least:
        raise ValueError(f"{name} needs at least {least} queries, got {len(array)}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds a value that is not a finite number")
    return array


def clt_mean(values: object, *, confidence_level: float) -> MeanEstimate:
    """The mean of one sample and its normal (CLT) interval, the standard deviation dividing
    by n as ppi-python's classical interval does."""
    confidence_level = check_fraction("confidence_level", confidence_level)
    y = _vector("values", values, 1)
    se = float(y.std() / np.sqrt(len(y)))
    mean, half = float(y.mean()), _z(confidence_level) * se
    return MeanEstimate(mean, mean - half, mean + half, se, "clt", None, len(y), 0,
                        confidence_level)


def tuned_lambda(gold: np.ndarray, predicted: np.ndarray,
                 predicted_unlabelled: np.ndarray) -> float:
    """PPI++'s variance-minimising weight on the judge, clipped to [0, 1]; 0 when the judge's
    figure does not vary (it then carries nothing)."""
    n, big_n = len(gold), len(predicted_unlabelled)
    covariance = float(np.mean((gold - gold.mean()) * (predicted - predicted.mean())))
    variance = float(np.var(np.concatenate([predicted, predicted_unlabelled]), ddof=1))
    if variance <= 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(gold: object, predicted: object, predicted_unlabelled: object, *,
             lam: float | None = None, confidence_level: float) -> MeanEstimate:
    """The prediction-powered mean of the gold figure: `gold` and `predicted` on the labelled
    queries (same order), `predicted_unlabelled` on the others; `lam` None for PPI++'s tuned
    weight, a number in [0, 1] for a fixed one (1: plain PPI)."""
    confidence_level = check_fraction("confidence_level", confidence_level)
    y = _vector("gold", gold, 2)
    f = _vector("predicted", predicted, 2)
    f_unlabelled = _vector("predicted_unlabelled", predicted_unlabelled, 1)
    if len(y) != len(f):
        raise ValueError(f"gold and predicted must cover the same labelled queries, got "
                         f"{len(y)} and {len(f)} values")
    lam = (tuned_lambda(y, f, f_unlabelled) if lam is None
           else check_number("lam", lam, low=0, high=1))
    rectifier = y - lam * f
    mean = float(lam * f_unlabelled.mean() + rectifier.mean())
    se = float(np.sqrt(np.var(lam * f_unlabelled) / len(f_unlabelled)
                       + np.var(rectifier) / len(y)))
    half = _z(confidence_level) * se
    return MeanEstimate(mean, mean - half, mean + half, se, "ppi", lam, len(y),
                        len(f_unlabelled), confidence_level)
