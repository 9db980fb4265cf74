"""What k costs: the context a run sends per query at the chosen K and at the suggested k.

Beside seed 001's k suggestion (metrics.diagnose): tokens and money per 1,000 queries at both
cutoffs, and the recall the difference buys. Chunks per query are the mean, over the scored
queries, of the ids returned within k (hits + noise: relevant or not, repeats included), read
through the Curves API so any K up to MAX_K is answered past the stored columns. Recall is
read from the run's Suggestion, never recomputed. Every word is in metrics.vocabulary.cost.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.stats.validate import check_number
from metrics.vocabulary.cost import (
    QUERIES,
    SOURCES,
    TOKENS_PER_WORD,
    UNIT,
    cost_sentence,
    source_sentence,
    sweep_sentence,
)

__all__ = ["MAX_TOKENS_PER_CHUNK", "ChunkTokens", "Cost", "CostAt", "SweepCost",
           "check_price_per_mtok", "check_tokens_per_chunk", "chunk_tokens", "context_cost",
           "costs", "sweep_costs"]

MAX_TOKENS_PER_CHUNK = 10_000_000  # longer than any model's context window: a typo
MILLION = 1_000_000


def check_tokens_per_chunk(value: object) -> float:
    """Mean input tokens of one chunk as a float: a finite number > 0, at most
    MAX_TOKENS_PER_CHUNK; ValueError otherwise (its flag's reader says it, naming the flag)."""
    tokens = check_number("tokens_per_chunk", value, low=0, low_open=True)
    if tokens > MAX_TOKENS_PER_CHUNK:
        raise ValueError(f"tokens_per_chunk must be at most {MAX_TOKENS_PER_CHUNK:,} (longer "
                         f"than any context window), got {value!r}")
    return tokens


def check_price_per_mtok(value: object) -> float:
    """The price of a million input tokens as a float: a finite number >= 0."""
    return check_number("price_per_mtok", value, low=0)


@dataclass(frozen=True)
class ChunkTokens:
    """Mean input tokens of one chunk, where that figure came from, and the price of a million
    input tokens (None: show tokens only)."""

    tokens_per_chunk: float
    source: str = "given"  # "given", or "corpus": words_per_chunk × TOKENS_PER_WORD
    price_per_mtok: float | None = None
    words_per_chunk: float | None = None  # the corpus's mean, when source == "corpus"

    def __post_init__(self) -> None:
        tokens = check_tokens_per_chunk(self.tokens_per_chunk)
        object.__setattr__(self, "tokens_per_chunk", tokens)
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {self.source!r}")
        if self.price_per_mtok is not None:
            object.__setattr__(self, "price_per_mtok", check_price_per_mtok(self.price_per_mtok))
        if self.source == "given":
            if self.words_per_chunk is not None:
                raise ValueError("words_per_chunk belongs to a corpus estimate: a given "
                                 f"tokens_per_chunk has none, got {self.words_per_chunk!r}")
            return
        words = check_number("words_per_chunk", self.words_per_chunk, low=0, low_open=True)
        object.__setattr__(self, "words_per_chunk", words)
        if not math.isclose(tokens, words * TOKENS_PER_WORD, rel_tol=1e-9):
            raise ValueError(
                f"a corpus estimate is words_per_chunk × {TOKENS_PER_WORD} = "
                f"{words * TOKENS_PER_WORD:g} tokens, got tokens_per_chunk {tokens:g}"
            )

    @classmethod
    def from_words(cls, words_per_chunk: float, *,
                   price_per_mtok: float | None = None) -> ChunkTokens:
        """Estimated from a corpus's mean words per chunk: × TOKENS_PER_WORD."""
        words = check_number("words_per_chunk", words_per_chunk, low=0, low_open=True)
        return cls(words * TOKENS_PER_WORD, "corpus", price_per_mtok, words)

    @classmethod
    def from_corpus(cls, corpus, *, price_per_mtok: float | None = None) -> ChunkTokens:
        """From a metrics.io Corpus's words_per_chunk (the mean over the texts it kept)."""
        words = corpus.words_per_chunk
        if not words > 0:
            raise ValueError(
                f"{corpus.source}: the corpus holds no words for the retrieved ids, so it "
                "cannot estimate tokens per chunk; give tokens_per_chunk (--tokens-per-chunk)"
            )
        return cls.from_words(words, price_per_mtok=price_per_mtok)

    @property
    def priced(self) -> bool:
        return self.price_per_mtok is not None

    @property
    def sentence(self) -> str:
        """'390 tokens per chunk, given.' or '... estimated from the corpus: 300.0 words ...'"""
        return source_sentence(self.source, self.tokens_per_chunk, self.words_per_chunk)

    def as_dict(self) -> dict:
        return asdict(self) | {
            "tokens_per_word": TOKENS_PER_WORD if self.source == "corpus" else None,
            "sentence": self.sentence,
        }


def chunk_tokens(
    tokens_per_chunk: float | None = None,
    price_per_mtok: float | None = None,
    corpus=None,
) -> ChunkTokens | None:
    """The command line's --tokens-per-chunk and --price-per-mtok (and a corpus, if loaded):
    a given figure wins over the corpus's estimate; None when neither is there. A price with
    nothing to price is an error, not silently dropped."""
    if tokens_per_chunk is not None:
        return ChunkTokens(tokens_per_chunk, "given", price_per_mtok)
    if corpus is not None:
        return ChunkTokens.from_corpus(corpus, price_per_mtok=price_per_mtok)
    if price_per_mtok is not None:
        raise ValueError("price_per_mtok (--price-per-mtok) needs tokens per chunk: give "
                         "tokens_per_chunk (--tokens-per-chunk) or a corpus to estimate it")
    return None


@dataclass(frozen=True)
class CostAt:
    """The context of one cutoff: means over the scored queries."""

    k: int
    chunks: float  # mean ids returned within k per query (fewer than k where lists are short)
    tokens: float  # per query: chunks × tokens per chunk
    tokens_per_1000: float  # tokens × 1,000
    cost_per_1000: float | None  # tokens_per_1000 / 1,000,000 × price; None without a price
    recall: float  # mean Recall@k over every relevant id, from the Suggestion


@dataclass(frozen=True)
class Cost:
    """One run's context cost at the chosen K (`current`) and the suggested k (`suggested`).

    The differences read K minus the suggested k: what K sends beyond it and the recall that
    buys; negative when the suggested k is the larger (raising k costs more).
    """

    run: str
    tokens: ChunkTokens
    current: CostAt
    suggested: CostAt
    queries: int  # scored queries the means run over

    @property
    def direction(self) -> str:
        """"lower" (the suggested k is smaller than K), "keep" (they are equal) or "raise"."""
        if self.suggested.k < self.current.k:
            return "lower"
        return "keep" if self.suggested.k == self.current.k else "raise"

    @property
    def extra_chunks(self) -> float:
        return self.current.chunks - self.suggested.chunks

    @property
    def extra_tokens_per_1000(self) -> float:
        return self.current.tokens_per_1000 - self.suggested.tokens_per_1000

    @property
    def extra_cost_per_1000(self) -> float | None:
        if self.current.cost_per_1000 is None or self.suggested.cost_per_1000 is None:
            return None
        return self.current.cost_per_1000 - self.suggested.cost_per_1000

    @property
    def recall_bought(self) -> float:
        return self.current.recall - self.suggested.recall

    @property
    def recall_extra(self) -> float:
        """The recall the larger of the two cutoffs buys over the smaller (what the sentence
        says the extra chunks buy, whichever cutoff is larger): never negative, since recall
        over every relevant id does not fall as k grows."""
        return abs(self.recall_bought)

    @property
    def sentence(self) -> str:
        return cost_sentence(
            k=self.current.k,
            suggested_k=self.suggested.k,
            tokens=self.current.tokens,
            suggested_tokens=self.suggested.tokens,
            cost=self.current.cost_per_1000,
            suggested_cost=self.suggested.cost_per_1000,
            recall=self.current.recall,
            suggested_recall=self.suggested.recall,
            extra_chunks=self.extra_chunks,
        )

    def as_dict(self) -> dict:
        return {
            "run": self.run,
            "unit": UNIT,
            "queries": self.queries,
            "tokens": self.tokens.as_dict(),
            "current": asdict(self.current),
            "suggested": asdict(self.suggested),
            "direction": self.direction,
            "extra_chunks": self.extra_chunks,
            "extra_tokens_per_1000": self.extra_tokens_per_1000,
            "extra_cost_per_1000": self.extra_cost_per_1000,
            "recall_bought": self.recall_bought,
            "recall_extra": self.recall_extra,
            "sentence": self.sentence,
        }


def context_cost(run: RunEvaluation, tokens: ChunkTokens, *, scored: np.ndarray) -> Cost:
    """One run's context cost at its K and its suggested k, over the `scored` queries (the
    Evaluation's mask: a bool per query of the query set)."""
    if not isinstance(tokens, ChunkTokens):
        raise TypeError(f"tokens must be a ChunkTokens, got {type(tokens).__name__}")
    scores = run.scores
    scored = np.asarray(scored)
    n = scores.hits.shape[0]
    if scored.dtype != bool or scored.shape != (n,):
        raise ValueError(f"scored must be a bool mask of the {n:,} queries, "
                         f"got {scored.dtype} of shape {scored.shape}")
    s = run.suggestion
    columns = np.array([s.current_k, s.k]) - 1
    returned = (scores.hits.columns(columns) + scores.noise.columns(columns))[scored]
    chunks = returned.mean(axis=0) if len(returned) else np.zeros(2)

    def at(k: int, chunks: float, recall: float) -> CostAt:
        per_query = chunks * tokens.tokens_per_chunk
        per_1000 = per_query * QUERIES
        cost = None if tokens.price_per_mtok is None else per_1000 / MILLION * tokens.price_per_mtok
        return CostAt(k, chunks, per_query, per_1000, cost, float(recall))

    return Cost(
        run=run.name,
        tokens=tokens,
        current=at(s.current_k, float(chunks[0]), s.current_recall),
        suggested=at(s.k, float(chunks[1]), s.recall),
        queries=int(scored.sum()),
    )


def costs(evaluation: Evaluation, tokens: ChunkTokens) -> tuple[Cost, ...]:
    """Every run's context cost, in the evaluation's run order."""
    return tuple(context_cost(run, tokens, scored=evaluation.scored) for run in evaluation.runs)


@dataclass(frozen=True, eq=False)
class SweepCost:
    """One run's context at every K of the sweep: means over the scored queries of the ids
    returned within K (`chunks`) and of the tokens they hold (`tokens`, chunks × tokens per
    chunk), beside `ks`; priced per 1,000 queries when the tokens carry a price."""

    run: str
    tokens_per_chunk: ChunkTokens
    ks: np.ndarray
    chunks: np.ndarray
    tokens: np.ndarray  # per query
    queries: int

    @property
    def cost_per_1000(self) -> np.ndarray | None:
        price = self.tokens_per_chunk.price_per_mtok
        return None if price is None else self.tokens * QUERIES / MILLION * price

    @property
    def sentence(self) -> str:
        """How the tokens at each K were estimated, e.g. 'Tokens per query at each K: mean
        chunks returned within K × 390 tokens per chunk, estimated from the corpus: ...'."""
        return sweep_sentence(self.tokens_per_chunk.sentence)


def sweep_costs(evaluation: Evaluation, tokens: ChunkTokens) -> tuple[SweepCost, ...]:
    """Every run's context tokens at every K of the evaluation's sweep range, over its scored
    queries (as `context_cost` reads two cutoffs: hits + noise within K, repeats included)."""
    if not isinstance(tokens, ChunkTokens):
        raise TypeError(f"tokens must be a ChunkTokens, got {type(tokens).__name__}")
    lo, hi = evaluation.sweep_range
    ks = np.arange(lo, hi + 1)
    out = []
    for run in evaluation.runs:
        scores = run.scores
        returned = (scores.hits.columns(ks - 1) + scores.noise.columns(ks - 1))[
            evaluation.scored]
        chunks = returned.mean(axis=0) if len(returned) else np.zeros(len(ks))
        out.append(SweepCost(run.name, tokens, ks, chunks.astype(float),
                             chunks * tokens.tokens_per_chunk, int(evaluation.scored.sum())))
    return tuple(out)
