"""Compare: did the candidate help, on which queries, and is the difference more than noise?"""

import functools

import pandas as pd
import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache, decisions, progress, review, slicing, texts
from dashboard.data import query as written_out
from dashboard.layout import geometric, saved, timings, ui
from dashboard.layout import review as review_views
from dashboard.report import exports
from dashboard.state import asked, link, picking, session
from dashboard.views import chart_base, comparison_charts, frames, highlight
from metrics import (
    ANOVA_METHOD,
    CORRECTIONS,
    FACET_RULES,
    HEADLINE_FAMILY,
    LEADERBOARD_TERMS,
    MIN_EFFECT,
    POWER_MEANING,
    POWER_METHOD,
    SLICE_MIN_QUERIES,
    TOPIC_SET_MEANING,
    TOPIC_SET_METHOD,
    TUKEY_METHOD,
    TUKEY_TERMS,
    vocabulary,
)
from metrics import format as fmt

CHANGES_SHOWN = 5  # biggest gains and losses listed
MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP

view = ui.page(
    "Compare runs",
    # one line: the headline and its picture are the first screen's
    "Each candidate against the baseline on the same queries: the verdict first, then how sure "
    "it is and which queries moved.",
    baseline=False,  # the Baseline control below says it
)
evaluation = view.evaluation
k = evaluation.k


def controls(snapshots: list) -> cache.CompareOptions:
    """The baseline, the candidates, the metrics compared, the correction and alpha; stops
    the page until there is something to compare."""
    baselines = session.baseline_options(view, snapshots)
    if len(baselines) < 2:
        st.info("Comparing needs a second run: show one more run in the sidebar, or load a "
                "snapshot (sidebar, Snapshots) to compare the live run against.",
                icon=":material/info:")
        st.stop()
    options = session.compare_options(view, snapshots)
    left, right = st.columns([2, 3])
    left.selectbox(
        "Baseline (before)",
        list(baselines),
        format_func=baselines.get,
        key=session.BASELINE,
        on_change=session.baseline_changed,
        persist_state="session",
        help=HELP["baseline"],
    )
    others = [n for n in evaluation.run_names if options.snapshot or n != options.baseline]
    right.multiselect("Candidates (after)", others, key=session.CANDIDATES, persist_state="session",
                      help=HELP["candidates"])
    measures = {s.key: s for s in evaluation.summary_specs}
    # the metrics on a row of their own but for the headline's: eight tags need the width (in
    # a narrower column they were cut)
    metrics_box, primary_box = st.columns([4, 1])
    _, labels = session.headline_metric(evaluation)  # any compared measure, shown or not
    primary_box.selectbox("Headline metric", list(labels), format_func=labels.get,
                          key=session.PRIMARY, help=HELP["primary"])
    metrics_box.multiselect(
        "Metrics compared",
        list(measures),
        format_func={key: evaluation.label(key) for key in measures}.get,
        key=session.METRICS,
        persist_state="session",
        help=HELP["metrics"],
    )
    middle, right, last = st.columns([3, 1, 2], vertical_alignment="bottom")
    middle.radio(
        "Multiple-comparison correction",
        list(CORRECTIONS),
        format_func=CORRECTIONS.get,
        key=session.CORRECTION,
        horizontal=True,
        persist_state="session",
        help=HELP["correction"],
    )
    right.number_input("Alpha", min_value=session.ALPHA_RANGE[0], max_value=session.ALPHA_RANGE[1],
                       step=0.01, format=fmt.FIGURE_PATTERN, key=session.ALPHA,
                       persist_state="session",
                       help=HELP["alpha"])
    smallest, largest = MIN_EFFECT.bounds
    last.number_input(MIN_EFFECT.title, min_value=smallest, max_value=largest, value=None,
                      step=0.005, format=fmt.FIGURE_PATTERN, key=session.MIN_EFFECT,
                      placeholder="none", persist_state="session",
                      help=f"{MIN_EFFECT.changes} {MIN_EFFECT.help}")
    if not options.candidates or not options.metrics:
        st.info("Pick at least one candidate and one metric.", icon=":material/info:")
        st.stop()
    return options


