"""The loss distribution of one candidate on one metric, (frame, ...) -> alt.Chart: how many
queries moved by how much, the harm threshold marked and the harmed side coloured."""

from __future__ import annotations

import altair as alt
import pandas as pd

from dashboard.views.chart_base import (
    PAD,
    PAGE_WIDTH,
    SIGNED_FORMAT,
    Y_AXIS,
    chart_title,
    finish,
)
from metrics import format as fmt

# harmed in vermilion, a smaller loss in orange, a gain in blue (Okabe-Ito: told apart by
# hue and by lightness)
SIDE_COLOURS = {"harmed": "#D55E00", "lost less": "#E69F00", "gained": "#0072B2"}


def loss_histogram(bins: pd.DataFrame, ties: int, *, metric: str, candidate: str,
                   baseline: str, delta: float, width: int = PAGE_WIDTH) -> alt.LayerChart:
    """Queries per bin of difference (review.loss_histogram), stacked by side, with the
    harm threshold −delta drawn as a dashed rule."""
    x = alt.X("low:Q", bin="binned", title=f"Difference in {metric} ({candidate} − {baseline})",
              scale=alt.Scale(domain=[-1, 1], nice=False), axis=alt.Axis(format="+.1f"))
    colour = alt.Color("side:N", title=None, legend=alt.Legend(orient="bottom"),
                       scale=alt.Scale(domain=list(SIDE_COLOURS),
                                       range=list(SIDE_COLOURS.values())))
    tooltip = [alt.Tooltip("side:N", title="Side"),
               alt.Tooltip("low:Q", title="From", format="+.2f"),
               alt.Tooltip("high:Q", title="To", format="+.2f"),
               alt.Tooltip("queries:Q", title="Queries")]
    bars = alt.Chart(bins).mark_bar().encode(
        x=x, x2="high:Q", y=alt.Y("sum(queries):Q", title="Queries", stack="zero",
                                  axis=alt.Axis(tickMinStep=1, format="d")),
        color=colour, order=alt.Order("side:N", sort="descending"), tooltip=tooltip)
    rule = alt.Chart(pd.DataFrame({"at": [-delta]})).mark_rule(
        color="#D55E00", strokeDash=[5, 3], strokeWidth=2).encode(
        x="at:Q", tooltip=[alt.Tooltip("at:Q", title="Harm threshold", format=SIGNED_FORMAT)])
    subtitle = (f"Left of the dashed line at {fmt.signed(-delta)} a query is harmed (it loses more "
                f"than {delta:g}). {ties:,} queries that did not change are left out.")
    return finish(alt.layer(bars, rule).properties(
        width=width - Y_AXIS, height=200, autosize=PAD,
        title=chart_title(f"How much each query moved in {metric}: {candidate} against "
                          f"{baseline}", subtitle, width)))
