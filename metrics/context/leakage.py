"""The leakage check: queries of the evaluation set copied into the corpus they are scored on.

A leak is a query's text copied into the corpus. Only the queries that read as a sentence are
checked (at least SENTENCE_WORDS words of which SENTENCE_FUNCTION_WORDS are function words,
or LONG_QUERY_WORDS words without them): a keyword query whose words are a chunk's title is
a match, not a copy. A checked query leaks into a chunk when its words appear there in order
(verbatim), or when that one chunk holds at least `threshold` of the query's distinct word
3-grams (ngram). Such a query inflates every retriever's score, so the figures on it measure
the copy, not the retriever. `every_query=True` checks keyword queries too, under the same
rules. The rules and their words are in metrics/vocabulary/leakage.py.

Texts are compared as spaced word strings, ' w1 w2 ... wn ' (normalised, case-folded, split
at non-word characters), so that "these words, in this order, whole" is a C-level `in`:
a 3-gram ' a b c ' is in a chunk's spaced string exactly when the chunk has those three words
side by side. A chunk is spaced once however many queries it is checked against; ASCII text
takes a `str.translate` path that gives the same string as the regex, several times faster.

Two scopes, one judgement per (query, chunk) pair:
- retrieved (candidates given): the pairs are grouped by chunk, so each chunk is spaced once
  and only its own queries' 3-grams are looked up in it;
- corpus (no candidates): the documents stream past an inverted index built from the queries
  (3-gram -> queries), so a chunk is split once and only the queries sharing a 3-gram with it
  are scored. Nothing is kept from a chunk but its leaks: memory follows the queries.
Languages written without spaces (Chinese, Japanese) have words only between spaces and
punctuation: a query in them reads as a few long words, found only where they match whole.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from metrics.io.corpus import Corpus
from metrics.io.queries import Queries
from metrics.io.rows import Qrels, Run
from metrics.stats.validate import check_number
from metrics.vocabulary.leakage import (
    CORPUS,
    FUNCTION_WORDS,
    KINDS,
    LONG_QUERY_WORDS,
    MIN_QUERY_WORDS,
    NGRAM,
    NGRAM_SIZE,
    NGRAM_THRESHOLD,
    RETRIEVED,
    SENTENCE_FUNCTION_WORDS,
    SENTENCE_WORDS,
    VERBATIM,
    leak_sentence,
    query_leak_sentence,
)

_ASCII = str.maketrans(
    {c: (c.lower() if c.isalnum() or c == "_" else " ") for c in map(chr, range(128))}
)
_WORDS = re.compile(r"\w+").findall
_FIELDS = "|"  # between a chunk's title and text: not a word character, so nothing spans it
_RANK = {kind: rank for rank, kind in enumerate(KINDS)}  # verbatim first


@dataclass(frozen=True)
class Leak:
    """One query found in one chunk."""

    query_id: str
    doc_id: str
    kind: str  # VERBATIM or NGRAM
    overlap: float  # share of the query's distinct 3-grams in the chunk; 1.0 when verbatim

    def as_dict(self) -> dict[str, object]:
        return {"query_id": self.query_id, "doc_id": self.doc_id, "kind": self.kind,
                "overlap": self.overlap}


@dataclass(frozen=True, eq=False)
class Leakage:
    """What the check found, and how much it read (the counts a sentence needs)."""

    scope: str  # RETRIEVED or CORPUS
    threshold: float
    leaks: tuple[Leak, ...]  # by query order, then chunk order
    queries_checked: int  # queries with a word, checked against at least one chunk
    chunks_checked: int  # chunks read: distinct candidates found, or every document streamed
    short_queries: int = 0  # of those checked, under MIN_QUERY_WORDS words: the exact rule only
    missing_chunks: int = 0  # distinct candidate ids not among the documents (retrieved scope)
    # queries not checked because they do not read as a sentence (keyword, navigational), of
    # those the scope would have read (a query with candidates, in the retrieved scope)
    not_sentences: int = 0
    every_query: bool = False  # keyword queries checked too

    @cached_property
    def leaked_queries(self) -> tuple[str, ...]:
        """The queries with at least one leak, each once, in query order."""
        return tuple(dict.fromkeys(leak.query_id for leak in self.leaks))

    @cached_property
    def _by_query(self) -> dict[str, tuple[Leak, ...]]:
        grouped: dict[str, list[Leak]] = {}
        for leak in self.leaks:
            grouped.setdefault(leak.query_id, []).append(leak)
        return {query: tuple(leaks) for query, leaks in grouped.items()}

    def by_query(self, query_id: str) -> tuple[Leak, ...]:
        """The query's leaks, in chunk order; () when it has none."""
        return self._by_query.get(query_id, ())

    @property
    def sentence(self) -> str:
        return leak_sentence(self.scope, len(self.leaked_queries), self.queries_checked,
                             self.not_sentences)

    def query_sentence(self, query_id: str) -> str | None:
        """Where one query was copied, in a sentence; None when it was not."""
        found = self.by_query(query_id)
        if not found:
            return None
        return query_leak_sentence([(leak.doc_id, leak.kind, leak.overlap) for leak in found])

    def as_dict(self) -> dict[str, object]:
        """The JSON the command line prints."""
        return {"scope": self.scope, "threshold": self.threshold,
                "every_query": self.every_query, "not_sentences": self.not_sentences,
                "leaks": [leak.as_dict() for leak in self.leaks]}


