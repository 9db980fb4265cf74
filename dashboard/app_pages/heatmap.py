"""Per-query heatmap: queries x runs (x metrics), colour = score at K; a click drills down."""

import functools

import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.layout import ui
from dashboard.state import picking, session
from dashboard.views import charts, frames
from metrics import CLASS_MEANING, QUERY_CLASSES, vocabulary

MOST_ROWS = 500  # queries a page of the chart draws at most; the table view holds them all
CHART = "heatmap.chart"
ROW_TEXT = 36  # characters of a row's label: its id and the start of its question
MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP


view = ui.page(
    "Per-query heatmap",
    "Where the runs differ, query by query. Each cell is one query's score at K"
    + ("" if cache.without_lists(session.view()) else
       "; the strip on the left is each run's query class")
    + ". Click a cell to pick its query, then open it in the drill-down.",
)
evaluation = view.evaluation
k = evaluation.k
classes_known = not cache.without_lists(view)  # saved figures hold no query classes
sorts = {name: how for name, how in frames.SORTS.items() if classes_known or how != "class"}

# the figures shown that colour on the 0-1 scale (a count does not)
measures = {s.key: s for s in evaluation.summary_specs if s.measure.bounded}
with st.columns([2, 3])[0]:
    found = picking.search_queries("heatmap", evaluation.scored_ids, view.queries)
c1, c2, c3, c4, c5 = st.columns([1.8, 2.7, 0.9, 0.9, 1.5], vertical_alignment="bottom")
session.relabelled("heatmap.metric")
key = c1.selectbox(
    "Metric",
    list(measures),
    index=list(measures).index("nDCG"),
    format_func={key: f"{evaluation.label(key, summary=False)} · {s.measure.name}"
                 for key, s in measures.items()}.get,
    key="heatmap.metric",
    help=HELP["heatmap_metric"],
)
if not classes_known:  # a link may ask for the class order
    session.choose("heatmap.sort", list(sorts), next(iter(sorts)))
sort = c2.selectbox("Sort queries by", list(sorts), key="heatmap.sort",
                    help=HELP["heatmap_sort"])
searched = tuple(found) if len(found) < len(evaluation.scored_ids) else None


# what the page builds is kept per view and choice (cache.derived): paging, or coming back
# to a K or a run shown before, redraws it without building it again. Each is a function of
# the view, so that the K either side of this one is built ahead too (session.at_next_ks)
def ordered_in(v: cache.View) -> list[str]:
    def in_order() -> list[str]:
        ordered = frames.query_order(v.evaluation, key, sorts[sort])
        if searched is not None:  # the search's queries, in the chosen order
            kept = set(searched)
            ordered = [query for query in ordered if query in kept]
        return ordered
    return cache.derived(v, "query order", (key, sort, searched), in_order)


ordered = ordered_in(view)
n_queries = len(ordered)
most = min(n_queries, MOST_ROWS)
session.bounded("heatmap.rows", 1, most, default=40)
rows = int(c3.number_input("Per page", min_value=1, max_value=most, step=10,
                           key="heatmap.rows",
                           help=HELP["rows_per_page"].format(most=MOST_ROWS)))
pages = -(-n_queries // rows)
session.bounded("heatmap.page", 1, pages, default=1)
page = int(c4.number_input("Page", min_value=1, max_value=pages, step=1, key="heatmap.page",
                           help=HELP["page"].format(pages=pages, rows=rows)))
every = c5.toggle("All metrics", key="heatmap.every",
                  help=HELP["every_metric"])

start = (page - 1) * rows
order = ordered[start:start + rows]
keys = list(measures) if every else [key]


def cells_in(v: cache.View):
    return cache.derived(v, "query cells", (tuple(keys),),
                         lambda: frames.query_cells(v.evaluation, keys))


def heatmap_in(v: cache.View, order: list[str]):
    def heatmap():
        every = cells_in(v)
        cells = every[every["query_id"].isin(order)]
        labels = [v.evaluation.label(k_, summary=False) for k_ in keys]
        row_labels = None
        if v.queries is not None:  # rows named by the start of the question, all on hover
            row_labels = ui.query_labels(v, order, limit=ROW_TEXT)
            cells = cells.assign(text=cells["query_id"].map(ui.query_texts(v, order)))
        return charts.query_heatmap(cells, order=order, runs=v.evaluation.run_names,
                                    labels=labels, k=v.evaluation.k, row_labels=row_labels)
    return cache.derived(v, "heatmap", (tuple(keys), tuple(order)), heatmap)


every_cell = cells_in(view)
session.at_next_ks(lambda at: heatmap_in(at, ordered_in(at)[start:start + rows]))
ui.chart(
    heatmap_in(view, order),
    download=f"heatmap-k{k}",
    key=CHART,
    on_select=functools.partial(picking.pick_from_chart, CHART),
    selection_mode="query",
)
found_words = (f" found by {safe.md(repr(st.session_state[session.SEARCH]))} among "
               f"{len(evaluation.scored_ids):,}" if n_queries < len(evaluation.scored_ids) else "")
st.caption(f"Showing queries {start + 1:,}–{start + len(order):,} of {n_queries:,} scored "
           f"queries{found_words} (page {page:,} of {pages:,}), sorted by {sort}. "
           + ("Classes: " + " · ".join(f"**{c.replace('_', ' ')}**: {CLASS_MEANING[c]}"
                                       for c in QUERY_CLASSES) if classes_known
              else f"No class strip: {vocabulary.saved.NEEDS_LISTS['classes']}."))

left, right = st.columns([3, 2], vertical_alignment="bottom")
with left:
    named = cache.derived(view, "query labels", (key, sort, searched),
                          lambda: ui.query_labels(view, ordered))
    query = picking.select_query("heatmap", ordered, label="Query (click a cell, or pick it here)",
                                 format_func=named.get)
with right:
    ui.open_in_drilldown(query)

with st.expander(f"Table view: every query listed above, sorted by {sort}",
                 icon=":material/table:"):
    def listed():
        chosen = every_cell[every_cell["key"] == key]
        table = (
            chosen.pivot(index="query_id", columns="run", values="value")
            .loc[ordered, evaluation.run_names]
            .reset_index()
        )
        if classes_known:  # saved figures hold no query class
            classes = chosen.pivot(index="query_id", columns="run", values="class")
            table.insert(1, f"class ({view.baseline})",
                         classes.loc[ordered, view.baseline].to_numpy())
        if view.queries is not None:
            table.insert(1, "question", list(ui.query_texts(view, ordered).values()))
        return table

    table = cache.derived(view, "heatmap table", (key, sort, searched), listed)
    help_text = frames.measure_help(evaluation, key)
    st.dataframe(
        table,
        hide_index=True,
        column_config={"query_id": st.column_config.TextColumn("Query", pinned=True),
                       "question": st.column_config.TextColumn(
                           "Question", width="medium", help=MEANING["question"])}
        | {run: ui.progress(f"{run} · {evaluation.label(key, summary=False)}", help_text)
           for run in evaluation.run_names},
    )
