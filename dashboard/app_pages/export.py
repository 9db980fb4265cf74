"""Export: the stakeholder report, the summary for a pull request, a paper's LaTeX table, the
tables as CSV."""

import datetime as dt

import streamlit as st

from dashboard import safe
from dashboard.data import cache, costs, decisions, slicing
from dashboard.data import report as report_data
from dashboard.data import timings as timing_data
from dashboard.layout import saved, ui
from dashboard.report import exports
from dashboard.report import html as report
from dashboard.state import asked, session
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
chosen = asked.now()

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

# every pair as the leaderboard reads it (the Overview's and Compare's test): the letters
# the report's leaderboard and the LaTeX table carry
pairs = decisions.leaderboard_pairs(view, session.headline_metric(evaluation)[0],
                                    chosen.pairs_test, chosen.alpha, chosen.min_effect)

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
        "baseline, the interval and K-sweep charts, the comparison with its tests (and the "
        "queries a future set needs, when Compare asks about a difference), every pair of runs "
        "read by the randomized Tukey HSD when that is the test of every pair, harm, "
        "fragility, the diagnosis and the k suggestion, the query set and the fingerprints of the "
        "labels and of each run, and the honest limits."
    )
    st.caption(about)
    title = st.text_input("Title", value=report.DEFAULT_TITLE, key="export.title")
    # what the report holds is the engine's one decision (metrics.report_contents, as python
    # -m dashboard report's), given this page's choices: the Compare page's comparison, the
    # harm threshold, the fragility switch, the facet, the token figure, the judge's weight
    facets = slicing.facets(view)
    facet = chosen.facet
    # priced as the Overview prices it (a price with nothing to price: the Overview says why)
    tokens = costs.priced(view, chosen.tokens_per_chunk, chosen.price).tokens
    timed = timing_data.timed(view, session.inputs(),
                              options.baseline if comparison is not None else None)
    contents = report_data.contents(
        view, session.inputs(), comparison, options if comparison is not None else None,
        primary=session.headline_metric(evaluation)[0], harm_delta=chosen.harm_delta,
        check_fragility=chosen.fragility,
        facet=(facet if facet in facets else slicing.first_facet(view)) if facets else None,
        tokens=tokens, lam=chosen.lam, pairs=pairs,
        # the queries a future set needs, when Compare asks about a difference worth detecting
        topic_sets=(decisions.topic_set_sizes(view, options.metrics, chosen.delta)
                    if comparison is not None and chosen.delta is not None else None),
        timed=None if timed is None else timed.found, timed_key=() if timed is None else timed.key)
    if contents.holds:
        st.caption("With your texts, the report also holds " + ", ".join(contents.holds) + ".")
    ui.download_button(
        "Download report (HTML)",
        lambda: report.build_report(contents, title=title or report.DEFAULT_TITLE),
        f"report-{today}-k{k}.html",
        "text/html",
        key="export.report",
        help=HELP["report_html"],
        type="primary",
    )

    st.subheader("Summary for a pull request")
    st.caption("The pull request's comment, as `python -m metrics compare --format markdown` "
               "writes it: the headline, the queries that got worse, every metric against the "
               "baseline and every run's figures, in GitHub's Markdown. Copy it with the "
               "button at the top right of the block.")
    st.code(exports.summary_markdown(evaluation, comparison,
                                     primary=session.headline_metric(evaluation)[0],
                                     harm_delta=chosen.harm_delta, queries=view.queries),
            language="markdown", wrap_lines=True)

st.subheader("Table for a paper (LaTeX)")
st.caption("Runs down and every figure shown across, each mean with its interval, the best run "
           "of each column in bold; daggers mark the Compare page's significant differences "
           "from its baseline, whose test and correction the caption names; read by the "
           "randomized Tukey HSD (the test of every pair, chosen on the Overview or Compare), "
           "the headline metric's letters in superscript. Needs booktabs and graphicx.")
latex = report_data.latex(view, comparison, options if comparison is not None else None,
                          pairs)
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