def find_leaks(
    queries: Queries,
    documents: Corpus | Iterable[tuple[str, str] | tuple[str, str, str]],
    *,
    threshold: float = NGRAM_THRESHOLD,
    candidates: Mapping[str, Iterable[str]] | None = None,
    every_query: bool = False,
) -> Leakage:
    """The leaks of `queries` into `documents`: a Corpus, or (doc_id, text) or (doc_id, title,
    text) tuples, e.g. `iter_documents(path)`, read once as a stream.

    With `candidates` (query_id -> doc ids, e.g. `retrieved_or_judged(qrels, runs)`), each
    query is checked against its own candidates only (scope "retrieved"); a candidate the
    documents lack is counted, and a query the queries lack is skipped (it has no text).
    Without, every query is checked against every document (scope "corpus"). Only the
    queries that read as a sentence (`reads_as_sentence`) are checked, the others counted,
    unless `every_query`."""
    threshold = check_number("threshold", threshold, low=0, high=1, low_open=True)
    prepared = [
        _Query(i, query_id, text, threshold)
        for i, (query_id, text) in enumerate(zip(queries.ids, queries.texts, strict=True))
    ]
    prepared = [query for query in prepared if query.phrase != " "]  # no word: nothing to find
    if every_query:
        skipped = []
    else:
        skipped = [query for query in prepared if not query.sentence]
        prepared = [query for query in prepared if query.sentence]
    if candidates is not None and isinstance(candidates, Mapping):
        skipped = [query for query in skipped if query.id in candidates]
    found = _Found(threshold)
    if candidates is None:
        chunks = _scan_all(prepared, _documents(documents), found)
        checked = prepared if chunks else []
        missing = 0
    else:
        chunks, checked, missing = _scan_candidates(prepared, documents, candidates, found)
    return Leakage(
        scope=RETRIEVED if candidates is not None else CORPUS,
        threshold=threshold,
        leaks=found.leaks(prepared),
        queries_checked=len(checked),
        chunks_checked=chunks,
        short_queries=sum(query.short for query in checked),
        missing_chunks=missing,
        not_sentences=len(skipped),
        every_query=bool(every_query),
    )


def reads_as_sentence(text: str) -> bool:
    """Whether the check reads a query: at least SENTENCE_WORDS words of which at least
    SENTENCE_FUNCTION_WORDS are function words, or at least LONG_QUERY_WORDS words."""
    return _sentence(_spaced(text).split())


def _sentence(words: list[str]) -> bool:
    if len(words) >= LONG_QUERY_WORDS:
        return True
    function = sum(word in FUNCTION_WORDS for word in words)
    return len(words) >= SENTENCE_WORDS and function >= SENTENCE_FUNCTION_WORDS


