"""Charts as pure functions: (frame, ...) -> alt.Chart. No streamlit here; report.py reuses them.

Shared base: every chart takes its title from `_title`, its 0-1 score axis from `UNIT` and
`_unit_axis`, and its run colours from `run_scale`, whose fixed domain (every loaded run, in
load order) keeps a run's colour the same in every view whichever runs are shown. Titles and
axes name the metric and K. Colours are mid-tones that read on light and dark backgrounds.
"""

from __future__ import annotations

import json

import altair as alt
import pandas as pd

from metrics import CLASS_MEANING, QUERY_CLASSES

# Tableau 10: distinguishable, and legible on white and on Streamlit's dark background
RUN_PALETTE = (
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)
CLASS_COLOURS = {"full": "#59a14f", "partial": "#edc948", "late_hit": "#f28e2b", "miss": "#e15759"}
SCORE_SCHEME = "viridis"  # perceptually even, dark at 0 and light at 1 in either theme
SCORE_FORMAT = ".3f"  # three decimals wherever a figure is shown
UNIT = alt.Scale(domain=[0, 1], nice=False)
TITLE_FONT_SIZE = 15
SUBTITLE_GREY = "#8b8f99"
TITLE_LIMIT = 1200  # pixels: a long subtitle is not cut to the width of a narrow chart
ROW_HEIGHT = 22  # pixels per query in the heatmap
PANEL_MARGIN = 36  # pixels a heatmap panel takes beyond its cells (spacing, slanted labels)


def run_scale(run_names: list[str] | tuple[str, ...]) -> alt.Scale:
    """Fixed run -> colour mapping; pass every loaded run (hidden ones too) in load order."""
    names = list(run_names)
    colours = [RUN_PALETTE[i % len(RUN_PALETTE)] for i in range(len(names))]
    return alt.Scale(domain=names, range=colours)


def run_colour(runs: alt.Scale, shown: list[str]) -> alt.Color:
    return alt.Color("run:N", scale=runs, legend=alt.Legend(title="Run", values=shown))


def _title(text: str, subtitle: str | list[str] = "") -> alt.Title:
    """Every chart's title: left-aligned, the metric and K in the text, the reading below.
    The subtitle takes a mid grey that reads on a light and on a dark background."""
    return alt.Title(text, subtitle=subtitle, anchor="start", fontSize=TITLE_FONT_SIZE,
                     subtitleColor=SUBTITLE_GREY, subtitleFontSize=12, limit=TITLE_LIMIT)


def _unit_axis(title: str) -> alt.Axis:
    return alt.Axis(title=title, format=".1f", tickCount=5, grid=True)


def interval_bars(
    summary: pd.DataFrame,
    runs: alt.Scale,
    *,
    k: int,
    confidence_level: float,
    n_queries: int,
) -> alt.LayerChart:
    """Each metric's mean per run with its interval: overlap (or its absence) at a glance.

    `summary` is Evaluation.summary() (run, metric, label, mean, low, high, interval).
    """
    labels = list(dict.fromkeys(summary["label"]))
    shown = list(dict.fromkeys(summary["run"]))
    level = f"{confidence_level:.0%}"
    base = alt.Chart(summary)
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelFontSize=12))
    y_offset = alt.YOffset("run:N", sort=shown)
    x = alt.X("low:Q", scale=UNIT, axis=_unit_axis(f"Score at K = {k} (mean and {level} interval)"))
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        alt.Tooltip("mean:Q", title="Mean", format=SCORE_FORMAT),
        alt.Tooltip("low:Q", title="Low", format=SCORE_FORMAT),
        alt.Tooltip("high:Q", title="High", format=SCORE_FORMAT),
        alt.Tooltip("interval:N", title="Interval"),
    ]
    colour = run_colour(runs, shown)
    bars = base.mark_rule(strokeWidth=3).encode(
        x=x, x2="high:Q", y=y, yOffset=y_offset, color=colour, tooltip=tooltip
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        x=alt.X("mean:Q", scale=UNIT), y=y, yOffset=y_offset, color=colour, tooltip=tooltip
    )
    step = alt.Step(13 if len(shown) > 1 else 28)  # with yOffset, the step is each run's band
    title = _title(
        f"Mean at K = {k} with {level} intervals",
        f"Over {n_queries} scored queries. Wilson interval for Hit@{k}, "
        "percentile bootstrap for the others. Bars that do not overlap differ beyond the noise.",
    )
    return alt.layer(bars, points).properties(title=title, height=step)


