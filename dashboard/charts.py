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

from metrics import CLASS_MEANING, QUERY_CLASSES, vocabulary
from metrics import format as fmt

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
# width and height size the plot, axes and legends around it (Streamlit's default for a
# fixed-size layer, "fit", would squeeze them into the given size)
PAD = alt.AutoSizeParams(type="pad")
TITLE_LIMIT = 1200  # pixels: a long subtitle is not cut to the width of a narrow chart
ROW_HEIGHT = 22  # pixels per query in the heatmap
PANEL_MARGIN = 36  # pixels a heatmap panel takes beyond its cells (spacing, slanted labels)


def run_scale(run_names: list[str] | tuple[str, ...]) -> alt.Scale:
    """Fixed run -> colour mapping; pass every loaded run (hidden ones too) in load order."""
    names = list(run_names)
    colours = [RUN_PALETTE[i % len(RUN_PALETTE)] for i in range(len(names))]
    return alt.Scale(domain=names, range=colours)


def run_colour(runs: alt.Scale, shown: list[str], title: str = "Run") -> alt.Color:
    return alt.Color("run:N", scale=runs, legend=alt.Legend(title=title, values=shown))


def _title(text: str, subtitle: str | list[str] = "") -> alt.Title:
    """Every chart's title: left-aligned, the metric and K in the text, the reading below.
    The subtitle takes a mid grey that reads on a light and on a dark background."""
    return alt.Title(text, subtitle=subtitle, anchor="start", fontSize=TITLE_FONT_SIZE,
                     subtitleColor=SUBTITLE_GREY, subtitleFontSize=12, limit=TITLE_LIMIT)


def _figures(*fields: str) -> list[alt.Tooltip]:
    """Tooltips of a mean and its interval bounds ("mean", "low", "high"), three decimals."""
    return [alt.Tooltip(f"{name}:Q", title=name.capitalize(), format=SCORE_FORMAT)
            for name in fields]


def _mean_by_run(runs: alt.Scale, shown: list[str]) -> tuple[alt.Y, alt.Color]:
    """The panels of a metric against K or over time: the mean on the 0-1 scale, a colour
    per run."""
    return alt.Y("mean:Q", scale=UNIT, axis=_unit_axis("Mean at K")), run_colour(runs, shown)


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
    level = fmt.confidence(confidence_level)
    base = alt.Chart(summary)
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelFontSize=12))
    y_offset = alt.YOffset("run:N", sort=shown)
    x = alt.X("low:Q", scale=UNIT, axis=_unit_axis(f"Score at K = {k} (mean and {level} interval)"))
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        *_figures("mean", "low", "high"),
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
        [f"{fmt.count(n_queries, 'scored query')}. {vocabulary.interval_methods(k)}.",
         "Overlapping bars can still differ: Compare tests the paired difference."],
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
    y, colour = _mean_by_run(runs, shown)
    tooltip = [
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label:N", title="Metric"),
        alt.Tooltip("k:Q", title="K"),
        *_figures("mean"),
    ]
    layers = []
    if bands:
        layers.append(
            alt.Chart().mark_area(opacity=0.15).encode(
                x=x, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour
            )
        )
        tooltip += _figures("low", "high")
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




# --------------------------------------------------------------------------- comparison

JUDGED_COLOURS = {"relevant": "#59a14f", "not relevant": "#e15759", "unjudged": "#9aa0aa"}
FEW_QUERIES = 40  # up to this many queries, the difference chart names each one


def _paired_tooltip(baseline: str, metric: str) -> list[alt.Tooltip]:
    return [
        alt.Tooltip("query_id:N", title="Query"),
        alt.Tooltip("run:N", title="Candidate"),
        alt.Tooltip("before:Q", title=f"{metric} of {baseline}", format=SCORE_FORMAT),
        alt.Tooltip("after:Q", title=f"{metric} of the candidate", format=SCORE_FORMAT),
        alt.Tooltip("difference:Q", title="Difference", format="+.3f"),
    ]