def retrieved_or_judged(qrels: Qrels, runs: Sequence[Run]) -> dict[str, tuple[str, ...]]:
    """Per query of the qrels, the doc ids its scores read: every run's retrieved ids in rank
    order, run by run, then the judged ids (non-relevant ones too), each once. The default
    candidates of `find_leaks`; a run's query the qrels lack is not scored, so not listed."""
    wanted: dict[str, dict[str, None]] = {str(query): {} for query in qrels.query_ids}
    for run in runs:
        queries, docs = run.query_ids[run.query_code].tolist(), run.doc_ids.to_pylist()
        for query, doc in zip(queries, docs, strict=True):
            got = wanted.get(query)
            if got is not None:
                got[doc] = None
    names = qrels.doc_names.to_pylist()
    queries, codes = qrels.query_ids[qrels.query_code].tolist(), qrels.doc_code.tolist()
    for query, code in zip(queries, codes, strict=True):
        wanted[query][names[code]] = None
    return {query: tuple(docs) for query, docs in wanted.items()}


# --- texts as spaced words -------------------------------------------------------------------


def _spaced(text: str) -> str:
    """' w1 w2 ... wn ' (' ' when there is no word): NFKC, case-folded, words split at every
    non-word character. The ASCII path is the same function: NFKC leaves ASCII alone,
    casefold() is lower() there, and \\w is [A-Za-z0-9_]."""
    if text.isascii():
        spaced = f" {text} ".translate(_ASCII)
        while "  " in spaced:
            spaced = spaced.replace("  ", " ")
        return spaced
    words = _WORDS(unicodedata.normalize("NFKC", text).casefold())
    return f" {' '.join(words)} " if words else " "


def _grams(words: list[str]) -> Iterator[tuple[str, ...]]:
    """The word NGRAM_SIZE-grams, in order (none for fewer words)."""
    return zip(*(words[i:] for i in range(NGRAM_SIZE)), strict=False)


def _chunk(title: str, text: str) -> tuple[str, tuple[str, ...]]:
    """A chunk's spaced string (title and text apart) and its fields' spaced strings."""
    fields = (_spaced(title), _spaced(text)) if title else (_spaced(text),)
    return _FIELDS.join(fields), fields


class _Query:
    """A query as the check reads it: its spaced words and distinct 3-grams, and `screen`,
    the first n - m + 1 of its n 3-grams when m are needed to leak: a chunk that holds none of
    them cannot hold m, so most candidates are turned away after a few searches."""

    __slots__ = ("index", "id", "phrase", "short", "sentence", "grams", "gram_texts", "screen")

    def __init__(self, index: int, query_id: str, text: str, threshold: float):
        self.index, self.id, self.phrase = index, query_id, _spaced(text)
        words = self.phrase.split()
        self.short = len(words) < MIN_QUERY_WORDS
        self.sentence = _sentence(words)
        self.grams = tuple(dict.fromkeys(_grams(words)))
        self.gram_texts = tuple(f" {' '.join(gram)} " for gram in self.grams)
        n = len(self.grams)
        need = next((m for m in range(1, n + 1) if m / n >= threshold), n)  # as judge() divides
        self.screen = self.gram_texts[: n - need + 1]


class _Found:
    """The leaks found so far: one per (query, doc) pair, the strongest kept, at the first
    position the pair was seen (a doc id repeated in a stream is read again)."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self.pairs: dict[tuple[int, str], tuple[int, int, float]] = {}

    def judge(self, query: _Query, found: int, chunk: str, doc_id: str, at: int) -> None:
        """Record the pair when `found` of the query's 3-grams are in `chunk`."""
        if found == len(query.grams) and query.phrase in chunk:
            self.add(query, doc_id, at, VERBATIM, 1.0)
        elif found / len(query.grams) >= self.threshold:
            self.add(query, doc_id, at, NGRAM, found / len(query.grams))

    def add(self, query: _Query, doc_id: str, at: int, kind: str, overlap: float) -> None:
        key, new = (query.index, doc_id), (at, _RANK[kind], overlap)
        old = self.pairs.get(key)
        if old is None:
            self.pairs[key] = new
        elif (new[1], -new[2]) < (old[1], -old[2]):
            self.pairs[key] = (old[0], new[1], new[2])

    def leaks(self, queries: list[_Query]) -> tuple[Leak, ...]:
        ids = {query.index: query.id for query in queries}
        kinds = tuple(KINDS)
        return tuple(
            Leak(ids[index], doc_id, kinds[rank], overlap)
            for (index, doc_id), (_, rank, overlap) in sorted(
                self.pairs.items(), key=lambda item: (item[0][0], item[1][0])
            )
        )


