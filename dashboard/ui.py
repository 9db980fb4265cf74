"""Pieces every page uses: the view or a clear stop, the header that states K and the
conventions, score columns, and how a chart is placed. Layout only; no arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import streamlit as st

from dashboard import cache, exports, safe, session
from dashboard.cache import View
from metrics import format as fmt

SCORE_FORMAT = "%.3f"  # three decimals everywhere
DRILLDOWN = "app_pages/drilldown.py"  # page paths for links, relative to app.py
EXPORT = "app_pages/export.py"
IMAGES = {  # format -> (renderer, MIME type)
    "PNG": (exports.chart_png, "image/png"),
    "SVG": (exports.chart_svg, "image/svg+xml"),
}


def require_view() -> View:
    view = session.view()
    if view is None:
        st.info("Nothing to show yet: load a qrels file and at least one run in the sidebar, "
                "or pick the bundled sample.", icon=":material/info:")
        st.stop()
    if not view.evaluation.scored_ids:
        st.warning("No query of the qrels has a relevant id, so nothing can be scored: check "
                   "the grades and the relevance level in the sidebar's conventions.",
                   icon=":material/warning:")
        st.stop()
    return view


def conventions_line(view: View) -> str:
    """K, the query set, the baseline and every convention, in one line."""
    evaluation = view.evaluation
    excluded = evaluation.excluded_ids
    return " · ".join([
        f"**K = {evaluation.k}**",
        fmt.count(len(evaluation.scored_ids), "scored query")
        + (f" ({len(excluded):,} excluded: {safe.md(fmt.listing(excluded, 5))})"
           if excluded else ""),
        f"baseline **{safe.md(view.baseline)}**",
        *evaluation.conventions.in_words(),
    ])


def page(title: str, intro: str) -> View:
    """Every page's top: the view (or a clear stop), the title, what the page shows, and the
    line stating K and the conventions."""
    view = require_view()
    header(title, view, intro)
    return view


def header(title: str, view: View, intro: str) -> None:
    st.title(title)
    st.markdown(intro)
    st.caption(conventions_line(view))
    for finding in cache.id_mismatches(view.key, view.evaluation):
        st.warning(safe.md(finding.sentence), icon=":material/link_off:")
    with st.popover("Conventions behind these numbers", icon=":material/rule:"):
        for sentence in view.evaluation.conventions.sentences().values():
            st.markdown(f"- {sentence}")


def progress(label: str, help: str | None = None) -> st.column_config.Column:
    """A [0, 1] score as a progress bar with three decimals."""
    return st.column_config.ProgressColumn(label, help=help, format=SCORE_FORMAT,
                                           min_value=0.0, max_value=1.0)


def number_column(label: str, help: str | None = None, *, width: int | str | None = None
                  ) -> st.column_config.Column:
    return st.column_config.NumberColumn(label, help=help, format=SCORE_FORMAT, width=width)


def chart(figure: alt.TopLevelMixin, *, stretch: bool = False, download: str | None = None,
          **kwargs):
    """Charts follow the app's theme (light or dark); faceted ones keep their own width.

    With `download` (a file stem, unique on the page), PNG and SVG buttons follow the chart;
    the image is rendered (vl-convert, the report's renderer) only when a button is clicked.
    """
    shown = st.altair_chart(figure, width="stretch" if stretch else "content",
                            theme="streamlit", **kwargs)
    if download:
        with st.container(horizontal=True, gap="small"):
            for kind, (render, mime) in IMAGES.items():
                download_button(kind, lambda render=render: render(figure),
                                f"{download}.{kind.lower()}", mime,
                                key=f"download.{download}.{kind.lower()}",
                                help=f"This chart as a {kind} image, rendered when you click "
                                "(as the report draws it, in the light theme).",
                                type="tertiary")
    return shown


def download_button(label: str, data: Callable[[], str | bytes], file_name: str, mime: str,
                    *, key: str, help: str | None = None, type: str = "secondary") -> None:
    """A download whose file is made only when the button is clicked (Streamlit runs `data`
    then, on its own thread), and whose click does not rerun the page."""
    st.download_button(label, data, file_name=file_name, mime=mime, key=key, help=help,
                       on_click="ignore", icon=":material/download:", type=type)


def open_in_drilldown(query_id: str) -> None:
    """A link to the drill-down of the selected query. A link, not st.switch_page: switching
    pages from Python clears every widget (the sidebar's uploads and settings included)."""
    st.page_link(DRILLDOWN, label=f"Open {safe.md(query_id)} in the drill-down",
                 icon=":material/search:")
