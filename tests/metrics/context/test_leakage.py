"""The leakage check: which queries it reads (those that read as a sentence), each rule at its
edges, both scopes against a plain-loop oracle on random collections, the result's shape and
sentence, and the corpus streamed in full.

The rules' mechanics are checked on short made-up queries ("a b c", "cat sat down") that do
not read as sentences, so those tests check every query (`every_query=True`, the `check`
below); the tests of the sentence rule use the default.

Run by hand for the timing (not a timed test): `python -m tests.metrics.context.test_leakage`.
"""

from __future__ import annotations

import ast
import functools
import gzip
import json
import math
import random
import re
import tracemalloc
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import metrics.vocabulary.leakage as words
from metrics.context.leakage import (
    Leak,
    Leakage,
    _spaced,
    find_leaks,
    reads_as_sentence,
    retrieved_or_judged,
)
from metrics.io import LoadError
from metrics.io.corpus import Corpus, iter_documents, read_corpus
from metrics.io.queries import Queries, load_queries
from metrics.vocabulary.leakage import (
    CORPUS,
    KINDS,
    LEAKAGE_RULES,
    NGRAM,
    NGRAM_THRESHOLD,
    RETRIEVED,
    SCOPES,
    VERBATIM,
    leak_sentence,
)
from tests.metrics.builders import make_qrels, make_run

# the rules' mechanics, on every query whether or not it reads as a sentence
check = functools.partial(find_leaks, every_query=True)


def queries_of(pairs: dict[str, str]) -> Queries:
    return Queries("q.tsv", "tsv", tuple(pairs), tuple(pairs.values()), {},
                   tuple(range(1, len(pairs) + 1)))


def found(result: Leakage) -> list[tuple[str, str, str, float]]:
    return [(leak.query_id, leak.doc_id, leak.kind, leak.overlap) for leak in result.leaks]


def both_scopes(queries: Queries, docs: list[tuple], **options) -> list:
    """The leaks of the corpus scope, checked equal to those of every doc as a candidate."""
    whole = check(queries, docs, **options)
    every = {query: [doc[0] for doc in docs] for query in queries.ids}
    assert found(check(queries, docs, candidates=every, **options)) == found(whole)
    return found(whole)


# --- an oracle: the rules read literally, one pair at a time ----------------------------------


def oracle_words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def oracle_grams(ws: list[str]) -> set[tuple[str, ...]]:
    return {tuple(ws[i:i + 3]) for i in range(len(ws) - 2)}


def holds_in_order(field: list[str], query: list[str]) -> bool:
    n = len(query)
    return any(field[i:i + n] == query for i in range(len(field) - n + 1))


def oracle_pair(query: str, title: str, text: str, threshold: float):
    q = oracle_words(query)
    fields = [oracle_words(title), oracle_words(text)] if title else [oracle_words(text)]
    if not q:
        return None
    if len(q) < 3:
        return (VERBATIM, 1.0) if any(field == q for field in fields) else None
    if any(holds_in_order(field, q) for field in fields):
        return VERBATIM, 1.0
    grams = oracle_grams(q)
    held = len(grams & set().union(*(oracle_grams(field) for field in fields)))
    return (NGRAM, held / len(grams)) if held / len(grams) >= threshold else None


def oracle(queries: Queries, docs: list[tuple[str, str, str]], threshold: float,
           candidates: dict[str, list[str]] | None = None) -> list:
    first = {}
    for doc in docs:
        first.setdefault(doc[0], doc)
    out = []
    for qid, text in zip(queries.ids, queries.texts, strict=True):
        if candidates is None:
            pool = docs
        else:
            pool = [first[d] for d in dict.fromkeys(candidates.get(qid, ())) if d in first]
        seen = {}
        for doc_id, title, body in pool:
            verdict = oracle_pair(text, title, body, threshold)
            if verdict and (doc_id not in seen or verdict > seen[doc_id]):  # verbatim > ngram
                seen[doc_id] = verdict
        out += [(qid, doc, kind, overlap) for doc, (kind, overlap) in seen.items()]
    return out


# --- which queries are checked: those that read as a sentence ---------------------------------


