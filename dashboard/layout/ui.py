"""Pieces every page uses: the view or a clear stop, the header that states K and the
conventions, score columns, and how a chart is placed. Layout only; no arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import altair as alt
import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import View
from dashboard.layout import saved_header
from dashboard.report import exports
from dashboard.state import link, session
from dashboard.views import frames, vega_spec
from metrics import (
    ALL_PAIRS_TEST_NAMES,
    ALL_PAIRS_TESTS,
    FORMAT_EXAMPLES,
    sample_qrels,
    sample_runs,
    vocabulary,
)
from metrics import format as fmt

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
        inputs = session.inputs()
        if isinstance(inputs, cache.SavedInputs):  # an evaluation file refused
            saved_header.nothing_yet(inputs)
        else:
            nothing_yet()
        st.stop()
    if not view.evaluation.scored_ids:
        st.warning("No query of the qrels has a relevant id, so nothing can be scored: check "
                   "the grades and the relevance level in the sidebar's conventions.",
                   icon=":material/warning:")
        st.stop()
    return view


BOX_NAMES = {"qrels": "Qrels (the labels)", "run": "Runs (one file per retriever)"}


def nothing_yet() -> None:
    """What the main area says before anything can be scored: why, in words, and what to do
    (uploads a restart lost, a file in the wrong box, a refused file, a link's files to
    upload again)."""
    linked, inputs, lost = link.linked_files(), session.inputs(), link.uploads_lost()
    texts = link.linked_texts()
    if lost:
        st.warning("The files uploaded to this page are gone: the server restarted, or this "
                   "session ended, and uploads live in the server's memory only. Upload them "
                   f"again in the sidebar under My files: {safe.md(', '.join(lost))}. K, the "
                   "conventions, the runs shown and their names are kept.",
                   icon=":material/cloud_off:")
    elif linked:
        boxes = [f"**{BOX_NAMES['qrels']}** and **{BOX_NAMES['run']}**: "
                 f"{safe.md(', '.join(linked))}"]
        boxes += [f"**{box}**: {safe.md(name)}" for box, name in texts.items()]
        st.info("This link shows uploaded files, which a link cannot carry: upload them again "
                "in the sidebar under My files, each in its box. "
                + "; ".join(boxes) + ". The link keeps K, the conventions, the runs shown and "
                "their names.", icon=":material/upload:")
    elif inputs is not None and inputs.qrels is not None and inputs.qrels.error:
        st.error(f"The qrels file was refused, so nothing can be scored: "
                 f"{safe.md(inputs.qrels.error)}" + _move(inputs.qrels, "qrels"),
                 icon=":material/error:")
    elif inputs is not None and inputs.problem:
        st.error(safe.md(inputs.problem), icon=":material/error:")
    elif inputs is not None and inputs.runs and not inputs.usable_runs:
        st.error("No run could be read, so nothing can be scored.  \n" + "  \n".join(
            safe.md(parsed.error) + _move(parsed, "run") for parsed in inputs.runs),
            icon=":material/error:")
    elif inputs is not None and inputs.source == cache.UPLOAD and inputs.qrels is not None \
            and not inputs.runs:
        st.info(f"The labels are loaded: now upload one run per retriever in the sidebar's "
                f"**{BOX_NAMES['run']}** box.", icon=":material/upload:")
    else:
        st.info("Nothing to show yet: load a qrels file and at least one run in the sidebar, "
                "or pick the bundled sample.", icon=":material/info:")
    if st.session_state.get(session.SOURCE_KEY) == cache.UPLOAD:
        accepted_formats()


def _move(parsed: cache.Parsed, given_as: str) -> str:
    """What to do with a file given in the wrong box: the sentence that says so ("" else)."""
    if parsed.belongs is None or parsed.belongs == given_as:
        return ""
    return (f" **What to do:** {safe.md(parsed.file_name)} looks like a {parsed.belongs} file, "
            f"uploaded in the **{BOX_NAMES[given_as]}** box: remove it there (its ✕) and "
            f"upload it in the **{BOX_NAMES[parsed.belongs]}** box.")


def accepted_formats() -> None:
    """Every accepted format with a few lines of it (labels, runs, and the optional queries
    and corpus), and the sample's files to start from."""
    st.subheader("What to upload")
    st.markdown("A **qrels** file (the labels: which ids are relevant to each query, with a "
                "grade) and one **run** per retriever (each query's ids in rank order), over "
                "the same query ids; optionally a **queries** file (the questions and their "
                "facets: the by-kind view, the search, the questions beside the figures) and a "
                "**corpus** (the chunks' titles and texts: the drill-down's chunks, the leakage "
                "check, what K costs). Gzipped files (.gz) are read too; the format is told "
                "from the content.")
    for kind, title in (("qrels", "Qrels"), ("run", "Runs"), ("queries", "Queries (optional)"),
                        ("corpus", "Corpus (optional)")):
        st.markdown(f"**{title}**")
        examples = [e for e in FORMAT_EXAMPLES if e.kind == kind]
        # two a row: a JSON line needs the width (and wraps rather than being cut)
        for start in range(0, len(examples), 2):
            row = examples[start:start + 2]
            for column, example in zip(st.columns(2), row, strict=False):
                with column:
                    st.caption(f"{example.name}: {example.columns}")
                    st.code(example.text, language=None, wrap_lines=True)
    st.markdown("**Start from the sample** (seed 000: 10 queries, 3 runs, their questions and "
                "chunks):")
    folder = sample_qrels().parent
    with st.container(horizontal=True):
        for path in (sample_qrels(), *(Path(spec.source) for spec in sample_runs()),
                     folder / cache.SAMPLE_QUERIES, folder / cache.SAMPLE_CORPUS):
            download_button(path.name, path.read_bytes, path.name, "text/plain",
                            key=f"sample.{path.name}")


