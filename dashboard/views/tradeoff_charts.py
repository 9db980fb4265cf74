"""What a run scores against what it costs: each run at (its p95 latency, or mean cost, with
its interval; its headline figure at K with its interval), the Pareto front marked (the runs
no other run beats on both: as fast or cheaper and as good or better) as the point figures
read it, each run's place hollow where the intervals leave it uncertain; where a corpus
priced K in tokens, each run's figure at every K against its estimated tokens at that K.
Pure functions, (frame, ...) -> alt.Chart; the Overview, Compare, the K sweep and the report
draw them.
"""

from __future__ import annotations

import altair as alt
import numpy as np
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
from metrics import pareto_standing, vocabulary

WORDS = vocabulary.timings
FRONT = WORDS.FRONT  # on the front, certain by the intervals
DOMINATED = WORDS.DOMINATED  # another run is as fast (or cheap) and as good, better in one
SURE = (WORDS.FRONT, WORDS.DOMINATED)
PLACE = {WORDS.FRONT: FRONT, WORDS.FRONT_UNSURE: FRONT, WORDS.DOMINATED: DOMINATED,
         WORDS.DOMINATED_UNSURE: DOMINATED}  # the standing -> its place by the points
COLUMNS = ("run", "cost", "cost_low", "cost_high", "score", "score_low", "score_high",
           "front", "sure", "place", "standing")
SWEEP_COLUMNS = ("run", "k", "cost", "score", "chosen")


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
    frame = pd.DataFrame(out, columns=COLUMNS[:-4])
    standings = pareto_standing(*(frame[c].to_numpy() for c in COLUMNS[1:7])) \
        if len(frame) else ()
    frame["front"] = [PLACE[s] == FRONT for s in standings]
    frame["sure"] = [s in SURE for s in standings]
    frame["place"] = [PLACE[s] for s in standings]
    frame["standing"] = list(standings)
    return frame, left_out


def sweep_cost_frame(sweeps, means: dict[str, dict[str, np.ndarray]], *, metric: str,
                     k: int, runs: list[str] | None = None) -> pd.DataFrame:
    """One row per (run, K of the sweep): the run's estimated tokens per query at K (`cost`,
    each SweepCost's `tokens`) and its mean `metric` at K (`score`, from `means`: run ->
    Evaluation.sweep_means(run)), `chosen` where K is the evaluation's K. Only `runs` (default
    every run of `sweeps`) in their order."""
    by_run = {s.run: s for s in sweeps}
    rows = []
    for run in runs if runs is not None else list(by_run):
        sweep, mean = by_run.get(run), means.get(run)
        if sweep is None or mean is None or metric not in mean:
            continue
        at = dict(zip(mean["k"].tolist(), mean[metric].tolist(), strict=True))
        rows += [{"run": run, "k": int(kk), "cost": float(tokens), "score": float(at[kk]),
                  "chosen": int(kk) == k}
                 for kk, tokens in zip(sweep.ks.tolist(), sweep.tokens, strict=True)
                 if kk in at]
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)


def score_scale(*scores: pd.Series) -> alt.Scale:
    """The score axis around the figures (a mean is read against the others, not against 0),
    padded by a twentieth of their span, and never below 0 when no figure is: Vega-Lite's
    padding alone drew the axis down to -0.10 under a K sweep that starts near 0."""
    values = pd.concat(scores).to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    if not len(values) or values.min() < 0:  # standardised figures: no floor to keep
        return alt.Scale(zero=False, nice=True, padding=16)
    low, high = values.min(), values.max()
    pad = (high - low or abs(high) or 1.0) / 20
    return alt.Scale(zero=False, nice=True, domain=[max(0.0, low - pad), high + pad])


def _sweep_layers(sweep: pd.DataFrame, runs: alt.Scale, shown: list[str], *, width: int,
                  metric_label: str) -> list[alt.Chart]:
    """Each run's K sweep: a thin line through its figure at each K against its estimated
    tokens at K, a small point at each K, K written beside the chosen and the last K."""
    base = alt.Chart(sweep)
    colour = run_colour(runs, shown, width=width)
    tooltip = [alt.Tooltip("run:N", title="Run"), alt.Tooltip("k:Q", title="K"),
               alt.Tooltip("cost:Q", title="Tokens per query (estimate)", format=",.0f"),
               alt.Tooltip("score:Q", title=metric_label, format=SCORE_FORMAT)]
    line = base.mark_line(strokeWidth=1, opacity=0.55).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), color=colour, detail="run:N",
        order=alt.Order("k:Q"), tooltip=tooltip)
    dots = base.mark_point(size=18, filled=True, opacity=0.7).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), color=colour, tooltip=tooltip)
    ends = base.transform_joinaggregate(last="max(k)", groupby=["run"]).transform_filter(
        "datum.chosen || datum.k == datum.last").mark_text(
        align="right", dx=-5, dy=10, fontSize=10, color=MUTED).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), text=alt.Text("label:N")).transform_calculate(
        label="'K=' + datum.k")
    return [line, dots, ends]


