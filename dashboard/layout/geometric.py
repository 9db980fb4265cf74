"""The summaries that are not means (gm_map) drawn as the Overview and Compare show them: a
table each of every run's value over its interval and its paired difference against the
baseline, its rule beneath; where they cannot be computed (standardised figures), why."""

from __future__ import annotations

import streamlit as st

from dashboard import safe
from dashboard.data import geometric
from dashboard.data.cache import View


def tables(view: View, baseline: str | None = None,
           candidates: tuple[str, ...] | None = None) -> None:
    """Each summary the view asks for (none: nothing drawn), the runs as
    data.geometric.geometric_tables takes them."""
    for found in geometric.geometric_tables(view, baseline, candidates):
        st.subheader(f"{safe.md(found.key)}: geometric mean over the queries")
        if found.problem:
            st.info(safe.md(f"{found.key} is not shown: {found.problem}"),
                    icon=":material/info:")
            continue
        st.dataframe(list(found.rows), hide_index=True)
        st.caption(safe.md(found.sentence))