def paired_scatter(paired: pd.DataFrame, runs: alt.Scale, *, metric: str, baseline: str,
                   size: int = 340) -> alt.LayerChart:
    """Each query's score under the baseline (x) and a candidate (y), one colour a candidate:
    above the diagonal y = x the candidate did better, below it worse, on it the same.

    `paired` is frames.paired_scores: run (the candidate), query_id, before, after, difference.
    """
    shown = list(dict.fromkeys(paired["run"]))
    diagonal = alt.Chart(pd.DataFrame({"before": [0.0, 1.0], "after": [0.0, 1.0]})).mark_line(
        color="gray", strokeDash=[5, 4], strokeWidth=1
    ).encode(x="before:Q", y="after:Q")
    corners = alt.Chart(pd.DataFrame({
        "before": [0.02, 0.98], "after": [0.98, 0.02], "text": ["improved ↖", "↘ worse"],
        "align": ["left", "right"],
    }))
    notes = [corners.transform_filter(alt.datum.align == side).mark_text(
        align=side, baseline="middle", color=SUBTITLE_GREY, fontSize=11
    ).encode(x="before:Q", y="after:Q", text="text:N") for side in ("left", "right")]
    points = alt.Chart(paired).mark_circle(size=70, opacity=0.75, stroke="white",
                                           strokeWidth=0.5).encode(
        x=alt.X("before:Q", scale=UNIT, axis=_unit_axis(f"{metric} of {baseline} (before)")),
        y=alt.Y("after:Q", scale=UNIT, axis=_unit_axis(f"{metric} of the candidate (after)")),
        color=alt.Color("run:N", scale=runs, legend=alt.Legend(
            title="Candidate", values=shown, orient="bottom", direction="horizontal")),
        tooltip=_paired_tooltip(baseline, metric),
    )
    n = paired["query_id"].nunique()
    return alt.layer(diagonal, *notes, points).properties(
        width=size, height=size, autosize=PAD,
        title=_title(f"{metric} per query, before and after",
                     [f"One point per query and candidate ({n} queries).",
                      "Above the dashed diagonal the candidate scored",
                      f"higher than {baseline}; on it, the same."]),
    )


def difference_bars(paired: pd.DataFrame, runs: alt.Scale, *, metric: str, baseline: str,
                    width: int = 520) -> alt.FacetChart:
    """Each query's difference (candidate - baseline), sorted from the largest gain to the
    largest loss, one panel per candidate; query ids named when there are few."""
    shown = list(dict.fromkeys(paired["run"]))
    n = paired["query_id"].nunique()
    few = n <= FEW_QUERIES
    x = alt.X("query_id:N", sort=alt.EncodingSortField("difference", order="descending"),
              title="Query (largest gain first)" if few else f"{n} queries, largest gain first",
              axis=alt.Axis(labelAngle=-50, labelOverlap=False) if few
              else alt.Axis(labels=False, ticks=False))
    bars = alt.Chart().mark_bar().encode(
        x=x,
        y=alt.Y("difference:Q", title=f"Difference in {metric}",
                scale=alt.Scale(domain=[-1, 1], nice=False),
                axis=alt.Axis(format="+.1f", tickCount=5)),
        color=run_colour(runs, shown, "Candidate"),
        tooltip=_paired_tooltip(baseline, metric),
    )
    zero = alt.Chart().mark_rule(color="gray").encode(y=alt.datum(0))
    return (
        alt.layer(bars, zero, data=paired)
        .properties(width=width, height=170)
        .facet(row=alt.Row("run:N", sort=shown, title=None,
                           header=alt.Header(labelFontWeight="bold", labelAngle=0,
                                             labelAlign="left", labelOrient="top")),
               title=_title(f"Per-query difference in {metric}, sorted",
                            [f"Candidate minus {baseline}: a bar up is a query the candidate",
                             "improved, a bar down one it hurt, no bar a tie."]))
        .resolve_scale(x="independent")
    )