@pytest.mark.parametrize(("text", "sentence"), [
    ("why was my invoice charged twice", True),  # the sample's q05: 6 words, 3 function words
    ("How do I rotate an API key without downtime?", True),
    ("set up SAML with Okta step by step", True),  # 8 words
    ("api jira reminder", False),  # keywords: a title's words
    ("api jira reminder downgrade billing", False),  # 5 words, no function word
    ("the api for jira", False),  # 4 words, 2 function words: under 5
    ("api jira reminder downgrade for the team", True),  # 7 words, 2 function words
    ("api jira reminder downgrade billing webhook retry", False),  # 7 keywords
    ("pourquoi ma facture a-t-elle été débitée deux fois", True),  # no English: 10 words
    ("", False),
])
def test_a_query_is_checked_when_it_reads_as_a_sentence(text, sentence):
    assert reads_as_sentence(text) is sentence


def test_keyword_queries_are_not_checked_and_are_counted():
    queries = queries_of({
        "kw": "api jira reminder",
        "nav": "billing faq",
        "q05": "why was my invoice charged twice",
        "copied": "How do I rotate an API key without downtime?",
        "fine": "what does the refund policy say about opened items",
    })
    docs = [
        ("t1", "API: Jira reminder", "Reminders for Jira issues through the API."),
        ("d41", "Billing FAQ", "Why was my invoice charged twice? Usually it was not."),
        ("d07", "Keys", "how do i rotate an api key without downtime: rotate it twice"),
        ("d01", "Refunds", "Opened items can be returned within 30 days."),
    ]
    candidates = {"kw": ["t1"], "nav": ["d41"], "q05": ["d41"], "copied": ["d07"],
                  "fine": ["d01"], "not a query": ["t1"]}
    for result in (find_leaks(queries, docs), find_leaks(queries, docs, candidates=candidates)):
        assert [(leak.query_id, leak.doc_id) for leak in result.leaks] == [
            ("q05", "d41"), ("copied", "d07")]
        assert (result.queries_checked, result.not_sentences) == (3, 2)
        assert not result.every_query
        assert result.sentence.endswith(
            "2 keyword or navigational queries were not checked (they do not read as a "
            "sentence).")
        assert result.sentence.startswith("2 of 3 checked queries (66.7%) appear in")
    # every query checked: the keyword queries match their chunks' titles exactly
    every = find_leaks(queries, docs, every_query=True)
    assert {leak.query_id for leak in every.leaks} == {"kw", "nav", "q05", "copied"}
    assert every.not_sentences == 0 and every.every_query


def test_a_query_without_candidates_is_not_counted_as_skipped():
    queries = queries_of({"kw": "api jira reminder", "kw2": "billing faq"})
    result = find_leaks(queries, [("t1", "api jira reminder")], candidates={"kw": ["t1"]})
    assert (result.queries_checked, result.not_sentences) == (0, 1)
    assert result.sentence == ("No query was checked. 1 keyword or navigational query was not "
                               "checked (they do not read as a sentence).")


def test_the_sentence_rule_is_declared_and_stated():
    assert words.SENTENCE_WORDS == 5 and words.SENTENCE_FUNCTION_WORDS == 2
    assert words.LONG_QUERY_WORDS == 8
    assert {"how", "what", "why", "my", "the", "is", "do"} <= words.FUNCTION_WORDS
    assert words.SENTENCE_RULE in words.LEAKAGE_RULE
    assert LEAKAGE_RULES["sentences"] == words.SENTENCE_RULE


# --- verbatim ---------------------------------------------------------------------------------


def test_verbatim_ignores_case_spacing_and_punctuation():
    queries = queries_of({"q1": "What is the capital of France?"})
    docs = [
        ("d1", "Quiz:  WHAT is\tthe\ncapital, of   france (answer below)"),
        ("d2", "the capital of France is Paris"),
    ]
    assert both_scopes(queries, docs) == [("q1", "d1", VERBATIM, 1.0)]


