"""K sweep: every metric against K for every run, the chosen K marked; where a corpus is
given, each run's figure at every K against the tokens it sends at that K; each run's
interpolated precision-recall curve."""

import streamlit as st

from dashboard import safe
from dashboard.data import cache, costs
from dashboard.layout import saved, ui
from dashboard.views import chart_base, charts, frames
from metrics import format as fmt
from metrics import vocabulary

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP

view = ui.page(
    "K sweep",
    # one line: the curves are the first screen's
    "How each mean moves as K grows: recall and Hit never fall, precision tends to; read a "
    "gain with its K.",
)
# the raw figures when the sidebar standardises them: the engine standardises one K at a time
evaluation = view.unstandardised
k = evaluation.k
if view.raw is not None:
    st.info(safe.md(vocabulary.conventions.STANDARDISE_SWEEP_NOTE.format(k=k)),
            icon=":material/info:")
# saved figures: the sweep the file holds, or why there is none; its bands, if saved
saved_bands = saved.sweep(view) if cache.without_lists(view) else True

labels = {s.label("K", evaluation.conventions): s for s in evaluation.sweep_specs}
picture = st.container()  # the curves first; the choices they read below them
# the page's whole width: nine metric tags fit side by side (in a column they were cut)
chosen = st.multiselect(
    "Metrics",
    list(labels),
    default=list(labels),
    key="sweep.metrics",
    help=HELP["sweep_metrics"],
)
bands = saved_bands and st.toggle(
    "Interval bands",
    key="sweep.bands",
    help=HELP["sweep_bands"].format(
        methods=vocabulary.interval_methods(
            [(label, s.measure.interval) for label, s in labels.items()],
            view.evaluation.conventions.interval_method)),
)
if not chosen:
    st.info("Pick at least one metric.", icon=":material/info:")
    st.stop()


def swept():
    sweep = frames.sweep_long(evaluation)
    sweep = sweep[sweep["label"].isin(chosen)]
    if bands:
        sweep = sweep.merge(frames.sweep_intervals(evaluation), on=["run", "k", "metric"])
    return sweep


# built once per view and choice (cache.derived): coming back to a K or a run shown redraws
sweep = cache.derived(view, "sweep", (tuple(chosen), bands), swept)
with picture:
    ui.chart(
        cache.derived(view, "sweep chart", (tuple(chosen), bands), lambda: charts.sweep_lines(
            sweep, chart_base.run_scale(view.colour_domain), k=k, labels=chosen, bands=bands)),
        download=f"k-sweep-k{k}",
    )

st.subheader("Values at every K")
metric = st.selectbox("Metric", chosen, key="sweep.table_metric")
table = sweep[sweep["label"] == metric].pivot(index="k", columns="run", values="mean")
table = table[evaluation.run_names].reset_index()
measure = labels[metric]
st.dataframe(
    table,
    hide_index=True,
    column_config={"k": st.column_config.NumberColumn("K", help=MEANING["k"], pinned=True)}
    | {
        run: ui.progress(run, frames.measure_help(evaluation, measure.key))
        for run in evaluation.run_names
    },
)
st.caption(f"Mean {metric} over the {len(evaluation.scored_ids):,} scored queries at each K; "
           f"the chosen K is {k}.")

swept = costs.swept(view)
if swept is not None and swept.runs:
    st.subheader("What each K costs in tokens")
    ui.chart(costs.sweep_chart(view, swept, measure.name(), metric),
             download=f"k-sweep-tokens-k{k}")
    st.caption(safe.md(swept.method))
elif not cache.without_lists(view):
    st.caption("Give a corpus file in the sidebar to see each run's figure at every K "
               "against the tokens it sends at that K (estimated from the corpus's words).")

st.subheader("Interpolated precision against recall")
saved.needs_lists(view, "measures")
if not st.toggle("Precision-recall curve of each run", key="sweep.pr_curve",
                 help=HELP["pr_curve"]):
    st.stop()
curve = frames.pr_curve(cache.pr_curve(view))
ui.chart(charts.pr_curve(curve, chart_base.run_scale(view.colour_domain), bands=bands),
         download=f"precision-recall-k{k}")
levels = curve.pivot(index="recall", columns="run", values="mean")[evaluation.run_names]
st.dataframe(
    levels.reset_index(),
    hide_index=True,
    height="content",  # the 11 levels
    column_config={"recall": ui.number_column(
        "Recall level", MEANING["recall_level"], pattern=fmt.PARAMETER_PATTERN, pinned=True)}
    | {run: ui.progress(run, MEANING["interpolated_precision"].format(run=run))
       for run in evaluation.run_names},
)
st.caption(f"{vocabulary.measures.PR_CURVE_RULE} Over the {len(evaluation.scored_ids):,} "
           "scored queries; the interval bands follow the toggle above.")
