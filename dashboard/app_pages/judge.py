"""Judge labels: a model judge's labels beside the human ones. How far the judge agrees with
the humans and what its errors do to every figure; each figure's human-only, judge-only and
prediction-powered interval; each run against the baseline from few human labels and many
judge labels; whether the human-labelled queries look like a random sample."""

import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.layout import saved, ui
from dashboard.state import session
from dashboard.views import judge_views
from metrics import COMPARED, PRIMARY, vocabulary
from metrics import format as fmt

TERMS = vocabulary.judge.TERMS
HELP = vocabulary.columns.CONTROL_HELP
LAMBDAS = {vocabulary.judge.TUNED: "PPI++ (tuned weight)", "1": "plain PPI (weight 1)"}

view = ui.page(
    "Judge labels",
    "A model judge's labels beside the human ones: how far the judge agrees with the humans, "
    "its bias on every figure, and prediction-powered intervals that correct the judge with "
    "the human-labelled queries, so the judge's many labels narrow the interval without its "
    "errors moving the estimate.",
)
saved.needs_lists(view, "judge")  # saved figures: the judge's labels score the runs again
inputs = session.inputs()
if inputs is None or not inputs.judged:
    st.info("Upload a model judge's labels in the sidebar under **My files**, in the "
            "**Judge's qrels** box, beside the human labels in the **Qrels** box (which may "
            "cover only a random sample of the queries; `python -m metrics "
            "sample-for-labelling` draws one).", icon=":material/upload:")
    st.stop()

choice = st.radio("Weight on the judge", list(LAMBDAS), format_func=LAMBDAS.get,
                  horizontal=True, key=session.PPI_LAMBDA, help=HELP["ppi_lambda"])
try:
    report = cache.judged(inputs, view, None if choice == vocabulary.judge.TUNED else 1.0)
except ValueError as error:
    st.warning(safe.md(str(error)), icon=":material/warning:")
    st.stop()
if view.whole is not None:
    st.caption("The filter in the sidebar is not applied here: these figures read every "
               "query, as the prediction-powered estimate needs the whole query set.")
level = fmt.confidence(report.confidence_level)
c = report.coverage
st.markdown(safe.md(vocabulary.judge.coverage_sentence(
    c.human_queries, c.judge_queries, c.both_queries, c.human_pairs, c.judge_pairs,
    c.both_pairs)))
if c.human_not_judged:
    st.warning(safe.md(vocabulary.judge.HUMAN_NOT_JUDGED.format(
        queries=fmt.count(len(c.human_not_judged), "query", "queries"),
        ids=fmt.listing(c.human_not_judged, limit=10))), icon=":material/warning:")
if report.sample_flagged:
    st.warning(safe.md(report.sample_sentence), icon=":material/warning:")
elif report.sample_sentence:
    st.caption(safe.md(report.sample_sentence))
if not report.n_unlabelled:
    st.info(safe.md(vocabulary.judge.NO_UNLABELLED), icon=":material/info:")
st.caption(safe.md(vocabulary.judge.EVERY_QUERY_COUNTS))

st.header("How good is the judge?")
grades = report.grades
columns = st.columns(4)
kappas = [("Cohen's kappa", grades.kappa, TERMS["kappa"]),
          ("Weighted kappa", grades.weighted_kappa, TERMS["weighted_kappa"])]
undefined = []  # (figure, why) of each card without a value, said under the cards
for column, (name, kappa, words) in zip(columns[:2], kappas, strict=True):
    if kappa is None:
        column.metric(name, fmt.MISSING, border=True, help=words)
    elif kappa.undefined:
        column.metric(name, fmt.UNDEFINED, border=True, help=words)
        undefined.append((name, kappa.undefined))
    else:
        column.metric(name, fmt.figure(kappa.kappa), border=True,
                      help=vocabulary.judge.with_interval(
                          words, level, fmt.figure(kappa.low), fmt.figure(kappa.high)))
