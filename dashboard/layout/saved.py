"""The pieces a page draws over saved figures (an evaluation opened from `--per-query-out`,
no ranked list in memory): what is shown and from which file, what needs the runs and what to
give to get it, and the drill-down and rank movement read one query at a time from the run
files given beside the figures. Layout only: every figure is the engine's."""

from __future__ import annotations

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import SavedInputs, View
from dashboard.layout import ui
from dashboard.layout.saved_header import banner, needs_lists
from dashboard.state import picking, session
from dashboard.views import comparison_charts, frames, highlight
from metrics import format as fmt
from metrics import vocabulary

WORDS = vocabulary.saved
__all__ = ["banner", "counts", "drilldown", "needs_lists", "rank_movement", "sweep"]
MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP


def counts(view: View) -> None:
    """The Overview's end over saved figures: what was scored (the counts the file
    recorded), then which of the Overview's sections need the runs."""
    saved = view.evaluation
    st.subheader("What was scored")
    def count(n: int | None) -> str:
        return "not recorded" if n is None else f"{n:,}"

    st.dataframe(
        [{"Run": run.name, "Scored": f"{len(saved.scored_ids):,}",
          "Excluded": count(saved.excluded), "Missing": count(run.missing),
          "Repeats": count(run.repeats)}
         for run in saved.runs],
        hide_index=True,
        column_config={
            "Scored": st.column_config.TextColumn(help=MEANING["scored"]),
            "Excluded": st.column_config.TextColumn(help=MEANING["excluded"]),
            "Missing": st.column_config.TextColumn(help=MEANING["missing"]),
            "Repeats": st.column_config.TextColumn(help=MEANING["repeats"]),
        })
    st.caption(safe.md(
        f"From {saved.source}. Not shown here, since they need the runs: "
        f"{WORDS.NEEDS_LISTS['classes']}; what K costs; the load report of each file. "
        + WORDS.GIVE_RUNS))


def sweep(view: View) -> bool:
    """The K sweep over saved figures: stop, saying why, when the file holds no sweep;
    whether its bands were saved."""
    saved = view.evaluation
    if not saved.has_sweep:
        st.info(safe.md(WORDS.SWEEP_ABSENT.format(k=saved.k)), icon=":material/show_chart:")
        st.stop()
    low, high = saved.sweep_range
    bands = saved.has_sweep_bands
    st.caption(safe.md(WORDS.SWEEP_SAVED.format(
        low=low, high=high, bands=WORDS.SWEEP_BANDS_SAVED if bands else WORDS.SWEEP_NO_BANDS)))
    return bands


def _lists(view: View, query: str) -> metrics.QueryLists | None:
    """One query's lists from the files beside the figures, or None having said why not."""
    inputs = session.inputs()
    if not isinstance(inputs, SavedInputs) or not inputs.lists_given:
        st.info(safe.md(WORDS.DRILLDOWN_NEEDS), icon=":material/upload:")
        return None
    read = cache.query_lists(view, inputs, query)
    if read.error:
        st.error(safe.md(read.error), icon=":material/error:")
        return None
    found = read.lists
    shown = dict(view.shown)
    for name in found.without_file:
        if name in shown:
            st.warning(safe.md(WORDS.DRILLDOWN_MISSING_RUN.format(run=shown[name])),
                       icon=":material/upload:")
    if found.evaluation is None:
        st.warning(safe.md(f"The qrels given judge no relevant id for query {query} (or no "
                           "run file given goes with a saved run): the files are not those "
                           "the figures were computed from."), icon=":material/warning:")
        return None
    if found.disagreements:
        st.warning(safe.md(
            f"The files given give other figures for {query} than the saved ones, so they "
            "are not the files the figures were computed from: " + "; ".join(
                f"{shown.get(run, run)} {label} saved {fmt.figure(kept)}, read {fmt.figure(got)}"
                for run, label, kept, got in found.disagreements[:6])),
            icon=":material/warning:")
    else:
        st.success(safe.md(WORDS.DRILLDOWN_FROM_FILES.format(query=query, k=view.evaluation.k)
                           + " Every figure they give is the saved one."),
                   icon=":material/verified:")
    return found


