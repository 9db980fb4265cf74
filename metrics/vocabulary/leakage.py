"""The leakage check's words: which queries it reads (those that read as a sentence), when a
query counts as copied into a chunk, the scopes it can read, the kinds of leak, and the
sentence shown beside the result. Pure words and numbers; metrics/context/leakage.py applies
them, the command line and the dashboard print them.

Why only sentences: a leak is a query's text copied into the corpus, and a question copied
word for word is a copy; a keyword or navigational query ("api jira reminder") whose words
are a chunk's title is the match retrieval is for, not a copy, and it would be flagged on
every collection whose queries were written from titles."""

from __future__ import annotations

from metrics.vocabulary.format import count, percent_of

NGRAM_SIZE = 3  # word 3-grams: one shared word pair is common, three words in a row are not
NGRAM_THRESHOLD = 0.6  # the default share of a query's 3-grams one chunk must hold
MIN_QUERY_WORDS = NGRAM_SIZE  # a shorter query has no 3-gram: only the exact rule applies

# which queries are checked: those that read as a sentence, in words a person writes a question
# with. Words are counted as the check reads them (split at every non-word character).
SENTENCE_WORDS = 5  # a sentence has at least this many words ...
SENTENCE_FUNCTION_WORDS = 2  # ... of which at least this many are function words,
LONG_QUERY_WORDS = 8  # or, in a text without them (another language), at least this many words
FUNCTION_WORDS = frozenset(
    "a about after am an and are as at be been before being but by can could did do does for "
    "from had has have he her his how i if in into is it its me my no not of on or our over "
    "she should so than that the their them then there these they this those to us was we "
    "were what when where which who whom whose why will with would you your".split()
)
EVERY_QUERY_FLAG = "--every-query"
EVERY_QUERY_HELP = (
    "check every query, keyword and navigational ones too (by default only the queries that "
    "read as a sentence are checked: a keyword query whose words are a chunk's title is a "
    "match, not a copy)"
)

THRESHOLD_FLAG = "--threshold"
THRESHOLD_HELP = (
    "share of a query's word 3-grams one chunk must hold for the query to leak into it, "
    f"in (0, 1] (default {NGRAM_THRESHOLD})"
)

RETRIEVED, CORPUS = "retrieved", "corpus"
DEFAULT_SCOPE = RETRIEVED
SCOPE_FLAG = "--scope"
SCOPES = {
    RETRIEVED: "Each query is checked against the chunks some run retrieved for it or the qrels "
    "judged for it: the chunks its scores are computed from, so a leak here is one that "
    "inflates them. Fast: only those chunks are read.",
    CORPUS: "Each query is checked against every chunk of the corpus, read as a stream: it also "
    "finds copies no run has retrieved yet, which a better retriever would.",
}
SCOPE_HELP = (
    f"chunks to check: '{RETRIEVED}' (those retrieved or judged, default) or '{CORPUS}' "
    "(the whole corpus, streamed)"
)

VERBATIM, NGRAM = "verbatim", "ngram"
KINDS = {  # in order of precedence: a pair that is both is reported once, as the first
    VERBATIM: "The query's words appear in the chunk in order, side by side (case, spacing "
    "and punctuation aside); its overlap is 1.",
    NGRAM: "The chunk holds at least the threshold's share of the query's distinct word "
    "3-grams, not all of them in one run; its overlap is that share.",
}

SENTENCE_RULE = (
    f"A query is checked when it reads as a sentence: at least {SENTENCE_WORDS} words of which "
    f"at least {SENTENCE_FUNCTION_WORDS} are function words (how, what, why, my, the, is, "
    f"do...), or at least {LONG_QUERY_WORDS} words in a text without them. Keyword and "
    "navigational queries are not checked: their words in a chunk's title is what retrieval "
    "looks for, not a copy."
)
LEAKAGE_RULE = (f"A leak is a query's text copied into a chunk. {SENTENCE_RULE} A checked "
                f"query leaks into a chunk when its words appear there in order, or when that "
                f"one chunk holds at least {NGRAM_THRESHOLD:.0%} of its word 3-grams.")