def sweep_lines(
    sweep: pd.DataFrame,
    runs: alt.Scale,
    *,
    k: int,
    labels: list[str],
    columns: int = 3,
    bands: bool = False,
) -> alt.FacetChart:
    """Every metric against K, one panel per metric on the same 0-1 scale, the chosen K marked.

    `sweep` is long: run, k, metric (summary key), label (e.g. "MRR@K"), mean [, low, high].
    """
    shown = list(dict.fromkeys(sweep["run"]))
    lo, hi = int(sweep["k"].min()), int(sweep["k"].max())
    subtitle = (
        f"Mean over scored queries at every K from {lo} to {hi}; the dashed line marks the "
        f"chosen K = {k}. Every panel shares the 0-1 scale, so Hit@K and Recall@K compare directly."
    )
    if bands:
        subtitle += " Shaded bands: the interval at each K."
    x = alt.X("k:Q", title="K (cutoff)", scale=alt.Scale(domain=[lo, hi], nice=False),
              axis=alt.Axis(tickMinStep=1, format="d"))
    y = alt.Y("mean:Q", scale=UNIT, axis=_unit_axis("Mean at K"))
    colour = run_colour(runs, shown)
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        alt.Tooltip("k:Q", title="K"),
        alt.Tooltip("mean:Q", title="Mean", format=SCORE_FORMAT),
    ]
    layers = []
    if bands:
        layers.append(
            alt.Chart().mark_area(opacity=0.15).encode(
                x=x, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour
            )
        )
        tooltip += [alt.Tooltip("low:Q", title="Low", format=SCORE_FORMAT),
                    alt.Tooltip("high:Q", title="High", format=SCORE_FORMAT)]
    layers.append(
        alt.Chart().mark_line(point=alt.OverlayMarkDef(size=18)).encode(
            x=x, y=y, color=colour, tooltip=tooltip
        )
    )
    layers.append(
        alt.Chart().mark_rule(strokeDash=[5, 4], color="gray").encode(x=alt.datum(k))
    )
    return (
        alt.layer(*layers, data=sweep)
        .properties(width=260, height=170)
        .facet(
            facet=alt.Facet("label:N", sort=labels, title=None,
                            header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
            columns=columns,
            title=_title(f"Every metric against K (chosen K = {k})", subtitle),
        )
    )


def query_heatmap(
    cells: pd.DataFrame,
    *,
    order: list[str],
    runs: list[str],
    labels: list[str],
    k: int,
    selection: str | None = "query",
    width: int = 860,
) -> alt.HConcatChart:
    """Queries x runs (x metrics), colour = score at K, beside each run's query class at K.

    `cells` is long: query_id, run, label, value, class. Rows follow `order`; clicking a cell
    selects its query (a point selection named `selection`, read by the page). The score
    panels share `width` pixels.
    """
    height = max(ROW_HEIGHT * len(order), 60)
    y = alt.Y("query_id:N", sort=order, title="Query",
              axis=alt.Axis(labelLimit=160, labelFontSize=11, labelOverlap=False))
    classes = cells.drop_duplicates(["query_id", "run"]).assign(panel=f"Class at K = {k}")
    class_chart = (
        alt.Chart(classes)
        .mark_rect(stroke="white", strokeWidth=0.5)
        .encode(
            x=_run_x(runs),
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
                alt.Tooltip("run:N", title="Run"),
                alt.Tooltip("class:N", title="Class"),
                alt.Tooltip("meaning:N", title="Meaning"),
            ],
        )
        .transform_calculate(meaning=_class_meaning_expr())
        .properties(width=max(36 * len(runs), 90), height=height)
        .facet(column=alt.Column("panel:N", title=None, header=alt.Header(labelFontSize=12)))
    )
    # fit every panel, with its spacing and axis, in `width` pixels; figures inside the
    # cells only where they fit
    room = width - PANEL_MARGIN * len(labels)
    cell_width = int(min(76, max(14, room // (len(labels) * len(runs)))))
    many = cell_width < 44
    x = _run_x(runs, angle=-90 if cell_width < 30 else -40)
    score_base = alt.Chart().encode(x=x, y=alt.Y("query_id:N", sort=order, axis=None))
    rect = score_base.mark_rect(stroke="white", strokeWidth=0.5).encode(
        color=alt.Color(
            "value:Q",
            scale=alt.Scale(scheme=SCORE_SCHEME, domain=[0, 1]),
            legend=alt.Legend(title=f"Score at K = {k}", format=".1f", orient="bottom"),
        ),
        tooltip=[
            alt.Tooltip("query_id:N", title="Query"),
            alt.Tooltip("run:N", title="Run"),
            alt.Tooltip("label:N", title="Metric"),
            alt.Tooltip("value:Q", title="Score", format=SCORE_FORMAT),
            alt.Tooltip("class:N", title="Class"),
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
    return alt.hconcat(class_chart, scores, spacing=8).properties(
        title=_title(
            f"{what} per query and run at K = {k}",
            ["Colour is the query's score at K; the left strip is each run's query class "
             "(hover for its meaning).", "Click a cell to pick its query for the drill-down."],
        )
    ).resolve_scale(color="independent")


def _run_x(runs: list[str], angle: int = -40) -> alt.X:
    """Runs across, in display order, every name shown (slanted, or upright when narrow)."""
    return alt.X("run:N", sort=runs, title=None,
                 axis=alt.Axis(labelAngle=angle, labelOverlap=False))


def _class_meaning_expr() -> str:
    """A Vega expression giving each class its sentence (json.dumps quotes safely)."""
    cases = " : ".join(f"datum['class'] === {json.dumps(c)} ? {json.dumps(CLASS_MEANING[c])}"
                       for c in QUERY_CLASSES)
    return f"{cases} : ''"