def test_verbatim_matches_whole_words_only():
    queries = queries_of({"q1": "cat sat down"})
    assert both_scopes(queries, [("d1", "the concat sat downstairs")]) == []
    assert both_scopes(queries, [("d1", "the cat sat down-stairs")]) == [
        ("q1", "d1", VERBATIM, 1.0)
    ]


def test_every_gram_scattered_is_an_ngram_leak_of_overlap_one_not_verbatim():
    queries = queries_of({"q1": "q r s t u"})  # 3-grams: q r s, r s t, s t u
    assert both_scopes(queries, [("d1", "q r s t, then s t u")]) == [("q1", "d1", NGRAM, 1.0)]


def test_title_and_text_are_checked_apart():
    queries = queries_of({"q1": "alpha beta gamma delta"})
    # each field holds half the query; together they would hold it verbatim
    docs = [("d1", "notes on alpha beta", "gamma delta")]
    assert both_scopes(queries, docs) == []
    docs = [("d1", "Alpha Beta Gamma Delta", "unrelated text")]
    assert both_scopes(queries, docs) == [("q1", "d1", VERBATIM, 1.0)]


# --- ngram, at and around the threshold -------------------------------------------------------


QUERY_8_GRAMS = "a1 b2 c3 d4 e5 f6 g7 h8 i9 j10"  # 10 distinct words: 8 distinct 3-grams


@pytest.mark.parametrize(
    ("chunk", "threshold", "expected"),
    [
        ("a1 b2 c3 d4 e5 f6 g7 x", 0.6, 0.625),  # 5 of 8 pass 0.6
        ("a1 b2 c3 d4 e5 f6 x", 0.6, None),  # 4 of 8 fail it
        ("a1 b2 c3 d4 e5 f6 x", 0.5, 0.5),  # ... and pass 0.5, exactly at it
        ("a1 b2 c3 d4 e5 f6 g7 x", 0.625, 0.625),  # exactly at the threshold
        ("a1 b2 c3 d4 e5 f6 g7 x", 0.63, None),
        ("x f6 g7 h8 i9 j10 a1 b2 c3 d4 y", 0.6, 0.625),  # in two runs, out of order
    ],
)
def test_ngram_share_against_the_threshold(chunk, threshold, expected):
    queries = queries_of({"q1": QUERY_8_GRAMS})
    leaks = both_scopes(queries, [("d1", chunk)], threshold=threshold)
    assert leaks == ([] if expected is None else [("q1", "d1", NGRAM, expected)])


def test_three_of_five_grams_pass_sixty_percent_despite_floating_point():
    # 0.6 * 5 is 3.0000000000000004 in floating point: a product would turn this query away
    queries = queries_of({"q1": "a b c d e f g"})  # 5 grams
    leaks = both_scopes(queries, [("d1", "a b c d e z")])  # a b c, b c d, c d e
    assert leaks == [("q1", "d1", NGRAM, 0.6)]


def test_repeated_grams_count_once():
    queries = queries_of({"q1": "go go go go go stop now"})  # go go go, go go stop, go stop now
    assert both_scopes(queries, [("d1", "go go go go go go go")]) == []  # 1 of 3
    assert both_scopes(queries, [("d1", "go go go go stop")]) == [("q1", "d1", NGRAM, 2 / 3)]


def test_the_default_threshold_is_the_vocabularys():
    assert NGRAM_THRESHOLD == 0.6
    result = check(queries_of({"q1": "a b c"}), [("d1", "x")])
    assert result.threshold == NGRAM_THRESHOLD


# --- short queries ----------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["Python", "python?", "machine learning", "Machine-Learning!"])
def test_a_short_query_leaks_only_into_a_chunk_that_is_the_query(query):
    queries = queries_of({"q1": query})
    words_of = " ".join(oracle_words(query))
    docs = [
        ("inside", f"an introduction to {words_of} for beginners"),
        ("title", words_of.upper(), "a long text about something"),
        ("text", f"  {words_of}.  "),
        ("prefix", f"{words_of} tutorial"),
    ]
    assert both_scopes(queries, docs) == [
        ("q1", "title", VERBATIM, 1.0), ("q1", "text", VERBATIM, 1.0)
    ]
    result = check(queries, docs)
    assert result.short_queries == 1 and result.queries_checked == 1