LEAKAGE_RULES = {
    "sentences": SENTENCE_RULE,
    "words": "Texts are compared as words: Unicode-normalised (NFKC), case-folded, and split "
    "at every character that is not a letter, a digit or '_'. Markup and entities are words "
    "like any other: a text is read as plain text.",
    "punctuation": "Punctuation does not matter, in either rule: a query's closing '?' or a "
    "curly quote must not hide a copy. Words must match whole: 'he is' is not found inside "
    "'the issue'.",
    "verbatim": KINDS[VERBATIM],
    "ngram": KINDS[NGRAM],
    "short": f"A query of fewer than {MIN_QUERY_WORDS} words has no 3-gram; it leaks only into "
    "a chunk whose title or text is the query itself (the same words and nothing else). "
    "One or two of its words inside a longer chunk is what retrieval looks for, not a copy.",
    "fields": "A chunk's title and text are checked apart: a 3-gram or a verbatim match never "
    "runs from the end of the title into the text.",
    "pairs": "One leak per query and chunk, verbatim before ngram; leaks are listed in the "
    "queries' order, then the chunks' (a query's candidates in the order given, or the "
    "corpus's order).",
    "effect": "A leaked query inflates every retriever's score: the answer is in the chunk "
    "because the question was copied into it.",
}

_CHECKED_AGAINST = {  # (one query, several)
    RETRIEVED: ("a chunk it is scored against", "a chunk they are scored against"),
    CORPUS: ("a chunk of the corpus", "a chunk of the corpus"),
}
_EFFECT = ("every retriever's score on it is inflated.", "every retriever's score on them is "
           "inflated.")


def leak_sentence(scope: str, leaked: int, checked: int, not_sentences: int = 0) -> str:
    """The one line shown with the result: '12 of 1,946 queries (0.6%) appear in a chunk they
    are scored against: every retriever's score on them is inflated.', followed, when some
    queries were not checked because they do not read as a sentence, by how many."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    skipped = not_checked_sentence(not_sentences)
    if not checked:
        if not_sentences:
            return f"No query was checked. {skipped}"
        return "No query was checked: none has a chunk to check in the corpus."
    if not leaked:
        where = _CHECKED_AGAINST[scope][checked > 1]
        found = f"None of {count(checked, 'query')} appears in {where}."
    else:
        several = leaked > 1
        verb = "appear" if several else "appears"
        of = (count(checked, "checked query", "checked queries") if not_sentences
              else count(checked, "query"))
        found = (f"{leaked:,} of {of} ({percent_of(leaked, checked)}) {verb} in "
                 f"{_CHECKED_AGAINST[scope][several]}: {_EFFECT[several]}")
    return f"{found} {skipped}" if skipped else found


def not_checked_sentence(not_sentences: int) -> str:
    """'1,320 keyword or navigational queries were not checked (they do not read as a
    sentence).'; '' when every query read as one."""
    if not not_sentences:
        return ""
    verb = "was" if not_sentences == 1 else "were"
    noun = count(not_sentences, "keyword or navigational query",
                 "keyword or navigational queries")
    return f"{noun} {verb} not checked (they do not read as a sentence)."


def ngram_share(overlap: float) -> str:
    """'67%': a leak's overlap, the share of the query's word 3-grams the chunk holds."""
    return f"{overlap:.0%}"


def query_leak_sentence(found: list[tuple[str, str, float]]) -> str:
    """One query's leaks, (doc_id, kind, overlap) each: 'This question is copied into chunk
    d41 (verbatim): every retriever's score on it is inflated.'"""
    parts = [f"{doc} (" + ("verbatim" if kind == VERBATIM
                           else f"{ngram_share(overlap)} of its 3-grams") + ")"
             for doc, kind, overlap in found]
    noun = "chunk" if len(parts) == 1 else "chunks"
    return f"This question is copied into {noun} {', '.join(parts)}: {_EFFECT[False]}"
