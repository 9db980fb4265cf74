"""The summary charts as pure functions, (frame, ...) -> alt.Chart: interval bars, the K
sweep, the per-query heatmap. No streamlit here; the report reuses them. The shared base is
in chart_base.py; the comparison and drift charts in comparison_charts.py.
"""

from __future__ import annotations

import json

import altair as alt
import numpy as np
import pandas as pd

from dashboard.views import vega_spec
from dashboard.views.chart_base import (
    CLASS_COLOURS,
    FACET_SPACING,
    PAD,
    PAGE_WIDTH,
    PANEL_MARGIN,
    ROW_HEIGHT,
    SCORE_FORMAT,
    SCORE_SCHEME,
    UNIT,
    UNIT_TICKS,
    Y_AXIS,
    chart_title,
    figures,
    finish,
    mean_by_run,
    panels,
    run_colour,
    text_width,
    unit_axis,
)
from metrics import CLASS_MEANING, QUERY_CLASSES, vocabulary
from metrics import format as fmt

CHOSEN_K = "chosen_k"  # the K sweep's dataset of the chosen K (its rule and title read it)


def interval_bars(
    summary: pd.DataFrame,
    runs: alt.Scale,
    *,
    k: int,
    confidence_level: float,
    n_queries: int,
    width: int | None = None,
    interval_method: str = "percentile",
) -> alt.LayerChart:
    """Each metric's mean per run with its interval: overlap (or its absence) at a glance.

    `summary` is Evaluation.summary() (run, metric, label, mean, low, high, interval). The
    plot takes `width` pixels, or the container's width when shown stretched; the legend
    beside it names every run whole.
    """
    labels = list(dict.fromkeys(summary["label"]))
    shown = list(dict.fromkeys(summary["run"]))
    level = fmt.confidence(confidence_level)
    base = alt.Chart(summary)
    # labelLimit 0: a label such as RBPresid(p=0.9)@10 is never cut
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelFontSize=12, labelLimit=0))
    y_offset = alt.YOffset("run:N", sort=shown)
    x = alt.X("low:Q", scale=UNIT, axis=unit_axis(f"Score at K = {k} (mean and {level} interval)"))
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        *figures("mean", "low", "high"),
        alt.Tooltip("interval:N", title="Interval"),
    ]
    colour = run_colour(runs, shown)
    # the interval above the point, with caps at its ends: at thousands of queries it is
    # narrower than a point, and would hide behind one
    bars = base.mark_rule(strokeWidth=2.5).encode(
        x=x, x2="high:Q", y=y, yOffset=y_offset, color=colour, tooltip=tooltip
    )
    caps = [base.mark_tick(thickness=2, size=9).encode(
        x=alt.X(f"{end}:Q", scale=UNIT), y=y, yOffset=y_offset, color=colour, tooltip=tooltip)
        for end in ("low", "high")]
    points = base.mark_point(filled=True, size=28, opacity=0.9).encode(
        x=alt.X("mean:Q", scale=UNIT), y=y, yOffset=y_offset, color=colour, tooltip=tooltip
    )
    step = alt.Step(13 if len(shown) > 1 else 28)  # with yOffset, the step is each run's band
    methods = list(dict.fromkeys(zip(summary["label"], summary["interval"], strict=True)))
    title = chart_title(
        f"Mean at K = {k} with {level} intervals",
        [f"{fmt.count(n_queries, 'scored query')}. "
         f"{vocabulary.interval_methods(methods, interval_method)}.",
         "Overlapping bars can still differ: Compare tests the paired difference."],
        None if width is None else width + 240,
    )
    chart = alt.layer(points, bars, *caps).properties(title=title, height=step)
    return finish(chart if width is None else chart.properties(width=width))