def test_a_query_without_a_word_is_not_checked():
    queries = queries_of({"q1": "?!", "q2": "a b c"})
    result = check(queries, [("d1", "?!"), ("d2", "")])
    assert result.leaks == () and result.queries_checked == 1


def test_the_rules_are_declared_in_the_vocabulary():
    assert words.MIN_QUERY_WORDS == words.NGRAM_SIZE == 3
    for rule in ("short", "punctuation", "verbatim", "ngram", "words", "effect"):
        assert LEAKAGE_RULES[rule]
    assert set(KINDS) == {VERBATIM, NGRAM} and set(SCOPES) == {RETRIEVED, CORPUS}
    assert words.DEFAULT_SCOPE == RETRIEVED


def test_the_vocabulary_is_pure():
    source = Path(words.__file__).read_text()
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {"__future__", "metrics.vocabulary.format"}


# --- the candidates scope ---------------------------------------------------------------------


def test_candidates_limit_each_query_to_its_own_chunks():
    queries = queries_of({"q1": "how do vaccines train the immune system", "q2": "x y z w"})
    docs = [
        ("d1", "How do vaccines train the immune system? They show it a harmless piece."),
        ("d2", "how do vaccines train the immune system"),
        ("d3", "x y z w"),
    ]
    result = check(queries, docs, candidates={
        "q1": ["d2", "absent", "d2"], "q2": ["d1"], "not a query": ["d3"],
    })
    assert result.scope == RETRIEVED
    assert found(result) == [("q1", "d2", VERBATIM, 1.0)]  # d1 holds it too: not a candidate
    assert result.missing_chunks == 1 and result.chunks_checked == 2
    assert result.queries_checked == 2


def test_leaks_follow_query_order_then_each_querys_candidate_order():
    queries = queries_of({"q1": "one two three", "q2": "four five six"})
    docs = [("d1", "one two three"), ("d2", "four five six one two three"),
            ("d3", "four five six")]
    result = check(queries, docs, candidates={"q2": ["d3", "d2"], "q1": ["d2", "d1"]})
    assert [(leak.query_id, leak.doc_id) for leak in result.leaks] == [
        ("q1", "d2"), ("q1", "d1"), ("q2", "d3"), ("q2", "d2"),
    ]
    corpus_order = check(queries, docs)
    assert [(leak.query_id, leak.doc_id) for leak in corpus_order.leaks] == [
        ("q1", "d1"), ("q1", "d2"), ("q2", "d2"), ("q2", "d3"),
    ]


def test_a_repeated_id_in_a_stream():
    queries = queries_of({"q1": "a b c d e"})
    docs = [("d1", "a b c d x"), ("d1", "a b c d e"), ("d2", "z")]
    # the corpus scope reads every line and keeps the strongest leak of the pair, once
    assert found(check(queries, docs)) == [("q1", "d1", VERBATIM, 1.0)]
    # the candidates scope keeps an id's first text, as read_corpus does
    assert found(check(queries, docs, candidates={"q1": ["d1"]})) == [
        ("q1", "d1", NGRAM, 2 / 3)
    ]


def test_a_corpus_object_and_its_tuples_give_the_same_leaks():
    queries = queries_of({"q1": "the quick brown fox jumps", "q2": "lazy dog"})
    corpus = Corpus("c", ("d1", "d2", "d3"), ("", "Lazy dog", ""),
                    ("The quick brown fox jumps.", "a dog", "quick brown fox jumps high"))
    tuples = list(zip(corpus.doc_ids, corpus.titles, corpus.texts, strict=True))
    for candidates in (None, {"q1": ["d3", "d1"], "q2": ["d2"]}):
        assert found(check(queries, corpus, candidates=candidates)) == found(
            check(queries, tuples, candidates=candidates)
        )
    assert found(check(queries, corpus)) == [
        ("q1", "d1", VERBATIM, 1.0), ("q1", "d3", NGRAM, 2 / 3), ("q2", "d2", VERBATIM, 1.0),
    ]


# --- random collections: both scopes agree, and agree with the oracle --------------------------


