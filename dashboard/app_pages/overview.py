"""Overview: summary with intervals, what was scored, each run in words, the load report."""

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache, costs, decisions, progress, slicing, texts
from dashboard.layout import geometric, saved, timings, ui
from dashboard.report import exports
from dashboard.state import asked, link, session
from dashboard.views import chart_base, charts, frames
from metrics import (
    AGREEMENT_TERMS,
    CLASS_MEANING,
    COST_MEANING,
    COST_UNIT,
    FACET_RULES,
    HEADLINE_FAMILY,
    LEADERBOARD_TERMS,
    LEAKAGE_RULE,
    QUERY_CLASSES,
    vocabulary,
)
from metrics import format as fmt

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP

view = ui.page(
    "Overview",
    # one line: the headline and its picture are the first screen's
    "Every run over the same frozen query set at the same K: the headline first, then every "
    "figure with its interval.",
)
evaluation = view.evaluation
k = evaluation.k

leaks = texts.leakage(view)
if leaks is not None and leaks.leaks:  # a leaked query inflates every run: say so first
    scored = set(evaluation.scored_ids)
    shown = [q for q in leaks.leaked_queries if q in scored]
    # the finding and the queries in the box, the rule behind it one click away
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", wrap=False)
    row.warning(
        f"**Leakage.** {safe.md(leaks.sentence)} "
        + (f"Leaked queries scored here: {safe.md(fmt.listing(shown, 5))}." if shown
           else "None of them is among the queries shown here."),
        icon=":material/content_copy:", width="stretch")
    with row.popover("How leaks are found", icon=":material/help:", type="tertiary"):
        st.markdown(LEAKAGE_RULE + (" The drill-down names the chunk of each leaked query."
                                    if shown else ""))

primary, labels = session.headline_metric(evaluation)
snapshots = session.snapshots()
chosen = asked.now()
tested = (chosen.correction, chosen.alpha)
# the run table's tests and the leaderboard's ranks run while the headline and the summary
# are drawn
decisions.ahead(lambda: decisions.run_table(view, *tested), lambda: decisions.leaderboard(view))
# and at the K either side, after the page: a step of K then finds them made
session.at_next_ks(lambda at: (decisions.run_table(at, *tested), decisions.leaderboard(at)))
# the first screen: the headline in a few words per candidate, and its picture (each run's
# mean of the headline metric with its interval, the baseline marked); the long sentences
# (the method, the counts, p and the power) just below, one click away
baseline = view.baseline
said = []
if len(session.baseline_options(view, snapshots)) > 1:  # the headline, as Compare states it
    options = session.compare_options(view, snapshots)
    baseline = None if options.snapshot else options.baseline
    said = (decisions.headlines(view, options, snapshots, primary)
            if options.candidates else [])
    if options.candidates:
        session.at_next_ks(lambda at: decisions.headlines(at, options, snapshots, primary))
    if said:
        with st.container(border=True):
            st.markdown("\n".join(
                f"- {safe.md(sentence)}" for sentence
                in decisions.short_headlines(view, options, snapshots, primary)))
            with st.expander("The full reading: the test, the queries better and worse, p and "
                             "the power", icon=":material/notes:"):
                st.markdown("\n".join(f"- {safe.md(sentence)}" for sentence in said))
                st.caption(f"The headline metric and the runs compared are set on the Compare "
                           f"page. {HEADLINE_FAMILY}")
headline_rows = cache.derived(view, "headline rows", (primary,),
                              lambda: frames.scores_of(evaluation, labels[primary]))
if not headline_rows.empty:
    ui.chart(
        cache.derived(view, "headline bars", (primary, baseline), lambda: charts.headline_bars(
            headline_rows, chart_base.run_scale(view.colour_domain), metric=labels[primary],
            baseline=baseline, k=k, confidence_level=evaluation.conventions.confidence_level,
            n_queries=len(evaluation.scored_ids))),
        stretch=True)

st.subheader(f"Summary at K = {k}")
level = fmt.confidence(evaluation.conventions.confidence_level)