def headline_bars(
    summary: pd.DataFrame,
    runs: alt.Scale,
    *,
    metric: str,
    baseline: str | None,
    k: int,
    confidence_level: float,
    n_queries: int,
) -> alt.LayerChart:
    """The first screen's picture: the headline metric's mean per run with its interval,
    one row per run, the baseline's mean a dashed line across. `summary` is the rows of
    Evaluation.summary() of that metric (`metric`, its label); `baseline` a run among them
    or None (a snapshot's figures, or one run). Shown stretched to the page's width."""
    shown = list(dict.fromkeys(summary["run"]))
    level = fmt.confidence(confidence_level)
    named = summary.assign(shown=[  # unless the name says it already
        f"{run} (baseline)" if run == baseline and run.casefold() != "baseline" else run
        for run in summary["run"]])
    base = alt.Chart(named)
    y = alt.Y("shown:N", sort=list(dict.fromkeys(named["shown"])), title=None,
              axis=alt.Axis(labelFontSize=13, labelLimit=0))
    x = alt.X("low:Q", scale=UNIT, axis=unit_axis(f"{metric} (mean and {level} interval)"))
    colour = run_colour(runs, shown, legend=False)
    tooltip = [alt.Tooltip("run:N", title="Run"), alt.Tooltip("label:N", title="Metric"),
               *figures("mean", "low", "high"), alt.Tooltip("interval:N", title="Interval")]
    bars = base.mark_rule(strokeWidth=3).encode(x=x, x2="high:Q", y=y, color=colour,
                                                tooltip=tooltip)
    caps = [base.mark_tick(thickness=2, size=14).encode(
        x=alt.X(f"{end}:Q", scale=UNIT), y=y, color=colour, tooltip=tooltip)
        for end in ("low", "high")]
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=alt.X("mean:Q", scale=UNIT), y=y, color=colour, tooltip=tooltip)
    layers = [bars, *caps, points]
    marked = baseline in shown
    if marked:
        layers.append(base.transform_filter(alt.datum.run == baseline).mark_rule(
            color="gray", strokeDash=[4, 3]).encode(x=alt.X("mean:Q", scale=UNIT)))
    title = chart_title(
        f"{metric} of each run at K = {k}, with {level} intervals",
        f"{fmt.count(n_queries, 'scored query')}."
        + (f" The dashed line is the baseline's mean ({baseline})." if marked else ""), None)
    return finish(alt.layer(*layers).properties(
        title=title, height=alt.Step(30 if len(shown) < 6 else 22)))


def interval_columns(
    summary: pd.DataFrame,
    runs: alt.Scale,
    *,
    k: int,
    confidence_level: float,
    n_queries: int,
    width: int = 1400,
    height: int = 420,
    interval_method: str = "percentile",
) -> alt.LayerChart:
    """The interval bars in landscape, for a slide or a page: the metrics across, each run's
    interval a vertical bar with caps above its mean, the legend above. What the PNG and SVG
    exports and the report draw."""
    labels = list(dict.fromkeys(summary["label"]))
    methods = list(dict.fromkeys(zip(summary["label"], summary["interval"], strict=True)))
    shown = list(dict.fromkeys(summary["run"]))
    level = fmt.confidence(confidence_level)
    base = alt.Chart(summary)
    x = alt.X("label:N", sort=labels, title=None,
              axis=alt.Axis(labelAngle=0, labelFontSize=13, labelLimit=0))
    x_offset = alt.XOffset("run:N", sort=shown)
    y = alt.Y("low:Q", scale=UNIT, axis=unit_axis(f"Score at K = {k}"))
    tooltip = [alt.Tooltip("run:N", title="Run"), alt.Tooltip("label:N", title="Metric"),
               *figures("mean", "low", "high"), alt.Tooltip("interval:N", title="Interval")]
    colour = run_colour(runs, shown, orient="top", width=width)
    bars = base.mark_rule(strokeWidth=3).encode(
        x=x, xOffset=x_offset, y=y, y2="high:Q", color=colour, tooltip=tooltip)
    caps = [base.mark_tick(thickness=2, size=10, orient="horizontal").encode(
        x=x, xOffset=x_offset, y=alt.Y(f"{end}:Q", scale=UNIT), color=colour, tooltip=tooltip)
        for end in ("low", "high")]
    points = base.mark_point(filled=True, size=36, opacity=0.9).encode(
        x=x, xOffset=x_offset, y=alt.Y("mean:Q", scale=UNIT), color=colour, tooltip=tooltip)
    title = chart_title(
        f"Mean at K = {k} with {level} intervals",
        [f"{fmt.count(n_queries, 'scored query')}. "
         f"{vocabulary.interval_methods(methods, interval_method)}.",
         "Overlapping bars can still differ: Compare tests the paired difference."], width)
    return finish(alt.layer(points, bars, *caps).properties(
        title=title, width=width, height=height))


