"""Overlap: do the runs even find different things, and would a fusion of two beat both?"""

import streamlit as st

from dashboard import safe
from dashboard.data import combine, progress
from dashboard.layout import saved, ui
from dashboard.state import link, session
from dashboard.views import overlap_charts
from metrics import COMPARED, SUMMARY_MEASURES, vocabulary
from metrics import format as fmt

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP
SEARCH = "overlap.search"  # the weight search's toggle, and its action's toast

view = ui.page(
    "Overlap between runs",
    "How alike each pair of runs' top K are (Jaccard, rank-biased overlap), the relevant ids "
    "only one of them finds, and the recall a perfect fusion of the two could reach: two "
    "runs worth fusing find different relevant ids.",
)
saved.needs_lists(view, "overlap")  # saved figures: this page reads the lists
evaluation = view.evaluation
k = evaluation.k
words = vocabulary.overlap
if len(evaluation.runs) < 2:
    st.info("Overlap needs a second run: show one more run in the sidebar.",
            icon=":material/info:")
    st.stop()

left, right = st.columns([1, 2], vertical_alignment="bottom")
p = left.number_input("RBO persistence p", min_value=0.01, max_value=0.99, step=0.05,
                      format=fmt.PARAMETER_PATTERN, key=session.RBO_P,
                      help=words.PERSISTENCE_MEANING)
figures = {"jaccard": words.label("jaccard", k), "rbo": words.label("rbo", k),
           combine.ONLY_IN: f"Relevant only in the row's run@{k}",
           "hybrid_ceiling": words.label("hybrid_ceiling", k)}
shown = right.radio("Matrix of", list(figures), format_func=figures.get, horizontal=True,
                    key="overlap.figure")
found = combine.overlap(view, p)
session.at_next_ks(lambda at: combine.overlap(at, p))  # a step of K finds its pairs made
if len(found.runs) < len(evaluation.runs):
    st.caption(safe.md(words.runs_compared_sentence(len(found.runs), len(evaluation.runs))))
meaning = (words.OVERLAP_BY_KEY["unique_relevant_a"].meaning.replace("A's", "the row run's")
           .replace("B's", "the column run's") if shown == combine.ONLY_IN
           else words.OVERLAP_BY_KEY[shown].meaning)
ui.chart(overlap_charts.overlap_matrix(
    combine.matrix(found, shown), list(found.runs), title=f"{figures[shown]}, every pair",
    subtitle=f"Mean over {len(found.query_ids):,} scored queries. {meaning}"),
    download=f"overlap-{shown}")
st.caption(safe.md(words.persistence_sentence(found.p, k)))

st.subheader(f"{figures[shown]}: each mean with its interval")
st.dataframe(combine.figure_table(found, shown), hide_index=True, column_config={
    "Run": st.column_config.TextColumn(pinned=True),
    "Mean": ui.number_column("Mean", meaning),
    "Interval": st.column_config.TextColumn(help=words.OVERLAP_RULES["intervals"])})
ui.download_button("Every pair and figure (CSV)", lambda: combine.pairs_csv(found),
                   f"overlap-k{k}.csv", "text/csv", key="overlap.csv",
                   help=HELP["overlap_csv"])
with st.expander("How these are read", icon=":material/info:"):
    st.markdown("\n".join(f"- **{safe.md(m.name.format(k=k))}**: {safe.md(m.meaning)}"
                          for m in words.OVERLAP_MEASURES))
    st.markdown("\n".join(f"- {safe.md(rule)}" for rule in words.OVERLAP_RULES.values()))

st.header("Would a fusion of two beat both?")
fusion = vocabulary.fusion
st.caption(safe.md(fusion.CROSS_FIT_RULE))
names = list(evaluation.run_names)
left, middle, right = st.columns(3, vertical_alignment="bottom")
first = left.selectbox("First run", names, key="overlap.first")
second = middle.selectbox("Second run", [n for n in names if n != first], key="overlap.second")
measures = {m.key: evaluation.label(m.key) for m in SUMMARY_MEASURES if m.key in COMPARED}
session.relabelled("overlap.metric")
metric = right.selectbox("Tuned on", list(measures), format_func=measures.get,
                         index=list(measures).index(fusion.TUNE_METRIC), key="overlap.metric")


@link.page_fragment
def weight_search() -> None:
    """The weight search and what it found. A fragment: its toggle redraws this section
    alone, so that the search's progress shows at once rather than after the page above has
    been drawn again."""
    if not st.toggle("Search the weight of a weighted CombSUM (a few seconds)",
                     key=SEARCH, help=fusion.TUNE_HELP, on_change=progress.on_toggle(
                         SEARCH, "Searching the weight of a weighted CombSUM",
                         "Searched the weight of a weighted CombSUM")):
        return
    tuned = combine.cross_fit(view, first, second, metric)
    interval = combine.cross_fit_interval(view, tuned)
    alone = {name: evaluation.run(name).summary[metric] for name in (first, second)}
    best = max(alone, key=lambda name: alone[name].mean)
    columns = st.columns(3)
    columns[0].metric(f"Cross-fitted {measures[metric]}", fmt.figure(tuned.mean), border=True,
                      delta=f"{fmt.signed(tuned.mean - alone[best].mean)} against {best}",
                      help=MEANING["cross_fitted"].format(
                          low=fmt.figure(interval.low), high=fmt.figure(interval.high)))
    for column, name in zip(columns[1:], (first, second), strict=True):
        column.metric(f"{safe.md(name)} alone", fmt.figure(alone[name].mean), border=True,
                      help=MEANING["run_alone"].format(
                          low=fmt.figure(alone[name].low), high=fmt.figure(alone[name].high)))
    st.markdown(safe.md(tuned.sentence) + f" Interval of the cross-fitted mean: "
                f"[{fmt.figure(interval.low)}, {fmt.figure(interval.high)}].")
    st.dataframe(combine.cross_fit_table(tuned), hide_index=True, column_config={
        "Weight": ui.number_column(f"Weight of {first}", pattern=fmt.PARAMETER_PATTERN),
        **{c: ui.number_column(c) for c in ("Half 1", "Half 2", "Every query")}})
    progress.finished(SEARCH)
    weight = tuned.in_sample_weight
    original = {display: name for name, display in view.shown}  # recipes name loaded runs
    recipe = {"method": fusion.COMBSUM, "norm": fusion.DEFAULT_NORM,
              "runs": [original[n] for n in (first, second)],
              "weights": [weight, round(1 - weight, 12)]}
    st.button(f"Add the fused run at the weight tuned on every query ({weight:g})",
              key="overlap.add", on_click=session.add_fused, args=(recipe,),
              kwargs={"whole_app": True})


weight_search()
