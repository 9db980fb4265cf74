"""The overlap matrix, (frame, ...) -> alt.Chart: one cell per ordered pair of runs, coloured
by the figure's mean and written with it, its interval in the tooltip."""

from __future__ import annotations

import altair as alt
import pandas as pd

from dashboard.views import vega_spec
from dashboard.views.chart_base import (
    PAD,
    PAGE_WIDTH,
    SCORE_FORMAT,
    SCORE_SCHEME,
    chart_title,
    finish,
    text_width,
)

CELL = 90  # pixels a side
MATRIX = "overlap_matrix"  # the matrix's dataset, which its title reads


def overlap_matrix(frame: pd.DataFrame, runs: list[str], *, title: str,
                   subtitle: str) -> alt.LayerChart:
    label_width = max(text_width(name) for name in runs)
    # the column labels slant at 60°: a cell must be as wide as a label's footprint, or
    # Vega hides the labels that overlap
    side = max(min(CELL, max(36, (PAGE_WIDTH - label_width - 40) // max(len(runs), 1))),
               label_width // 2 + 6)
    axis = alt.Axis(labelLimit=0, title=None)
    x = alt.X("column:N", sort=runs, title="Compared with", axis=alt.Axis(labelLimit=0,
                                                                          labelAngle=-60))
    y = alt.Y("row:N", sort=runs, axis=axis)
    tooltip = [alt.Tooltip("row:N", title="Run"), alt.Tooltip("column:N", title="With"),
               alt.Tooltip("mean:Q", title="Mean", format=SCORE_FORMAT),
               alt.Tooltip("low:Q", title="Low", format=SCORE_FORMAT),
               alt.Tooltip("high:Q", title="High", format=SCORE_FORMAT)]
    # the title (its figure's name holds K) is read from the data: a new K redraws in place
    base = alt.Chart(vega_spec.named(frame.assign(title=title), MATRIX))
    cells = base.mark_rect().encode(
        x=x, y=y, tooltip=tooltip,
        color=alt.Color("mean:Q", title="Mean", scale=alt.Scale(scheme=SCORE_SCHEME,
                                                                 domain=[0, 1])))
    text = base.mark_text(fontSize=12).encode(
        x=x, y=y, text=alt.Text("mean:Q", format=SCORE_FORMAT), tooltip=tooltip,
        color=alt.condition("datum.mean > 0.6", alt.value("black"), alt.value("white")))
    width = side * len(runs)
    return finish(alt.layer(cells, text).properties(
        width=width, height=side * len(runs), autosize=PAD,
        title=chart_title(vega_spec.text_from("", MATRIX, "title"), subtitle,
                          max(width + label_width, 420))))