def sweep_cost_chart(sweep: pd.DataFrame, runs: alt.Scale, *, k: int, metric_label: str,
                     method: str, width: int = PAGE_WIDTH - 160, height: int = 360
                     ) -> alt.LayerChart:
    """The K sweep on the cost axis: each run's `metric_label` at every K against its
    estimated tokens per query at that K, the chosen K ringed; `method` says how the tokens
    were estimated."""
    shown = list(dict.fromkeys(sweep["run"]))
    layers = _sweep_layers(sweep, runs, shown, width=width, metric_label=metric_label)
    chosen = alt.Chart(sweep).transform_filter("datum.chosen").mark_point(
        size=110, strokeWidth=2.5).encode(x=alt.X("cost:Q"), y=alt.Y("score:Q"),
                                          color=run_colour(runs, shown, width=width))
    x = alt.X("cost:Q", title="Tokens per query at K (estimated)",
              scale=alt.Scale(zero=True, nice=True), axis=alt.Axis(format=",.0f"))
    y = alt.Y("score:Q", title=f"{metric_label} (mean at each K)",
              scale=score_scale(sweep["score"]), axis=alt.Axis(format=".2f"))
    layers[0] = layers[0].encode(x=x, y=y)
    subtitle = [f"Each run's mean {metric_label} at every K of the sweep against the tokens "
                f"it sends per query at that K; ringed: the chosen K = {k}. Means, no "
                "intervals (the K sweep's bands are on the curves above).", method]
    title = chart_title(f"{metric_label} against tokens per query, K swept", subtitle,
                        width + 160)
    chart = alt.layer(*layers, chosen).properties(title=title, width=width, height=height,
                                                  autosize=PAD)
    return finish(chart)


def tradeoff_chart(frame: pd.DataFrame, runs: alt.Scale, *, k: int, metric_label: str,
                   statistic: str = "p95", column: str = vocabulary.timings.LATENCY,
                   confidence_level: float, left_out: list[str] | tuple[str, ...] = (),
                   sweep: pd.DataFrame | None = None, sweep_method: str = "",
                   width: int = PAGE_WIDTH - 160, height: int = 360) -> alt.LayerChart:
    """Each run at (its `statistic` of `column`, its `metric_label`), both intervals drawn,
    the Pareto front of the point figures joined by a dashed line (circles; dominated runs
    diamonds), each point filled where the intervals make its place certain and hollow
    where they overlap (vocabulary.timings.FRONT_RULE), each run named beside its point.
    With `sweep` (sweep_cost_frame, on a tokens axis), each run's figure at every K against
    its estimated tokens at K, `sweep_method` saying how they were estimated."""
    shown = list(frame["run"])
    level = fmt.confidence(confidence_level)
    unit = vocabulary.timings.TIMING_COLUMNS[column][1]
    cost_title = f"{statistic} of {column}" + (f" ({unit})" if unit else "") + \
        f", {level} interval"
    base = alt.Chart(frame)
    # costs are never negative (the readers refuse them): the axis starts at 0, where the
    # padding alone would show negative milliseconds
    x = alt.X("cost:Q", title=cost_title, scale=alt.Scale(zero=True, nice=True))
    y = alt.Y("score:Q", title=f"{metric_label} (mean, {level} interval)",
              scale=score_scale(frame["score_low"], frame["score_high"],
                                *([] if sweep is None else [sweep["score"]])),
              axis=alt.Axis(format=".2f"))
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
    shapes = alt.Scale(domain=[FRONT, DOMINATED], range=["circle", "diamond"])
    points = base.mark_point(size=110, strokeWidth=2.5).encode(
        x=x, y=y, color=colour, tooltip=tooltip,
        fill=alt.condition("datum.sure", alt.Color("run:N", scale=runs, legend=None),
                           alt.value("transparent")),
        shape=alt.Shape("place:N", scale=shapes))
    # the shapes' legend from a layer of its own drawn in one colour (the points' varies
    # with the run, and Vega-Lite then draws their legend's symbols with no stroke at all)
    key = base.mark_point(opacity=0, filled=False, color=MUTED, strokeWidth=2).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"),
        shape=alt.Shape("place:N", title="Pareto (point figures)", scale=shapes,
                        legend=alt.Legend(labelLimit=0, symbolOpacity=1)))
    names = base.mark_text(align="left", dx=9, dy=-9, fontSize=12, color=MUTED).encode(
        x=alt.X("cost:Q"), y=alt.Y("score:Q"), text="run:N")
    subtitle = [
        f"Each run at its {statistic} {column} and its {metric_label}, each with its {level} "
        "interval. Circles joined by the dashed line: the Pareto front; diamonds: dominated. "
        "Filled: the intervals make that place certain; hollow: they overlap, so it is not "
        "certain.",
        WORDS.FRONT_RULE,
        (f"The {statistic} interval is a percentile bootstrap of the quantile over the "
         "resampled queries" if statistic != WORDS.MEAN else
         f"The mean's interval is {WORDS.MEAN_INTERVAL}") + "; the score's is the summary's."]
    layers = [key, front_line, across, upright, points, names]
    if sweep is not None and len(sweep):
        layers = _sweep_layers(sweep, runs, shown, width=width,
                               metric_label=metric_label) + layers
        subtitle.append("Thin lines and small dots: each run's mean at every K of the sweep "
                        "against its estimated tokens per query at that K (no intervals). "
                        + sweep_method)
    if left_out:
        subtitle.append("Left out: " + "; ".join(left_out) + ".")
    title = chart_title(f"{metric_label} at K = {k} against {statistic} {column}", subtitle,
                        width + 160)
    chart = alt.layer(*layers).properties(
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
