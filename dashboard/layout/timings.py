"""What each run costs per query, drawn where timings were given: the trade-off chart (its
headline figure against p95 latency, or mean cost), each run's latency figures and each
candidate against the baseline, with how the intervals were made. The Overview and Compare
draw it; the report draws the same chart from dashboard/data/timings.py."""

from __future__ import annotations

import streamlit as st

from dashboard import safe
from dashboard.data import timings
from dashboard.data.cache import View
from dashboard.layout import ui
from dashboard.views.tradeoff_charts import paired_table, timing_table
from metrics import format as fmt
from metrics import vocabulary

WORDS = vocabulary.timings
AXES = {"p95 latency": ("p95", WORDS.LATENCY), "mean latency": ("mean", WORDS.LATENCY),
        "mean cost": ("mean", WORDS.COST), "mean tokens": ("mean", WORDS.TOKENS)}


def section(view: View, loaded, metric: str, label: str, *, baseline: str | None = None,
            key: str) -> None:
    """The section, or nothing when no shown run has timings (an error reading them is
    shown with the loader's words)."""
    read = timings.timed(view, loaded, baseline)
    if read is None:
        return
    st.subheader("Effectiveness against what it costs")
    if read.error:
        st.error(safe.md(read.error), icon=":material/error:")
        return
    if read.found is None:
        st.caption(safe.md((read.summary or "") + ": none of the runs shown has timings."))
        return
    found = read.found
    offered = [name for name, (_, column) in AXES.items() if column in found.columns]
    choice = st.radio("Cost axis", offered, horizontal=True, key=f"{key}.tradeoff_axis",
                      help=vocabulary.columns.CONTROL_HELP["tradeoff_axis"])
    statistic, column = AXES[choice]
    ui.chart(timings.chart(view, read, metric, label, statistic=statistic, column=column),
             download=f"tradeoff-{statistic}-{column}-k{view.evaluation.k}")
    level = fmt.confidence(view.evaluation.conventions.confidence_level)
    for shown in found.columns:
        unit = WORDS.TIMING_COLUMNS[shown][1]
        st.markdown(f"**{safe.md(shown)}** per run ({level} intervals"
                    + (f", {unit}" if unit else "") + ")")
        st.dataframe(timing_table(found, shown), hide_index=True)
        pairs = paired_table(found, shown)
        if len(pairs):
            st.markdown(f"**{safe.md(shown)}**: each candidate against "
                        f"{safe.md(found.pairs[0].baseline)}, paired")
            st.dataframe(pairs, hide_index=True)
    st.caption(safe.md(" ".join([WORDS.QUANTILE_INTERVAL.format(level=level), WORDS.PAIRED,
                                 WORDS.QUERIES_READ])))
    lines = ([read.summary] if read.summary else []) + list(read.lines)
    if lines:
        with st.expander("Timings' load report", icon=":material/timer:"):
            st.markdown("\n".join(f"- {safe.md(line)}" for line in lines))
