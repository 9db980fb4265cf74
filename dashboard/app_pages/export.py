"""Export: the stakeholder report, the summary for a pull request, a paper's LaTeX table, the
tables as CSV."""

import datetime as dt

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache, decisions, slicing, texts
from dashboard.data import review as review_cache
from dashboard.layout import saved, ui
from dashboard.report import exports
from dashboard.report import html as report
from dashboard.report import texts as report_texts
from dashboard.state import session
from metrics import CORRECTIONS, vocabulary

HELP = vocabulary.columns.CONTROL_HELP

view = ui.page(
    "Export",
    "Results that leave the dashboard without losing what they mean: every file states its K, "
    "conventions and query set. Each chart also has PNG and SVG buttons under it.",
)
evaluation = view.evaluation
k = evaluation.k
today = dt.date.today().isoformat()

comparison, about = None, "The report has no comparison: it needs two runs."
snapshots = session.snapshots()
if len(session.baseline_options(view, snapshots)) > 1:
    options = session.compare_options(view, snapshots)
    if options.candidates and options.metrics:
        compared = cache.compare(view, options, snapshots)
        comparison = compared.comparison
        about = compared.error or ""
    else:
        about = "The report has no comparison: pick candidates and metrics on the Compare page."
if comparison is not None:
    about = (f"With the Compare page's comparison: {safe.md(', '.join(comparison.candidates))} "
             f"against {safe.md(comparison.baseline)} on {len(comparison.metrics)} metrics, "
             f"{CORRECTIONS[comparison.correction]} correction, alpha {comparison.alpha:g}.")

st.subheader("Report for stakeholders")
# saved figures hold no lists: the report and the pull-request summary write each query's
# lists, classes and the load report; the LaTeX table and the CSVs below need the figures only
if cache.without_lists(view):
    saved.needs_lists(view, "report", stop=False)
    st.caption(vocabulary.saved.EXPORTS_FROM_FIGURES)
else:
    st.markdown(
        "One HTML file that opens offline and prints on A4 landscape: K, conventions in words, "
        "the headline and the leaderboard, the summary with intervals and every run against the "
        "baseline, the interval and K-sweep charts, the comparison with its tests, harm, "
        "fragility, the diagnosis and the k suggestion, the query set and the fingerprints of the "
        "labels and of each run, and the honest limits."
    )
    st.caption(about)
    title = st.text_input("Title", value=report.DEFAULT_TITLE, key="export.title")
    primary, _ = session.headline_metric(evaluation)
    headline = (decisions.headlines(view, options, snapshots, primary)
                if comparison is not None and options.snapshot is None else None)
    board = decisions.leaderboard(view)
    marks = decisions.best_marks(view) if len(evaluation.runs) > 1 else None
    review = {}
    if comparison is not None:
        review = dict(risks=metrics.risks(comparison, delta=st.session_state[session.HARM_DELTA]),
                      to_label=review_cache.to_label(view))
        if options.snapshot is None and st.session_state[session.FRAGILITY]:
            review["fragility"] = review_cache.fragility(view, session.inputs(), options,
                                                         comparison)()
    # what the texts add, as `python -m dashboard report --queries --corpus --by` adds it
    corpus = texts.corpus(view)
    written = {"queries": view.queries, "corpus": corpus, "leakage": texts.leakage(view)}
    facets = slicing.facets(view)
    if facets:
        facet = st.session_state.get(session.FACET)
        facet = facet if facet in facets else slicing.first_facet(view)
        written["slices"] = slicing.slices(view, facet)
        if comparison is not None and options.snapshot is None:
            written["slice_pieces"] = slicing.report_slices(view, options, facet,
                                                            report_texts.PRIMARY)
    try:
        tokens = metrics.chunk_tokens(tokens_per_chunk=st.session_state.get(session.TOKENS),
                                      price_per_mtok=st.session_state.get(session.PRICE),
                                      corpus=corpus)
    except ValueError:  # a price with nothing to price: the Overview says why
        tokens = None
    if tokens is not None:
        written["costs"] = metrics.costs(evaluation, tokens)
    inputs = session.inputs()
    if inputs is not None and inputs.judged:  # the judge's section, at the Judge page's weight
        lam = st.session_state.get(session.PPI_LAMBDA, vocabulary.judge.TUNED)
        try:
            written["judge"] = cache.judged(inputs, view,
                                            None if lam == vocabulary.judge.TUNED else 1.0)
        except ValueError:  # too few queries both label: the Judge labels page says why
            pass
    parts = [name for name, value in (("the questions", view.queries), ("the chunks", corpus),
                                      ("leakage", written["leakage"]),
                                      ("by kind of query", written.get("slices")),
                                      ("what K costs", written.get("costs")),
                                      ("the judge's labels", written.get("judge"))) if value]
    if parts:
        st.caption("With your texts, the report also holds " + ", ".join(parts) + ".")
    ui.download_button(
        "Download report (HTML)",
        lambda: report.build_html(evaluation, comparison, title=title or report.DEFAULT_TITLE,
                                  headline=headline, board=board, primary=primary,
                                  marks=marks, **review, **written),
        f"report-{today}-k{k}.html",
        "text/html",
        key="export.report",
        help=HELP["report_html"],
        type="primary",
    )

    st.subheader("Summary for a pull request")
    st.caption("A Markdown table: copy it with the button at the top right of the block.")
    st.code(exports.summary_markdown(evaluation, comparison), language="markdown",
            wrap_lines=True)

st.subheader("Table for a paper (LaTeX)")
st.caption("Runs down and every figure shown across, each mean with its interval, the best run "
           "of each column in bold; daggers mark the Compare page's significant differences "
           "from its baseline, whose test and correction the caption names. Needs booktabs.")
latex = metrics.latex_table(evaluation, comparison)
ui.download_button("Download table (LaTeX)", lambda: latex, f"table-{today}-k{k}.tex",
                   "application/x-tex", key="export.latex", help=HELP["latex_table"])
st.code(latex, language="latex", wrap_lines=True)

st.subheader("Tables (CSV)")
with st.container(horizontal=True):
    ui.download_button("Summary", lambda: exports.summary_csv(evaluation),
                       f"summary-k{k}.csv", "text/csv", key="export.summary",
                       help=HELP["summary_csv"])
    ui.download_button("Per query", lambda: exports.per_query_csv(evaluation),
                       f"per-query-k{k}.csv", "text/csv", key="export.per_query",
                       help=HELP["per_query_csv"])
    if comparison is not None:
        ui.download_button("Comparison", lambda: exports.comparison_csv(comparison),
                           f"comparison-k{k}.csv", "text/csv", key="export.comparison",
                           help=HELP["comparison_csv"])
st.caption("Figures unrounded, so that a spreadsheet can recompute anything from them. "
           "A snapshot of every figure (JSON) is saved from the sidebar, under Snapshots.")
