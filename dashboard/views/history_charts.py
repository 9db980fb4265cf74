"""A history's trend as a pure chart function, (frame, ...) -> alt.Chart: each figure over
time with its interval band, one line a run, one panel a metric, and the changes more than
noise marked where they land."""

from __future__ import annotations

import altair as alt
import pandas as pd

from dashboard.views.chart_base import (
    PAGE_WIDTH,
    SIGNED_FORMAT,
    UNIT,
    chart_title,
    figures,
    finish,
    mean_by_run,
    panels,
)
from metrics import HISTORY_TERMS

MARK_COLOURS = {HISTORY_TERMS.UP: "#0072B2", HISTORY_TERMS.DOWN: "#D55E00"}


def trend_frame(rows: list[dict]) -> pd.DataFrame:
    """metrics.trend_rows as a frame: the time parsed (UTC), the change's test in words, and
    the mark's place (the mean) only where a change is marked."""
    frame = pd.DataFrame(rows)
    return frame.assign(
        time=pd.to_datetime(frame["time"], utc=True),
        commit=frame["commit"].fillna(HISTORY_TERMS.NO_COMMIT).str.slice(0, 12),
        label=frame["label"].fillna(""),
        tested=frame["test"].map({HISTORY_TERMS.PAIRED: "paired",
                                  HISTORY_TERMS.UNPAIRED: "unpaired (intervals only)"})
        .fillna("first point"),
    )


def trend_lines(trend: pd.DataFrame, runs: alt.Scale, *, k: int, labels: list[str],
                width: int = PAGE_WIDTH) -> alt.FacetChart:
    """Each metric over the history's entries in time: the mean as a line with dots, its
    interval as a band, a colour a run, a panel a metric (``labels`` in order); a change more
    than noise from the run's previous point marked ▲ or ▼ above (below) its point, and said
    in the tooltip with its test (paired, or unpaired from the intervals) and adjusted p.

    ``trend`` is trend_frame: entry, time, commit, label, run, metric, figure (the label at
    K), mean, low, high, change, change_low, change_high, tested, p, p_adjusted, mark.
    """
    shown = list(dict.fromkeys(trend["run"]))
    columns, panel = panels(len(labels), least=240, most=380, width=width)
    # a tick at each entry's time (not the scale's own, which repeats a day at each hour)
    times = sorted({t.isoformat() for t in trend["time"]})
    x = alt.X("time:T", title=None, axis=alt.Axis(
        format=(HISTORY_TERMS.TIME_AXIS_MINUTES if len({t[:10] for t in times}) < len(times)
                else HISTORY_TERMS.TIME_AXIS_DAYS),
        labelAngle=0, values=times if len(times) <= 12 else alt.Undefined, labelOverlap=True))
    y, colour = mean_by_run(runs, shown, orient="top", width=width)
    tooltip = [
        alt.Tooltip("entry:Q", title="Entry"),
        alt.Tooltip("time:T", title="Time (UTC)", format=HISTORY_TERMS.TIME_TOOLTIP),
        alt.Tooltip("commit:N", title="Commit"),
        alt.Tooltip("label:N", title="Label"),
        alt.Tooltip("run:N", title="Run"),
        alt.Tooltip("figure:N", title="Metric"),
        *figures("mean", "low", "high"),
        alt.Tooltip("change:Q", title="Change", format=SIGNED_FORMAT),
        alt.Tooltip("tested:N", title="Test"),
        alt.Tooltip("p_adjusted:Q", title="p adjusted", format=".4f"),
    ]
    band = alt.Chart().mark_area(opacity=0.18).encode(
        x=x, y=alt.Y("low:Q", scale=UNIT), y2="high:Q", color=colour)
    line = alt.Chart().mark_line(strokeWidth=1.8).encode(x=x, y=y, color=colour)
    dots = alt.Chart().mark_point(filled=True, size=45, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=tooltip)
    # one text layer a direction, each in its fixed colour: a colour channel of its own
    # would give every panel a second legend beside the runs'
    marked = [alt.Chart().transform_filter(f"datum.mark == '{mark}'").mark_text(
        fontSize=15, fontWeight="bold", dy=-13, color=colour_of).encode(
        x=x, y=y, text="mark:N", tooltip=tooltip)
        for mark, colour_of in MARK_COLOURS.items()]
    return finish(
        alt.layer(band, line, dots, *marked, data=trend)
        .properties(width=panel, height=200)
        .facet(facet=alt.Facet("figure:N", sort=labels, title=None,
                               header=alt.Header(labelFontSize=13, labelFontWeight="bold")),
               columns=columns,
               title=chart_title(
                   f"Every metric at K = {k} over the history",
                   ["Dot: the mean at each entry, band: its interval. ▲ / ▼: the change from "
                    "the run's previous entry is more than noise (paired randomization test "
                    "on the per-query figures where both entries store them, else unpaired "
                    "from the intervals; corrected over every change drawn).",
                    f"Every entry is of this query set at K = {k} under one set of "
                    "conventions: the store refuses any other."], width))
    )


__all__ = ["MARK_COLOURS", "trend_frame", "trend_lines"]