def rank_slope(movement: pd.DataFrame, *, k: int, depth: int, baseline: str,
               candidate: str, query_id: str) -> alt.LayerChart:
    """Each id's rank in the baseline (left) and in the candidate (right), one line an id,
    coloured by its label; the top K shaded. An id below `depth` or never returned sits on
    the bottom row.

    `movement` is explain.rank_movement: doc_id, grade, judged, before, after, ...
    """
    bottom = depth + 1
    sides = [f"{baseline} (before)", f"{candidate} (after)"]
    long = pd.concat([
        pd.DataFrame({
            "doc_id": movement["doc_id"],
            "judged": movement["judged"],
            "grade": movement["grade"].astype("string").fillna("unjudged"),
            "moved": movement["moved"],
            "side": side,
            "rank": movement[column].astype("Float64").fillna(bottom).clip(upper=bottom)
            .astype(float),
            "shown rank": movement[column].astype("string").fillna("not returned"),
        })
        for side, column in zip(sides, ("before", "after"), strict=True)
    ], ignore_index=True)
    y = alt.Y("rank:Q", title="Rank", scale=alt.Scale(domain=[0.5, bottom + 0.5], reverse=True,
                                                      nice=False),
              axis=alt.Axis(values=list(range(1, bottom + 1)), grid=False, labelOverlap=False,
                            labelExpr=f"datum.value == {bottom} ? 'not in top {depth}' "
                            ": datum.value"))
    # a point scale with a step of padding on each side leaves room for the id labels
    x = alt.X("side:N", sort=sides, title=None, scale=alt.Scale(type="point", padding=1),
              axis=alt.Axis(labelAngle=0, orient="top", labelFontWeight="bold",
                            labelLimit=240, domain=False, ticks=False))
    colour = alt.Color("judged:N", title="Label",
                       scale=alt.Scale(domain=list(JUDGED_COLOURS),
                                       range=list(JUDGED_COLOURS.values())),
                       legend=alt.Legend(orient="bottom"))
    tooltip = [alt.Tooltip("doc_id:N", title="Id"), alt.Tooltip("grade:N", title="Grade"),
               alt.Tooltip("side:N", title="List"), alt.Tooltip("shown rank:N", title="Rank"),
               alt.Tooltip("moved:N", title="What happened")]
    band = alt.Chart(pd.DataFrame({"top": [0.5], "k": [k + 0.5]})).mark_rect(
        color="#1f6feb", opacity=0.07).encode(y="top:Q", y2="k:Q")
    cut = alt.Chart(pd.DataFrame({"k": [k + 0.5]})).mark_rule(
        color="#1f6feb", strokeDash=[6, 3]).encode(y="k:Q")
    base = alt.Chart(long).encode(x=x, y=y, color=colour, tooltip=tooltip)
    lines = base.mark_line(strokeWidth=2, opacity=0.8).encode(detail="doc_id:N")
    points = base.mark_circle(size=60, opacity=1)
    label = "datum.doc_id + ' (' + datum.grade + ')'"
    texts = [
        base.transform_filter(alt.datum.side == side).transform_calculate(text=label)
        .mark_text(align=align, dx=dx, fontSize=11).encode(text="text:N")
        for side, align, dx in ((sides[0], "right", -8), (sides[1], "left", 8))
    ]
    return alt.layer(band, cut, lines, points, *texts).properties(
        width=420, height=max(22 * bottom, 180), autosize=PAD,
        title=_title(f"{query_id}: rank of each id, before and after",
                     [f"Shaded: the top K = {k}. Each line is an id, labelled id (grade);",
                      "a line rising to the right was lifted by the candidate.",
                      "Unjudged ids score as not relevant."]),
    )


# --------------------------------------------------------------------------- drift


def drift_lines(drift: pd.DataFrame, runs: alt.Scale, *, k: int, labels: list[str],
                points: list[str], columns: int = 3) -> alt.FacetChart:
    """Each metric's mean and interval over snapshots (oldest first, the live evaluation
    last), one line a run, one panel a metric, on the 0-1 scale.

    `drift` is frames.drift_frame: point, run, metric, label_at_k, mean, low, high, ...
    """
    shown = list(dict.fromkeys(drift["run"]))
    x = alt.X("point:N", sort=points, title=None,
              axis=alt.Axis(labelAngle=-30, labelLimit=180))
    y, colour = _mean_by_run(runs, shown)
    tooltip = [
        alt.Tooltip("point:N", title="Snapshot"),
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label_at_k:N", title="Metric"),
        *_figures("mean", "low", "high"),
        alt.Tooltip("tool_version:N", title="Tool version"),
    ]
    offset = alt.XOffset("run:N", sort=shown)
    bars = alt.Chart().mark_rule(strokeWidth=2).encode(
        x=x, xOffset=offset, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour,
        tooltip=tooltip)
    line = alt.Chart().mark_line(strokeWidth=1.5, opacity=0.6).encode(
        x=x, xOffset=offset, y=y, color=colour)
    dots = alt.Chart().mark_point(filled=True, size=50, opacity=1).encode(
        x=x, xOffset=offset, y=y, color=colour, tooltip=tooltip)
    return (
        alt.layer(line, bars, dots, data=drift)
        .properties(width=260, height=190)
        .facet(facet=alt.Facet("label_at_k:N", sort=labels, title=None,
                               header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
               columns=columns,
               title=_title(f"Every metric at K = {k} over the snapshots",
                            ["Oldest first, the live figures last; dot: the mean, bar: its "
                             "interval.",
                             f"Only snapshots of this query set at K = {k} under these "
                             "conventions are drawn: a move is drift in the runs, not in the "
                             "yardstick."]))
    )