def noisy(rng: random.Random, ws: list[str]) -> str:
    """The words with case, spacing and punctuation changed: the same words to the check."""
    seps = [" ", "  ", ", ", " - ", "\t", "; ", "\n"]
    out = "".join(w.upper() if rng.random() < 0.2 else w for w in ws[:1])
    for w in ws[1:]:
        out += rng.choice(seps) + (w.capitalize() if rng.random() < 0.2 else w)
    return out + rng.choice(["", "?", ".", "!"])


def random_collection(seed: int):
    rng = random.Random(seed)
    vocab = ["ant", "bee", "cat", "dog", "elk", "fox", "gnu"][: rng.randint(3, 7)]
    queries = {}
    for i in range(rng.randint(1, 15)):
        queries[f"q{i}"] = noisy(rng, [rng.choice(vocab) for _ in range(rng.randint(1, 8))])
    docs = []
    for _ in range(rng.randint(1, 25)):
        ws = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        if rng.random() < 0.3:  # a copy of a query, or a part of one, planted in the text
            q = oracle_words(rng.choice(list(queries.values())))
            start = rng.randint(0, len(q) - 1)
            at = rng.randint(0, len(ws))
            ws[at:at] = q[start:] if rng.random() < 0.5 else q
        title = noisy(rng, [rng.choice(vocab) for _ in range(rng.randint(1, 3))]) if (
            rng.random() < 0.3) else ""
        docs.append((f"d{rng.randint(0, 30)}", title, noisy(rng, ws) if ws else ""))
    threshold = rng.choice([0.2, 0.5, 0.6, 2 / 3, 0.75, 1.0])
    return rng, queries_of(queries), docs, threshold


@pytest.mark.parametrize("seed", range(60))
def test_corpus_scope_equals_every_doc_as_candidate_and_the_oracle(seed):
    _, queries, docs, threshold = random_collection(seed)
    whole = check(queries, docs, threshold=threshold)
    assert found(whole) == oracle(queries, docs, threshold)
    unique = list({doc[0]: doc for doc in reversed(docs)}.values())[::-1]  # first of each id
    every = {q: [doc[0] for doc in unique] for q in queries.ids}
    assert found(check(queries, unique, threshold=threshold, candidates=every)) == (
        oracle(queries, unique, threshold)
    )
    assert found(check(queries, unique, threshold=threshold)) == found(
        check(queries, unique, threshold=threshold, candidates=every)
    )


@pytest.mark.parametrize("seed", range(60))
def test_candidates_scope_equals_the_oracle(seed):
    rng, queries, docs, threshold = random_collection(seed)
    ids = [doc[0] for doc in docs] + ["absent"]
    candidates = {q: rng.choices(ids, k=rng.randint(0, 8)) for q in queries.ids}
    result = check(queries, docs, threshold=threshold, candidates=candidates)
    assert found(result) == oracle(queries, docs, threshold, candidates)
    assert result.leaked_queries == tuple(dict.fromkeys(leak[0] for leak in found(result)))


@pytest.mark.parametrize("seed", range(20))
def test_the_default_reads_only_sentences_and_agrees_with_the_oracle(seed):
    rng = random.Random(1000 + seed)
    vocab = ["how", "do", "i", "the", "my", "invoice", "key", "api", "jira", "rotate"]
    texts = {f"q{i}": " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
             for i in range(rng.randint(1, 12))}
    queries = queries_of(texts)
    docs = []
    for i in range(rng.randint(1, 15)):
        ws = [rng.choice(vocab) for _ in range(rng.randint(0, 12))]
        if rng.random() < 0.4:
            ws[rng.randint(0, len(ws)):0] = rng.choice(list(texts.values())).split()
        docs.append((f"d{i}", "", " ".join(ws)))
    sentences = queries_of({q: t for q, t in texts.items() if reads_as_sentence(t)})
    result = find_leaks(queries, docs)
    assert found(result) == oracle(sentences, docs, NGRAM_THRESHOLD)
    assert result.not_sentences == sum(not reads_as_sentence(t) for t in texts.values()
                                       if oracle_words(t))