def headline(options: cache.CompareOptions, snapshots: list, story) -> metrics.Comparison:
    """The comparison (or the engine's reason why there is none), drawn in `story`, the
    page's first screen: the headline on the chosen metric in a few words per candidate, the
    long sentences one click away, and the picture of every compared metric's difference."""
    # the headline's own comparison (its metric alone) runs beside the page's
    # read here: the thread sees no session
    primary = st.session_state[session.PRIMARY]  # its picker drawn (controls)
    decisions.ahead(lambda: decisions.headlines(view, options, snapshots, primary))
    compared = cache.compare(view, options, snapshots)
    session.at_next_ks(lambda at: cache.compare(at, options, snapshots))  # a step of K
    if compared.error:
        story.error(safe.md(compared.error), icon=":material/error:")
        st.stop()
    comparison = compared.comparison
    with story:
        if options.snapshot is not None:
            baseline_snapshot = next(s for s in snapshots if s.key == options.snapshot).data
            st.caption(f"Snapshot figures: {safe.md(baseline_snapshot.verification)}.")
            note = cache.same_run_note(view, baseline_snapshot, options, comparison.candidates)
            if note:
                st.warning(safe.md(note), icon=":material/content_copy:")
        with st.container(border=True):
            st.markdown("\n".join(
                f"- {safe.md(sentence)}" for sentence
                in decisions.short_headlines(view, options, snapshots, primary)))
            with st.expander("The full reading: the test, the queries better and worse, p and "
                             "the power", icon=":material/notes:"):
                st.markdown("\n".join(
                    f"- {safe.md(sentence)}" for sentence
                    in decisions.headlines(view, options, snapshots, primary)))
                st.caption(HEADLINE_FAMILY)
        ui.chart(cache.derived(view, "difference intervals", (options,),
                               lambda: comparison_charts.difference_intervals(
                                   frames.comparison_differences(comparison),
                                   chart_base.run_scale(view.colour_domain),
                                   baseline=comparison.baseline, k=k,
                                   confidence_level=comparison.confidence_level,
                                   correction=CORRECTIONS[comparison.correction])),
                 stretch=True, download=f"differences-k{k}")
    return comparison


def tests(options: cache.CompareOptions, comparison: metrics.Comparison) -> None:
    """The test in words, what the query set can detect, and each candidate's table against
    the baseline with every metric's reading."""
    method = vocabulary.comparison_method(comparison)
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    delta = left.number_input(
        "A difference worth detecting", min_value=1e-6, max_value=1.0, value=None, step=0.01,
        format=fmt.FIGURE_PATTERN, key=session.DELTA, placeholder="e.g. 0.02",
        persist_state="session",  # the report states what it needs too
        help=POWER_MEANING["queries_needed"])
    right.caption(safe.md(POWER_METHOD))
    st.markdown(f"**Test:** {method['test']}")
    st.caption(" ".join(method[key] for key in ("interval", "effect", "reference")))
    st.caption(safe.md(metrics.min_effect_sentence(comparison.min_effect)))
    if method.get("scale"):  # thousands of queries: Wilcoxon rejects for tiny shifts
        st.warning(safe.md(method["scale"]), icon=":material/warning:")
    few = metrics.few_queries_note(len(comparison.query_ids),
                                   evaluation.conventions.interval_method)
    if few:
        st.warning(safe.md(few), icon=":material/warning:")

    # what each test can detect solves for a difference per test: once per comparison
    power = cache.derived(view, "power", (options, delta),
                          lambda: frames.power_by_test(comparison, delta))
    if delta is not None:  # the queries a future set needs to detect it (Sakai 2016)
        sizes = decisions.topic_set_sizes(view, options.metrics, delta)
        st.markdown(f"**Queries a future query set needs to detect {fmt.figure(delta)}**")
        st.dataframe(frames.topic_set_table(sizes), hide_index=True, column_config={
            "Metric": st.column_config.TextColumn(pinned=True),
            "Paired t-test": st.column_config.NumberColumn(
                format="localized", help=TOPIC_SET_MEANING["paired_t"]),
            "ANOVA over the runs": st.column_config.NumberColumn(
                format="localized", help=TOPIC_SET_MEANING["anova"])})
        st.caption(safe.md(TOPIC_SET_METHOD))
    for candidate in comparison.candidates:
        st.subheader(f"{safe.md(candidate)} against {safe.md(comparison.baseline)}")
        table = cache.derived(
            view, "comparison table", (options, delta, candidate),
            lambda candidate=candidate: frames.comparison_table(comparison, candidate, power))
        st.dataframe(
            table,
            hide_index=True,
            placeholder="undefined",
            # the smallest detectable difference is in each reading below: as a column it would
            # push the table past a 1280-px window
            column_order=[c for c in table.columns
                          if c not in ("Reading", "Verdict", "Detectable")],
            column_config={
                "Metric": st.column_config.TextColumn("Metric", pinned=True),
                "Before": ui.number_column("Before", MEANING["baseline_mean"]),
                "After": ui.number_column(
                    "After", MEANING["run_mean"].format(run=safe.md(candidate))),
                "Difference": ui.signed_column("Difference", MEANING["difference"]),
                "Interval": st.column_config.TextColumn(
                    "Interval", help=MEANING["difference_interval"].format(
                        level=fmt.confidence(comparison.confidence_level),
                        bootstrap=vocabulary.BOOTSTRAP_NAMES[comparison.interval_method])),
                vocabulary.WIN_TIE_LOSS: st.column_config.TextColumn(
                    vocabulary.WIN_TIE_LOSS, help=vocabulary.WIN_TIE_LOSS_MEANING),
                "p": st.column_config.TextColumn("p", help=MEANING["p"]),
                "p adjusted": st.column_config.TextColumn(
                    "p adj.", help=MEANING["p_adjusted"].format(
                        correction=CORRECTIONS[comparison.correction],
                        n=comparison.n_comparisons)),
                "p t-test": st.column_config.TextColumn("p t-test", help=MEANING["p_t"]),
                "p Wilcoxon": st.column_config.TextColumn("p Wilcoxon", help=MEANING["p_wilcoxon"]),
                "Effect size": ui.number_column("Effect size", MEANING["effect_size"]),
            },
        )
        st.markdown("\n".join(f"- **{row.Metric}**: {row.Reading}."
                              for row in table.itertuples(index=False)))


