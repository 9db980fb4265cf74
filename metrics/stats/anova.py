"""The two-way ANOVA without replication (topic x system) of one figure over n queries and m
runs: the IR community's model for many runs on one query set (Sakai 2014, 2018), in which a
score is the grand mean plus a system effect plus a topic effect plus a residual.

- sums of squares, degrees of freedom and mean squares of systems, topics and the residual
  (the residual's sum of squares from the residuals themselves, not as the total less the
  others: the subtraction loses digits when the effects are large);
- F and p of systems and of topics against the residual variance V_E;
- for systems (and topics), omega-squared as Sakai writes it, (S_A - phi_A V_E) / (S_T + V_E),
  and partial eta-squared, S_A / (S_A + S_E);
- the margin of error of one system's mean, t(phi_E; 1 - (1 - level) / 2) sqrt(V_E / n): half
  the width of its confidence interval from the residual variance.

V_E and its degrees of freedom phi_E = (m - 1)(n - 1) are what the classic Tukey HSD, the
effect sizes of a pair (``metrics.stats.tukey``) and topic-set-size design
(``metrics.stats.topic_set_size``) read. scipy is imported inside the functions that use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from metrics.stats.validate import check_fraction, check_values
from metrics.vocabulary.conventions import DEFAULT_CONFIDENCE

__all__ = ["Factor", "TwoWayAnova", "two_way_anova"]

# Deviations (an effect, a residual) within this distance of 0 are float noise, as paired
# differences are rounded to 12 decimals: a table whose every residual is noise has a residual
# variance of exactly 0, and runs whose means differ only by noise a systems' sum of 0.
_NOISE = 1e-12


@dataclass(frozen=True)
class Factor:
    """One factor's line of the table (systems or topics) against the residual.

    ``f`` is the mean square over the residual variance and ``p`` its upper tail under the F
    distribution of (df, residual df). With a residual variance of 0 (every score is its
    run's effect plus its query's, exactly), F is infinite and p 0 when the factor's mean
    square is not 0, and F is undefined (nan) with p 1 when it is (nothing differs at all).
    ``omega_squared`` (Sakai's: (S_A - df V_E) / (S_T + V_E)) is negative when F < 1, kept as
    computed; it and ``partial_eta_squared`` (S_A / (S_A + S_E)) are nan when every score is
    the same (0 / 0).
    """

    name: str
    sum_of_squares: float
    df: int
    mean_square: float
    f: float
    p: float
    omega_squared: float
    partial_eta_squared: float

    def as_dict(self) -> dict:
        return {"sum_of_squares": self.sum_of_squares, "df": self.df,
                "mean_square": self.mean_square, "f": _json(self.f), "p": self.p,
                "omega_squared": _json(self.omega_squared),
                "partial_eta_squared": _json(self.partial_eta_squared)}


@dataclass(frozen=True, eq=False)
class TwoWayAnova:
    """The two-way ANOVA without replication of scores (n queries, m runs).

    ``means`` are the runs' means (read-only, in the columns' order), ``residual_variance``
    V_E is the residual mean square with ``residual_df`` = (m - 1)(n - 1) degrees of freedom,
    and ``margin_of_error`` the half-width of a run mean's ``confidence_level`` interval from
    them. ``residuals`` (n, m), read-only, are kept for a plot of the model's fit.
    """

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable

    n_queries: int
    n_runs: int
    grand_mean: float
    systems: Factor
    topics: Factor
    residual_sum_of_squares: float
    residual_df: int
    residual_variance: float
    total_sum_of_squares: float
    confidence_level: float
    margin_of_error: float
    means: np.ndarray = field(repr=False)
    residuals: np.ndarray = field(repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TwoWayAnova):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def as_dict(self) -> dict:
        """Plain Python types, unrounded; an undefined figure (nan) is None."""
        return {
            "queries": self.n_queries, "runs": self.n_runs, "grand_mean": self.grand_mean,
            "systems": self.systems.as_dict(), "topics": self.topics.as_dict(),
            "residual": {"sum_of_squares": self.residual_sum_of_squares,
                         "df": self.residual_df, "mean_square": self.residual_variance},
            "total_sum_of_squares": self.total_sum_of_squares,
            "confidence_level": self.confidence_level,
            "margin_of_error": self.margin_of_error,
        }


def _json(value: float) -> float | None:
    return value if math.isfinite(value) else None


def two_way_anova(scores: object, *,
                  confidence_level: float = DEFAULT_CONFIDENCE) -> TwoWayAnova:
    """The two-way ANOVA without replication of scores (n queries, m runs): at least 2
    queries and 2 runs, every score finite; the margin of error at confidence_level."""
    scores = check_values("scores", scores, ndim=2, least=2)
    if scores.shape[1] < 2:
        raise ValueError(f"scores need at least 2 runs (columns), got {scores.shape[1]}")
    confidence_level = check_fraction("confidence_level", confidence_level)
    return anova_of(scores, confidence_level)


def _without_noise(deviations: np.ndarray) -> np.ndarray:
    """Deviations from a mean, those within float noise of 0 set to 0 (in place)."""
    deviations[np.abs(deviations) <= _NOISE] = 0.0
    return deviations


def anova_of(scores: np.ndarray, confidence_level: float) -> TwoWayAnova:
    """two_way_anova on checked arguments (what the Tukey HSD calls)."""
    from scipy import stats  # imported here: it costs the command line ~0.8 s of start-up

    n, m = scores.shape
    grand = float(scores.mean())
    means = scores.mean(axis=0)
    topic_means = scores.mean(axis=1)
    system_effects = _without_noise(means - grand)
    topic_effects = _without_noise(topic_means - grand)
    residuals = _without_noise(scores - means[None, :] - topic_means[:, None] + grand)
    ss_systems = float(n * (system_effects ** 2).sum())
    ss_topics = float(m * (topic_effects ** 2).sum())
    ss_residual = float((residuals ** 2).sum())
    ss_total = float((_without_noise(scores - grand) ** 2).sum())
    df_residual = (m - 1) * (n - 1)
    variance = ss_residual / df_residual

    def factor(name: str, ss: float, df: int) -> Factor:
        mean_square = ss / df
        if variance > 0:
            f = mean_square / variance
            p = float(stats.f.sf(f, df, df_residual))
        elif mean_square > 0:
            f, p = math.inf, 0.0
        else:
            f, p = math.nan, 1.0
        omega = ((ss - df * variance) / (ss_total + variance)
                 if ss_total + variance > 0 else math.nan)
        eta = ss / (ss + ss_residual) if ss + ss_residual > 0 else math.nan
        return Factor(name, ss, df, mean_square, float(f), p, float(omega), float(eta))

    tail = (1 - confidence_level) / 2
    margin = float(stats.t.isf(tail, df_residual) * math.sqrt(variance / n))
    means.setflags(write=False)
    residuals.setflags(write=False)
    return TwoWayAnova(
        n_queries=n, n_runs=m, grand_mean=grand,
        systems=factor("systems", ss_systems, m - 1),
        topics=factor("topics", ss_topics, n - 1),
        residual_sum_of_squares=ss_residual, residual_df=df_residual,
        residual_variance=variance, total_sum_of_squares=ss_total,
        confidence_level=confidence_level, margin_of_error=margin,
        means=means, residuals=residuals)
