"""What k costs, in words: the tokens a query sends to the model at a cutoff and what they cost.

Beside seed 001's k suggestion: the context a run sends per query at the chosen K and at the
suggested k, in tokens and money per 1,000 queries, and the recall the difference buys. The
numbers come from metrics/cost.py; every word about them is declared here. Pure: no numpy.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from metrics.vocabulary.format import MISSING, figure, signed

TOKENS_PER_WORD = 1.3  # the usual rule of thumb for English text and BPE tokenizers
QUERIES = 1_000  # costs are quoted per this many queries
UNIT = "per 1,000 queries"
CURRENCY = "$"
SOURCES = ("given", "corpus")  # where tokens per chunk came from

FLAGS = {
    "tokens_per_chunk": (
        "--tokens-per-chunk",
        "Mean input tokens of one chunk (> 0). Without it, a corpus file gives it: its mean "
        f"words per chunk × {TOKENS_PER_WORD}.",
    ),
    "price_per_mtok": (
        "--price-per-mtok",
        "Price of one million input tokens (>= 0), to show what the context costs "
        f"{UNIT}; without it, tokens only.",
    ),
}

COST_MEANING = {
    "chunks": "Chunks per query: the mean over the scored queries of the ids returned within "
    "k (repeats included: each fills a slot the model reads). A query whose list is shorter "
    "than k sends fewer chunks, and a query the run has no list for sends none.",
    "tokens": "Tokens per query: mean chunks returned within k × tokens per chunk; a query "
    f"whose list is shorter than k sends fewer chunks. Shown {UNIT} as well: × {QUERIES:,}.",
    "cost": f"Cost {UNIT}: tokens {UNIT} ÷ 1,000,000 × the price per million input tokens. "
    "Only the retrieved context is priced: the question, the instructions and the answer are "
    "not counted.",
    "recall": "Recall: mean Recall@k dividing by every relevant id, over the queries that have "
    "one, as in the k suggestion (read from it, not recomputed).",
    "difference": "The difference: what the chosen K sends beyond the suggested k (chunks, "
    "tokens, cost) and the recall it buys; negative when the suggested k is the larger.",
    "extra": "The recall the larger of K and the suggested k buys over the smaller, as the "
    "sentence below says it: the extra chunks' worth.",
}


def source_sentence(source: str, tokens_per_chunk: float,
                    words_per_chunk: float | None = None) -> str:
    """Where tokens per chunk came from: given, or estimated from the corpus's texts."""
    if source == "given":
        return f"{amount(tokens_per_chunk)} tokens per chunk, given."
    if source == "corpus":
        return (f"{amount(tokens_per_chunk)} tokens per chunk, estimated from the corpus: "
                f"{amount(words_per_chunk)} words per chunk × {TOKENS_PER_WORD}.")
    raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")


SWEEP_METHOD = (
    "Tokens per query at each K: the mean over the scored queries of the ids returned within "
    "K (repeats included; fewer than K where a list is shorter) × tokens per chunk. An "
    "estimate of the retrieved context only, not measured: the question, the instructions "
    "and the answer are not counted."
)


def sweep_sentence(source: str) -> str:
    """The K sweep's token estimate said with where tokens per chunk came from (the
    ChunkTokens' sentence: given, or estimated from the corpus's words)."""
    return f"{SWEEP_METHOD} {source}"


def amount(value: float) -> str:
    """A token count as people read it: '3,900', '390.5' (one decimal when not whole),
    '0.004' (two significant digits when it would round to nothing)."""
    if not math.isfinite(value):
        return MISSING
    if 0 < abs(value) < 0.05:  # a few queries in many: not shown as nothing
        return f"{value:.2g}"
    rounded = round(value)
    return f"{rounded:,}" if abs(value - rounded) < 0.05 else f"{value:,.1f}"


def _chunks(value: float, word: str = "more ") -> str:
    """'1 more chunk', '4 more chunks', '3.6 more chunks'."""
    shown = amount(value)
    return f"{shown} {word}chunk" if shown == "1" else f"{shown} {word}chunks"


def _cents(value: float) -> Decimal | None:
    """The value rounded half up to cents from its shortest repr (0.975 is stored as
    0.97499..., and reads $0.98); None below a cent, where cents would show nothing."""
    if value != 0 and abs(value) < 0.01:
        return None
    return Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def money(value: float | None) -> str:
    """'$1.95', '-$0.78'; below a cent, two significant digits ('$0.0039'), so a cost is never
    shown as nothing when it is not."""
    if value is None or not math.isfinite(value):
        return MISSING
    sign = "-" if value < 0 else ""
    cents = _cents(abs(value))
    shown = f"{cents:,.2f}" if cents is not None else f"{abs(value):.2g}"
    return f"{sign}{CURRENCY}{shown}"


def money_difference(a: float, b: float) -> str:
    """|a - b| as money, from the amounts as shown when both are shown in cents, so that the
    figures of one sentence add up ($0.98 - $0.78 reads $0.20, not $0.19)."""
    ca, cb = _cents(abs(a)), _cents(abs(b))
    if ca is None or cb is None or not (math.isfinite(a) and math.isfinite(b)):
        return money(abs(a - b))
    shown = abs(ca.copy_sign(Decimal(a)) - cb.copy_sign(Decimal(b)))
    return f"{CURRENCY}{shown:,.2f}"


def _at(tokens: float, cost: float | None, recall: float, *, first: bool) -> str:
    """'3,900 tokens per query, $1.95 per 1,000 queries (recall 0.820)'; units said once."""
    unit = " per query" if first else ""
    price = ""
    if cost is not None:
        price = f", {money(cost)}" + (f" {UNIT}" if first else "")
    return f"{amount(tokens)} tokens{unit}{price} (recall {figure(recall)})"


def cost_sentence(
    *,
    k: int,
    suggested_k: int,
    tokens: float,
    suggested_tokens: float,
    cost: float | None,
    suggested_cost: float | None,
    recall: float,
    suggested_recall: float,
    extra_chunks: float,
) -> str:
    """One run's context cost at K and at the suggested k, and what the difference buys.

    `tokens` are per query; `cost` per 1,000 queries (None without a price). `extra_chunks`
    is the chunks per query K sends beyond the suggested k (negative when k is the larger).
    """
    here = f"At K = {k}: {_at(tokens, cost, recall, first=True)}"
    if k == suggested_k:
        return f"{here}; K is the suggested k: nothing to save or to buy."
    there = (f"at the suggested k = {suggested_k}: "
             f"{_at(suggested_tokens, suggested_cost, suggested_recall, first=False)}")
    more = abs(extra_chunks)
    price = (f"{money_difference(cost, suggested_cost)} {UNIT}"
             if cost is not None and suggested_cost is not None
             else f"{amount(abs(tokens - suggested_tokens))} more tokens per query")
    if k > suggested_k:
        bought = signed(recall - suggested_recall)
        if more:
            what = f"K = {k} sends {_chunks(more)} per query, buying {bought} recall for {price}"
        else:
            what = (f"the lists end by k = {suggested_k}, so K = {k} sends no more chunks and "
                    f"buys {bought} recall")
    else:
        bought = signed(suggested_recall - recall)
        if more:
            what = (f"raising k to {suggested_k} adds {_chunks(more, word='')} per query, "
                    f"buying {bought} recall for {price}")
        else:
            what = (f"the lists end by K = {k}, so raising k to {suggested_k} sends no more "
                    f"chunks and buys {bought} recall")
    return f"{here}; {there}: {what}."