@link.page_fragment
def every_pair(options: cache.CompareOptions, primary: str, label: str) -> None:
    """Every pair of runs on the headline metric, by the paired tests under one correction
    or by the randomized Tukey HSD. A fragment inside the page's: its controls redraw this
    section alone, so that the progress of the tests shows at once rather than after the
    whole page above has been drawn again."""
    st.header("All runs against all runs")
    if not st.toggle(f"Compare every pair of runs on {label}", key=session.ALL_PAIRS,
                     help=HELP["all_pairs"], on_change=progress.on_toggle(
                         session.ALL_PAIRS,
                         f"Comparing every pair of runs on {label}",
                         f"Compared every pair of runs on {label}")):
        return
    test = ui.pairs_test()  # the Overview's leaderboard reads the same choice
    pairs = decisions.all_pairs(view, primary, options.correction, options.alpha, test=test,
                                min_effect=options.min_effect)
    st.caption(safe.md(pairs.sentence()) + " " + vocabulary.leaderboard.LETTER_GROUPS)
    groups, matrix = frames.pairs_tables(pairs, primary)
    st.dataframe(groups, hide_index=True, column_config={
        "Run": st.column_config.TextColumn(pinned=True),
        "Mean": ui.number_column(label),
        "Group": st.column_config.TextColumn(help=LEADERBOARD_TERMS["letters"])})
    st.markdown(f"**{'p' if test == 'tukey' else 'Adjusted p'}, each pair on {label}**")
    st.dataframe(matrix, hide_index=True, column_config={
        "Run": st.column_config.TextColumn(
            pinned=True, help=MEANING["pair_p"].format(metric=label))})
    st.markdown(f"**Each pair on {label}**")
    st.dataframe(frames.pair_table(pairs, primary), hide_index=True, column_config={
        "Difference": ui.signed_column("Difference"),
        "p classic": st.column_config.TextColumn(help=TUKEY_TERMS["p_classic"]),
        "Effect size": st.column_config.TextColumn(help=TUKEY_TERMS["effect_size"])})
    if test == "tukey":
        table, margin = frames.anova_table(pairs.tukey[pairs.label(primary)].anova)
        st.markdown(f"**Two-way ANOVA of {label} (queries x runs)**")
        st.dataframe(table, hide_index=True)
        st.caption(safe.md(margin) + " " + safe.md(ANOVA_METHOD) + " " + safe.md(TUKEY_METHOD))
    progress.finished(session.ALL_PAIRS)


