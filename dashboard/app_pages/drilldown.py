"""Drill-down: one query, each run side by side, every figure written out from the engine's."""

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache, combine, texts
from dashboard.data import query as written_out
from dashboard.layout import labelling, saved, ui
from dashboard.state import asked, link, picking, session
from dashboard.views import frames, highlight
from metrics import CLASS_MEANING, vocabulary
from metrics import format as fmt

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP
STANDARDISING = vocabulary.conventions
RUN_TAB = "drilldown.run_tab"  # the run whose ranks are written out (a tab label)

if cache.without_lists(session.view()):  # saved figures: lists read one query at a time
    saved.drilldown(session.view())
    st.stop()
view = ui.page(
    "Drill-down",
    "One query: its question and every run's figures at K first; then two runs side by side "
    "with their chunks, the unjudged ids to grade, and the arithmetic: the grade of each "
    "returned id, its gain and discount, how DCG builds up against the ideal list that gives "
    "IDCG, the steps of AP beside RAGAS-style context precision, and the rank that gives RR.",
)
evaluation = view.evaluation
k = evaluation.k

scored = evaluation.scored_ids
baseline = evaluation.runs[0]


def picker_labels() -> dict[str, str]:
    """Every scored query as the picker lists it: its id, the start of its question and its
    class for the baseline (built once per view: thousands of them)."""
    labels = ui.query_labels(view, scored, limit=60)
    return {q: f"{labels[q]} · {cls.replace('_', ' ')} for {baseline.name}"
            for q, cls in zip(scored, baseline.classes, strict=True)}


