"""Power over a whole comparison: what its query set can detect, test by test (the power
arithmetic on one test's differences is ``metrics.stats.power``)."""

from __future__ import annotations

from metrics.stats.comparison import Comparison
from metrics.stats.power import PowerFigure, check_delta, check_levels, power_figure
from metrics.vocabulary.power import ALPHA, POWER

__all__ = ["power_report", "power_table"]


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