def by_kind(options: cache.CompareOptions, comparison: metrics.Comparison,
            facets: dict) -> None:
    """The paired difference over each slice of a facet's queries alone."""
    st.header("By kind of query")
    st.caption("Which kinds of query the candidate helps and which it hurts: the paired "
               "difference over each slice's queries alone. The correction covers every slice "
               "shown. " + FACET_RULES["small"])
    left, middle, right = st.columns(3)
    session.choose("compare.facet", list(facets), slicing.first_facet(view))
    facet = left.selectbox("Facet", list(facets), key="compare.facet",
                           help=" ".join(FACET_RULES[rule]
                                         for rule in ("numbers", "categories")))
    # one candidate for this section and every one below it (query by query, harm)
    session.choose("compare.candidate", list(comparison.candidates), comparison.candidates[0])
    slice_candidate = middle.selectbox("Candidate", list(comparison.candidates),
                                       key="compare.candidate",
                                       help=HELP["compare_candidate"])
    keys = {key: evaluation.label(key) for key in options.metrics}
    session.choose("compare.slice_metric", list(keys), "nDCG" if "nDCG" in keys else
                   next(iter(keys)))
    session.relabelled("compare.slice_metric")
    slice_metric = right.selectbox("Metric", list(keys), format_func=keys.get,
                                   key="compare.slice_metric")
    pieces = slicing.compare_slices(view, options, facet, slice_candidate, slice_metric)
    compared = {label for label, _ in pieces}
    untested = [label for label in facets[facet].bins if label not in compared]
    if untested:  # a paired test needs two queries: say which slices it could not read
        st.caption("Not compared, fewer than 2 scored queries: "
                   + ", ".join(safe.md(label) for label in untested) + ".")
    if pieces:
        table = frames.slice_comparison_table(pieces)
        st.dataframe(
            table, hide_index=True,
            column_order=[c for c in table.columns if c not in ("Reading", "low", "high")],
            column_config={
                "Slice": st.column_config.TextColumn(facet, pinned=True),
                "Queries": st.column_config.NumberColumn(format="localized"),
                "Before": ui.number_column(
                    "Before", MEANING["run_mean"].format(run=safe.md(comparison.baseline))),
                "After": ui.number_column(
                    "After", MEANING["run_mean"].format(run=safe.md(slice_candidate))),
                "Difference": ui.signed_column("Difference"),
                "p adjusted": st.column_config.TextColumn(
                    "p adj.", help=MEANING["p_adjusted_slices"].format(
                        correction=CORRECTIONS[options.correction], n=len(pieces))),
            },
        )
        ui.chart(comparison_charts.slice_differences(
            table, metric=keys[slice_metric], baseline=comparison.baseline,
            candidate=slice_candidate, facet=facet, small=SLICE_MIN_QUERIES),
            download=f"slices-{slice_metric}")
        st.markdown("\n".join(f"- **{safe.md(row.Slice)}** ({row.Queries:,} queries): "
                               f"{safe.md(row.Reading)}."
                               for row in table.itertuples(index=False)))
    else:
        st.info("No slice holds two scored queries: nothing to compare.",
                icon=":material/info:")


def query_by_query(options: cache.CompareOptions, comparison: metrics.Comparison,
                   facets: dict) -> tuple[str, str, pd.DataFrame]:
    """The metric and candidate read query by query, the scatter and the bars of their
    differences, the harm the candidate does, and its biggest gains and losses; returns the
    metric, the candidate and the paired figures the rank movement reads."""
    st.header("Query by query")
    shown_metrics = list(comparison.metrics)
    nDCG = evaluation.label("nDCG")
    session.choose("compare.metric", shown_metrics,
                   nDCG if nDCG in shown_metrics else shown_metrics[0])
    left, right = st.columns(2)
    metric = left.selectbox("Metric", shown_metrics, key="compare.metric",
                            help=HELP["compare_metric"])
    if facets and options.snapshot is None:  # chosen above, in the by-kind section
        candidate = st.session_state["compare.candidate"]
        right.markdown(f"Candidate: **{safe.md(candidate)}** (chosen above, under By kind of "
                       "query)")
    else:
        session.choose("compare.candidate", list(comparison.candidates), comparison.candidates[0])
        candidate = right.selectbox("Candidate", list(comparison.candidates),
                                    key="compare.candidate", help=HELP["compare_candidate"])
    paired = review.paired(view, comparison, options, metric)
    runs = chart_base.run_scale(view.colour_domain)
    ui.chart(cache.derived(view, "paired scatter", (options, metric),
                           lambda: comparison_charts.paired_scatter(
                               paired, runs, metric=metric, baseline=comparison.baseline)),
             download=f"before-after-{metric}")
    ui.chart(cache.derived(view, "difference bars", (options, metric),
                           lambda: comparison_charts.difference_bars(
                               paired, runs, metric=metric, baseline=comparison.baseline)),
             download=f"differences-{metric}")
    review_views.harm(view, comparison, metric, candidate)

    st.subheader(f"Biggest gains and losses of {safe.md(candidate)} in {metric}")
    st.caption("Click a row to pick its query: its rank movement shows below, and the link opens "
               "it in the drill-down.")
    # one above the other, each the page's width: side by side, a question pushed the figures
    # out of a half-width table
    for gains, title in ((True, "Gains"), (False, "Losses")):
        changes = review.biggest_changes(view, paired, options, metric, candidate,
                                         CHANGES_SHOWN, gains=gains)
        with st.container(key=f"compare.{title.lower()}_box"):
            st.markdown(f"**{title}**")
            if changes.empty:
                st.caption(f"No query got {'better' if gains else 'worse'}.")
                continue
            key = f"compare.{title.lower()}"
            st.dataframe(
                changes,
                hide_index=True,
                key=key,
                on_select=functools.partial(picking.pick_from_rows, key,
                                            list(changes["query_id"])),
                selection_mode="single-row",
                column_config={
                    "query_id": st.column_config.TextColumn("Query"),
                    "text": st.column_config.TextColumn("Question", help=MEANING["question"],
                                                        width="large"),
                    "before": ui.number_column(
                        "Before", MEANING["run_metric"].format(metric=metric,
                                                     run=safe.md(comparison.baseline))),
                    "after": ui.number_column(
                        "After", MEANING["run_metric"].format(metric=metric,
                                                              run=safe.md(candidate))),
                    "difference": ui.signed_column("Difference"),
                },
            )
    return metric, candidate, paired