@pytest.mark.parametrize("seed", range(200))
def test_the_ascii_path_spaces_text_as_the_unicode_path_does(seed):
    rng = random.Random(seed)
    text = "".join(rng.choice("aZ9_ \t\n.,;:!?'\"-()<>&#/\\|`~") for _ in range(rng.randint(0, 40)))
    ws = oracle_words(text)
    assert _spaced(text) == (f" {' '.join(ws)} " if ws else " ")


# --- hostile text -----------------------------------------------------------------------------


def test_markup_is_plain_text():
    queries = queries_of({"plain": "What is the capital of France?",
                          "tagged": "<b>what is the capital of France</b>"})
    docs = [
        ("script", "<script>alert('What is the capital of France?')</script>"),
        ("split", "&lt;p&gt; <b>What</b> is the capital of <i>France</i>?"),
        ("plain", "what is the capital of france"),
    ]
    assert both_scopes(queries, docs) == [
        # a tag's content is text like any other; tags are words too, so 'split' is no copy:
        # 'b' between 'what' and 'is' leaves 2 of the 4 3-grams
        ("plain", "script", VERBATIM, 1.0),
        ("plain", "plain", VERBATIM, 1.0),
        # 'b what is' and 'of france b' are not in a plain chunk: 4 of 6
        ("tagged", "script", NGRAM, 4 / 6),
        ("tagged", "plain", NGRAM, 4 / 6),
    ]


def test_unicode_is_normalised_and_case_folded():
    queries = queries_of({
        "fullwidth": "Ｐｙｔｈｏｎ ｌｉｓｔ ｃｏｍｐｒｅｈｅｎｓｉｏｎｓ",
        "fold": "STRASSE NACH BERLIN",
        "combining": "cafe\u0301 au lait recipe",
        "regex": "a+b (c) [d] .* e",
        "rtl": "מה השעה עכשיו",
    })
    docs = [
        ("d2", "python list comprehensions explained"),
        ("d3", "Die Straße nach Berlin"),
        ("d4", "Our café au lait recipe."),
        ("d5", "a b c d e"),
        ("d6", "שאלה: מה השעה עכשיו?"),
        ("d7", "\x00\u202e\ufeff nothing here 🙂 Ｐｙｔｈｏｎ"),
    ]
    assert both_scopes(queries, docs) == [
        ("fullwidth", "d2", VERBATIM, 1.0),
        ("fold", "d3", VERBATIM, 1.0),
        ("combining", "d4", VERBATIM, 1.0),
        ("regex", "d5", VERBATIM, 1.0),  # its words a b c d e: not read as a pattern
        ("rtl", "d6", VERBATIM, 1.0),
    ]


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", [0, -0.1, 1.0001, math.nan, math.inf, "0.6", True, None])
def test_a_threshold_outside_zero_to_one_is_refused(threshold):
    with pytest.raises(ValueError, match="threshold"):
        check(queries_of({"q1": "a b c"}), [("d1", "a b c")], threshold=threshold)


@pytest.mark.parametrize("threshold", [1, 1.0, np.float64(0.6), 1e-9])
def test_a_threshold_in_zero_to_one_is_taken(threshold):
    result = check(queries_of({"q1": "a b c"}), [("d1", "a b c")], threshold=threshold)
    assert result.threshold == float(threshold) and isinstance(result.threshold, float)


@pytest.mark.parametrize("documents", ["d1\ttext", {"d1": "text"}, [("d1",)], [("d1", None)],
                                       [("d1", "a", "b", "c")], ["d1"]])
def test_documents_of_another_shape_are_refused(documents):
    with pytest.raises(ValueError, match="document"):
        check(queries_of({"q1": "a b c"}), documents)


@pytest.mark.parametrize("candidates", [[("q1", "d1")], {"q1": "d1"}])
def test_candidates_of_another_shape_are_refused(candidates):
    with pytest.raises(ValueError, match="candidates"):
        check(queries_of({"q1": "a b c"}), [("d1", "a b c")], candidates=candidates)


# --- the result -------------------------------------------------------------------------------


