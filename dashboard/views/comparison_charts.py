"""The comparison and drift charts as pure functions, (frame, ...) -> alt.Chart: paired
scatter (or density), per-query differences, rank movement, metrics over snapshots.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from dashboard.views import frames
from dashboard.views.chart_base import (
    MUTED,
    PAD,
    PADDED_UNIT,
    PAGE_WIDTH,
    ROW_HEIGHT,
    SCORE_FORMAT,
    SIGNED_FORMAT,
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
)
from metrics import format as fmt

# --------------------------------------------------------------------------- comparison

# an id's label in the rank movement: blue and vermilion (Okabe-Ito) and a grey, told apart
# by hue and by lightness
JUDGED_COLOURS = {"relevant": "#0072B2", "not relevant": "#D55E00", "unjudged": "#999999"}
FEW_QUERIES = 40  # up to this many queries, the difference chart names each one
MOST_BARS = 400  # beyond this many queries, a difference panel draws columns of several
MANY_POINTS = 300  # above this many (query, candidate) points the scatter shows density
DENSITY_STEP = 0.05  # the side of a density cell on the 0-1 scales
# a cell's colour is the number of queries in it, on a log scale (one query still shows): one
# blue from faint to strong, the faint end the one nearer the background in either theme, and
# the legend is that scale (a run's colour per panel, the panels' names already say)
DENSITY_COLOURS = alt.Scale(type="log", scheme="blues",
                            reverse=alt.ExprRef("luminance(background) < 0.5"))
BIN_EPSILON = 1e-14  # Vega's bias against floating-point error when it bins (0.15 in [0.15, 0.2))


def _paired_tooltip(baseline: str, metric: str) -> list[alt.Tooltip]:
    return [
        alt.Tooltip("query_id:N", title="Query"),
        alt.Tooltip("run:N", title="Candidate"),
        alt.Tooltip("before:Q", title=f"{metric} of {baseline}", format=SCORE_FORMAT),
        alt.Tooltip("after:Q", title=f"{metric} of the candidate", format=SCORE_FORMAT),
        alt.Tooltip("difference:Q", title="Difference", format=SIGNED_FORMAT),
    ]


def _paired_axes(metric: str, baseline: str, cells: bool = False) -> tuple[alt.X, alt.Y]:
    """Before across, after up, both on the 0-1 scale with room for a mark at 0 or 1; the
    metric left out of the axis titles of a small panel (its title names it). With `cells`,
    x and y are the starts of cells whose ends are x2 and y2 (the fields before_end and
    after_end)."""
    def axis(title: str) -> alt.Axis:
        return alt.Axis(title=title, values=UNIT_TICKS, format=".1f", grid=True, labelLimit=0,
                        titleLimit=0)

    extra = {"bin": "binned"} if cells else {}
    of = "" if cells else f"{metric} of "
    return (alt.X("before:Q", scale=PADDED_UNIT, axis=axis(f"{of}{baseline} (before)"), **extra),
            alt.Y("after:Q", scale=PADDED_UNIT, axis=axis(f"{of}the candidate (after)"),
                  **extra))


def _diagonal(base: alt.Chart, notes: bool = True) -> list[alt.Chart]:
    """The line y = x and, with `notes`, which side of it is better written in its corners:
    drawn once (from one row of `base`'s data, whatever its size)."""
    one = base.transform_aggregate(rows="count()")
    diagonal = one.mark_rule(color="gray", strokeDash=[5, 4], strokeWidth=1).encode(
        x=alt.datum(0), y=alt.datum(0), x2=alt.datum(1), y2=alt.datum(1))
    corners = [one.mark_text(align=align, baseline="middle", color=MUTED, fontSize=11,
                             text=text).encode(x=alt.datum(x), y=alt.datum(y))
               for text, align, x, y in (("improved ↖", "left", 0.02, 0.98),
                                         ("↘ worse", "right", 0.98, 0.02))]
    return [diagonal, *(corners if notes else [])]


def paired_scatter(paired: pd.DataFrame, runs: alt.Scale, *, metric: str, baseline: str,
                   size: int = 340, width: int = PAGE_WIDTH) -> alt.LayerChart | alt.FacetChart:
    """Each query's score under the baseline (x) and a candidate (y): above the diagonal y = x
    the candidate did better, below it worse, on it the same.

    Up to MANY_POINTS points, one point per query and candidate, one colour a candidate (a
    `size`-pixel square); beyond, a panel per candidate (within `width` pixels) whose cells
    count the queries that fall in them, so that thousands of points do not print over one
    another. Points at 0 or 1 are drawn whole: the scales leave room beyond the ticks.

    `paired` is frames.paired_scores: run (the candidate), query_id, before, after, difference.
    """
    if len(paired) > MANY_POINTS:
        return _paired_density(paired, metric=metric, baseline=baseline, width=width)
    shown = list(dict.fromkeys(paired["run"]))
    x, y = _paired_axes(metric, baseline)
    points = alt.Chart(paired).mark_circle(size=70, opacity=0.75, stroke=alt.ExprRef(
        "background"), strokeWidth=0.5).encode(
        x=x, y=y,
        color=run_colour(runs, shown, "Candidate", orient="bottom", width=size),
        tooltip=_paired_tooltip(baseline, metric),
    )
    n = paired["query_id"].nunique()
    return finish(alt.layer(*_diagonal(alt.Chart(paired)), points).properties(
        width=size, height=size, autosize=PAD,
        title=chart_title(f"{metric} per query, before and after",
                     f"One point per query and candidate ({n:,} queries). Above the dashed "
                     f"diagonal the candidate scored higher than {baseline}; on it, the same.",
                     size + Y_AXIS),
    ))


def density_cells(paired: pd.DataFrame, step: float = DENSITY_STEP) -> pd.DataFrame:
    """How many queries of each candidate fall in each cell of `step` x `step` on [0, 1]^2,
    one row per non-empty cell (candidates in order of appearance, then cells by after, then
    before): run, before, before_end, after, after_end (the cell's bounds), queries.

    The cells are Vega's bin with that step over the extent [0, 1]: a cell holds its lower
    bound, not its upper one, but the last cell holds 1 too; a score outside [0, 1] (or
    missing) is in no cell.
    """
    n = round(1 / step)
    runs, names = pd.factorize(paired["run"], sort=False)
    before, after = (paired[side].to_numpy(dtype=float) for side in ("before", "after"))
    inside = (before >= 0) & (before <= 1) & (after >= 0) & (after <= 1)  # False for NaN

    def cell(scores: np.ndarray) -> np.ndarray:
        # Vega's rule (vega-transforms Bin): floor(EPSILON + v / step), 1 put in the last cell
        return np.floor(BIN_EPSILON + np.minimum(scores[inside], 1 - step) / step).astype(int)

    code = (runs[inside] * n + cell(after)) * n + cell(before)
    counts = np.bincount(code, minlength=len(names) * n * n)
    where = np.flatnonzero(counts)
    run, row, column = where // (n * n), where // n % n, where % n
    bound = np.round(np.arange(n + 1) * step, 12)  # 0.15, not 0.15000000000000002
    return pd.DataFrame({"run": names[run], "before": bound[column],
                         "before_end": bound[column + 1], "after": bound[row],
                         "after_end": bound[row + 1], "queries": counts[where]})


def _paired_density(paired: pd.DataFrame, *, metric: str, baseline: str,
                    width: int) -> alt.FacetChart:
    """The paired scatter for many queries: one panel per candidate, each cell's colour the
    number of queries in it (DENSITY_COLOURS), the legend that colour scale. No notes in the
    corners, where the cells are: the subtitle says which side is better.

    The cells are counted here (density_cells), not in the browser: the chart carries one
    row per non-empty cell, at most (1 / DENSITY_STEP)^2 a candidate, whatever the number of
    queries."""
    shown = list(dict.fromkeys(paired["run"]))
    n = paired["query_id"].nunique()
    columns, panel = panels(len(shown), least=200, most=320, width=width)
    x, y = _paired_axes(metric, baseline, cells=True)
    # a cell's range as Vega-Lite writes a binned field's: "0.15 – 0.2"
    ranges = {f"{side} range": f"format(datum.{side}, '') + ' – ' + format(datum.{side}_end, '')"
              for side in ("before", "after")}
    cells = alt.Chart().transform_calculate(**ranges).mark_rect().encode(
        x=x, x2="before_end:Q", y=y, y2="after_end:Q",
        color=alt.Color("queries:Q", scale=DENSITY_COLOURS,
                        legend=alt.Legend(title="Queries in a cell", orient="bottom",
                                          direction="horizontal", format="d")),
        tooltip=[
            alt.Tooltip("run:N", title="Candidate"),
            alt.Tooltip("before range:N", title=f"{metric} of {baseline}"),
            alt.Tooltip("after range:N", title=f"{metric} of the candidate"),
            alt.Tooltip("queries:Q", title="Queries"),
        ],
    )
    return finish(
        alt.layer(cells, *_diagonal(alt.Chart(), notes=False), data=density_cells(paired))
        .properties(width=panel, height=panel)
        .facet(facet=alt.Facet("run:N", sort=shown, title=None,
                               header=alt.Header(labelFontWeight="bold", labelFontSize=13,
                                                 labelLimit=0)),
               columns=columns,
               title=chart_title(f"{metric} per query, before and after",
                            f"{n:,} queries: each panel counts the queries in each cell, the "
                            "stronger the blue the more. Above the dashed diagonal the "
                            f"candidate scored higher than {baseline} (improved), below it "
                            "lower (worse); on it, the same.", width))
        .resolve_axis(x="independent")  # under each panel, not under an empty slot too
    )


def difference_columns(paired: pd.DataFrame, most: int = MOST_BARS) -> pd.DataFrame:
    """Each candidate's per-query differences in frames.by_difference's order (largest gain
    first; ties by query id) cut into at most `most` columns of consecutive queries, their
    sizes one apart at most: run, first and last (the column's positions in that order,
    from 1), low and high (its smallest and largest difference)."""
    parts = []
    for run in dict.fromkeys(paired["run"]):  # each has a row at least
        difference = frames.by_difference(paired, run)["difference"].to_numpy(dtype=float)
        n = len(difference)
        columns = min(most, n)
        starts = np.arange(columns) * n // columns  # 0-based, strictly increasing
        parts.append(pd.DataFrame({
            "run": run, "first": starts + 1, "last": np.append(starts[1:], n),
            "low": np.minimum.reduceat(difference, starts),
            "high": np.maximum.reduceat(difference, starts)}))
    return pd.concat(parts, ignore_index=True)


def _difference_axis(metric: str, field: str = "difference") -> alt.Y:
    return alt.Y(f"{field}:Q", title=f"Difference in {metric}",
                 scale=alt.Scale(domain=[-1, 1], nice=False),
                 axis=alt.Axis(format="+.1f", tickCount=5))


def _bars_per_query(paired: pd.DataFrame, runs: alt.Scale, shown: list[str], *, metric: str,
                    baseline: str, n: int) -> tuple[alt.Chart, str]:
    """A bar per query (sorted in the browser), its id named when there are few."""
    few = n <= FEW_QUERIES
    x = alt.X("query_id:N", sort=alt.EncodingSortField("difference", order="descending"),
              title="Query (largest gain first)" if few else f"{n} queries, largest gain first",
              axis=alt.Axis(labelAngle=-50, labelOverlap=False) if few
              else alt.Axis(labels=False, ticks=False))
    bars = alt.Chart().mark_bar().encode(
        x=x,
        y=_difference_axis(metric),
        color=run_colour(runs, shown, "Candidate", legend=False),
        tooltip=_paired_tooltip(baseline, metric),
    )
    return bars, (f"Candidate minus {baseline}: a bar up is a query the candidate "
                  "improved, a bar down one it hurt, no bar a tie.")


def _bars_per_column(columns: pd.DataFrame, runs: alt.Scale, shown: list[str], *,
                     metric: str, baseline: str, n: int) -> tuple[alt.Chart, str]:
    """A column per run of consecutive queries (difference_columns), from the lowest to the
    highest difference among them and through 0: the outline of their bars."""
    ranks = "format(datum.first, ',') + (datum.last > datum.first ? '–' + " \
            "format(datum.last, ',') : '')"
    spread = f"format(datum.low, '{SIGNED_FORMAT}') + (datum.high > datum.low ? ' to ' + " \
             f"format(datum.high, '{SIGNED_FORMAT}') : '')"
    bars = alt.Chart().transform_calculate(
        start="datum.first - 1", top="max(datum.high, 0)", bottom="min(datum.low, 0)",
        queries="datum.last - datum.first + 1", ranks=ranks, spread=spread,
    ).mark_rect(strokeWidth=0.5).encode(  # a stroke of its colour: no seam between columns
        x=alt.X("start:Q", title=f"{fmt.count(n, 'query')}, largest gain first",
                scale=alt.Scale(nice=False, zero=True),
                axis=alt.Axis(format=",d", grid=False, tickCount=10)),
        x2="last:Q",
        y=_difference_axis(metric, "top"),
        y2="bottom:Q",
        color=run_colour(runs, shown, "Candidate", legend=False),
        stroke=alt.Stroke("run:N", scale=runs, legend=None),
        tooltip=[
            alt.Tooltip("run:N", title="Candidate"),
            alt.Tooltip("ranks:N", title="Queries (largest gain first)"),
            alt.Tooltip("queries:Q", title="Queries in the column", format=","),
            alt.Tooltip("spread:N", title="Difference"),
        ],
    )
    sizes = columns["last"] - columns["first"] + 1
    return bars, (f"Candidate minus {baseline}, largest gain first. {fmt.count(n, 'query')} "
                  f"are too many for a bar each: a column gathers up to "
                  f"{fmt.count(int(sizes.max()), 'query')} in a row and reaches from the "
                  "lowest to the highest difference among them, through 0 (up: improved, "
                  "down: hurt); no column, a run of ties.")


def difference_bars(paired: pd.DataFrame, runs: alt.Scale, *, metric: str, baseline: str,
                    width: int = PAGE_WIDTH - 2 * Y_AXIS) -> alt.FacetChart:
    """Each query's difference (candidate - baseline), sorted from the largest gain to the
    largest loss, one panel per candidate (named above it, in its colour); query ids named
    when there are few.

    Up to MOST_BARS queries, a bar per query; beyond, the sorted queries are gathered here
    into MOST_BARS columns of consecutive queries (difference_columns), each drawn from its
    lowest to its highest difference and through 0, the outline of the bars it stands for:
    the chart carries MOST_BARS rows a candidate, not a row per query."""
    shown = list(dict.fromkeys(paired["run"]))
    n = paired["query_id"].nunique()
    if n <= MOST_BARS:
        data = paired
        bars, subtitle = _bars_per_query(paired, runs, shown, metric=metric, baseline=baseline,
                                         n=n)
    else:
        data = difference_columns(paired)
        bars, subtitle = _bars_per_column(data, runs, shown, metric=metric, baseline=baseline,
                                          n=n)
    zero = alt.Chart().mark_rule(color="gray").encode(y=alt.datum(0))
    return finish(
        alt.layer(bars, zero, data=data)
        .properties(width=width, height=170)
        .facet(row=alt.Row("run:N", sort=shown, title=None,
                           header=alt.Header(labelFontWeight="bold", labelAngle=0,
                                             labelAlign="left", labelAnchor="start",
                                             labelOrient="top", labelLimit=0,
                                             labelFontSize=13)),
               title=chart_title(f"Per-query difference in {metric}, sorted", subtitle,
                                 width + Y_AXIS))
        .resolve_scale(x="independent")
    )


def rank_slope(movement: pd.DataFrame, *, k: int, depth: int, baseline: str,
               candidate: str, query_id: str, width: int = PAGE_WIDTH) -> alt.LayerChart:
    """Each id's rank in the baseline (left) and in the candidate (right), one line an id,
    coloured by its label; the top K shaded. Below the top `depth` ranks, each id that a list
    has further down or never returned takes a row of its own (furthest last, never returned
    at the end), labelled with where it is, so that no two labels print over each other.

    `movement` is explain.rank_movement: doc_id, grade, judged, before, after, ...
    """
    bottom = depth + 1
    sides = [f"{baseline} (before)", f"{candidate} (after)"]
    grade = movement["grade"].astype("string").fillna("unjudged")
    parts, below = [], 0
    for side, column in zip(sides, ("before", "after"), strict=True):
        rank = movement[column].astype("Float64")
        outside = ~(rank <= depth).fillna(False)
        # the rows under the top `depth`: by rank, never returned last, ties in id order
        order = rank.where(outside).fillna(float("inf")).astype(float)
        slots = order[outside].sort_values(kind="stable").index
        row = rank.astype(float).copy()
        row[slots] = [bottom + i for i in range(len(slots))]
        below = max(below, len(slots))
        where = rank.round().astype("Int64").astype("string").fillna("not returned")
        label = movement["doc_id"].astype(str) + " (" + grade + ")"
        parts.append(pd.DataFrame({
            "doc_id": movement["doc_id"],
            "judged": movement["judged"],
            "grade": grade,
            "moved": movement["moved"],
            "side": side,
            "rank": row,
            "shown rank": where,
            "text": label.where(~outside, label + ", " + where.where(
                where == "not returned", "rank " + where)),
        }))
    long = pd.concat(parts, ignore_index=True)
    last = bottom + below - 1 if below else depth
    values = list(range(1, depth + 1)) + ([bottom] if below else [])
    y = alt.Y("rank:Q", title="Rank", scale=alt.Scale(domain=[0.5, last + 0.5], reverse=True,
                                                      nice=False),
              axis=alt.Axis(values=values, grid=False, labelOverlap=False,
                            labelExpr=f"datum.value == {bottom} ? 'not in top {depth}' "
                            ": datum.value"))
    # a point scale with a step of padding on each side leaves room for the id labels; each
    # side's name on two lines: the run, then (before) or (after)
    step = max(150, max((text_width(t) for t in long["text"]), default=0) + 24)
    plot = min(3 * step, width - Y_AXIS - 40)
    x = alt.X("side:N", sort=sides, title=None, scale=alt.Scale(type="point", padding=1),
              axis=alt.Axis(labelAngle=0, orient="top", labelFontWeight="bold", labelLimit=0,
                            domain=False, ticks=False,
                            labelExpr="[slice(datum.label, 0, lastindexof(datum.label, ' (')),"
                            " slice(datum.label, lastindexof(datum.label, ' (') + 1)]"))
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
    layers = [band, cut]
    if below:
        layers.append(alt.Chart(pd.DataFrame({"depth": [depth + 0.5]})).mark_rule(
            color="gray", strokeDash=[2, 3]).encode(y="depth:Q"))
    base = alt.Chart(long).encode(x=x, y=y, color=colour, tooltip=tooltip)
    lines = base.mark_line(strokeWidth=2, opacity=0.8).encode(detail="doc_id:N")
    points = base.mark_circle(size=60, opacity=1)
    texts = [
        base.transform_filter(alt.datum.side == side)
        .mark_text(align=align, dx=dx, fontSize=11).encode(text="text:N", color=alt.value(MUTED))
        for side, align, dx in ((sides[0], "right", -8), (sides[1], "left", 8))
    ]
    return finish(alt.layer(*layers, lines, points, *texts).properties(
        width=plot, height=max(ROW_HEIGHT * last, 180), autosize=PAD,
        title=chart_title(f"{query_id}: rank of each id, before and after",
                     [f"Shaded: the top K = {k}. Each line is an id, labelled id (grade); a "
                      "line rising to the right was lifted by the candidate.",
                      f"Below the dotted line, the ids a list has below rank {depth} or not at "
                      "all, one a row. Unjudged ids score as not relevant."],
                     plot + Y_AXIS),
    ))


# --------------------------------------------------------------------------- drift


def drift_lines(drift: pd.DataFrame, runs: alt.Scale, *, k: int, labels: list[str],
                points: list[str], width: int = PAGE_WIDTH) -> alt.FacetChart:
    """Each metric's mean and interval over snapshots (oldest first, the live evaluation
    last), one line a run, one panel a metric, on the 0-1 scale; each snapshot's name under
    its place, upright on two lines (its time, then its label), the panels as wide as the
    names need and as many a row as fit `width` pixels.

    `drift` is frames.drift_frame: point, run, metric, label_at_k, mean, low, high, ...
    """
    shown = list(dict.fromkeys(drift["run"]))
    # a place per snapshot as wide as its longer line (at 11 px, about 6 px a character)
    place = max((len(part) for p in points for part in str(p).split(" · ")), default=0) * 6 + 12
    least = max(210, len(points) * place)
    columns, panel = panels(len(labels), least=least, most=max(360, least), width=width)
    x = alt.X("point:N", sort=points, title=None,
              axis=alt.Axis(labelAngle=0, labelLimit=0, labelOverlap=False,
                            labelExpr="split(datum.label, ' · ')"))
    y, colour = mean_by_run(runs, shown, orient="top", width=width)
    tooltip = [
        alt.Tooltip("point:N", title="Snapshot"),
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("label_at_k:N", title="Metric"),
        *figures("mean", "low", "high"),
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
    return finish(
        alt.layer(line, bars, dots, data=drift)
        .properties(width=panel, height=190)
        .facet(facet=alt.Facet("label_at_k:N", sort=labels, title=None,
                               header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
               columns=columns,
               title=chart_title(f"Every metric at K = {k} over the snapshots",
                            ["Oldest first, the live figures last; dot: the mean, bar: its "
                             "interval.",
                             f"Only snapshots of this query set at K = {k} under these "
                             "conventions are drawn: a move is drift in the runs, not in the "
                             "yardstick."], width))
    )


SIGN_COLOURS = {"gain": "#0072B2", "loss": "#D55E00", "no change": "#999999"}


def difference_intervals(differences: pd.DataFrame, runs: alt.Scale, *, baseline: str, k: int,
                         confidence_level: float, correction: str) -> alt.LayerChart:
    """Compare's picture: each compared metric's mean paired difference, candidate minus
    baseline, with its interval, one row per candidate (frames.comparison_differences);
    right of the dashed 0 the candidate scores higher. A filled point is significant after
    `correction` (its name), a hollow one is not. Shown stretched to the page's width."""
    labels = list(dict.fromkeys(differences["label"]))
    shown = list(dict.fromkeys(differences["run"]))
    level = fmt.confidence(confidence_level)
    base = alt.Chart(differences)
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelFontSize=12, labelLimit=0))
    y_offset = alt.YOffset("run:N", sort=shown)
    # 0 always in view, with room beyond the farthest cap (all differences one side of 0
    # put 0 and a cap on the plot's very edge)
    scale = alt.Scale(zero=True, nice=True, padding=12)
    x = alt.X("low:Q", title=f"Difference at K = {k} (candidate − {baseline})", scale=scale,
              # at most ~8 ticks: at 1280 px Vega's default count hid every other label
              axis=alt.Axis(format="+.2f", grid=True, tickCount=8))
    colour = run_colour(runs, shown, "Candidate")
    tooltip = [alt.Tooltip("run:N", title="Candidate"), alt.Tooltip("label:N", title="Metric"),
               alt.Tooltip("written:N", title="Difference"),
               alt.Tooltip("p adjusted:N", title="p adjusted"),
               alt.Tooltip("verdict:N", title="Verdict")]
    bars = base.mark_rule(strokeWidth=2.5).encode(
        x=x, x2="high:Q", y=y, yOffset=y_offset, color=colour, tooltip=tooltip)
    caps = [base.mark_tick(thickness=2, size=9).encode(
        x=alt.X(f"{end}:Q", scale=scale), y=y, yOffset=y_offset, color=colour,
        tooltip=tooltip) for end in ("low", "high")]
    points = [base.transform_filter(f"{'' if filled else '!'}datum.significant").mark_point(
        filled=filled, size=40, opacity=1, strokeWidth=1.5).encode(
        x=alt.X("difference:Q", scale=scale), y=y, yOffset=y_offset, color=colour,
        tooltip=tooltip) for filled in (True, False)]
    zero = alt.Chart().mark_rule(color="gray", strokeDash=[4, 3]).encode(x=alt.datum(0))
    step = alt.Step(13 if len(shown) > 1 else 24)  # with yOffset, each candidate's band
    title = chart_title(
        f"Each metric, candidate against {baseline}: the difference with its {level} interval",
        f"Right of 0 the candidate scores higher. Filled: significant after {correction}; "
        "hollow: not.", None)
    return finish(alt.layer(bars, *caps, *points, zero).properties(title=title, height=step))


def slice_differences(table: pd.DataFrame, *, metric: str, baseline: str, candidate: str,
                      facet: str, small: int, width: int = PAGE_WIDTH) -> alt.LayerChart:
    """The paired difference per slice (frames.slice_comparison_table) with its interval:
    right of 0 the candidate gained on that kind of query, left it lost; a slice of fewer
    than `small` queries is drawn faint."""
    data = table[["Slice", "Queries", "Difference", "low", "high", "p adjusted"]].assign(
        sign=np.select([table["Difference"] > 0, table["Difference"] < 0], ["gain", "loss"],
                       "no change"),
        faint=table["Queries"] < small,
    )
    label_width = max(text_width(label) for label in data["Slice"])
    y = alt.Y("Slice:N", sort=list(table["Slice"]), title=facet,
              axis=alt.Axis(labelLimit=label_width))
    x = alt.X("Difference:Q", title=f"Difference in {metric} ({candidate} − {baseline})",
              axis=alt.Axis(format="+.2f"))
    opacity = alt.condition("datum.faint", alt.value(0.35), alt.value(1))
    colour = alt.Color("sign:N", title=None, legend=alt.Legend(orient="bottom"),
                       scale=alt.Scale(domain=list(SIGN_COLOURS),
                                       range=list(SIGN_COLOURS.values())))
    tooltip = [alt.Tooltip("Slice:N", title=facet), alt.Tooltip("Queries:Q"),
               alt.Tooltip("Difference:Q", format=SIGNED_FORMAT),
               alt.Tooltip("low:Q", title="Low", format=SIGNED_FORMAT),
               alt.Tooltip("high:Q", title="High", format=SIGNED_FORMAT),
               alt.Tooltip("p adjusted:N", title="p adjusted")]
    base = alt.Chart(data)
    bars = base.mark_rule(strokeWidth=2).encode(y=y, x="low:Q", x2="high:Q", color=colour,
                                                 opacity=opacity, tooltip=tooltip)
    dots = base.mark_circle(size=90).encode(y=y, x=x, color=colour, opacity=opacity,
                                             tooltip=tooltip)
    zero = alt.Chart().mark_rule(color="gray", strokeDash=[4, 3]).encode(x=alt.datum(0))
    plot = width - Y_AXIS - label_width
    return finish(alt.layer(bars, dots, zero).properties(
        width=max(plot, 240), height=28 * max(len(data), 2), autosize=PAD,
        title=chart_title(
            f"{metric}: {candidate} against {baseline}, by {facet}",
            "Each slice's paired difference with its interval; right of 0 the candidate "
            f"gained on that kind of query, left it lost. Faint: fewer than {small} queries.",
            width)))