def conventions_line(view: View, *, baseline: bool = True, everything: bool = True) -> str:
    """K, the query set, the baseline (unless the page says it itself) and the conventions,
    in one line: every convention of the sidebar and the queries excluded by name, or (not
    `everything`: a page's first line) only the conventions away from their default and the
    number excluded."""
    evaluation = view.evaluation
    excluded = evaluation.excluded_ids
    scored = (f"**{safe.md(evaluation.scope)}**" if evaluation.scope
              else fmt.count(len(evaluation.scored_ids), "scored query"))
    named = f": {safe.md(fmt.listing(excluded, 5))}" if everything else ""
    conventions = evaluation.conventions.in_words(changed=not everything)
    # standardised figures say so on every page's first line (the sidebar's Conventions)
    standardised = getattr(evaluation, "standardised_words", "")
    return " · ".join([
        *([f"**Standardised: {safe.md(standardised)}**"] if standardised else []),
        f"**K = {evaluation.k}**",
        scored + (f" ({len(excluded):,} excluded{named})" if excluded else ""),
        *([f"baseline **{safe.md(view.baseline)}**"] if baseline else []),
        *(conventions or [vocabulary.conventions.ALL_DEFAULT]),
    ])


def page(title: str, intro: str, *, baseline: bool = True) -> View:
    """Every page's top: the view (or a clear stop), the title, what the page shows, and the
    line stating K and the conventions (and the baseline, unless the page has its own
    control that says it: one baseline a page, said once)."""
    view = require_view()
    if link.arrived():
        to_top()
    header(title, view, intro, baseline=baseline)
    for note in link.notes():  # what a link cleared to show what it names
        st.info(safe.md(note), icon=":material/link:")
    return view


# Streamlit keeps the main area's scroll offset across a page link: a link followed from far
# down Compare opened the drill-down near its bottom. A fixed script, no value in it.
TO_TOP = ("<script>window.parent.document.querySelector('[data-testid=\"stMain\"]')"
          "?.scrollTo(0, 0)</script>")


def to_top() -> None:
    """The main area scrolled to its top (a link was followed to this page)."""
    st.html(TO_TOP, unsafe_allow_javascript=True, width="content")


def header(title: str, view: View, intro: str, *, baseline: bool = True) -> None:
    st.title(title)
    st.markdown(intro)
    # the first line states what the numbers rest on in a few words; the popover beside it
    # holds every convention and its sentence (the picture below it is the first screen's)
    line = st.container(horizontal=True, vertical_alignment="center", gap="small", wrap=False)
    line.caption(conventions_line(view, baseline=baseline, everything=False))
    if cache.without_lists(view):  # saved figures: no list to check, the file to name
        saved_header.banner(view)
        _conventions_popover(view, line)
        return
    for finding in cache.id_mismatches(view):
        st.warning(safe.md(finding.sentence), icon=":material/link_off:")
    for found in metrics.short_lists(view.evaluation):
        st.warning(safe.md(found.sentence), icon=":material/short_text:")
    inputs = session.inputs()
    for parsed in (inputs.runs if inputs is not None else ()):
        if parsed.error:  # the rest is shown; this one file is not, and why is said here
            st.warning(f"Not shown: {safe.md(parsed.error)}" + _move(parsed, "run"),
                       icon=":material/error:")
    missing = link.linked_texts()
    if missing:
        st.info("The link was made with " + "; ".join(
            f"**{box}**: {safe.md(name)}" for box, name in missing.items())
            + ": upload them in the sidebar's boxes of those names for the by-kind view, the "
            "questions and the chunks' texts.", icon=":material/upload:")
    _conventions_popover(view, line)


def _conventions_popover(view: View, where) -> None:
    with where.popover("Conventions behind these numbers", icon=":material/rule:",
                       type="tertiary"):
        st.caption(conventions_line(view))
        if getattr(view.evaluation, "standardised", ""):
            st.markdown(f"- {safe.md(view.evaluation.standardised)}")
        for sentence in view.evaluation.conventions.sentences().values():
            st.markdown(f"- {sentence}")


