"""Drift: each metric over frozen snapshots of the same query set, beside the live figures."""

import streamlit as st

from dashboard import safe
from dashboard.data import drift as drifted
from dashboard.data import history as histories
from dashboard.layout import saved, ui
from dashboard.state import opening, session
from dashboard.views import chart_base, comparison_charts, frames, history_charts
from metrics import SUMMARY_MEASURES, vocabulary

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP

view = ui.page(
    "Drift",
    "Re-scoring one frozen query set over time is how retrieval drift is read. Each snapshot "
    "loaded in the sidebar is set beside the live figures, metric by metric, but only if it "
    "was scored on the same query set and labels, at the same K, under the same conventions.",
)
saved.needs_lists(view, "snapshots")  # saved figures: this page reads the lists
evaluation = view.unfiltered  # a snapshot freezes every query: drift reads them all
k = evaluation.k
if view.whole is not None:
    st.info(f"Drift reads every query of the set, not the sidebar's filter "
            f"({safe.md(view.evaluation.scope)}): snapshots freeze the whole query set.",
            icon=":material/filter_alt_off:")


def history_section() -> None:
    """A history store (`retrieval-compare history append`): each figure over its entries,
    with the changes more than noise marked."""
    given = opening.command_line().history
    with st.expander("History store", icon=":material/timeline:", expanded=given is not None):
        st.caption("A store `retrieval-compare history append --store DIR` writes: load its "
                   "index.jsonl with its snapshot files (snapshots/*.json), or open the "
                   "dashboard with `-- --history DIR`.")
        uploads = st.file_uploader("Load a history store", type=["jsonl", "json"],
                                   accept_multiple_files=True, key="history.files",
                                   help=HELP["load_history"])
    if uploads:
        found = histories.from_uploads(uploads)
    elif given is not None:
        found = histories.from_directory(given)
    else:
        return
    st.subheader("History")
    if found.error:
        st.error(safe.md(found.error), icon=":material/block:")
        return
    names = tuple(dict.fromkeys(found.frame["run"]))
    runs = chart_base.run_scale(names)
    st.caption(safe.md(f"{found.entries} entries of {found.source}, oldest first. "
                       f"{found.method}"))
    ui.chart(history_charts.trend_lines(found.frame, runs, k=found.k,
                                        labels=list(found.labels)),
             download=f"history-k{found.k}")


history_section()
loaded = session.snapshots()
if not loaded:
    st.info(
        "No snapshot loaded. To read drift, save a snapshot now (sidebar, **Snapshots** → "
        "**Save snapshot**, or `python -m metrics snapshot … --out FILE`), re-score the same "
        "query set later, and load the earlier snapshots there: each is drawn here beside the "
        "live figures.",
        icon=":material/history:",
    )
    st.stop()

found = drifted.drift(view, loaded)  # the sidebar sets K and the conventions to compare under
live, comparable = found.live, found.comparable
for snapshot, message in found.refused:
    with st.container(border=True):
        st.error(f"**{safe.md(snapshot.file_name)}** is not drawn: {safe.md(message)}",
                 icon=":material/block:")
        values, fixed = session.snapshot_settings(snapshot.data)
        changes = session.settings_changes(values)
        advice = []
        if snapshot.data.query_set_fingerprint != live.query_set_fingerprint:
            advice.append("Load the qrels this snapshot was scored with: the labels loaded now "
                          "are another query set, and no setting can make them comparable.")
        if changes:
            advice.append("Set the sidebar as the snapshot was scored: " + "; ".join(changes)
                          + ".")
        if fixed:
            advice.append(f"The snapshot used {' and '.join(fixed)} other than the dashboard's; "
                          "re-score with the command line's --seed to compare.")
        st.markdown("**What to change.** " + " ".join(advice))
        if changes:
            st.button("Use the snapshot's K and conventions", key=f"drift.apply.{snapshot.key}",
                      on_click=session.apply_settings, args=(values,),
                      icon=":material/settings_backup_restore:",
                      help=HELP["apply_snapshot"])
if not comparable:
    st.stop()

if found.error:  # the engine's refusal, should two snapshots disagree
    st.error(safe.md(found.error), icon=":material/block:")
    st.stop()
drift, points = found.frame, list(found.points)
names = tuple(dict.fromkeys(drift["run"]))
runs = chart_base.run_scale(view.colour_domain + tuple(n for n in names
                                                   if n not in view.colour_domain))
labels = [evaluation.label(m.key) for m in SUMMARY_MEASURES]
st.caption(f"{len(comparable)} snapshot{'s' if len(comparable) != 1 else ''} of this query set "
           f"at K = {k} under these conventions, oldest first, then the live figures.")
ui.chart(comparison_charts.drift_lines(drift, runs, k=k, labels=labels, points=points),
         download=f"drift-k{k}")

st.subheader("Every figure")
# one metric at a time: nine "mean [low, high]" columns would not fit beside the snapshot's
# name at 1280 px
shown = st.selectbox("Metric", labels, key="drift.table_metric",
                     help=HELP["drift_metric"])
table = frames.drift_table(drift)
st.dataframe(
    table,
    hide_index=True,
    column_order=["Snapshot", "Run", shown, "Lists"],
    column_config={
        "Snapshot": st.column_config.TextColumn(pinned=True, help=MEANING["snapshot"]),
        "Lists": st.column_config.TextColumn("Lists fingerprint",
                                             help=MEANING["lists_fingerprint"]),
    }
    | {label: st.column_config.TextColumn(label, help=MEANING["mean_interval"])
       for label in labels},
)
