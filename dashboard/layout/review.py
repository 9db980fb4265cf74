"""The Compare page's risk-sensitive review, laid out from what the engine computed:
which queries a change harms, whether each verdict survives another convention, and what to
label next."""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import review, texts
from dashboard.data.cache import CompareOptions, View
from dashboard.layout import ui
from dashboard.report import exports
from dashboard.state import picking, session
from dashboard.views import risk_charts
from metrics import Comparison, vocabulary

MEANING = vocabulary.columns.COLUMN_MEANING
HELP = vocabulary.columns.CONTROL_HELP


def harm(view: View, comparison: Comparison, metric: str, candidate: str) -> None:
    """The loss distribution, the harm and risk figures and the worst queries of one
    candidate on one metric (the query-by-query section's choice)."""
    words = vocabulary.risk
    st.header("Harm: which queries the change breaks")
    st.caption(safe.md(words.RISK_METHOD))
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    delta = left.number_input(
        "Harmed when it loses more than", min_value=0.0, max_value=1.0, step=0.01,
        format=metrics.format.FIGURE_PATTERN, key=session.HARM_DELTA, persist_state="session",
        help=words.RISK_MEANING["harm_share"])
    alphas = [str(a) for a in words.RISK_ALPHAS]
    alpha = float(right.radio(
        "Risk aversion α of URisk and TRisk", alphas, key=session.RISK_ALPHA, horizontal=True,
        persist_state="session", help=words.RISK_MEANING["urisk"]))
    risks = review.risks(view, comparison, delta)
    chosen = next(r for r in risks if r.candidate == candidate and r.metric == metric)
    test = comparison.test(candidate, metric)
    bins, ties = review.loss_histogram(test, delta)
    ui.chart(risk_charts.loss_histogram(bins, ties, metric=metric, candidate=candidate,
                                        baseline=comparison.baseline, delta=delta),
             download=f"losses-{metric}")
    columns = st.columns(4)
    columns[0].metric("Queries harmed", words.share(chosen.harm_share), border=True,
                      help=MEANING["harmed_count"].format(
                          harmed=chosen.harmed, n=chosen.n,
                          level=metrics.format.confidence(chosen.confidence_level),
                          low=words.share(chosen.harm_low), high=words.share(chosen.harm_high)))
    columns[1].metric("Mean loss", metrics.format.figure(chosen.mean_loss), border=True,
                      help=words.RISK_MEANING["mean_loss"])
    columns[2].metric(f"URisk α={words.alpha_key(alpha)}",
                      metrics.format.signed(chosen.urisk_at(alpha)), border=True,
                      help=words.RISK_MEANING["urisk"])
    columns[3].metric(f"TRisk α={words.alpha_key(alpha)}", _signed(chosen.trisk_at(alpha)),
                      border=True, help=words.RISK_MEANING["trisk"])
    st.markdown(safe.md(chosen.sentence) + ". " + safe.md(chosen.risk_sentence(alpha)) + ".")
    st.subheader(f"Every metric of {safe.md(candidate)}")
    st.dataframe(
        review.risk_table([r for r in risks if r.candidate == candidate], alpha),
        hide_index=True,
        placeholder="—",
        column_config={
            "Metric": st.column_config.TextColumn(pinned=True),
            "Harmed": st.column_config.TextColumn(
                help=MEANING["harmed"].format(
                    delta=words.delta_words(delta),
                    level=metrics.format.confidence(comparison.confidence_level))),
            "Mean loss": ui.number_column("Mean loss", words.RISK_MEANING["mean_loss"]),
            "URisk": ui.signed_column("URisk", words.RISK_MEANING["urisk"]),
            "TRisk": ui.signed_column("TRisk", words.RISK_MEANING["trisk"]),
            "Reading": st.column_config.TextColumn(width="medium"),
        })
    _worst(view, chosen, metric, candidate)
    worst_csv(view, comparison, candidate, metric)
    shared(view, comparison, candidate, metric, delta)


def _worst(view: View, risk: metrics.Risk, metric: str, candidate: str) -> None:
    st.subheader(f"The queries {safe.md(candidate)} hurts most in {safe.md(metric)}")
    if not risk.worst:
        st.caption("No query got worse.")
        return
    st.caption("Click a row to pick its query: the link below opens it in the drill-down.")
    worst = review.worst_losses(risk, view)
    key = "compare.worst"
    st.dataframe(
        worst, hide_index=True, key=key,
        on_select=functools.partial(picking.pick_from_rows, key, list(worst["query_id"])),
        selection_mode="single-row",
        column_config={
            "query_id": st.column_config.TextColumn("Query"),
            "text": st.column_config.TextColumn("Question", width="large"),
            "difference": ui.signed_column("Difference"),
        })
    picked = st.session_state.get(session.QUERY)
    ui.open_in_drilldown(picked if picked in set(worst["query_id"]) else risk.worst[0][0],
                         pair=(view.baseline, candidate))


