"""Pieces every page uses: the view or a clear stop, the header that states K and the
conventions, score columns, and how a chart is placed. Layout only; no arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import altair as alt
import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import View
from dashboard.report import exports
from dashboard.state import session
from metrics import FORMAT_EXAMPLES, sample_qrels, sample_runs, vocabulary
from metrics import format as fmt

SCORE_FORMAT = "%.3f"  # three decimals everywhere
HELP = vocabulary.columns.CONTROL_HELP
DRILLDOWN = "app_pages/drilldown.py"  # page paths for links, relative to app.py
EXPORT = "app_pages/export.py"
IMAGES = {  # format -> (renderer, MIME type)
    "PNG": (exports.chart_png, "image/png"),
    "SVG": (exports.chart_svg, "image/svg+xml"),
}


def require_view() -> View:
    view = session.view()
    if view is None:
        nothing_yet()
        st.stop()
    if not view.evaluation.scored_ids:
        st.warning("No query of the qrels has a relevant id, so nothing can be scored: check "
                   "the grades and the relevance level in the sidebar's conventions.",
                   icon=":material/warning:")
        st.stop()
    return view


def nothing_yet() -> None:
    """What the main area says before anything can be scored: why, and how to start."""
    linked, inputs, lost = session.linked_files(), session.inputs(), session.uploads_lost()
    if lost:
        st.warning("The files uploaded to this page are gone: the server restarted, or this "
                   "session ended, and uploads live in the server's memory only. Upload them "
                   f"again in the sidebar under My files: {safe.md(', '.join(lost))}. K, the "
                   "conventions, the runs shown and their names are kept.",
                   icon=":material/cloud_off:")
    elif linked:
        st.info("This link shows uploaded files, which a link cannot carry: upload them again "
                f"in the sidebar under My files: {safe.md(', '.join(linked))}. The link "
                "keeps K, the conventions, the runs shown and their names.",
                icon=":material/upload:")
    elif inputs is not None and inputs.qrels is not None and inputs.qrels.error:
        st.error(f"The qrels file was refused, so nothing can be scored: "
                 f"{safe.md(inputs.qrels.error)}", icon=":material/error:")
    elif inputs is not None and inputs.problem:
        st.error(safe.md(inputs.problem), icon=":material/error:")
    else:
        st.info("Nothing to show yet: load a qrels file and at least one run in the sidebar, "
                "or pick the bundled sample.", icon=":material/info:")
    if st.session_state.get(session.SOURCE_KEY) == cache.UPLOAD:
        accepted_formats()


def accepted_formats() -> None:
    """Every accepted format with a few lines of it, and the sample's files to start from."""
    st.subheader("What to upload")
    st.markdown("A **qrels** file (the labels: which ids are relevant to each query, with a "
                "grade) and one **run** per retriever (each query's ids in rank order), over "
                "the same query ids. Gzipped files (.gz) are read too; the format is told "
                "from the content.")
    for kind, title in (("qrels", "Qrels"), ("run", "Runs")):
        st.markdown(f"**{title}**")
        examples = [e for e in FORMAT_EXAMPLES if e.kind == kind]
        for column, example in zip(st.columns(len(examples)), examples, strict=True):
            with column:
                st.caption(f"{example.name}: {example.columns}")
                st.code(example.text, language=None)
    st.markdown("**Start from the sample** (seed 000: 10 queries, 3 runs):")
    with st.container(horizontal=True):
        for path in (sample_qrels(), *(Path(spec.source) for spec in sample_runs())):
            download_button(path.name, path.read_bytes, path.name, "text/plain",
                            key=f"sample.{path.name}")


def conventions_line(view: View) -> str:
    """K, the query set, the baseline and every convention, in one line."""
    evaluation = view.evaluation
    excluded = evaluation.excluded_ids
    scored = (f"**{safe.md(evaluation.scope)}**" if evaluation.scope
              else fmt.count(len(evaluation.scored_ids), "scored query"))
    return " · ".join([
        f"**K = {evaluation.k}**",
        scored + (f" ({len(excluded):,} excluded: {safe.md(fmt.listing(excluded, 5))})"
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
    for finding in cache.id_mismatches(view):
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
                                help=HELP["chart_image"].format(kind=kind),
                                type="tertiary")
    return shown


def download_button(label: str, data: Callable[[], str | bytes], file_name: str, mime: str,
                    *, key: str, help: str | None = None, type: str = "secondary") -> None:
    """A download whose file is made only when the button is clicked (Streamlit runs `data`
    then, on its own thread), and whose click does not rerun the page."""
    st.download_button(label, data, file_name=file_name, mime=mime, key=key, help=help,
                       on_click="ignore", icon=":material/download:", type=type)


def query_labels(view: View, query_ids: list[str], limit: int = 70) -> dict[str, str]:
    """Each query's id, then the start of its text when a queries file gives one: what a
    query picker shows (a selectbox's option is plain text, not Markdown)."""
    texts = query_texts(view, query_ids, limit)
    return {q: f"{q} · {texts[q]}" if texts[q] else q for q in query_ids}


def query_texts(view: View, query_ids: list[str], limit: int = 500) -> dict[str, str]:
    """Each query's text on one line ("" without one), cut at `limit` characters: what a
    tooltip or a table cell shows whole."""
    def line(query_id: str) -> str:
        words = " ".join((view.text(query_id) or "").split())
        return words if len(words) <= limit else words[:limit - 1] + "…"
    return {query_id: line(query_id) for query_id in query_ids}


def open_in_drilldown(query_id: str) -> None:
    """A link to the drill-down of the selected query. A link, not st.switch_page: switching
    pages from Python clears every widget (the sidebar's uploads and settings included)."""
    st.page_link(DRILLDOWN, label=f"Open {safe.md(query_id)} in the drill-down",
                 icon=":material/search:")