@link.page_fragment
def query_view() -> None:
    """Everything below the page's top is one query's: a fragment, so that picking another
    query (the picker, Previous, Next, their keys), the side-by-side pair, the whole list or
    a grade redraws this part only, not the sidebar and the page's top."""
    picked = cache.derived(view, "drill-down picker", (), picker_labels)
    search, pick, whole_list = st.columns([2, 3, 1.3], vertical_alignment="bottom")
    with search:
        found = picking.search_queries("drilldown", scored, view.queries)
    with pick:
        query = picking.select_query(
            "drilldown",
            found,
            format_func=picked.get,
            help=HELP["drilldown_query"].format(excluded=len(evaluation.excluded_ids)),
        )
    at = found.index(query)
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button("Previous", icon=":material/arrow_back:", key="drilldown.previous",
                  disabled=at == 0, shortcut="P", help=HELP["previous_query"],
                  on_click=picking.set_query, args=(found[max(at - 1, 0)],))
        st.button("Next", icon=":material/arrow_forward:", key="drilldown.next",
                  disabled=at == len(found) - 1, shortcut="N", help=HELP["next_query"],
                  on_click=picking.set_query, args=(found[min(at + 1, len(found) - 1)],))
        st.caption(f"Query {at + 1:,} of {len(found):,} listed.")
    longest = written_out.longest(view, query)
    whole = whole_list.toggle("Whole list", key="drilldown.whole",
                              help=HELP["whole_list"].format(k=k, longest=longest))
    shown = written_out.written(view, query, whole=whole)
    depth, explanations = shown.depth, shown.explanations
    corpus = texts.corpus(view)  # None without a corpus file: no chunk column, no chunk texts
    CHUNK = st.column_config.TextColumn("Chunk", width="large", help=MEANING["chunk"])
    n_relevant = shown.n_relevant
    text = view.text(query)
    st.markdown(f"### {safe.md(query)}" + ("" if text is None else  # the question, escaped
                                          f" · {safe.md(' '.join(text.split()))}"))
    st.caption(f"{n_relevant:,} relevant id{'s' if n_relevant != 1 else ''} (grade ≥ "
               f"{evaluation.conventions.relevance_level}).")
    leaks = texts.leakage(view)
    copied = leaks.query_sentence(query) if leaks is not None else None
    if copied:
        st.warning(safe.md(copied), icon=":material/content_copy:")

    # the answer first: every run's figures on this query at K
    figures, added = shown.figures, shown.added
    st.dataframe(
        figures, hide_index=True,
        column_config={
            "Run": st.column_config.TextColumn(pinned=True),
            "Class": st.column_config.TextColumn(help=MEANING["query_class"]),
        } | {column: ui.number_column(column, MEANING["query_figures"])
             for column in figures.columns if column not in ("Run", "Class")},
    )
    if added is not None:  # the sidebar's measures, a row each: any number fits the width
        st.dataframe(added, column_config={
            name: ui.number_column(name, MEANING["query_figure"].format(run=safe.md(name)))
            for name in evaluation.run_names})
    st.caption(" · ".join(f"{name.replace('_', ' ')}: {meaning}"
                          for name, meaning in CLASS_MEANING.items() if name != "excluded"))
    if evaluation.standardised:  # standardised figures above, raw arithmetic below
        with st.expander(STANDARDISING.STANDARDISED_QUERY_TITLE, icon=":material/functions:"):
            st.caption(safe.md(STANDARDISING.STANDARDISED_QUERY.format(
                words=evaluation.standardised_words)))
            st.dataframe(written_out.standardised(view, query), hide_index=True,
                         column_config={"Figure": st.column_config.TextColumn(pinned=True)})

    mine = session.my_labels(view.qrels_key)
    if len(evaluation.runs) > 1:
        st.subheader("Two runs side by side")
        names = evaluation.run_names
        session.choose(session.SIDE_A, names, names[0])
        first = st.session_state[session.SIDE_A]
        session.choose(session.SIDE_B, [n for n in names if n != first],
                       next(n for n in names if n != first))
        left, right = st.columns(2)
        a = left.selectbox("Left", names, key=session.SIDE_A, help=HELP["side_a"])
        b = right.selectbox("Right", [n for n in names if n != a], key=session.SIDE_B,
                            help=HELP["side_b"])
        both = written_out.pair(view, a, b, query, depth)
        given = {doc: grade for (q, doc), grade in mine.items() if q == query}
        st.html(highlight.side_by_side_html(
            both.side, a, b,
            None if corpus is None else (lambda doc: None if corpus.text(doc) is None
                                         and not corpus.title(doc) else
                                         (corpus.title(doc) or "", corpus.text(doc))),
            text, vocabulary.readings.where_in, given))
        contribution = both.contribution
        n_scored = len(evaluation.scored_ids)
        st.markdown("**What this query adds to the difference between them**")
        st.dataframe(contribution, hide_index=True, column_config={
            "metric": st.column_config.TextColumn("Metric", pinned=True),
            "a": ui.number_column(a, MEANING["query_figure"].format(run=safe.md(a))),
            "b": ui.number_column(b, MEANING["query_figure"].format(run=safe.md(b))),
            "difference": ui.signed_column(
                "Difference", MEANING["query_difference"].format(a=safe.md(a), b=safe.md(b))),
            "contribution": ui.number_column(
                "Adds to the mean", MEANING["contribution"].format(n=n_scored),
                pattern=fmt.CONTRIBUTION_PATTERN),
            "mean difference": ui.signed_column("Mean difference", MEANING["mean_difference"]),
        })
        st.caption(safe.md(both.sentence))
        labelling.judge(view, query, both.unjudged, a, b, corpus)

    labelling.my_labels(view)

    st.subheader("The ideal list that gives IDCG")
    ideal = frames.with_chunks(shown.ideal, corpus)
    idcg = shown.idcg
    ranks_in = {f"rank in {run.name}": run.name for run in evaluation.runs}
    # two tables from the one frame, so that every column fits beside the others at 1280 px: the
    # ideal list, then where each run returned its ids (a column per run, headed by its name)
    st.dataframe(
        ideal,
        hide_index=True,
        placeholder="—",
        column_order=[c for c in ideal.columns if c not in ranks_in],
        column_config={
            "chunk": CHUNK,
            "rank": st.column_config.NumberColumn("Ideal rank"),
            "doc_id": st.column_config.TextColumn("Id"),
            "grade": st.column_config.NumberColumn("Grade"),
            "gain": ui.number_column("Gain", evaluation.conventions.sentences()["gain"]),
            "discount": ui.number_column("log2(rank+1)", MEANING["discount"]),
            "gain / discount": ui.number_column("Gain / discount"),
            "IDCG": ui.number_column("Running IDCG", MEANING["running_idcg"]),
            "within K": st.column_config.CheckboxColumn(f"In top {k}", help=MEANING["within_k"]),
        },
    )
    st.caption(f"{vocabulary.IDEAL_RULE} IDCG@{k} = {fmt.figure(idcg)}. Every total on this page "
               "is the engine's value; the running columns are the engine's figure at each rank.")
    st.markdown("**Where each run returned these ids**")
    st.dataframe(
        ideal,
        hide_index=True,
        placeholder="—",
        column_order=["rank", "doc_id", *ranks_in],
        column_config={
            "rank": st.column_config.NumberColumn("Ideal rank"),
            "doc_id": st.column_config.TextColumn("Id"),
        }
        | {column: st.column_config.NumberColumn(
            name, help=MEANING["ideal_rank_in_run"].format(run=safe.md(name)))
           for column, name in ranks_in.items()},
    )

    st.subheader("Each run, rank by rank")
    st.caption("Status: " + ", ".join(f"{status} ({meaning})"
                                      for status, meaning in metrics.STATUS_MEANING.items())
               + ". Running DCG is the engine's DCG at each rank."
               + (f" Ranks past K = {k} are shown for context; every figure is read at K."
                  if depth > k else ""))
    # a tab a run, only the chosen one drawn: four runs' ranked lists and steps were the
    # page's heaviest part to draw again on every change (the tabs rerun this fragment alone)
    labels = [safe.md(run.name) for run in evaluation.runs]
    session.choose(RUN_TAB, labels, labels[0])
    tabs = st.tabs(labels, key=RUN_TAB, on_change="rerun")
    for tab, run, x in zip(tabs, evaluation.runs, explanations, strict=True):
        if not tab.open:
            continue
        with tab:
            table = st.container()
            table.dataframe(
                frames.with_chunks(x.ranks, corpus),
                hide_index=True,
                placeholder="",
                column_order=["rank", "doc_id", "label", "gain", "discount", "gain / discount",
                              "DCG", "chunk"],
                column_config={
                    "chunk": CHUNK,
                    "rank": st.column_config.NumberColumn("Rank"),
                    "doc_id": st.column_config.TextColumn("Id"),
                    "label": st.column_config.TextColumn(
                        "Grade · status",
                        help=MEANING["grade_status"] + " "
                        + evaluation.conventions.sentences()["relevance_level"]),
                    "gain": ui.number_column("Gain", evaluation.conventions.sentences()["gain"]),
                    "discount": ui.number_column("log2(r+1)", MEANING["discount"]),
                    "gain / discount": ui.number_column("Gain/disc."),
                    "DCG": ui.number_column("DCG", MEANING["running_dcg"]),
                },
            )
            # in reading order, the page's width: AP's steps beside the words clipped at 1280 px
            st.markdown(f"**DCG** · {x.sentences['dcg']}")
            st.markdown(f"**nDCG** · {x.sentences['ndcg']}")
            st.markdown(f"**AP** · {x.sentences['ap']}")
            if len(x.ap_steps):
                st.dataframe(
                    x.ap_steps,
                    hide_index=True,
                    column_config={
                        "rank": st.column_config.NumberColumn("Relevant at rank"),
                        "doc_id": st.column_config.TextColumn("Id"),
                        "relevant so far": st.column_config.NumberColumn("Relevant so far"),
                        "precision": ui.number_column("Precision there",
                                                      MEANING["precision_there"]),
                    },
                )
            st.markdown(f"**Context precision** · {x.sentences['cp']}")
            st.markdown(x.sentences["ap_vs_cp"])
            st.markdown(f"**RR** · {x.sentences['rr']}")
            added = written_out.added_figures(view, run.name, query)  # the sidebar's measures
            if added:
                with st.expander("The measures added, written out", expanded=True,
                                 icon=":material/functions:"):
                    for more in added:  # each sentence opens with its figure's label
                        st.markdown(f"**{safe.md(more.label)}**"
                                    f"{safe.md(more.sentence[len(more.label):])}")
            if corpus is not None:
                with st.expander(f"What {safe.md(run.name)} put in front of the model: the "
                                 f"chunks, the question's words marked", icon=":material/article:"):
                    st.html(highlight.chunks_html(
                        [(int(row.rank), str(row.doc_id), corpus.title(row.doc_id),
                          corpus.text(row.doc_id), str(row.label)) for row in x.ranks.itertuples()],
                        text))

    if len(evaluation.runs) > 1:
        st.subheader(f"How alike the runs' top {k} are on {safe.md(query)}")
        p = asked.now().rbo_p
        compared = combine.compared_runs(view)
        overlap_words = vocabulary.overlap
        st.dataframe(combine.for_query(view, p, query), hide_index=True, column_config={
            "A": st.column_config.TextColumn(pinned=True),
            **{overlap_words.SHORT_NAMES[key]: ui.number_column(
                overlap_words.SHORT_NAMES[key], overlap_words.OVERLAP_BY_KEY[key].meaning)
                for key in overlap_words.OVERLAP_KEYS}})
        st.caption("Every pair of runs on this query; the Overlap page gives the means over every "
                   "query and the rules. " + safe.md(vocabulary.overlap.persistence_sentence(
                       p, k)))
        if len(compared) < len(evaluation.runs):
            st.caption(safe.md(overlap_words.runs_compared_sentence(len(compared),
                                                                    len(evaluation.runs))))


query_view()
