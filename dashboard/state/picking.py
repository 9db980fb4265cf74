"""The selected query, shared by every page that picks one (and by the URL's `query`), and
the search that narrows the pickers (the URL's `find`)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

import metrics
from dashboard import safe
from dashboard.state import link
from dashboard.state.session import QUERY, SEARCH, shorten


def set_query(query_id: str) -> None:
    st.session_state[QUERY] = query_id


def pick_from_chart(key: str) -> None:
    """on_select of a chart whose points carry a query_id: the clicked query becomes the
    selected one (shared with the drill-down)."""
    points = st.session_state[key]["selection"].get("query", [])
    if points and points[0].get("query_id"):
        set_query(points[0]["query_id"])


def pick_from_rows(key: str, ids: list[str]) -> None:
    """on_select of a table with one row per query of `ids`: the clicked row's query becomes
    the selected one."""
    rows = st.session_state[key].selection.rows
    if rows:
        set_query(ids[rows[0]])


def search_queries(area: str, query_ids: list[str], queries: metrics.Queries | None
                   ) -> list[str]:
    """A search box (its words shared across pages and in the URL's `find`) and the ids of
    `query_ids` it finds, in order; every id when it is empty or finds none (and says so)."""
    key = f"{area}.search"
    words = st.session_state.get(SEARCH, "")
    opened = link.revealed()
    if words and opened in query_ids and opened not in metrics.find_queries(query_ids, words,
                                                                            queries):
        # the search typed earlier would hide the query a link opened: the link wins
        st.info(f"The search {safe.md(repr(shorten(words)))} was cleared: it hid "
                f"{safe.md(shorten(opened))}, which the link opened.", icon=":material/link:")
        words = st.session_state[SEARCH] = ""
    st.session_state[key] = words
    words = st.text_input(
        "Find a query", key=key, placeholder="id or words of its text" if queries else "id",
        on_change=lambda: st.session_state.__setitem__(SEARCH, st.session_state[key]),
        help=metrics.SEARCH_RULE)
    found = metrics.find_queries(query_ids, words, queries)
    if not found:
        st.warning(f"No query matches {safe.md(repr(shorten(words)))}: every query is listed.",
                   icon=":material/search_off:")
        return list(query_ids)
    return found


def select_query(area: str, options: list[str], *, label: str = "Query",
                 format_func: Callable[[str], str] = str, help: str | None = None) -> str:
    """A query picker that shares its value (and the URL's `query`) across pages; an
    unknown query (a link to other data, say) falls back to the first, and says so."""
    current = st.session_state.get(QUERY)
    link.shown_revealed()
    if current not in options:
        if current is not None:
            st.warning(f"Query {safe.md(shorten(str(current)))} is not among the scored "
                       f"queries listed here (these data, the filter and the search): showing "
                       f"{safe.md(options[0])}.", icon=":material/link_off:")
        current = options[0]
        st.session_state[QUERY] = current
    key = f"{area}.query"
    if st.session_state.get(key) != current:
        # only when another page, a link or a button chose it: a value set by the script is
        # sent to the browser again, which redraws the picker's thousands of options
        st.session_state[key] = current
    return st.selectbox(label, options, key=key, format_func=format_func, help=help,
                        on_change=lambda: set_query(st.session_state[key]))