def test_as_dict_is_the_json_the_command_line_prints():
    queries = queries_of({"q1": "a1 b2 c3 d4 e5 f6 g7 h8 i9 j10", "q2": "one two three"})
    result = check(queries, [("d1", "a1 b2 c3 d4 e5 f6 g7"), ("d2", "ONE two, three")])
    data = json.loads(json.dumps(result.as_dict()))
    assert data == {
        "scope": "corpus",
        "threshold": 0.6,
        "every_query": True,
        "not_sentences": 0,
        "leaks": [
            {"query_id": "q1", "doc_id": "d1", "kind": "ngram", "overlap": 0.625},
            {"query_id": "q2", "doc_id": "d2", "kind": "verbatim", "overlap": 1.0},
        ],
    }
    assert Leak("q", "d", NGRAM, 0.5).as_dict() == {
        "query_id": "q", "doc_id": "d", "kind": "ngram", "overlap": 0.5
    }


def test_by_query_and_leaked_queries():
    queries = queries_of({"q1": "one two three", "q2": "four five six", "q3": "seven"})
    docs = [("d1", "one two three"), ("d2", "four five six and one two three")]
    result = check(queries, docs)
    assert result.leaked_queries == ("q1", "q2")
    assert [leak.doc_id for leak in result.by_query("q1")] == ["d1", "d2"]
    assert result.by_query("q3") == () and result.by_query("nope") == ()
    assert (result.queries_checked, result.chunks_checked) == (3, 2)


@pytest.mark.parametrize(
    ("scope", "leaked", "checked", "sentence"),
    [
        (RETRIEVED, 12, 1946, "12 of 1,946 queries (0.6%) appear in a chunk they are scored "
         "against: every retriever's score on them is inflated."),
        (RETRIEVED, 1, 1, "1 of 1 query (100.0%) appears in a chunk it is scored against: "
         "every retriever's score on it is inflated."),
        (CORPUS, 1, 5000, "1 of 5,000 queries (<0.1%) appears in a chunk of the corpus: "
         "every retriever's score on it is inflated."),
        (CORPUS, 0, 50, "None of 50 queries appears in a chunk of the corpus."),
        (RETRIEVED, 0, 0, "No query was checked: none has a chunk to check in the corpus."),
    ],
)
def test_the_sentence(scope, leaked, checked, sentence):
    assert leak_sentence(scope, leaked, checked) == sentence


def test_the_results_sentence_counts_distinct_queries():
    queries = queries_of({"q1": "one two three", "q2": "four five six"})
    result = check(queries, [("d1", "one two three"), ("d2", "one two three")])
    assert len(result.leaks) == 2
    assert result.sentence == leak_sentence(CORPUS, 1, 2)


# --- candidates from the qrels and runs -------------------------------------------------------


def test_retrieved_or_judged():
    qrels = make_qrels({"q1": {"j1": 1, "r2": 0}, "q2": {"j3": 2}})
    runs = [make_run({"q1": ["r1", "r2", "r1"], "q9": ["x"]}, "a"),
            make_run({"q1": ["r3", "r1"], "q2": ["r4"]}, "b")]
    assert retrieved_or_judged(qrels, runs) == {
        "q1": ("r1", "r2", "r3", "j1"), "q2": ("r4", "j3"),
    }


# --- the whole corpus, streamed ---------------------------------------------------------------


BEIR = (b'{"_id": "d1", "title": "Intro", "text": "what is the capital of france"}\n\n'
        b'{"_id": "d2", "text": "paris", "title": null}\n'
        b'{"_id": "d1", "title": "", "text": "repeated"}\n')
JSONL = b'{"doc_id": 7, "text": "what is the capital of france", "title": "Intro"}\n'
TSV = b"d1\twhat is the capital of france\r\nd2\tparis\tand more\n"


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (BEIR, "corpus.jsonl", [("d1", "Intro", "what is the capital of france"),
                                ("d2", "", "paris"), ("d1", "", "repeated")]),
        (JSONL, "c.jsonl", [("7", "Intro", "what is the capital of france")]),
        (TSV, "collection.tsv", [("d1", "", "what is the capital of france"),
                                 ("d2", "", "paris\tand more")]),
        (gzip.compress(TSV, mtime=0), "collection.tsv.gz",
         [("d1", "", "what is the capital of france"), ("d2", "", "paris\tand more")]),
    ],
)
def test_iter_documents_reads_each_format(tmp_path, data, name, expected):
    assert list(iter_documents(data, file_name=name)) == expected
    path = tmp_path / name
    path.write_bytes(data)
    assert list(iter_documents(str(path))) == expected


