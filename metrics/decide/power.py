"""Power over a whole comparison: what its query set can detect, test by test (the power
arithmetic on one test's differences is ``metrics.stats.power``); and the queries a future set
needs, by Sakai's topic-set-size design from this set's residual variance
(``metrics.stats.topic_set_size``)."""

from __future__ import annotations

from collections.abc import Sequence

from metrics.core.evaluate import Evaluation
from metrics.decide.leaderboard import anova_tables
from metrics.stats.comparison import Comparison
from metrics.stats.power import PowerFigure, check_delta, check_levels, power_figure
from metrics.stats.topic_set_size import TopicSetSize, topic_set_size
from metrics.vocabulary.power import ALPHA, POWER

__all__ = ["power_report", "power_table", "topic_set_sizes"]


def power_table(
    comparison: Comparison,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    delta: float | None = None,
) -> tuple[PowerFigure, ...]:
    """One PowerFigure per test of a Comparison, in its order (candidates outer, metrics
    inner), from each test's per-query differences (candidate - baseline)."""
    if not isinstance(comparison, Comparison):
        raise ValueError(f"power_table needs a Comparison, got {type(comparison).__name__}")
    alpha, power = check_levels(alpha, power)
    delta = None if delta is None else check_delta(delta)
    return tuple(
        power_figure(comparison.baseline, test, alpha=alpha, power=power, delta=delta)
        for test in comparison.tests
    )


def power_report(
    comparison: Comparison,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    delta: float | None = None,
) -> dict:
    """The JSON of ``python -m metrics power``: {"alpha", "power", "delta", "pairs": [...]}."""
    figures = power_table(comparison, alpha=alpha, power=power, delta=delta)
    return {
        "alpha": float(alpha),
        "power": float(power),
        "delta": None if delta is None else float(delta),
        "pairs": [figure.as_dict() for figure in figures],
    }


def topic_set_sizes(evaluation: Evaluation, metrics: Sequence[str] | None = None, *,
                    min_difference: float, alpha: float = ALPHA, power: float = POWER,
                    ci_width: float | None = None, runs: int | None = None
                    ) -> dict[str, TopicSetSize]:
    """Per metric label (keys or labels; default the compared family), the queries a future
    query set needs by the three designs (paired t-test, one-way ANOVA over `runs` runs,
    default the evaluation's, and an interval ci_width wide), from the residual variance of
    this set's two-way ANOVA over every run: this query set is the pilot."""
    alpha, power = check_levels(alpha, power)
    min_difference = check_delta(min_difference)
    tables = anova_tables(evaluation, metrics)
    runs = len(evaluation.run_names) if runs is None else runs
    return {label: topic_set_size(anova.residual_variance, min_difference, runs=runs,
                                  alpha=alpha, power=power, ci_width=ci_width)
            for label, anova in tables.items()}