@link.page_fragment
def rank_movement(options: cache.CompareOptions, comparison: metrics.Comparison, metric: str,
                  candidate: str, paired: pd.DataFrame) -> None:
    """The chosen query's ranks before and after. A fragment inside the page's: picking
    another query or depth redraws this section only, not the tables and charts above."""
    ordered = cache.derived(view, "by difference", (options, metric, candidate),
                            lambda: frames.by_difference(paired, candidate))
    differences = dict(zip(ordered["query_id"], ordered["difference"], strict=True))
    if not st.session_state.get("compare.movement_opened"):
        # first open: a query selected on another page that did not move shows nothing
        # here; the largest gain does (a query picked here later is kept, moved or not)
        st.session_state["compare.movement_opened"] = True
        if differences.get(st.session_state.get(session.QUERY), 0) == 0:
            moved = next((q for q, d in differences.items() if d != 0), None)
            if moved is not None:
                picking.set_query(moved)
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    with left:
        query = picking.select_query(
            "compare", list(differences),
            format_func={q: f"{q} · {metric} {fmt.signed(d)}"
                         for q, d in differences.items()}.get,
            help=HELP["movement_query"].format(metric=metric))
    longest = max(written_out.longest(view, query), k)
    session.bounded("compare.depth", 1, longest, default=min(max(2 * k, 10), longest))
    right.number_input("Down to rank", min_value=1, max_value=longest, step=1,
                       key="compare.depth",
                       help=HELP["depth"])
    depth = int(st.session_state["compare.depth"])
    moved = (comparison.baseline, candidate, query, depth)
    found = written_out.movement(view, *moved)
    movement = found.table
    ui.chart(cache.derived(view, "rank slope", moved, lambda: comparison_charts.rank_slope(
                 movement, k=k, depth=depth, baseline=comparison.baseline,
                 candidate=candidate, query_id=query)),
             download=f"rank-movement-{query}")
    left, right = st.columns([1, 2])
    with left:
        changes = frames.query_changes(comparison, candidate, query)
        this = changes[changes["Metric"] == metric].iloc[0]
        st.metric(f"{metric} of {safe.md(query)}", fmt.figure(this['After']),
                  delta=f"{fmt.signed(this['Difference'])} against "
                        f"{fmt.figure(this['Before'])}",
                  border=True)
        ui.open_in_drilldown(query, pair=(comparison.baseline, candidate))
    with right:
        st.dataframe(
            changes,
            hide_index=True,
            column_config={
                "Before": ui.number_column(comparison.baseline),
                "After": ui.number_column(candidate),
                "Difference": ui.signed_column(None),
            },
        )
    st.markdown(safe.md(found.sentence))
    corpus = texts.corpus(view)
    st.dataframe(
        frames.with_chunks(movement, corpus),
        hide_index=True,
        placeholder="—",
        column_config={
            "chunk": st.column_config.TextColumn("Chunk", width="large", help=MEANING["chunk"]),
            "doc_id": st.column_config.TextColumn("Id"),
            "grade": st.column_config.NumberColumn("Grade", help=MEANING["grade_unjudged"]),
            "judged": st.column_config.TextColumn(
                "Label", help=evaluation.conventions.sentences()["relevance_level"]),
            "before": st.column_config.NumberColumn(
                "Rank before", help=MEANING["rank_in_run"].format(
                    run=safe.md(comparison.baseline)), format="localized"),
            "after": st.column_config.NumberColumn(
                "Rank after", help=MEANING["rank_in_run"].format(run=safe.md(candidate)),
                format="localized"),
            "climbed": ui.number_column("Places climbed", MEANING["places_climbed"],
                                        pattern=fmt.PLACES_PATTERN),
            "moved": st.column_config.TextColumn("What the candidate did", width="medium",
                                                 help=MEANING["moved"].format(run=safe.md(candidate))),
        },
    )
    if corpus is not None:
        with st.expander("The chunks that moved, the question's words marked",
                         icon=":material/article:"):
            st.html(highlight.chunks_html(
                [(None, str(doc), corpus.title(doc), corpus.text(doc), note) for doc, note
                 in zip(movement["doc_id"], frames.movement_notes(movement), strict=True)],
                view.text(query)))