def drilldown(view: View) -> None:
    """The drill-down over saved figures: any saved query's figures at K, then (with the
    qrels and the runs given beside them) its lists, read for that query alone."""
    saved = view.evaluation
    k = saved.k
    st.title("Drill-down")
    st.markdown("One query: every run's saved figures at K; with the qrels and the run files "
                "given beside the figures, its lists side by side and each run rank by rank, "
                "read from the files for this query alone.")
    banner(view)
    scored = saved.scored_ids
    search, pick = st.columns([2, 3], vertical_alignment="bottom")
    with search:
        found = picking.search_queries("drilldown", scored, None)
    with pick:
        query = picking.select_query("drilldown", found, help=HELP["drilldown_query"].format(
            excluded=saved.excluded or 0))
    st.markdown(f"### {safe.md(query)}")
    figures, added = frames.query_figures_table(saved.query_figures(query), saved)
    st.dataframe(figures, hide_index=True, column_order=[c for c in figures.columns
                                                         if c != "Class"],
                 column_config={"Run": st.column_config.TextColumn(pinned=True)}
                 | {column: ui.number_column(column, MEANING["query_figures"])
                    for column in figures.columns if column not in ("Run", "Class")})
    if added is not None:
        st.dataframe(added)
    classes = WORDS.NEEDS_LISTS["classes"]
    st.caption(safe.md(f"Saved in {saved.source} at K = {k}. Not saved: {classes}."))
    found_lists = _lists(view, query)
    if found_lists is None:
        return
    one = found_lists.evaluation
    whole = st.toggle("Whole list", key="drilldown.whole",
                      help=HELP["whole_list"].format(k=k, longest=metrics.list_length(one, query)))
    depth = max(metrics.list_length(one, query), k) if whole else k
    if len(one.runs) > 1:
        st.subheader("Two runs side by side")
        names = one.run_names
        session.choose("drilldown.a", names, names[0])
        left, right = st.columns(2)
        a = left.selectbox("Left", names, key="drilldown.a", help=HELP["side_a"])
        others = [n for n in names if n != a]
        session.choose("drilldown.b", others, others[0])
        b = right.selectbox("Right", others, key="drilldown.b", help=HELP["side_b"])
        side = metrics.side_by_side(one, a, b, query, depth)
        st.html(highlight.side_by_side_html(side, a, b, None, None,
                                            vocabulary.readings.where_in))
    st.subheader("Each run, rank by rank")
    for run in one.runs:
        x = metrics.explain_run(one, run, query, depth)
        with st.container(border=True):
            st.markdown(f"#### {safe.md(run.name)}")
            st.dataframe(x.ranks, hide_index=True, placeholder="",
                         column_order=["rank", "doc_id", "label", "gain", "DCG"],
                         column_config={
                             "rank": st.column_config.NumberColumn("Rank"),
                             "doc_id": st.column_config.TextColumn("Id"),
                             "label": st.column_config.TextColumn(
                                 "Grade · status", help=MEANING["grade_status"]),
                             "gain": ui.number_column(
                                 "Gain", one.conventions.sentences()["gain"]),
                             "DCG": ui.number_column("DCG", MEANING["running_dcg"])})
            st.markdown("\n".join(f"- **{name}** · {x.sentences[key]}" for key, name in
                                  (("ndcg", "nDCG"), ("ap", "AP"), ("rr", "RR"))))


def rank_movement(view: View, comparison, candidate: str, query: str) -> None:
    """Compare's rank movement over saved figures: the query's two lists read on demand."""
    found = _lists(view, query)
    if found is None:
        return
    one = found.evaluation
    if comparison.baseline not in one.run_names or candidate not in one.run_names:
        return
    k = view.evaluation.k
    depth = max(min(metrics.list_length(one, query), 2 * k), k)
    movement = metrics.rank_movement(one, comparison.baseline, candidate, query, depth)
    ui.chart(comparison_charts.rank_slope(movement, k=k, depth=depth,
                                          baseline=comparison.baseline, candidate=candidate,
                                          query_id=query),
             download=f"rank-movement-{query}")
    st.markdown(safe.md(metrics.movement_sentence(movement, candidate, k)))
    st.dataframe(movement, hide_index=True, placeholder="—")