def _documents(
    documents: Corpus | Iterable[tuple[str, ...]],
) -> Iterator[tuple[str, str, str]]:
    """(doc_id, title, text) of each document, checked."""
    if isinstance(documents, Corpus):
        yield from zip(documents.doc_ids, documents.titles, documents.texts, strict=True)
        return
    if isinstance(documents, str | bytes | Mapping):
        raise ValueError(
            "documents must be a Corpus or (doc_id, text) / (doc_id, title, text) tuples, "
            f"not a {type(documents).__name__}"
        )
    for item in documents:
        if not isinstance(item, tuple | list) or len(item) not in (2, 3) or not all(
            isinstance(part, str) for part in item
        ):
            raise ValueError(
                "each document must be (doc_id, text) or (doc_id, title, text) strings, "
                f"got {item!r:.80}"
            )
        yield (item[0], "", item[1]) if len(item) == 2 else tuple(item)


# --- the two scopes --------------------------------------------------------------------------


def _scan_all(queries: list[_Query], documents: Iterator[tuple[str, str, str]],
              found: _Found) -> int:
    """Every document against every query, through an index built from the queries; the
    number of documents read."""
    index: dict[tuple[str, ...], list[_Query]] = {}
    exact: dict[str, list[_Query]] = {}
    for query in queries:
        if query.short:
            exact.setdefault(query.phrase, []).append(query)
        for gram in query.grams:
            index.setdefault(gram, []).append(query)
    grams = frozenset(index)
    at = -1
    for at, (doc_id, title, text) in enumerate(documents):
        chunk, fields = _chunk(title, text)
        for field in fields:
            for query in exact.get(field, ()):
                found.add(query, doc_id, at, VERBATIM, 1.0)
        words = chunk.split()
        counts: dict[_Query, int] = {}
        for gram in grams & set(_grams(words)):
            for query in index[gram]:
                counts[query] = counts.get(query, 0) + 1
        for query, n in counts.items():
            found.judge(query, n, chunk, doc_id, at)
    return at + 1


def _scan_candidates(
    queries: list[_Query],
    documents: Corpus | Iterable[tuple[str, ...]],
    candidates: Mapping[str, Iterable[str]],
    found: _Found,
) -> tuple[int, list[_Query], int]:
    """Each query against its candidates; (chunks read, queries checked, candidates missing)."""
    if not isinstance(candidates, Mapping):
        raise ValueError(f"candidates must map query ids to doc ids, not a "
                         f"{type(candidates).__name__}")
    by_id = {query.id: query for query in queries}
    # doc -> its pairs, each an int (position * len(queries) + query's place in `queries`), or
    # a list of them: a million small tuples would cost more to build than to check
    pairs: dict[str, int | list[int]] = {}
    places = {query: place for place, query in enumerate(queries)}
    stride = len(queries)
    for query_id, docs in candidates.items():
        if isinstance(docs, str | bytes):
            raise ValueError(f"the candidates of query {query_id!r} must be an iterable of doc "
                             f"ids, not one {type(docs).__name__}")
        query = by_id.get(query_id)
        if query is None:
            continue
        place = places[query]
        for at, doc_id in enumerate(dict.fromkeys(docs)):
            code, got = at * stride + place, pairs.get(doc_id)
            if got is None:
                pairs[doc_id] = code
            elif type(got) is int:
                pairs[doc_id] = [got, code]
            else:
                got.append(code)
    checked: set[int] = set()
    chunks = 0
    for doc_id, title, text in _documents(documents):
        if doc_id not in pairs:
            if not pairs:  # every candidate found: the rest of a stream is not read
                break
            continue
        chunks += 1
        chunk, fields = _chunk(title, text)
        codes = pairs.pop(doc_id)  # popped: a repeated id keeps its first text
        contains = chunk.__contains__
        for code in (codes,) if type(codes) is int else codes:
            at, place = divmod(code, stride)
            query = queries[place]
            checked.add(place)
            if query.short:
                if query.phrase in fields:
                    found.add(query, doc_id, at, VERBATIM, 1.0)
            elif any(map(contains, query.screen)):
                found.judge(query, sum(map(contains, query.gram_texts)), chunk, doc_id, at)
    return chunks, [queries[place] for place in sorted(checked)], len(pairs)