def movement(options: cache.CompareOptions, comparison: metrics.Comparison, metric: str,
             candidate: str, paired: pd.DataFrame, lists: bool) -> None:
    st.header("Rank movement")
    if options.snapshot:
        st.info("Rank movement needs the baseline's ranked lists, and a snapshot keeps only its "
                "figures: pick a live run as the baseline to see which ids moved.",
                icon=":material/info:")
    elif not lists:  # the query's two lists read from the run files given beside the figures
        moved = frames.by_difference(paired, candidate)["query_id"].tolist()
        saved.rank_movement(view, comparison, candidate, picking.select_query(
            "compare", moved, help=HELP["movement_query"].format(metric=metric)))
    else:
        rank_movement(options, comparison, metric, candidate, paired)


def export(comparison: metrics.Comparison) -> None:
    st.header("Export")
    left, right = st.columns([1, 2], vertical_alignment="center")
    with left:
        ui.download_button("Comparison (CSV)", lambda: exports.comparison_csv(comparison),
                           f"comparison-k{k}.csv", "text/csv", key="compare.csv",
                           help=HELP["comparison_csv"])
    with right:
        st.page_link(ui.EXPORT, label="The HTML report, the Markdown summary and the tables",
                     icon=":material/ios_share:")


@link.page_fragment
def comparison_page() -> None:
    """Everything below the page's top: a fragment, so that a candidate, the metrics, the
    correction, alpha or any control further down redraws the page's own part only, not the
    sidebar. A new baseline reruns the whole app: it becomes the first run shown."""
    snapshots = session.snapshots()
    story = st.container()  # the first screen: the headline and its picture, drawn above
    st.header("What is compared")  # the choices they read
    options = controls(snapshots)
    comparison = headline(options, snapshots, story)
    tests(options, comparison)
    if options.snapshot is None:  # gm_map (More measures): the candidates against the baseline
        geometric.tables(view, options.baseline, tuple(options.candidates))
    if options.snapshot is None:  # what each run costs, against the baseline chosen above
        primary = st.session_state[session.PRIMARY]
        timings.section(view, session.inputs(), primary, evaluation.label(primary),
                        baseline=options.baseline, key="compare")
    # the check is drawn here but waited for last: it runs on a thread while the page draws
    lists = not cache.without_lists(view)  # saved figures: no list to rescore or move
    checked = (review.fragility(view, session.inputs(), options, comparison)
               if asked.now().fragility and options.snapshot is None and lists
               else None)
    fragility_slot = st.container()
    if options.snapshot is None and len(evaluation.runs) >= 3:
        primary = st.session_state[session.PRIMARY]
        every_pair(options, primary, evaluation.label(primary))
    facets = slicing.facets(view)
    if facets and options.snapshot is None:
        by_kind(options, comparison, facets)
    metric, candidate, paired = query_by_query(options, comparison, facets)
    movement(options, comparison, metric, candidate, paired, lists)
    with fragility_slot:
        if lists:
            review_views.fragility(view, options, checked)
        else:
            st.header("Would another convention change the verdict?")
            saved.needs_lists(view, "fragility", stop=False)
    export(comparison)


comparison_page()
