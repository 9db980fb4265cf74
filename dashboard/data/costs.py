"""What K costs, through the engine: the tokens a chunk holds (given, or estimated from the
corpus) and each run's tokens, price and recall at K and at its suggested k. The Overview
shows it, the Export page puts it in the report: one computation for both."""

from __future__ import annotations

from dataclasses import dataclass

import metrics
from dashboard.data import texts
from dashboard.data.cache import View, derived


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