for column, (name, rate, key) in zip(columns[2:], (
        ("False relevant rate", grades.false_relevant, "false_relevant"),
        ("False non-relevant rate", grades.false_nonrelevant, "false_nonrelevant")),
        strict=True):
    if rate.undefined:
        column.metric(name, fmt.UNDEFINED, border=True, help=TERMS[key])
        undefined.append((name, rate.undefined))
    else:
        # the value and what it is a share of: the card never hides its denominator
        column.metric(name, fmt.figure(rate.mean), border=True,
                      help=vocabulary.judge.with_interval(TERMS[key], level,
                                                          fmt.figure(rate.low),
                                                          fmt.figure(rate.high)))
        column.caption(safe.md(rate.basis))
for name, why in undefined:
    st.caption(safe.md(f"{name}: {fmt.undefined(why)}."))
if grades.relevant_ungraded:
    st.warning(safe.md(vocabulary.judge.UNGRADED_RELEVANT.format(
        ids=fmt.count(grades.relevant_ungraded, "id"))), icon=":material/warning:")
st.caption(safe.md(f"{TERMS['confusion']} {fmt.count(grades.pairs, 'pair')}."))
st.dataframe(judge_views.confusion_frame(report), hide_index=True)

if report.agreements:
    st.subheader("Does the judge order the runs as the humans do?")
    st.caption(safe.md(TERMS["agreement"]))
    st.dataframe(judge_views.agreement_frame(report), hide_index=True, column_config={
        "Kendall's tau": st.column_config.TextColumn(
            "Kendall's tau", help=vocabulary.agreement.AGREEMENT_TERMS["tau"]),
        "tau_AP": st.column_config.TextColumn(
            "tau_AP", help=vocabulary.agreement.AGREEMENT_TERMS["tau_ap"])})

st.header("Every figure three ways")
st.caption(safe.md(f"At K = {report.k}: {fmt.count(report.n_labelled, 'human-labelled query')}"
                   f", {fmt.count(report.n_unlabelled, 'query', 'queries')} with the judge's "
                   f"labels only; {level} intervals."))
labels = {f.key: f.label for f in report.figures}
keys = [key for key in COMPARED if key in labels]
metric = st.selectbox("Figure", keys, format_func=labels.get,
                      index=keys.index(PRIMARY) if PRIMARY in keys else 0, key="judge.metric")
ui.chart(judge_views.intervals_chart(judge_views.intervals_frame(report, metric),
                                     label=labels[metric], level=report.confidence_level),
         download=f"judge-{metric}")
# lambda and the width ratio are the engine's words: a number, or undefined with why (sized
# to their cells: narrow for a number, wide enough to read the reason)
columns_help = {
    "Lambda": st.column_config.TextColumn("Lambda", help=TERMS["lambda"]),
    "Width ratio": st.column_config.TextColumn("Width ratio", help=TERMS["width"]),
}
config = {way: st.column_config.TextColumn(way, help=TERMS[key])
          for key, way in judge_views.WAYS.items()}
# narrow columns for the short cells, so that the bias fits at 1280 px
config |= {"Metric": st.column_config.TextColumn(width="small", pinned=True)}
config |= {"Bias (judge − human)": st.column_config.TextColumn(help=TERMS["bias"]),
           **columns_help}
runs = list(dict.fromkeys(f.run for f in report.figures))
for tab, run in zip(st.tabs([safe.md(run) for run in runs]), runs, strict=True):
    tab.dataframe(judge_views.figures_frame(report, run), hide_index=True,
                  column_config=config)

if report.comparisons:
    st.header("Each run against the baseline")
    st.caption(safe.md(TERMS["paired"]))
    for sentence in cache.ppi_headlines(report, PRIMARY if PRIMARY in keys else keys[0]):
        st.markdown(f"- {safe.md(sentence)}")
    candidates = list(dict.fromkeys(c.run for c in report.comparisons))
    labels = [safe.md(f"{run} − {report.comparisons[0].baseline}") for run in candidates]
    for tab, run in zip(st.tabs(labels), candidates, strict=True):
        tab.dataframe(judge_views.comparisons_frame(report, run), hide_index=True,
                      column_config=config)
with st.expander("How these are read", icon=":material/info:"):
    st.markdown("\n".join(f"- {safe.md(words)}" for words in TERMS.values()))
