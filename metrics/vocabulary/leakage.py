"""The leakage check's words: when a query counts as copied into a chunk, the scopes it can
read, the kinds of leak, and the sentence shown beside the result. Pure words and numbers;
metrics/leakage.py applies them, the command line and the dashboard print them."""

from __future__ import annotations

from metrics.vocabulary.format import count

NGRAM_SIZE = 3  # word 3-grams: one shared word pair is common, three words in a row are not
NGRAM_THRESHOLD = 0.6  # the default share of a query's 3-grams one chunk must hold
MIN_QUERY_WORDS = NGRAM_SIZE  # a shorter query has no 3-gram: only the exact rule applies

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

LEAKAGE_RULE = (f"A query leaks into a chunk when its words appear there in order, or when that "
                f"one chunk holds at least {NGRAM_THRESHOLD:.0%} of its word 3-grams.")

LEAKAGE_RULES = {
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


def share(part: int, whole: int) -> str:
    """'0.6%'; '<0.1%' for a share that is not zero but would print as one."""
    percent = 100 * part / whole if whole else 0.0
    if 0 < percent < 0.05:
        return "<0.1%"
    return f"{percent:.1f}%"


def leak_sentence(scope: str, leaked: int, checked: int) -> str:
    """The one line shown with the result: '12 of 1,946 queries (0.6%) appear in a chunk they
    are scored against: every retriever's score on them is inflated.'"""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if not checked:
        return "No query was checked: none has a chunk to check in the corpus."
    if not leaked:
        where = _CHECKED_AGAINST[scope][checked > 1]
        return f"None of {count(checked, 'query')} appears in {where}."
    several = leaked > 1
    verb = "appear" if several else "appears"
    return (
        f"{leaked:,} of {count(checked, 'query')} ({share(leaked, checked)}) {verb} in "
        f"{_CHECKED_AGAINST[scope][several]}: {_EFFECT[several]}"
    )


def query_leak_sentence(found: list[tuple[str, str, float]]) -> str:
    """One query's leaks, (doc_id, kind, overlap) each: 'This question is copied into chunk
    d41 (verbatim): every retriever's score on it is inflated.'"""
    parts = [f"{doc} ({'verbatim' if kind == VERBATIM else f'{overlap:.0%} of its 3-grams'})"
             for doc, kind, overlap in found]
    noun = "chunk" if len(parts) == 1 else "chunks"
    return f"This question is copied into {noun} {', '.join(parts)}: {_EFFECT[False]}"
