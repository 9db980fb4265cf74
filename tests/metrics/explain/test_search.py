"""Finding queries by id or by words of their text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from metrics import find_queries, load_queries

QUERIES = load_queries(b"query_id\ttext\nq01\tWhy was my invoice charged twice?\n"
                       b"q02\tRotate an API key\nQ-10\tSingle sign-on plans\n",
                       file_name="queries.tsv")
IDS = ["q01", "q02", "Q-10", "q99"]  # q99: a scored query the file has no text for


def test_words_match_at_the_start_of_a_word_in_any_case():
    assert find_queries(IDS, "INVOICE", QUERIES) == ["q01"]
    assert find_queries(IDS, "invo", QUERIES) == ["q01"]
    assert find_queries(IDS, "voice", QUERIES) == []  # inside a word: no
    assert find_queries(IDS, "sign-on", QUERIES) == ["Q-10"]  # punctuation splits words


def test_ids_match_anywhere_and_every_word_must_match():
    assert find_queries(IDS, "q0", QUERIES) == ["q01", "q02"]
    assert find_queries(IDS, "q-10", QUERIES) == ["Q-10"]  # "q" and "10" both in the id
    assert find_queries(IDS, "rotate key", QUERIES) == ["q02"]
    assert find_queries(IDS, "rotate invoice", QUERIES) == []
    assert find_queries(IDS, "q99") == ["q99"]  # without a queries file: ids only


def test_an_empty_search_keeps_every_query_in_order():
    assert find_queries(IDS, "", QUERIES) == IDS
    assert find_queries(IDS, "  ?! ", QUERIES) == IDS


@given(st.lists(st.text(alphabet="abc ", max_size=12), min_size=1, max_size=8),
       st.text(alphabet="abc ", max_size=6))
def test_the_rule_against_a_plain_reading(texts, search):
    ids = [f"id{i}" for i in range(len(texts))]
    lines = "".join(f"{q}\t{t.strip() or 'x'}\n" for q, t in zip(ids, texts, strict=True))
    queries = load_queries(("query_id\ttext\n" + lines).encode(), file_name="q.tsv")
    terms = search.lower().split()

    def plain(q):
        words = queries.text(q).lower().split()
        return all(t in q or any(w[:len(t)] == t for w in words) for t in terms)

    assert find_queries(ids, search, queries) == [q for q in ids if plain(q)]
    assert all(re.fullmatch(r"id\d+", q) for q in find_queries(ids, search, queries))