@link.page_fragment
def summary() -> None:
    """The summary table and each metric's best run. A fragment: the marks' toggle redraws
    this section alone, so that the tests' progress shows at once rather than after the
    page above has been drawn again."""
    marked = len(evaluation.runs) > 1 and st.toggle(
        "Mark each metric's best run", key=session.MARK_BEST,
        help=HELP["mark_best"], on_change=progress.on_toggle(
            session.MARK_BEST, "Marking each metric's best run",
            "Marked each metric's best run"))
    marks = decisions.best_marks(view) if marked else None
    # a label of a figure added with its parameters (RBPresid(p=0.9)@10) gets the room it needs;
    # the interval column then gives way (its words follow the table), so that the runs still fit
    # beside it at 1280 px
    metric_width = frames.label_width(evaluation.label(s.key) for s in evaluation.summary_specs)
    st.dataframe(
        cache.derived(view, "summary table", (marked,),
                      lambda: frames.summary_table(evaluation, marks)),
        hide_index=True,
        height="content",  # every figure shown, those added in the sidebar too
        # the conventions behind each row are written out just below and in each cell's help:
        # as a column they would push the runs out of a 1280-px window
        column_order=["Metric", *evaluation.run_names, *([] if metric_width else ["Interval"])],
        column_config={
            "Metric": st.column_config.TextColumn(
                "Metric", pinned=True, help=MEANING["metric_at_k"], width=metric_width),
            "Interval": st.column_config.TextColumn(
                "Interval", help=evaluation.conventions.sentences()["interval"]),
        }
        | {run: st.column_config.TextColumn(
            frames.baseline_label(evaluation, run),
            help=MEANING["run_summary"].format(n=len(evaluation.scored_ids), level=level))
           for run in evaluation.run_names},
    )
    if metric_width:
        methods = vocabulary.interval_methods(
            [(evaluation.label(s.key), s.measure.interval) for s in evaluation.summary_specs],
            evaluation.conventions.interval_method)
        st.caption(safe.md(f"{methods[:1].upper()}{methods[1:]}."))
    if marks is not None:
        st.caption(safe.md(marks.sentence))
        progress.finished(session.MARK_BEST)
    with st.expander("What each metric certifies, and the conventions behind it",
                     icon=":material/help:"):
        st.markdown("\n".join(f"- **{evaluation.label(s.key)}**: "
                              f"{frames.measure_help(evaluation, s.key)}"
                              for s in evaluation.summary_specs))


summary()

# the summaries that are not means (gm_map, More measures): a table each, with its rule
geometric.tables(view)

table = decisions.run_table(view, *tested)
if table is not None:
    st.subheader(f"Against the baseline, {safe.md(table.baseline)}")
    # metrics down, runs across, as the summary above: ten metric columns would not fit
    st.dataframe(
        cache.derived(view, "run table", tested, table.by_metric), hide_index=True,
        column_config={"Metric": st.column_config.TextColumn(pinned=True)} | {
            run: st.column_config.TextColumn(frames.baseline_label(evaluation, run),
                                             help=MEANING["run_table_cell"])
            for run in table.runs})
    st.caption(safe.md(table.note) + " Compare sets the correction and alpha.")


@link.page_fragment
def standings() -> None:
    """The leaderboard on the headline metric: each run's rank over the bootstrap and, read
    by the randomized Tukey HSD (the test of every pair, chosen here or on Compare), the
    groups of runs it does not tell apart. A fragment: the choice of test redraws this
    section alone."""
    st.subheader("Leaderboard")
    board = decisions.leaderboard(view)
    test = ui.pairs_test() if len(evaluation.runs) > 1 else None
    pairs = decisions.leaderboard_pairs(view, primary, test, chosen.alpha, chosen.min_effect)
    st.dataframe(
        cache.derived(view, "leaderboard table", (primary, test, chosen.alpha),
                      lambda: frames.leaderboard_table(board, primary, pairs)), hide_index=True,
        column_config={
            "Run": st.column_config.TextColumn(pinned=True),
            "Mean": ui.number_column(labels[primary]),
            "Rank": st.column_config.NumberColumn(help=LEADERBOARD_TERMS["rank"]),
            "Rank interval": st.column_config.TextColumn(
                f"{level} rank interval", help=LEADERBOARD_TERMS["rank_interval"]),
            "P(best)": st.column_config.ProgressColumn(
                "P(best)", help=LEADERBOARD_TERMS["p_best"], format="percent", min_value=0.0,
                max_value=1.0),
            "Group": st.column_config.TextColumn(help=LEADERBOARD_TERMS["letters"])})
    st.caption(f"{safe.md(board.sentences(primary)[0])}. On {labels[primary]}, the headline "
               f"metric (Compare sets it). {LEADERBOARD_TERMS['resamples']}")
    if pairs is not None:  # the groups' test, named beside them
        st.caption(f"{safe.md(pairs.sentence())} {vocabulary.leaderboard.LETTER_GROUPS}")


standings()

