"""Per-query heatmap: queries x runs (x metrics), colour = score at K; a click drills down."""

import functools

import streamlit as st

from dashboard import charts, frames, session, ui
from metrics import CLASS_MEANING, QUERY_CLASSES, SUMMARY_MEASURES

MOST_ROWS = 500  # queries a page of the chart draws at most; the table view holds them all
CHART = "heatmap.chart"


view = ui.page(
    "Per-query heatmap",
    "Where the runs differ, query by query. Each cell is one query's score at K; the strip "
    "on the left is each run's query class. Click a cell to pick its query, then open it in "
    "the drill-down.",
)
evaluation = view.evaluation
k = evaluation.k

measures = {m.key: m for m in SUMMARY_MEASURES}
c1, c2, c3, c4, c5 = st.columns([1.8, 2.7, 0.9, 0.9, 1.5], vertical_alignment="bottom")
key = c1.selectbox(
    "Metric",
    list(measures),
    index=list(measures).index("nDCG"),
    format_func={key: f"{m.label(k, summary=False)} · {m.name}" for key, m in measures.items()}.get,
    key="heatmap.metric",
    help="Colours the cells and drives the sort.",
)
sort = c2.selectbox("Sort queries by", list(frames.SORTS), key="heatmap.sort",
                    help="Ties keep the query-id order.")
n_queries = len(evaluation.scored_ids)
most = min(n_queries, MOST_ROWS)
session.bounded("heatmap.rows", 1, most, default=40)
rows = int(c3.number_input("Per page", min_value=1, max_value=most, step=10,
                           key="heatmap.rows",
                           help=f"Queries a page of the chart shows, at most {MOST_ROWS}; the "
                           "table view below holds every scored query."))
pages = -(-n_queries // rows)
session.bounded("heatmap.page", 1, pages, default=1)
page = int(c4.number_input("Page", min_value=1, max_value=pages, step=1, key="heatmap.page",
                           help=f"{pages:,} pages of {rows:,} queries in the chosen order: page "
                           "1 starts with the first."))
every = c5.toggle("All metrics", key="heatmap.every",
                  help="One panel per metric instead of the chosen one only.")

ordered = frames.query_order(evaluation, key, frames.SORTS[sort])
start = (page - 1) * rows
order = ordered[start:start + rows]
keys = list(measures) if every else [key]
every_cell = frames.query_cells(evaluation, keys)
cells = every_cell[every_cell["query_id"].isin(order)]
labels = [measures[k_].label(k, summary=False) for k_ in keys]
ui.chart(
    charts.query_heatmap(cells, order=order, runs=evaluation.run_names, labels=labels, k=k),
    download=f"heatmap-k{k}",
    key=CHART,
    on_select=functools.partial(session.pick_from_chart, CHART),
    selection_mode="query",
)
st.caption(f"Showing queries {start + 1:,}–{start + len(order):,} of {n_queries:,} scored "
           f"queries (page {page:,} of {pages:,}), sorted by {sort}. Classes: "
           + " · ".join(f"**{c.replace('_', ' ')}**: {CLASS_MEANING[c]}" for c in QUERY_CLASSES))

left, right = st.columns([3, 2], vertical_alignment="bottom")
with left:
    query = session.select_query("heatmap", ordered, label="Query (click a cell, or pick it here)",
                                 format_func=ui.query_labels(view, ordered).get)
with right:
    ui.open_in_drilldown(query)

with st.expander(f"Table view: every scored query, sorted by {sort}", icon=":material/table:"):
    chosen = every_cell[every_cell["key"] == key]
    table = (
        chosen.pivot(index="query_id", columns="run", values="value")
        .loc[ordered, evaluation.run_names]
        .reset_index()
    )
    classes = chosen.pivot(index="query_id", columns="run", values="class")
    table.insert(1, f"class ({view.baseline})", classes.loc[ordered, view.baseline].to_numpy())
    help_text = frames.measure_help(evaluation, key)
    st.dataframe(
        table,
        hide_index=True,
        column_config={"query_id": st.column_config.TextColumn("Query", pinned=True)}
        | {run: ui.progress(f"{run} · {measures[key].label(k, summary=False)}", help_text)
           for run in evaluation.run_names},
    )