def worst_csv(view: View, comparison: Comparison, candidate: str, metric: str) -> None:
    """Every query the candidate loses, worst first, with its question and both runs' top
    chunks, as CSV (built when clicked)."""
    corpus = texts.corpus(view)
    ui.download_button(
        "Every loss, with the question and top chunks (CSV)",
        lambda: exports.worst_queries_csv(view.evaluation, comparison, candidate, metric,
                                          view.queries, corpus),
        f"losses-{candidate}-{metric}.csv", "text/csv", key="compare.worst_csv",
        help=HELP["worst_csv"])


def shared(view: View, comparison: Comparison, candidate: str, metric: str,
           delta: float) -> None:
    """The words and facet values over-represented among the queries the candidate harms."""
    words = vocabulary.risk
    st.subheader(f"What the queries {safe.md(candidate)} harms share")
    if view.queries is None:
        st.caption("Load a queries file (sidebar) to see which words and facet values the "
                   "harmed queries share.")
        return
    found = review.harm_profile(view, comparison, candidate, metric, delta)
    if not found.harmed:
        st.caption(f"No query loses more than {safe.md(words.delta_words(delta))}.")
        return
    if not found.shared:
        st.caption(f"No word or facet value is more common among the {found.harmed:,} harmed "
                   "queries than among the others.")
    else:
        st.dataframe(review.shared_table(found), hide_index=True, column_config={
            "Feature": st.column_config.TextColumn(pinned=True, help=MEANING["shared_feature"]),
            "Harmed queries holding it": st.column_config.TextColumn(
                help=MEANING["shared_harmed"]),
            "Other queries holding it": st.column_config.TextColumn(
                help=MEANING["shared_rest"]),
            "Times as common": st.column_config.TextColumn(help=MEANING["shared_lift"]),
            "p adjusted": st.column_config.TextColumn(help=MEANING["shared_q"]),
        })
    st.caption(safe.md(words.SHARED_METHOD))


def fragility(view: View, options: CompareOptions,
              found: Callable[[], metrics.Fragility] | None) -> None:
    """Would another reasonable convention change a verdict? Then what to label next.
    `found` waits for the check started earlier (review.fragility), None when not asked."""
    words = vocabulary.fragility
    st.header("Would another convention change the verdict?")
    st.toggle("Check every verdict under the other conventions", key=session.FRAGILITY,
              help=words.FRAGILITY_RULE)
    if options.snapshot is not None:
        st.info("The check scores the runs again, and a snapshot keeps only its figures: pick "
                "a live run as the baseline.", icon=":material/info:")
        return
    if found is None:
        return
    found = found()
    st.caption(safe.md(words.FRAGILITY_RULE))
    if found.flips:
        st.warning(safe.md(found.summary), icon=":material/warning:")
        # fixed widths in pixels: a choice's label is long, and the table must fit 1280 px;
        # the other choice gets the most room, and every flip is in words below
        st.dataframe(review.flips_table(found), hide_index=True, column_config={
            "Candidate": st.column_config.TextColumn(pinned=True, width=85),
            "Metric": st.column_config.TextColumn(width=80),
            "Under": st.column_config.TextColumn(width=330, help=MEANING["flip_under"]),
            "Verdict": st.column_config.TextColumn(width=155),
            "Becomes": st.column_config.TextColumn(width=155, help=MEANING["flip_becomes"])})
        with st.expander("Each flip in words", icon=":material/notes:"):
            st.markdown("\n".join(f"- {safe.md(flip.sentence)}" for flip in found.flips))
    else:
        st.success(safe.md(found.summary), icon=":material/verified:")
    tried = ", ".join(f"{safe.md(_title(c))} = {safe.md(_choice(c, v))}" for c, v in found.tried)
    st.caption(f"Tried: {tried}." + "".join(
        f" Not tried, {safe.md(_title(c))}: {safe.md(why)}." for c, why in found.skipped))
    _to_label(view)


def _to_label(view: View) -> None:
    """The unjudged ids in the top K, as CSV and as a qrels template to fill in."""
    words = vocabulary.labelling
    found = review.to_label(view)
    st.subheader("What to label next")
    st.markdown(safe.md(metrics.to_label_summary(found)))
    st.caption(safe.md(words.UNJUDGED) + " " + safe.md(words.ORDER_RULE))
    if not len(found):
        return
    k = view.evaluation.k
    left, right = st.columns(2)
    with left:
        ui.download_button("Ids to label (CSV)", lambda: metrics.to_label_csv(found),
                           f"to-label-k{k}.csv", "text/csv", key="compare.to_label_csv",
                           help=HELP["to_label_csv"])
    with right:
        if metrics.trec_unwritable(found):
            st.caption("Some ids hold spaces or control characters, or start a TREC comment: "
                       "only the CSV can carry them (control characters as escapes).")
        else:
            ui.download_button("Qrels template (TREC)", lambda: metrics.to_qrels_template(found),
                               f"to-label-k{k}.qrels", "text/plain", key="compare.to_label_qrels",
                               help=words.QRELS_TEMPLATE)


def _title(convention: str) -> str:
    return metrics.Flip("", "", convention, "", "", "").title


def _choice(convention: str, choice: str) -> str:
    return metrics.Flip("", "", convention, choice, "", "").choice_label


def _signed(value: float) -> str:
    return "undefined" if value != value else metrics.format.signed(value)
