"""What a run scores against what it costs: each run at (its p95 latency, or mean cost, with
its interval; its headline figure at K with its interval), the Pareto front marked (the runs
no other run beats on both: as fast or cheaper and as good or better). Pure functions,
(frame, ...) -> alt.Chart; the Overview, Compare and the report draw them.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from dashboard.views.chart_base import (
    MUTED,
    PAD,
    PAGE_WIDTH,
    SCORE_FORMAT,
    chart_title,
    finish,
    run_colour,
)
from metrics import format as fmt
from metrics import pareto_front, vocabulary

FRONT = "Pareto front"
DOMINATED = "dominated"  # another run is as fast (or cheap) and as good, better in one
COLUMNS = ("run", "cost", "cost_low", "cost_high", "score", "score_low", "score_high",
           "front", "standing")


def tradeoff_frame(summary: pd.DataFrame, timed, *, metric: str,
                   statistic: str = "p95", column: str = vocabulary.timings.LATENCY
                   ) -> tuple[pd.DataFrame, list[str]]:
    """One row per run of `summary` (Evaluation.summary(): run, metric, label, mean, low,
    high) on `metric` (a key such as "nDCG", or its label) that has a figure of `column`:
    its `statistic` of the column and interval (cost, cost_low, cost_high), its mean and
    interval (score...), and whether it is on the Pareto front. Also the runs left out, each
    with why (no value of the column, or an undefined figure)."""
    rows = summary[(summary["metric"] == metric) | (summary["label"] == metric)]
    out, left_out = [], []
    for _, row in rows.iterrows():
        cost = timed.of(row["run"], column)
        if cost is None:
            left_out.append(f"{row['run']}: no {column}")
            continue
        figure = cost.figure(statistic)
        if figure.undefined is not None:
            left_out.append(f"{row['run']}: {figure.undefined}")
            continue
        out.append({"run": row["run"], "cost": figure.value, "cost_low": figure.low,
                    "cost_high": figure.high, "score": float(row["mean"]),
                    "score_low": float(row["low"]), "score_high": float(row["high"])})
    frame = pd.DataFrame(out, columns=COLUMNS[:-2])
    front = pareto_front(frame["cost"].to_numpy(), frame["score"].to_numpy()) if len(frame) \
        else ()
    frame["front"] = list(front)
    frame["standing"] = [FRONT if on else DOMINATED for on in front]
    return frame, left_out


def tradeoff_chart(frame: pd.DataFrame, runs: alt.Scale, *, k: int, metric_label: str,
                   statistic: str = "p95", column: str = vocabulary.timings.LATENCY,
                   confidence_level: float, left_out: list[str] | tuple[str, ...] = (),
                   width: int = PAGE_WIDTH - 160, height: int = 360) -> alt.LayerChart:
    """Each run at (its `statistic` of `column`, its `metric_label`), both intervals drawn,
    the Pareto front joined by a dashed line and its runs' points filled (the others
    hollow), each run named beside its point."""
    shown = list(frame["run"])
    level = fmt.confidence(confidence_level)
    unit = vocabulary.timings.TIMING_COLUMNS[column][1]
    cost_title = f"{statistic} of {column}" + (f" ({unit})" if unit else "") + \
        f", {level} interval"
    base = alt.Chart(frame)
    x = alt.X("cost:Q", title=cost_title, scale=alt.Scale(zero=False, nice=True, padding=24))
    y = alt.Y("score:Q", title=f"{metric_label} (mean, {level} interval)",
              scale=alt.Scale(zero=False, nice=True, padding=16), axis=alt.Axis(format=".2f"))
    colour = run_colour(runs, shown, width=width)
    cost_format = ",.1f" if unit == "ms" else ",.4g"
    tooltip = [alt.Tooltip("run:N", title="Run"),
               alt.Tooltip("cost:Q", title=f"{statistic} {column}", format=cost_format),
               alt.Tooltip("cost_low:Q", title="Low", format=cost_format),
               alt.Tooltip("cost_high:Q", title="High", format=cost_format),
               alt.Tooltip("score:Q", title=metric_label, format=SCORE_FORMAT),
               alt.Tooltip("score_low:Q", title="Low", format=SCORE_FORMAT),
               alt.Tooltip("score_high:Q", title="High", format=SCORE_FORMAT),
               alt.Tooltip("standing:N", title="Pareto")]
    across = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("cost_low:Q"), x2="cost_high:Q", y=alt.Y("score:Q"), color=colour,
        tooltip=tooltip)
    upright = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("cost:Q"), y=alt.Y("score_low:Q"), y2="score_high:Q", color=colour,
        tooltip=tooltip)
    front_line = base.transform_filter("datum.front").mark_line(
        strokeDash=[6, 4], color=MUTED, strokeWidth=1.5).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), order=alt.Order("cost:Q"))
    points = base.mark_point(size=110, strokeWidth=2.5).encode(
        x=x, y=y, color=colour, tooltip=tooltip,
        fill=alt.condition("datum.front", alt.Color("run:N", scale=runs, legend=None),
                           alt.value("transparent")),
        shape=alt.Shape("standing:N", title="Pareto", scale=alt.Scale(
            domain=[FRONT, DOMINATED], range=["circle", "diamond"]),
            legend=alt.Legend(labelLimit=0, symbolFillColor="transparent")))
    names = base.mark_text(align="left", dx=9, dy=-9, fontSize=12, color=MUTED).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), text="run:N")
    subtitle = [
        f"Each run at its {statistic} {column} and its {metric_label}, each with its {level} "
        "interval. Filled and joined by the dashed line: the Pareto front; a hollow diamond "
        "is dominated (another run is as fast or cheaper and as good or better, better in "
        "one).",
        f"The {statistic} interval is a percentile bootstrap of the quantile over the "
        "resampled queries; the score's is the summary's."]
    if left_out:
        subtitle.append("Left out: " + "; ".join(left_out) + ".")
    title = chart_title(f"{metric_label} at K = {k} against {statistic} {column}", subtitle,
                        width + 160)
    chart = alt.layer(front_line, across, upright, points, names).properties(
        title=title, width=width, height=height, autosize=PAD)
    return finish(chart)


def _cell(figure, column: str, *, signed_: bool = False) -> str:
    if figure.undefined is not None:
        return fmt.undefined(figure.undefined)
    write = vocabulary.timings.signed_amount if signed_ else vocabulary.timings.amount

    def bare(value: float) -> str:  # the unit is in the column's heading
        return write(value, column).replace(" ms", "")
    return f"{bare(figure.value)} [{bare(figure.low)}, {bare(figure.high)}]"


def timing_table(found, column: str = vocabulary.timings.LATENCY) -> pd.DataFrame:
    """Each run's mean, p50, p95 and p99 of `column` with their intervals, and the queries
    they are read over."""
    rows = [{"Run": cost.run, "Queries": cost.n, "Missing": len(cost.missing),
             **{s: _cell(cost.figure(s), column) for s in vocabulary.timings.STATISTICS}}
            for cost in found.runs if cost.column == column]
    return pd.DataFrame(rows, columns=["Run", "Queries", "Missing", *vocabulary.timings.STATISTICS])


def paired_table(found, column: str = vocabulary.timings.LATENCY) -> pd.DataFrame:
    """Each candidate against the baseline on `column`: the mean and p95 differences and the
    ratio of p95s, with their intervals."""
    rows = []
    for pair in found.pairs:
        if pair.column != column:
            continue
        ratio = pair.ratio("p95")
        rows.append({
            "Candidate": pair.candidate, "Queries": pair.n,
            "Mean difference": _cell(pair.difference("mean"), column, signed_=True),
            "p95 difference": _cell(pair.difference("p95"), column, signed_=True),
            "p95 ratio": (fmt.undefined(ratio.undefined) if ratio.undefined is not None else
                          vocabulary.timings.ratio_interval(ratio.value, ratio.low,
                                                            ratio.high))})
    return pd.DataFrame(rows, columns=["Candidate", "Queries", "Mean difference",
                                       "p95 difference", "p95 ratio"])
