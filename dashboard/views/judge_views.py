"""The judge's report laid out: frames of the figures three ways, the comparisons, the
confusion matrix and the orderings, and the chart of every run's intervals side by side.
Pure functions over a metrics.JudgeReport: every figure is the engine's, written through
metrics.format; no streamlit here (the report reuses them)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from dashboard.views.chart_base import chart_title, figures, finish
from metrics import JudgeReport, MeanEstimate, vocabulary
from metrics import format as fmt

# the three intervals of a figure, as their columns and the chart name them
WAYS = {"human": "Human only", "judge": "Judge only", "ppi": "Prediction-powered"}
WAY_COLOURS = {"Human only": "#0072B2", "Judge only": "#D55E00",
               "Prediction-powered": "#009E73"}


def _interval(e: MeanEstimate, *, signed: bool = False) -> str:
    return (fmt.difference if signed else fmt.interval)(e.mean, e.low, e.high)


def _rows(found, *, signed: bool, whose: bool) -> list[dict]:
    # lambda and the width ratio as the engine's words write them: a figure without a value
    # (no judge-only query to weigh, no human-only width) says why, never None
    ratio = vocabulary.judge.ratio
    return [{
        **({"Run": f.run if f.baseline is None else f"{f.run} − {f.baseline}"}
           if whose else {}),
        "Metric": f.label,
        **{WAYS[way]: _interval(getattr(f, way), signed=signed) for way in WAYS},
        "Lambda": ratio(f.ppi.lam, f.lambda_undefined),
        "Width ratio": ratio(f.width_ratio, f.width_undefined),
        "Bias (judge − human)": _interval(f.bias, signed=True),
    } for f in found]


def figures_frame(report: JudgeReport, run: str | None = None) -> pd.DataFrame:
    """A row per figure (of one run, or of every run with a Run column): the three
    intervals, lambda, what the judge bought in width, and its bias."""
    found = [f for f in report.figures if run is None or f.run == run]
    return pd.DataFrame(_rows(found, signed=False, whose=run is None))


def comparisons_frame(report: JudgeReport, run: str | None = None) -> pd.DataFrame:
    """A row per figure of one candidate (or every candidate, with a Run column): the
    difference from the baseline three ways."""
    found = [c for c in report.comparisons if run is None or c.run == run]
    return pd.DataFrame(_rows(found, signed=True, whose=run is None))


def confusion_frame(report: JudgeReport) -> pd.DataFrame:
    """Human grades down, the judge's across, counts of the pairs both grade."""
    grades = report.grades
    return pd.DataFrame(
        [[f"human {g}", *row] for g, row in zip(grades.grades, grades.confusion.tolist(),
                                                strict=True)],
        columns=["", *(f"judge {g}" for g in grades.grades)])


def agreement_frame(report: JudgeReport) -> pd.DataFrame:
    tau = vocabulary.agreement.tau_text  # a number, or undefined with why (a tie of every run)
    return pd.DataFrame([{
        "Metric": a.first.rsplit(" (", 1)[0], "Kendall's tau": tau(a.tau, a.tau_undefined),
        "tau_AP": tau(a.tau_ap, a.tau_ap_undefined),
        "Swapped (as humans order them)": "; ".join(f"{x} > {y}" for x, y in a.swapped)
        or vocabulary.agreement.NO_SWAP} for a in report.agreements])


def intervals_frame(report: JudgeReport, key: str) -> pd.DataFrame:
    """One figure's three intervals per run, long: what intervals_chart draws."""
    return pd.DataFrame([
        {"run": f.run, "way": WAYS[way], "mean": getattr(f, way).mean,
         "low": getattr(f, way).low, "high": getattr(f, way).high}
        for f in report.figures if f.key == key for way in WAYS])


def intervals_chart(frame: pd.DataFrame, *, label: str, level: float,
                    width: int = 640) -> alt.LayerChart:
    """Each run's human-only, judge-only and prediction-powered intervals of one figure,
    side by side: how much narrower the judge made it, and how far off it alone would be."""
    runs = list(dict.fromkeys(frame["run"]))
    ways = list(WAYS.values())
    base = alt.Chart(frame)
    y = alt.Y("run:N", sort=runs, title=None, axis=alt.Axis(labelLimit=0))
    offset = alt.YOffset("way:N", sort=ways)
    colour = alt.Color("way:N", sort=ways, title="Interval",
                       scale=alt.Scale(domain=ways, range=[WAY_COLOURS[w] for w in ways]))
    tooltip = [alt.Tooltip("run:N", title="Run"), alt.Tooltip("way:N", title="Interval"),
               *figures("mean", "low", "high")]
    x = alt.X("low:Q", title=f"{label}: mean and {fmt.confidence(level)} interval",
              scale=alt.Scale(zero=False))
    bars = base.mark_rule(strokeWidth=2.5).encode(x=x, x2="high:Q", y=y, yOffset=offset,
                                                  color=colour, tooltip=tooltip)
    points = base.mark_point(filled=True, size=30).encode(
        x=alt.X("mean:Q"), y=y, yOffset=offset, color=colour, tooltip=tooltip)
    title = chart_title(f"{label}: three intervals per run", vocabulary.judge.CHART_SUBTITLE,
                        width)
    return finish(alt.layer(bars, points).properties(title=title, width=width,
                                                     height=alt.Step(12)))
