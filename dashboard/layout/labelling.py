"""Judging inline: a grade for each unjudged id the drill-down shows, the grades given in the
session, their files (alone and merged with the loaded qrels) and what they would change.
Nothing here changes the loaded files: the grades live in the session (state/session.py)
until they are downloaded, and every page keeps reading the loaded qrels."""

from __future__ import annotations

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import View
from dashboard.layout import ui
from dashboard.state import session
from dashboard.views import frames
from metrics import vocabulary

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP
WORDS = vocabulary.labelling
LOWEST_TOP_GRADE = 3  # the grades offered run from 0 to the qrels' highest, at least this


def grades_offered(view: View) -> list[int]:
    top = int(view.qrels.grade.max(initial=0)) if len(view.qrels.grade) else 0
    return list(range(0, max(top, LOWEST_TOP_GRADE) + 1))


def judge(view: View, query: str, unjudged: list[tuple[str, int | None, int | None]],
          a: str, b: str, corpus: metrics.Corpus | None) -> None:
    """A grade control for each unjudged id of two lists side by side."""
    if not unjudged:
        st.caption(f"Every id in these two top {view.evaluation.k} is judged: nothing to grade.")
        return
    with st.expander(f"Grade the {len(unjudged):,} unjudged id"
                     f"{'s' if len(unjudged) != 1 else ''} above", icon=":material/rate_review:",
                     expanded=True):
        st.caption(safe.md(WORDS.ONLY_UNJUDGED) + " " + safe.md(WORDS.MY_LABELS))
        mine = session.my_labels(view.qrels_key)
        options = [str(g) for g in grades_offered(view)]
        for doc, in_a, in_b in unjudged:
            left, right = st.columns([3, 2], vertical_alignment="center")
            where = "; ".join(vocabulary.readings.where_in(run, rank)
                              for run, rank in ((a, in_a), (b, in_b)))
            title = corpus.title(doc) if corpus is not None else None
            left.markdown(f"**{safe.md(doc)}**")
            left.caption(safe.md(where + (f" · {' '.join(title.split())}" if title else "")))
            key = f"judge.{query}.{doc}"
            st.session_state[key] = (str(mine[(query, doc)]) if (query, doc) in mine
                                     else None)
            # the label is hidden, and read out as written (its aria-label): safe.label
            right.segmented_control(
                f"Grade of {safe.label(doc)}", options, key=key, label_visibility="collapsed",
                help=HELP["judge"],
                on_change=_graded, args=(view.qrels_key, query, doc, key))


def _graded(qrels_key: str, query: str, doc: str, key: str) -> None:
    value = st.session_state.get(key)
    session.set_label(qrels_key, query, doc, None if value is None else int(value))


def my_labels(view: View) -> None:
    """The grades given in the session: listed, downloadable alone or merged, and what they
    would change if the qrels held them."""
    mine = session.my_labels(view.qrels_key)
    if not mine:
        return
    st.subheader(f"Your labels ({len(mine):,})")
    st.caption(safe.md(WORDS.MY_LABELS))
    st.dataframe(frames.labels_table(mine), hide_index=True, column_config={
        "query_id": st.column_config.TextColumn("Query"),
        "doc_id": st.column_config.TextColumn("Id"),
        "grade": st.column_config.NumberColumn("Your grade", help=MEANING["my_grade"])})
    try:
        alone, merged = metrics.labels_qrels(mine), metrics.merged_qrels(view.qrels, mine)
    except ValueError as error:  # an id a TREC line cannot hold: the CSV carries it
        st.caption(safe.md(str(error)))
        alone = merged = None
    with st.container(horizontal=True):
        if alone is not None:
            ui.download_button("My labels (TREC qrels)", lambda: alone, "my-labels.qrels",
                               "text/plain", key="labels.mine", help=HELP["my_labels_qrels"])
            ui.download_button("Qrels + my labels (TREC qrels)", lambda: merged,
                               "qrels-with-my-labels.qrels", "text/plain", key="labels.merged",
                               help=HELP["merged_qrels"])
        ui.download_button("My labels (CSV)", lambda: safe.csv_text(frames.labels_table(mine)),
                           "my-labels.csv", "text/csv", key="labels.csv")
        st.button("Clear my labels", key="labels.clear", icon=":material/delete:",
                  help=HELP["clear_labels"], on_click=session.clear_labels,
                  args=(view.qrels_key,))
    if st.toggle("Rescore with my labels", key="labels.rescore", help=HELP["rescore"]):
        rescored = cache.rescored(view, mine)
        st.markdown(safe.md(rescored.sentence))
        st.dataframe(frames.rescored_table(rescored, view.evaluation), hide_index=True,
                     column_config={
                         "run": st.column_config.TextColumn("Run", pinned=True),
                         "metric": st.column_config.TextColumn("Metric"),
                         "before": ui.number_column("Loaded qrels", MEANING["rescored_before"]),
                         "after": ui.number_column("With my labels", MEANING["rescored_after"]),
                         "difference": ui.signed_column("Change"),
                     })
