"""What k costs: chunks per query against a plain loop, the sample's figures, K past the
stored columns, the no-price case, validation, the corpus estimate and every sentence."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from metrics.context.cost import (
    MAX_TOKENS_PER_CHUNK,
    ChunkTokens,
    Cost,
    chunk_tokens,
    context_cost,
    costs,
    sweep_costs,
)
from metrics.core.evaluate import evaluate
from metrics.core.sample import load_sample
from metrics.io.corpus import Corpus
from metrics.vocabulary import cost as words
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import MAX_K
from tests.metrics.builders import make_qrels, make_run

# a small collection with every edge: a repeat, short lists, a query without a relevant id,
# a qrels query the run has no list for, a run query the qrels do not hold
JUDGMENTS = {
    "q1": {"a": 1, "b": 2, "c": 0},
    "q2": {"d": 1},
    "q3": {"e": 0},  # no relevant id: excluded by default, scored 0 under empty_queries="zero"
    "q4": {"f": 1, "g": 1},  # no list in the run: sends no chunk
    "q5": {"h": 1},
}
LISTS = {
    "q1": ["a", "x", "a", "b", "y", "z", "w"],  # 7 slots, one a repeat
    "q2": ["p", "d"],
    "q3": ["e", "m", "n"],
    "q5": ["h", "i", "j", "k", "l", "o", "r", "s", "t", "u", "v", "w2"],  # 12
    "q9": ["a", "b", "c", "d", "e"],  # not in the qrels: ignored
}
GIVEN = ChunkTokens(390, price_per_mtok=0.5)


def loop_chunks(k: int, *, with_empty: bool = False) -> float:
    """Mean over the scored queries of the ids returned within k, one query at a time."""
    sent = []
    for query, docs in JUDGMENTS.items():
        if not with_empty and not any(grade >= 1 for grade in docs.values()):
            continue
        returned = 0
        for _ in LISTS.get(query, [])[:k]:
            returned += 1
        sent.append(returned)
    return sum(sent) / len(sent)


def small(k: int, conventions: Conventions | None = None):
    return evaluate(make_qrels(JUDGMENTS), [make_run(LISTS)], k, conventions)


# --- chunks per query -----------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 8, 12, 13, 40, MAX_K])
def test_chunks_per_query_match_a_plain_loop(k):
    evaluation = small(k)
    run = evaluation.run("run")
    cost = context_cost(run, GIVEN, scored=evaluation.scored)
    assert cost.queries == 4  # q1, q2, q4, q5
    assert cost.current.k == k and cost.suggested.k == run.suggestion.k
    assert cost.current.chunks == pytest.approx(loop_chunks(k))
    assert cost.suggested.chunks == pytest.approx(loop_chunks(run.suggestion.k))


def test_chunks_follow_the_scored_mask_of_the_empty_queries_convention():
    evaluation = small(7, Conventions(empty_queries="zero"))
    cost = costs(evaluation, GIVEN)[0]
    assert cost.queries == 5
    # q3 sends its 3 chunks too: (7 + 2 + 3 + 0 + 7) / 5, not (7 + 2 + 0 + 7) / 4
    assert cost.current.chunks == pytest.approx(loop_chunks(7, with_empty=True)) == 3.8
    assert loop_chunks(7) == 4


def test_short_lists_send_fewer_chunks_than_k():
    cost = costs(small(10), GIVEN)[0]
    # q1 7, q2 2, q4 none, q5 10 -> 19 / 4
    assert cost.current.chunks == pytest.approx(19 / 4)
    assert cost.current.tokens == pytest.approx(19 / 4 * 390)


def test_k_past_the_stored_width_reads_the_lists_whole():
    evaluation = small(5_000)
    run = evaluation.run("run")
    assert run.scores.width < 5_000
    cost = context_cost(run, GIVEN, scored=evaluation.scored)
    assert cost.current.chunks == pytest.approx((7 + 2 + 0 + 12) / 4)
    sample = costs(load_sample(k=50), GIVEN)
    assert all(c.current.chunks == 10 for c in sample)  # every sample list holds 10 ids


def test_figures_follow_the_chunks_and_the_price():
    tokens = ChunkTokens(123.4, price_per_mtok=2.5)
    for cost in costs(small(6), tokens):
        for at in (cost.current, cost.suggested):
            assert at.tokens == pytest.approx(at.chunks * 123.4)
            assert at.tokens_per_1000 == pytest.approx(at.tokens * 1_000)
            assert at.cost_per_1000 == pytest.approx(at.tokens_per_1000 / 1e6 * 2.5)
        assert cost.extra_chunks == pytest.approx(cost.current.chunks - cost.suggested.chunks)
        assert cost.extra_tokens_per_1000 == pytest.approx(
            cost.current.tokens_per_1000 - cost.suggested.tokens_per_1000)
        assert cost.extra_cost_per_1000 == pytest.approx(
            cost.current.cost_per_1000 - cost.suggested.cost_per_1000)


def test_recall_is_read_from_the_suggestion():
    evaluation = small(3)
    run = evaluation.run("run")
    cost = context_cost(run, GIVEN, scored=evaluation.scored)
    s = run.suggestion
    assert (cost.current.recall, cost.suggested.recall) == (s.current_recall, s.recall)
    assert cost.recall_bought == s.current_recall - s.recall


# --- the sample ------------------------------------------------------------------------------


def test_the_sample_at_k_5():
    evaluation = load_sample()
    found = costs(evaluation, GIVEN)
    assert [c.run for c in found] == list(evaluation.run_names)
    by_run = {c.run: c for c in found}
    # every sample list holds 10 ids, so k chunks at every k <= 10; 9 scored queries
    assert {c.queries for c in found} == {9}
    base = by_run["baseline"]
    assert (base.current.k, base.suggested.k, base.direction) == (5, 9, "raise")
    assert (base.current.chunks, base.suggested.chunks) == (5, 9)
    assert (base.current.tokens, base.suggested.tokens) == (1_950, 3_510)
    assert base.current.tokens_per_1000 == 1_950_000
    assert base.current.cost_per_1000 == pytest.approx(0.975)
    assert base.suggested.cost_per_1000 == pytest.approx(1.755)
    assert base.extra_chunks == -4
    assert base.recall_bought == pytest.approx(-(5 / 6 - 0.6759259259259259))
    assert base.sentence == (
        "At K = 5: 1,950 tokens per query, $0.98 per 1,000 queries (recall 0.676); at the "
        "suggested k = 9: 3,510 tokens, $1.76 (recall 0.833): raising k to 9 adds 4 chunks "
        "per query, buying +0.157 recall for $0.78 per 1,000 queries."
    )
    reranked = by_run["reranked"]
    assert (reranked.suggested.k, reranked.direction) == (4, "lower")
    assert reranked.sentence == (
        "At K = 5: 1,950 tokens per query, $0.98 per 1,000 queries (recall 0.796); at the "
        "suggested k = 4: 1,560 tokens, $0.78 (recall 0.796): K = 5 sends 1 more chunk per "
        "query, buying +0.000 recall for $0.20 per 1,000 queries."
    )
    assert by_run["bm25"].suggested.k == 10


def test_the_sample_when_k_is_the_suggested_k():
    cost = {c.run: c for c in costs(load_sample(k=4), GIVEN)}["reranked"]
    assert cost.direction == "keep" and cost.current == cost.suggested
    assert (cost.extra_chunks, cost.extra_tokens_per_1000, cost.recall_bought) == (0, 0, 0)
    assert cost.sentence == (
        "At K = 4: 1,560 tokens per query, $0.78 per 1,000 queries (recall 0.796); K is the "
        "suggested k: nothing to save or to buy."
    )


def test_the_sample_past_its_lists():
    cost = {c.run: c for c in costs(load_sample(k=30), GIVEN)}["bm25"]
    assert cost.extra_chunks == 0 and cost.extra_cost_per_1000 == 0
    assert cost.sentence.endswith(
        ": the lists end by k = 10, so K = 30 sends no more chunks and buys +0.000 recall.")


# --- no price -------------------------------------------------------------------------------


def test_without_a_price_only_tokens_are_shown():
    tokens = ChunkTokens(390)
    assert not tokens.priced
    cost = {c.run: c for c in costs(load_sample(), tokens)}["baseline"]
    assert cost.current.cost_per_1000 is None and cost.suggested.cost_per_1000 is None
    assert cost.extra_cost_per_1000 is None
    assert "$" not in cost.sentence
    assert cost.sentence == (
        "At K = 5: 1,950 tokens per query (recall 0.676); at the suggested k = 9: 3,510 tokens "
        "(recall 0.833): raising k to 9 adds 4 chunks per query, buying +0.157 recall for 1,560 "
        "more tokens per query."
    )
    data = json.loads(json.dumps(cost.as_dict()))
    assert data["current"]["cost_per_1000"] is None and data["extra_cost_per_1000"] is None
    assert data["tokens"]["price_per_mtok"] is None


def test_a_zero_price_is_a_price():
    cost = costs(load_sample(), ChunkTokens(390, price_per_mtok=0))[0]
    assert cost.current.cost_per_1000 == 0 and "$0.00 per 1,000 queries" in cost.sentence


# --- as_dict ----------------------------------------------------------------------------------


def test_as_dict_is_json_and_keeps_every_figure():
    cost = costs(load_sample(), GIVEN)[0]
    data = json.loads(json.dumps(cost.as_dict()))
    assert data["run"] == "baseline" and data["unit"] == "per 1,000 queries"
    assert data["queries"] == 9 and data["direction"] == "raise"
    assert data["current"] == {"k": 5, "chunks": 5.0, "tokens": 1950.0,
                               "tokens_per_1000": 1_950_000.0,
                               "cost_per_1000": pytest.approx(0.975),
                               "recall": pytest.approx(0.6759259259259259)}
    assert data["suggested"]["k"] == 9
    assert data["extra_tokens_per_1000"] == -1_560_000
    assert data["extra_cost_per_1000"] == pytest.approx(-0.78)
    assert data["tokens"] == {"tokens_per_chunk": 390.0, "source": "given",
                              "price_per_mtok": 0.5, "words_per_chunk": None,
                              "tokens_per_word": None,
                              "sentence": "390 tokens per chunk, given."}
    assert data["sentence"] == cost.sentence


# --- tokens per chunk: given, or from the corpus ---------------------------------------------


def test_tokens_from_the_corpus_are_words_times_1_3():
    corpus = Corpus("corpus.jsonl", ("a", "b"), ("Title", ""),
                    ("one two three", "four five six seven eight"))
    tokens = ChunkTokens.from_corpus(corpus, price_per_mtok=1)
    assert words.TOKENS_PER_WORD == 1.3
    assert (tokens.source, tokens.words_per_chunk) == ("corpus", 4.0)
    assert tokens.tokens_per_chunk == pytest.approx(4 * 1.3)
    assert tokens.sentence == "5.2 tokens per chunk, estimated from the corpus: 4 words per " \
                              "chunk × 1.3."
    assert tokens.as_dict()["tokens_per_word"] == 1.3
    cost = costs(load_sample(), tokens)[0]
    assert cost.current.tokens == pytest.approx(5 * 5.2)
    assert ChunkTokens.from_words(300).tokens_per_chunk == pytest.approx(390)


def test_a_given_figure_wins_over_the_corpus():
    corpus = Corpus("c", ("a",), ("",), ("one two",))
    assert chunk_tokens(100, 2, corpus) == ChunkTokens(100, "given", 2)
    assert chunk_tokens(None, 2, corpus) == ChunkTokens.from_words(2, price_per_mtok=2)
    assert chunk_tokens() is None
    with pytest.raises(ValueError, match="needs tokens per chunk"):
        chunk_tokens(price_per_mtok=3)


def test_an_empty_corpus_gives_no_estimate():
    with pytest.raises(ValueError, match="c.jsonl: the corpus holds no words"):
        ChunkTokens.from_corpus(Corpus("c.jsonl", (), (), ()))
    with pytest.raises(ValueError, match="holds no words"):
        ChunkTokens.from_corpus(Corpus("c", ("a",), ("",), ("   ",)))


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, "390", True, None,
                                   MAX_TOKENS_PER_CHUNK + 1])
def test_tokens_per_chunk_must_be_a_positive_number(value):
    with pytest.raises(ValueError, match="tokens_per_chunk"):
        ChunkTokens(value)


@pytest.mark.parametrize("value", [-0.01, math.nan, -math.inf, math.inf, "1", False])
def test_price_must_be_a_number_at_least_zero(value):
    with pytest.raises(ValueError, match="price_per_mtok"):
        ChunkTokens(390, price_per_mtok=value)


def test_numbers_are_kept_as_floats():
    tokens = ChunkTokens(np.int64(390), price_per_mtok=np.float32(0.5))
    assert type(tokens.tokens_per_chunk) is float and type(tokens.price_per_mtok) is float
    assert tokens == GIVEN


def test_source_and_words_must_agree():
    with pytest.raises(ValueError, match="source must be one of given, corpus"):
        ChunkTokens(390, "guessed")
    with pytest.raises(ValueError, match="words_per_chunk belongs to a corpus estimate"):
        ChunkTokens(390, "given", words_per_chunk=300)
    with pytest.raises(ValueError, match="words_per_chunk must be a finite number > 0, got None"):
        ChunkTokens(390, "corpus")
    with pytest.raises(ValueError, match=r"words_per_chunk × 1.3 = 390 tokens, got .* 400"):
        ChunkTokens(400, "corpus", words_per_chunk=300)
    assert ChunkTokens(390, "corpus", words_per_chunk=300) == ChunkTokens.from_words(300)
    for bad in (0, -3, math.nan):
        with pytest.raises(ValueError, match="words_per_chunk must be a finite number > 0"):
            ChunkTokens.from_words(bad)


def test_context_cost_checks_its_arguments():
    evaluation = small(5)
    run = evaluation.run("run")
    with pytest.raises(TypeError, match="tokens must be a ChunkTokens, got float"):
        context_cost(run, 390.0, scored=evaluation.scored)
    with pytest.raises(ValueError, match="bool mask of the 5 queries"):
        context_cost(run, GIVEN, scored=evaluation.scored[:3])
    with pytest.raises(ValueError, match="bool mask"):
        context_cost(run, GIVEN, scored=evaluation.scored.astype(int))


def test_a_cost_is_frozen():
    cost = costs(small(5), GIVEN)[0]
    assert isinstance(cost, Cost)
    with pytest.raises(AttributeError):
        cost.run = "other"  # type: ignore[misc]


# --- sentences ----------------------------------------------------------------------------------


def sentence(**changes) -> str:
    figures = dict(k=10, suggested_k=6, tokens=3900.0, suggested_tokens=2340.0, cost=1.95,
                   suggested_cost=1.17, recall=0.82, suggested_recall=0.80, extra_chunks=4.0)
    return words.cost_sentence(**(figures | changes))


def test_sentence_when_k_is_above_the_suggestion():
    assert sentence() == (
        "At K = 10: 3,900 tokens per query, $1.95 per 1,000 queries (recall 0.820); at the "
        "suggested k = 6: 2,340 tokens, $1.17 (recall 0.800): K = 10 sends 4 more chunks per "
        "query, buying +0.020 recall for $0.78 per 1,000 queries."
    )


def test_sentence_with_fractional_chunks_and_no_price():
    text = sentence(cost=None, suggested_cost=None, extra_chunks=3.6, tokens=3744.0,
                    suggested_tokens=2340.0)
    assert text == (
        "At K = 10: 3,744 tokens per query (recall 0.820); at the suggested k = 6: 2,340 "
        "tokens (recall 0.800): K = 10 sends 3.6 more chunks per query, buying +0.020 recall "
        "for 1,404 more tokens per query."
    )


def test_sentence_when_raising_k_costs_more():
    text = sentence(k=6, suggested_k=10, tokens=2340.0, suggested_tokens=3900.0, cost=1.17,
                    suggested_cost=1.95, recall=0.80, suggested_recall=0.82, extra_chunks=-4.0)
    assert text.endswith(": raising k to 10 adds 4 chunks per query, buying +0.020 recall for "
                         "$0.78 per 1,000 queries.")
    one = sentence(k=6, suggested_k=7, extra_chunks=-1.0)
    assert "raising k to 7 adds 1 chunk per query" in one


def test_sentence_when_k_is_the_suggestion():
    assert sentence(suggested_k=10).endswith(
        "(recall 0.820); K is the suggested k: nothing to save or to buy.")


def test_sentence_when_the_lists_end_first():
    assert sentence(extra_chunks=0.0).endswith(
        "the lists end by k = 6, so K = 10 sends no more chunks and buys +0.020 recall.")
    assert sentence(k=6, suggested_k=10, extra_chunks=0.0, recall=0.8,
                    suggested_recall=0.8).endswith(
        "the lists end by K = 6, so raising k to 10 sends no more chunks and buys +0.000 recall.")


def test_source_sentences():
    assert words.source_sentence("given", 390.5) == "390.5 tokens per chunk, given."
    assert words.source_sentence("corpus", 391.625, 301.25) == (
        "391.6 tokens per chunk, estimated from the corpus: 301.2 words per chunk × 1.3.")
    with pytest.raises(ValueError, match="source must be one of"):
        words.source_sentence("other", 1.0)


def test_money_and_amounts():
    assert words.money(0.975) == "$0.98"  # stored as 0.97499...: half up from what was meant
    assert words.money(1234.5) == "$1,234.50"
    assert words.money(0) == "$0.00"
    assert words.money(0.00039) == "$0.00039"  # never shown as nothing when it is not
    assert words.money(-0.975) == "-$0.98"
    assert words.money(None) == words.money(math.nan) == "—"
    # the figures of one sentence add up: $0.98 - $0.78 = $0.20 (0.975 - 0.78 is 0.195)
    assert words.money_difference(0.975, 0.78) == "$0.20"
    assert words.money_difference(0.001, 0.0005) == "$0.0005"
    assert words.amount(3900) == "3,900" and words.amount(390.46) == "390.5"
    assert words.amount(0.004) == "0.004" and words.amount(0) == "0"


def test_the_vocabulary_declares_flags_and_meanings():
    assert words.FLAGS["tokens_per_chunk"][0] == "--tokens-per-chunk"
    assert words.FLAGS["price_per_mtok"][0] == "--price-per-mtok"
    assert words.UNIT == "per 1,000 queries" and words.QUERIES == 1_000
    assert set(words.COST_MEANING) == {"chunks", "tokens", "cost", "recall", "difference",
                                       "extra"}  # the column of the recall the extra chunks buy
    assert "a query whose list is shorter than k sends fewer chunks" in \
        words.COST_MEANING["tokens"]


# --- the K sweep's tokens ---------------------------------------------------------------------


@pytest.mark.parametrize("empty", ["exclude", "zero"])
def test_the_sweep_s_tokens_at_every_k_match_a_plain_loop(empty):
    evaluation = small(5, Conventions(empty_queries=empty))
    (sweep,) = sweep_costs(evaluation, GIVEN)
    lo, hi = evaluation.sweep_range
    assert list(sweep.ks) == list(range(lo, hi + 1)) and hi >= 12  # the longest list
    for k, chunks, tokens in zip(sweep.ks, sweep.chunks, sweep.tokens, strict=True):
        expected = loop_chunks(int(k), with_empty=empty == "zero")
        assert chunks == pytest.approx(expected)
        assert tokens == pytest.approx(expected * 390)
    assert sweep.queries == (5 if empty == "zero" else 4)
    # the same figures as the two cutoffs' context cost, at K
    at_k = costs(evaluation, GIVEN)[0].current
    assert sweep.tokens[list(sweep.ks).index(5)] == pytest.approx(at_k.tokens)
    assert sweep.cost_per_1000 == pytest.approx(sweep.tokens * 1000 / 1e6 * 0.5)


def test_the_sweep_says_how_its_tokens_were_estimated():
    corpus = ChunkTokens.from_words(300)
    (sweep,) = sweep_costs(small(5), corpus)
    assert sweep.cost_per_1000 is None
    assert sweep.sentence.startswith(words.SWEEP_METHOD)
    assert "estimated from the corpus: 300 words per chunk × 1.3" in sweep.sentence
    with pytest.raises(TypeError, match="ChunkTokens"):
        sweep_costs(small(5), 390)