if len(evaluation.runs) > 2:  # two runs have one pair: its order is the leaderboard's
    st.subheader("Do the metrics order the runs alike?")
    agreements = cache.derived(view, "agreements", (primary,),
                               lambda: decisions.agreements(view, primary))
    agreement = frames.agreement_table(agreements)
    swapped = f"Pairs that swap ({labels[primary]}'s order first)"
    st.dataframe(
        agreement, hide_index=True, height="content",
        column_config={
            "Against": st.column_config.TextColumn(
                f"Against {labels[primary]}", pinned=True, help=MEANING["agreement_against"],
                width=frames.label_width([f"Against {labels[primary]}"]
                                         + [a.second for a in agreements])),
            "tau": st.column_config.TextColumn("Kendall's tau", help=AGREEMENT_TERMS["tau"]),
            "tau_AP": st.column_config.TextColumn("tau_AP", help=AGREEMENT_TERMS["tau_ap"]),
            # as wide as its longest list of pairs (six runs swap up to fifteen): the table
            # scrolls sideways instead of cutting the list at its edge
            "Swapped": st.column_config.TextColumn(
                swapped, help=AGREEMENT_TERMS["swapped"],
                width=frames.label_width([swapped, *agreement["Swapped"]])),
        })
    st.caption(f"Each run's place by its mean on {labels[primary]}, set against its place "
               f"on every other figure shown. {AGREEMENT_TERMS['order']} "
               "`python -m metrics agreement` compares two measures, two K or two label sets.")

ui.chart(
    cache.derived(view, "interval bars", (), lambda: charts.interval_bars(
        frames.scores_summary(evaluation),
        chart_base.run_scale(view.colour_domain),
        k=k,
        confidence_level=evaluation.conventions.confidence_level,
        n_queries=len(evaluation.scored_ids),
        interval_method=evaluation.conventions.interval_method,
    )),
    stretch=True,
    download=f"intervals-k{k}",
    export=lambda: exports.interval_chart(evaluation, view.colour_domain),  # landscape
)
few = metrics.few_queries_note(len(evaluation.scored_ids), evaluation.conventions.interval_method)
if few:
    st.caption(safe.md(few))
timings.section(view, session.inputs(), primary, labels[primary], key="overview")
if cache.without_lists(view):  # saved figures: the sections below read the lists
    saved.counts(view)
    st.stop()

facets = slicing.facets(view)
if facets:
    st.subheader("By kind of query")
    left, right = st.columns(2)
    st.session_state[session.FACET_FIRST] = slicing.first_facet(view)
    session.choose_facet(list(facets))
    facet = left.selectbox(
        "Facet", list(facets), key=session.FACET,
        help=" ".join(FACET_RULES[rule] for rule in ("numbers", "categories", "missing",
                                                      "length")))
    labels = {s.key: evaluation.label(s.key) for s in evaluation.summary_specs}
    session.relabelled("overview.slice_metric")
    key = right.selectbox("Metric", list(labels), index=list(labels).index("nDCG"),
                          format_func=labels.get, key="overview.slice_metric",
                          help=HELP["slice_metric"])
    st.dataframe(
        frames.slices_table(evaluation, slicing.slices(view, facet), key),
        hide_index=True,
        column_config={
            "Slice": st.column_config.TextColumn(facet, pinned=True),
            "Queries": st.column_config.NumberColumn("Queries", help=MEANING["slice_queries"],
                                                     format="localized"),
        } | {run: st.column_config.TextColumn(
            frames.baseline_label(evaluation, run),
            help=MEANING["slice_mean"].format(metric=labels[key], level=level))
           for run in evaluation.run_names},
    )
    st.caption(" ".join(FACET_RULES[rule] for rule in ("figures", "small")))

st.subheader("What was scored")
st.dataframe(
    cache.derived(view, "counts table", (), lambda: frames.counts_table(evaluation)),
    hide_index=True,
    column_config={
        "Scored": st.column_config.NumberColumn(help=MEANING["scored"], format="localized"),
        "Excluded": st.column_config.NumberColumn(help=MEANING["excluded"], format="localized"),
        **{c.replace("_", " ").capitalize(): st.column_config.NumberColumn(
            help=MEANING["class_count"].format(meaning=CLASS_MEANING[c], k=k),
            format="localized")
           for c in QUERY_CLASSES},
        "Repeats": st.column_config.NumberColumn(help=MEANING["repeats"], format="localized"),
        "Missing": st.column_config.NumberColumn(help=MEANING["missing"], format="localized"),
        "Not in qrels": st.column_config.NumberColumn(help=MEANING["not_in_qrels"],
                                                      format="localized"),
        "Dropped lines": st.column_config.NumberColumn(help=MEANING["dropped"], format="localized"),
    },
)