def test_iter_documents_stops_at_a_malformed_line_with_its_number():
    data = BEIR + b'{"_id": "d3", "text": 5}\n'
    documents = iter_documents(data, file_name="corpus.jsonl")
    assert next(documents)[0] == "d1"
    with pytest.raises(LoadError, match=r"corpus\.jsonl, line 5: 'text' must be a string"):
        list(documents)
    with pytest.raises(LoadError, match="empty file"):
        list(iter_documents(b"\n\n", file_name="c.tsv"))
    with pytest.raises(LoadError, match="line 2: no tab"):
        list(iter_documents(b"d1\tok\nd2 no tab\n", file_name="c.tsv"))


def test_iter_documents_checks_its_format_when_called():
    with pytest.raises(ValueError, match="format"):
        iter_documents(b"d1\ttext\n", format="csv")


def test_iter_documents_keeps_nothing_between_lines(tmp_path):
    path = tmp_path / "big.tsv.gz"
    line = ("lorem ipsum dolor sit amet " * 12).encode()
    with gzip.open(path, "wb", compresslevel=1) as out:
        for i in range(60_000):
            out.write(b"d%d\t%s\n" % (i, line))
    tracemalloc.start()
    try:
        n = sum(1 for _ in iter_documents(str(path)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == 60_000
    assert peak < 4_000_000, f"peak {peak:,} bytes for {60_000 * len(line):,} bytes of text"


def test_both_scopes_from_files_agree(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(BEIR)
    queries = load_queries(b"q1\tWhat is the capital of France?\nq2\tParis\n", file_name="q.tsv")
    whole = check(queries, iter_documents(str(path)))
    corpus, _ = read_corpus(str(path), ["d1", "d2"])
    retrieved = check(queries, corpus, candidates={"q1": ["d1"], "q2": ["d2"]})
    assert found(whole) == found(retrieved) == [
        ("q1", "d1", VERBATIM, 1.0), ("q2", "d2", VERBATIM, 1.0)
    ]
    assert (whole.scope, retrieved.scope) == (CORPUS, RETRIEVED)


# --- by hand: the timing ----------------------------------------------------------------------


def _time_it() -> None:  # pragma: no cover - run by hand
    import time

    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(30_000)]

    def sentence(n: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(n))

    n_docs, n_queries = 400_000, 5_000
    ids = tuple(f"d{i}" for i in range(n_docs))
    texts = [sentence(60) + ", with Punctuation." for _ in range(n_docs)]
    qids = tuple(f"q{i}" for i in range(n_queries))
    queries = queries_of({q: sentence(rng.randint(4, 12)) + "?" for q in qids})
    candidates = {q: [ids[rng.randrange(n_docs)] for _ in range(100)] for q in qids}
    for i in range(0, n_queries, 50):  # a copy planted in one candidate of every 50th query
        doc = int(candidates[qids[i]][7][1:])
        texts[doc] = "intro " + queries.texts[i].upper() + " outro"
    corpus = Corpus("c", ids, ("",) * n_docs, tuple(texts))
    start = time.process_time()
    result = check(queries, corpus, candidates=candidates)
    print(f"retrieved: {n_queries:,} queries x 100 candidates ({result.chunks_checked:,} "
          f"chunks) in {time.process_time() - start:.2f} s CPU; {result.sentence}")
    start = time.process_time()
    result = check(queries, zip(ids[:100_000], texts[:100_000], strict=True))
    print(f"corpus: {n_queries:,} queries x 100,000 chunks in "
          f"{time.process_time() - start:.2f} s CPU; {result.sentence}")


if __name__ == "__main__":  # pragma: no cover
    _time_it()
