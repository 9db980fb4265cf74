"""What K costs, through the engine: the tokens a chunk holds (given, or estimated from the
corpus) and each run's tokens, price and recall at K and at its suggested k. The Overview
shows it, the Export page puts it in the report: one computation for both. Where a corpus
is given, each run's tokens at every K of the sweep beside its figure there (``swept``,
``sweep_chart``): the K sweep page draws them, and the trade-off chart on its tokens axis."""

from __future__ import annotations

from dataclasses import dataclass

import altair as alt

import metrics
from dashboard.data import texts
from dashboard.data.cache import View, derived, without_lists
from dashboard.views import chart_base
from dashboard.views.tradeoff_charts import sweep_cost_chart, sweep_cost_frame


@dataclass(frozen=True, eq=False)
class Priced:
    estimate: metrics.ChunkTokens | None  # what the corpus alone gives (None: no corpus)
    tokens: metrics.ChunkTokens | None  # what is priced: the reader's figures, or the corpus's
    runs: tuple[metrics.Cost, ...] = ()  # each shown run's cost, when `tokens` is known
    problem: str | None = None  # the engine's words when it could not price (a price alone)


def priced(view: View, tokens_per_chunk: float | None, price: float | None) -> Priced:
    """The view's runs priced at `tokens_per_chunk` (None: the corpus's estimate) and
    `price` dollars a million input tokens (None: tokens only)."""
    def build() -> Priced:
        corpus = texts.corpus(view)
        estimate = (metrics.chunk_tokens(corpus=corpus) if corpus is not None and len(corpus)
                    else None)
        try:
            tokens = metrics.chunk_tokens(tokens_per_chunk=tokens_per_chunk,
                                          price_per_mtok=price, corpus=corpus)
        except ValueError as exc:  # a price with nothing to price, an empty corpus
            return Priced(estimate, None, problem=str(exc))
        if tokens is None:
            return Priced(estimate, None)
        return Priced(estimate, tokens, tuple(metrics.costs(view.evaluation, tokens)))
    # the corpus in the key: the view's key names the qrels and runs only, and a corpus
    # uploaded after them (the view unchanged) would otherwise find the figures priced
    # without it
    corpus_key = None if view.corpus_file is None else view.corpus_file.key
    return derived(view, "priced", (tokens_per_chunk, price, corpus_key), build)


@dataclass(frozen=True, eq=False)
class Swept:
    """Each shown run's estimated tokens per query at every K of the sweep (from the
    corpus's words per chunk), how they were estimated, and the key of the corpus read."""

    runs: tuple[metrics.SweepCost, ...]
    method: str
    key: tuple = ()


def swept(view: View) -> Swept | None:
    """The view's runs' tokens at every K, estimated from the corpus; None without a corpus
    (or one that holds no words for the ids), or for saved figures (no ranked lists)."""
    if view.corpus_file is None or without_lists(view):
        return None
    corpus_key = view.corpus_file.key

    def build() -> Swept | None:
        corpus = texts.corpus(view)
        if corpus is None or not len(corpus):
            return None
        try:
            tokens = metrics.chunk_tokens(corpus=corpus)
        except ValueError:  # no words for the retrieved ids: nothing to estimate from
            return None
        runs = metrics.sweep_costs(view.evaluation, tokens)
        return Swept(runs, runs[0].sentence if runs else "", (corpus_key,))

    return derived(view, "swept tokens", (corpus_key,), build)


def sweep_frame(view: View, swept_: Swept, metric: str):
    """The points of `metric` (a sweep measure's name, e.g. "nDCG") at every K against each
    run's tokens at K, in the view's run order."""
    evaluation = view.evaluation
    return derived(view, "swept tokens frame", (swept_.key, metric), lambda: sweep_cost_frame(
        swept_.runs, {run: evaluation.sweep_means(run) for run in evaluation.run_names},
        metric=metric, k=evaluation.k, runs=list(evaluation.run_names)))


def sweep_chart(view: View, swept_: Swept, metric: str, label: str) -> alt.LayerChart:
    """The K sweep on the cost axis: `metric` (written `label`) at every K against the
    tokens per query at K."""
    return derived(view, "swept tokens chart", (swept_.key, metric, label), lambda:
                   sweep_cost_chart(sweep_frame(view, swept_, metric),
                                    chart_base.run_scale(view.colour_domain),
                                    k=view.evaluation.k, metric_label=label,
                                    method=swept_.method))