st.subheader("Reading each run")
ACROSS = 3  # cards a row; each row its own columns, so that a fourth run starts a new row
for start in range(0, len(evaluation.runs), ACROSS):
    row = evaluation.runs[start:start + ACROSS]
    for run, column in zip(row, st.columns(ACROSS), strict=False):
        with column, st.container(border=True):  # a border around each card only
            ui.run_reading(evaluation, run)

st.subheader(f"What K = {k} costs")
estimate = costs.priced(view, None, None).estimate  # the corpus's, for the placeholder
left, right = st.columns(2)
given = left.number_input(
    "Tokens per chunk", min_value=1.0, max_value=10_000_000.0, value=None, step=10.0,
    key=session.TOKENS, help=COST_MEANING["tokens"],
    placeholder=(f"{estimate.tokens_per_chunk:,.0f}, from the corpus" if estimate
                 else "e.g. 390"))
price = right.number_input(
    "Price per million input tokens ($)", min_value=0.0, max_value=10_000.0, value=None,
    step=0.05, key=session.PRICE, placeholder="optional", help=COST_MEANING["cost"])
cost = costs.priced(view, given, price)  # what the inputs hold now
if cost.problem:  # a price with nothing to price, an empty corpus: the engine's words
    st.info(safe.md(cost.problem), icon=":material/info:")
tokens = cost.tokens
if tokens is None:
    st.caption("Give the mean tokens per chunk (or load a corpus, which gives words × 1.3) "
               "to see what each run's context costs at K and at its suggested k.")
else:
    run_costs = cost.runs
    table = frames.cost_table(run_costs)
    money = "dollar" if tokens.priced else None
    st.dataframe(
        table, hide_index=True,
        # K is in the heading; the recall K buys is the sentence's, as "Extra recall"
        column_order=[c for c in table.columns if (money or not c.startswith("cost"))
                      and c not in ("K", "recall bought")],
        column_config={
            "run": st.column_config.TextColumn("Run", pinned=True),
            "suggested k": st.column_config.NumberColumn("Suggested k"),
            "tokens at K": st.column_config.NumberColumn("Tokens at K",
                                                         format="localized",
                                                         help=COST_MEANING["tokens"]),
            "tokens at k": st.column_config.NumberColumn("Tokens at suggested k",
                                                         format="localized"),
            "cost at K": st.column_config.NumberColumn(
                f"$ {COST_UNIT} at K", format=money,
                help=COST_MEANING["cost"]),
            "cost at k": st.column_config.NumberColumn("$ at suggested k", format=money),
            "recall at K": ui.number_column("Recall at K", COST_MEANING["recall"]),
            "recall at k": ui.number_column("Recall at suggested k", COST_MEANING["recall"]),
            "recall extra": ui.signed_column("Extra recall", COST_MEANING["extra"]),
        })
    st.caption(safe.md(tokens.sentence) + " " + " ".join(
        f"**{safe.md(c.run)}**: {safe.md(c.sentence)}" for c in run_costs))

st.subheader("Load report")
st.caption("What each file held and what was left out, as the loaders reported it.")
for report in frames.load_reports(evaluation):
    details = bool(report.dropped or report.repeats or report.notes)
    with st.expander(safe.md(report.summary()), expanded=details,
                     icon=":material/description:"):
        st.markdown(f"A {report.kind} file, read as {report.format}.")
        for which, title in (("dropped", "Dropped lines"), ("repeats", "Repeated ids")):
            if getattr(report, which):
                st.markdown(f"**{title}**")
                st.dataframe(frames.report_lines(report, which), hide_index=True)
        for note in report.notes:
            st.markdown(f"- {safe.md(note)}")
if evaluation.excluded_ids:
    st.markdown(f"**Excluded queries** (no relevant id, left out of every average): "
                f"{safe.md(fmt.listing(evaluation.excluded_ids))}")
for run in evaluation.runs:
    if run.missing_queries:
        st.markdown(f"**{safe.md(run.name)}** has no list for {len(run.missing_queries)} "
                    f"qrels queries (they score 0): {safe.md(fmt.listing(run.missing_queries))}")
    if run.aligned.ignored_queries:
        ignored = run.aligned.ignored_queries
        st.markdown(f"**{safe.md(run.name)}** answers {len(ignored)} queries absent from the "
                    f"qrels (ignored): {safe.md(fmt.listing(ignored))}")
