"""metrics.stats.anova: the two-way ANOVA without replication against statsmodels' OLS model
without interaction (anova_lm), on random data and on a small table worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.anova import anova_lm

from metrics.stats.anova import two_way_anova


def _statsmodels(scores: np.ndarray):
    """anova_lm of the OLS fit score ~ C(system) + C(topic) (no interaction), and the fit."""
    n, m = scores.shape
    frame = pd.DataFrame([(t, s, scores[t, s]) for t in range(n) for s in range(m)],
                         columns=["topic", "system", "score"])
    fit = smf.ols("score ~ C(system) + C(topic)", frame).fit()
    return anova_lm(fit), fit


@pytest.mark.parametrize("seed, shape", [(1, (30, 5)), (2, (12, 3)), (3, (200, 8)),
                                         (4, (2, 2))])
def test_the_table_is_statsmodels_anova_lm(seed, shape):
    rng = np.random.default_rng(seed)
    # bounded like real per-query figures: runs apart, queries of varied difficulty
    scores = np.clip(rng.normal(0.5, 0.2, (shape[0], 1)) + rng.normal(0, 0.15, shape)
                     + np.linspace(0, 0.1, shape[1]), 0, 1)
    table, fit = _statsmodels(scores)
    found = two_way_anova(scores)
    for name, row in (("systems", "C(system)"), ("topics", "C(topic)")):
        factor = getattr(found, name)
        assert factor.df == table.loc[row, "df"]
        assert factor.sum_of_squares == pytest.approx(table.loc[row, "sum_sq"], rel=1e-10,
                                                      abs=1e-12)
        assert factor.mean_square == pytest.approx(table.loc[row, "mean_sq"], rel=1e-10,
                                                   abs=1e-12)
        assert factor.f == pytest.approx(table.loc[row, "F"], rel=1e-9)
        assert factor.p == pytest.approx(table.loc[row, "PR(>F)"], rel=1e-9, abs=1e-15)
        # the effect sizes, from statsmodels' sums: Sakai's omega-squared and partial eta²
        ss, df = table.loc[row, "sum_sq"], table.loc[row, "df"]
        error, total = fit.mse_resid, table["sum_sq"].sum()
        assert factor.omega_squared == pytest.approx((ss - df * error) / (total + error),
                                                     rel=1e-9, abs=1e-12)
        assert factor.partial_eta_squared == pytest.approx(
            ss / (ss + table.loc["Residual", "sum_sq"]), rel=1e-9)
    assert found.residual_df == table.loc["Residual", "df"] == fit.df_resid
    assert found.residual_variance == pytest.approx(fit.mse_resid, rel=1e-10)
    assert found.residual_sum_of_squares == pytest.approx(fit.ssr, rel=1e-10)
    assert found.total_sum_of_squares == pytest.approx(table["sum_sq"].sum(), rel=1e-10)
    # a run mean's 95% margin of error from the residual variance and its df
    assert found.margin_of_error == pytest.approx(
        stats.t.isf(0.025, fit.df_resid) * math.sqrt(fit.mse_resid / shape[0]), rel=1e-10)
    assert np.allclose(found.residuals, fit.resid.to_numpy().reshape(shape), atol=1e-12)


def test_a_table_worked_by_hand():
    """Three queries, three runs. Grand mean 3; run means 1, 3, 5; every query's mean 3.
    S_systems = 3 (4 + 0 + 4) = 24, S_topics = 0, S_total = 8 + 2 + 26 = 36, so S_E = 12
    on (3 - 1)(3 - 1) = 4 df: V_E = 3, F = (24 / 2) / 3 = 4 and, for F(2, 4),
    p = (1 + 2 F / 4)^-2 = 1/9. omega² = (24 - 2 x 3) / (36 + 3) = 6/13; partial eta² =
    24 / 36 = 2/3. The margin of error: t(4; 0.975) sqrt(3 / 3)."""
    scores = np.array([[1, 3, 5], [2, 4, 3], [0, 2, 7]], dtype=float)
    found = two_way_anova(scores)
    assert found.grand_mean == 3
    assert list(found.means) == [1, 3, 5]
    assert (found.systems.sum_of_squares, found.systems.df, found.systems.mean_square) == (
        pytest.approx(24), 2, pytest.approx(12))
    assert found.topics.sum_of_squares == pytest.approx(0, abs=1e-12)
    assert (found.residual_sum_of_squares, found.residual_df, found.residual_variance) == (
        pytest.approx(12), 4, pytest.approx(3))
    assert found.systems.f == pytest.approx(4)
    assert found.systems.p == pytest.approx(1 / 9)
    assert found.topics.f == pytest.approx(0, abs=1e-12)
    assert found.topics.p == pytest.approx(1)
    assert found.systems.omega_squared == pytest.approx(6 / 13)
    assert found.systems.partial_eta_squared == pytest.approx(2 / 3)
    assert found.margin_of_error == pytest.approx(2.7764451051977987)  # t(4) at 0.975
    assert found.margin_of_error == pytest.approx(stats.t.ppf(0.975, 4))
    assert found.as_dict()["systems"]["f"] == pytest.approx(4)


def test_an_exactly_additive_table_has_no_residual_and_an_infinite_f():
    """Every score is its run's effect plus its query's: V_E = 0 (float noise included), F
    is infinite and p is 0 for runs that differ; nothing differs at all: F undefined, p 1."""
    runs, queries = np.array([0.1, 0.3, 0.35]), np.array([0.0, 0.2, 0.5, 0.05])
    found = two_way_anova(queries[:, None] + runs[None, :])
    assert found.residual_variance == 0 and found.margin_of_error == 0
    assert found.systems.f == math.inf and found.systems.p == 0.0
    flat = two_way_anova(np.full((4, 3), 0.4))
    assert math.isnan(flat.systems.f) and flat.systems.p == 1.0
    assert math.isnan(flat.systems.omega_squared)
    assert flat.as_dict()["systems"]["f"] is None  # JSON: null, never NaN


@pytest.mark.parametrize("scores, message", [
    (np.zeros((1, 3)), "at least 2 queries"),
    (np.zeros((4, 1)), "at least 2 runs"),
    (np.zeros(4), "2-D array"),
    (np.array([[0.1, np.nan], [0.2, 0.3]]), "finite"),
])
def test_bad_scores_are_refused(scores, message):
    with pytest.raises(ValueError, match=message):
        two_way_anova(scores)


def test_a_bad_confidence_level_is_refused():
    with pytest.raises(ValueError, match="confidence_level"):
        two_way_anova(np.eye(3), confidence_level=1.0)