def sweep_lines(
    sweep: pd.DataFrame,
    runs: alt.Scale,
    *,
    k: int,
    labels: list[str],
    bands: bool = False,
    width: int = PAGE_WIDTH,
) -> alt.FacetChart:
    """Every metric against K, one panel per metric on the same 0-1 scale, the chosen K marked;
    up to three panels a row, all of them and the legend above them within `width` pixels.

    `sweep` is long: run, k, metric (summary key), label (e.g. "MRR@K"), mean [, low, high].
    """
    shown = list(dict.fromkeys(sweep["run"]))
    lo, hi = int(sweep["k"].min()), int(sweep["k"].max())
    # the chosen K is data, not spec (vega_spec): a new K redraws the panels in place
    subtitle = (
        f"Mean over scored queries at every K from {lo} to {hi}; the dashed line marks the "
        "chosen K. Every panel shares the 0-1 scale, so Hit@K and Recall@K compare directly."
    )
    if bands:
        subtitle += " Shaded bands: the interval at each K."
    columns, panel = panels(len(labels), width=width, most=max(300, width // 3))
    x = alt.X("k:Q", title="K (cutoff)", scale=alt.Scale(domain=[lo, hi], nice=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    y, colour = mean_by_run(runs, shown, orient="top", width=width)
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        alt.Tooltip("k:Q", title="K"),
        *figures("mean"),
    ]
    layers = []
    if bands:
        layers.append(
            alt.Chart().mark_area(opacity=0.15).encode(
                x=x, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour
            )
        )
        tooltip += figures("low", "high")
    points = alt.Chart().mark_point(size=18, filled=True, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=tooltip)
    spread = marked_cutoffs(lo, hi, lo)  # the same for every K but the chosen one
    if len(spread) < hi - lo + 1:
        # the spread cutoffs are spec, the chosen K is read from its dataset (as the title
        # reads it): the sweep's own rows stay byte for byte the same from one K to the next,
        # and the browser then replaces only the one-row dataset
        subtitle += (f" Points (tooltips) at {len(spread)} cutoffs spread from {lo} to {hi} "
                     "and at the chosen K; the table below holds every K.")
        points = points.transform_filter(
            f"indexof({json.dumps(spread)}, datum.k) >= 0 || "
            f"datum.k === data({json.dumps(CHOSEN_K)})[0].k")
    layers.append(alt.Chart().mark_line().encode(x=x, y=y, color=colour))
    layers.append(points)
    chosen = vega_spec.named(pd.DataFrame({"k": [k]}), CHOSEN_K)
    layers.append(
        alt.Chart(chosen).mark_rule(strokeDash=[5, 4], color="gray").encode(x=alt.X("k:Q"))
    )
    return finish(
        alt.layer(*layers, data=sweep)
        .properties(width=panel, height=170)
        .facet(
            facet=alt.Facet("label:N", sort=labels, title=None,
                            header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
            columns=columns,
            title=chart_title(vega_spec.text_from("Every metric against K (chosen K = ",
                                                  CHOSEN_K, "k", ")"), subtitle,
                              Y_AXIS + columns * panel + FACET_SPACING * (columns - 1)),
        )
    )


def pr_curve(curve: pd.DataFrame, runs: alt.Scale, *, bands: bool = False,
             width: int = PAGE_WIDTH) -> alt.LayerChart:
    """Each run's interpolated precision against recall at trec_eval's 11 levels (the
    standard precision-recall graph), one line a run on the 0-1 scales; with `bands`, each
    level's interval. `curve` is long: run, recall, label, mean [, low, high]."""
    shown = list(dict.fromkeys(curve["run"]))
    x = alt.X("recall:Q", title="Recall level", scale=UNIT,
              axis=alt.Axis(values=UNIT_TICKS + [0.1, 0.3, 0.5, 0.7, 0.9], format=".1f"))
    y = alt.Y("mean:Q", scale=UNIT, axis=unit_axis("Interpolated precision (mean)"))
    colour = run_colour(runs, shown, orient="top", width=width)
    tooltip = [alt.Tooltip("run:N", title="Run"), alt.Tooltip("label:N", title="Figure"),
               *figures("mean", *(("low", "high") if bands else ()))]
    layers = []
    if bands:
        layers.append(alt.Chart().mark_area(opacity=0.15).encode(
            x=x, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour))
    layers += [alt.Chart().mark_line().encode(x=x, y=y, color=colour),
               alt.Chart().mark_point(size=30, filled=True, opacity=1).encode(
                   x=x, y=y, color=colour, tooltip=tooltip)]
    subtitle = ("Mean over scored queries of the best precision at any rank that reaches "
                "each recall level (trec_eval's iprec_at_recall, rounded as trec_eval 10.0 "
                "rounds R times the level); a curve that stays high to the right keeps "
                "precision while it finds more of the relevant ids.")
    if bands:
        subtitle += " Shaded bands: the interval at each level."
    return finish(alt.layer(*layers, data=curve).properties(
        width=width - Y_AXIS, height=260, autosize=PAD,
        title=chart_title("Interpolated precision against recall, per run", subtitle, width)))


MARKED_CUTOFFS = 25  # points a sweep line carries at most: thousands of SVG points are slow


def marked_cutoffs(lo: int, hi: int, k: int) -> list[int]:
    """The cutoffs a sweep line marks with a point (its tooltips): every one up to
    MARKED_CUTOFFS of them, else about that many spread evenly on the scale, ends and the
    chosen K included."""
    if hi - lo + 1 <= MARKED_CUTOFFS:
        return list(range(lo, hi + 1))
    spread = np.linspace(lo, hi, MARKED_CUTOFFS - 1).round().astype(int).tolist()
    return sorted({*spread, *([k] if lo <= k <= hi else [])})


def query_heatmap(
    cells: pd.DataFrame,
    *,
    order: list[str],
    runs: list[str],
    labels: list[str],
    k: int,
    selection: str | None = "query",
    width: int = PAGE_WIDTH,
    row_labels: dict[str, str] | None = None,
) -> alt.HConcatChart:
    """Queries x runs (x metrics), colour = score at K, beside each run's query class at K.

    `cells` is long: query_id, run, label, value, class. Rows follow `order`; clicking a cell
    selects its query (a point selection named `selection`, read by the page). The whole
    chart (query ids, class strip and score panels) fits in `width` pixels; run names are
    written above their columns, upright when they are long or the columns narrow.
    `row_labels` (query id -> label, e.g. the id and the start of its text) name the rows in
    its place; a "text" column in `cells` is shown whole in the tooltips.
    """
    height = max(ROW_HEIGHT * len(order), 60)
    limit = 160 if row_labels is None else 240
    if row_labels is not None:
        cells = cells.assign(row=cells["query_id"].map(row_labels))
        order = [row_labels[q] for q in order]
    field = "query_id" if row_labels is None else "row"
    id_room = min(limit, max((text_width(q) for q in order), default=0)) + 30  # labels, title
    # the axis title above the labels, not beside them: rotated at the left, a long first
    # label ran under it
    y = alt.Y(f"{field}:N", sort=order, title="Query",
              axis=alt.Axis(labelLimit=limit, labelFontSize=11, labelOverlap=False,
                            titleAngle=0, titleAlign="right", titleAnchor="start",
                            titleBaseline="bottom", titleY=-6, titlePadding=0))
    asked = [alt.Tooltip("text:N", title="Question")] if "text" in cells else []
    # saved figures carry no class: no strip, and the ids go on the score panels
    has_classes = bool(cells["class"].notna().any()) if len(cells) else True
    class_cell = 36 if len(runs) <= 4 else 20
    class_width = max(class_cell * len(runs), 60) if has_classes else 0
    long_names = max((len(r) for r in runs), default=0) > 8
    classes = cells.drop_duplicates(["query_id", "run"]).assign(panel=f"Class at K = {k}")
    class_chart = (
        alt.Chart(classes)
        .mark_rect(stroke=alt.ExprRef("background"), strokeWidth=0.5)
        .encode(
            x=_run_x(runs, angle=-90 if long_names or class_cell < 30 else -40),
            y=y,
            color=alt.Color(
                "class:N",
                scale=alt.Scale(domain=list(CLASS_COLOURS), range=list(CLASS_COLOURS.values())),
                legend=alt.Legend(title=f"Class at K = {k}", orient="bottom",
                                  direction="vertical",
                                  labelExpr="replace(datum.label, '_', ' ')"),
            ),
            tooltip=[
                alt.Tooltip("query_id:N", title="Query"),
                *asked,
                alt.Tooltip("run:N", title="Run"),
                alt.Tooltip("class:N", title="Class"),
                alt.Tooltip("meaning:N", title="Meaning"),
            ],
        )
        .transform_calculate(meaning=_class_meaning_expr())
        .properties(width=class_width, height=height)
        .facet(column=alt.Column("panel:N", title=None, header=alt.Header(labelFontSize=12)))
    )
    # fit every panel, with its spacing, in what the ids and the class strip leave; figures
    # inside the cells only where they fit
    room = width - id_room - class_width - 2 * PANEL_MARGIN - PANEL_MARGIN * len(labels)
    cell_width = int(min(76, max(14, room // (len(labels) * len(runs)))))
    many = cell_width < 44
    x = _run_x(runs, angle=-90 if long_names or cell_width < 30 else -40)
    score_base = alt.Chart().encode(
        x=x, y=alt.Y(f"{field}:N", sort=order, axis=None) if has_classes else y)
    rect = score_base.mark_rect(stroke=alt.ExprRef("background"), strokeWidth=0.5).encode(
        color=alt.Color(
            "value:Q",
            scale=alt.Scale(scheme=SCORE_SCHEME, domain=[0, 1]),
            legend=alt.Legend(title=f"Score at K = {k}", format=".1f", orient="bottom"),
        ),
        tooltip=[
            alt.Tooltip("query_id:N", title="Query"),
            *asked,
            alt.Tooltip("run:N", title="Run"),
            alt.Tooltip("label:N", title="Metric"),
            alt.Tooltip("value:Q", title="Score", format=SCORE_FORMAT),
            *([alt.Tooltip("class:N", title="Class")] if has_classes else []),
        ],
    )
    if selection:
        rect = rect.add_params(alt.selection_point(fields=["query_id"], name=selection))
    layers = [rect]
    if not many:
        layers.append(
            score_base.mark_text(fontSize=10).encode(
                text=alt.Text("value:Q", format=SCORE_FORMAT),
                color=alt.condition(alt.datum.value > 0.55, alt.value("black"), alt.value("white")),
            )
        )
    scores = (
        alt.layer(*layers, data=cells)
        .properties(width=cell_width * len(runs), height=height)
        .facet(column=alt.Column("label:N", sort=labels, title=None,
                                 header=alt.Header(labelFontSize=12, labelFontWeight="bold")))
    )
    what = labels[0] if len(labels) == 1 else f"{len(labels)} metrics"
    strip = ("the left strip is each run's query class (hover for its meaning)" if has_classes
             else "no query classes (saved figures do not hold them)")
    return finish(alt.hconcat(*([class_chart] if has_classes else []), scores, spacing=8)
                  .properties(title=chart_title(
                      f"{what} per query and run at K = {k}",
                      [f"Colour is the query's score at K; {strip}.",
                       "Click a cell to pick its query for the drill-down."], width))
                  .resolve_scale(color="independent"))


def _run_x(runs: list[str], angle: int = -40) -> alt.X:
    """Runs across, in display order, every name shown whole (slanted, or upright when long
    or narrow) above the rows: at 40 rows the chart is taller than a screen, and a reader
    starts at the top."""
    return alt.X("run:N", sort=runs, title=None,
                 axis=alt.Axis(labelAngle=angle, labelOverlap=False, labelLimit=0,
                               orient="top"))


def _class_meaning_expr() -> str:
    """A Vega expression giving each class its sentence (json.dumps quotes safely)."""
    cases = " : ".join(f"datum['class'] === {json.dumps(c)} ? {json.dumps(CLASS_MEANING[c])}"
                       for c in QUERY_CLASSES)
    return f"{cases} : ''"