def pairs_test() -> str:
    """The test every pair of runs is read by (a key of metrics.ALL_PAIRS_TESTS): one
    control, drawn on Compare's every-pair view and beside the Overview's leaderboard under
    one key, kept across pages (a widget of one page is another's to Streamlit, which
    drops its value on the way: drawn with the value shown, and kept), so that a choice on
    one page holds on the other and in the exports."""
    test = st.radio("Test of every pair", list(ALL_PAIRS_TESTS), key=session.PAIRS_TEST,
                    index=session.shown_index(session.PAIRS_TEST, list(ALL_PAIRS_TESTS)),
                    format_func=ALL_PAIRS_TEST_NAMES.get, horizontal=True,
                    help=" ".join(f"{ALL_PAIRS_TEST_NAMES[t]}: {w}."
                                  for t, w in ALL_PAIRS_TESTS.items()))
    session.keep([session.PAIRS_TEST])
    return test


def progress(label: str, help: str | None = None) -> st.column_config.Column:
    """A [0, 1] score as a progress bar, written as a figure."""
    return st.column_config.ProgressColumn(label, help=help, format=fmt.FIGURE_PATTERN,
                                           min_value=0.0, max_value=1.0)


def number_column(label: str | None, help: str | None = None, *,
                  width: int | str | None = None, pattern: str = fmt.FIGURE_PATTERN,
                  **options) -> st.column_config.Column:
    """A column of numbers written as the engine writes them: figures, or what `pattern`
    (one of metrics.format's patterns) says; `options` are NumberColumn's own (pinned, ...)."""
    return st.column_config.NumberColumn(label, help=help, format=pattern, width=width,
                                         **options)


def signed_column(label: str | None, help: str | None = None, *,
                  width: int | str | None = None) -> st.column_config.Column:
    """A column of differences, signed as the engine signs one: +0.135, +0.000."""
    return number_column(label, help, width=width, pattern=fmt.SIGNED_PATTERN)


def chart(figure: alt.TopLevelMixin, *, stretch: bool = False, download: str | None = None,
          export: Callable[[], alt.TopLevelMixin] | None = None, **kwargs):
    """Charts follow the app's theme (light or dark); faceted ones keep their own width.

    With `download` (a file stem, unique on the page), PNG and SVG buttons follow the chart;
    the image is rendered (vl-convert, the report's renderer) only when a button is clicked,
    from what `export` builds when given (a landscape version for slides and pages: built
    then too, not on every rerun).
    """
    # vega_spec names the datasets by position: new data under an unchanged spec is drawn
    # in place by the browser rather than built again (st.altair_chart names them by hash)
    shown = st.vega_lite_chart(vega_spec.shown_spec(figure),
                               width="stretch" if stretch else "content", theme="streamlit",
                               **kwargs)
    image = (lambda: figure) if export is None else export
    if download:
        with st.container(horizontal=True, gap="small"):
            for kind, (render, mime) in IMAGES.items():
                download_button(kind, lambda render=render: render(image()),
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


def open_in_drilldown(query_id: str, *, pair: tuple[str, str] | None = None,
                      label: str | None = None) -> None:
    """A link to the drill-down of `query_id`, which it opens whatever was selected or
    searched before, with `pair` (the two runs the page compares) side by side (the link
    carries both: session.OPEN, session.PAIR). A link, not st.switch_page: switching pages
    from Python clears every widget (the sidebar's uploads and settings included)."""
    asked = {session.OPEN: query_id} | ({session.PAIR: list(pair)} if pair else {})
    st.page_link(DRILLDOWN, label=label or f"Open {safe.md(query_id)} in the drill-down",
                 icon=":material/search:", query_params=asked)


def run_reading(evaluation, run) -> None:
    """One run's reading in words: its k suggestion (none for a run that scores nothing),
    the readings, then each failure class flagged or fine, each with its threshold."""
    s = run.suggestion
    st.markdown(f"#### {safe.md(frames.baseline_label(evaluation, run.name))}")
    if s.advice:
        st.markdown(f"**Suggested K = {s.k}**: {s.sentence}")
        st.caption(f"Rule: {s.rule}.")
    else:
        st.markdown(f"**{s.sentence}**")
    for reading in (s.readings if s.advice else s.readings[1:]):
        st.markdown(f"- {reading}")
    for finding in run.diagnosis:
        icon = ":material/warning:" if finding.flagged else ":material/check_circle:"
        verdict = "flagged" if finding.flagged else "fine"
        st.markdown(f"{icon} **{finding.failure.capitalize()}: {verdict}.** "
                    f"{finding.sentence}  \n:small[:gray[Flagged when {finding.threshold}.]]")
