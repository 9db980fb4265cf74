"""Finding queries by what a reviewer remembers of them: part of the id, or words of the text.

The rule is declared in the vocabulary (SEARCH_RULE): the search is cut into words (letters and
digits; punctuation separates them), and a query
matches when every word is found, case-insensitively, in its id or at the start of a word of
its text ("invoice" finds "invoices", "voice" does not), so that adding a word narrows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from metrics.io.queries import Queries

_WORDS = re.compile(r"\w+")


def find_queries(query_ids: Sequence[str], search: str, queries: Queries | None = None
                 ) -> list[str]:
    """The ids of `query_ids` that match `search`, in their order; all of them for a search
    without a word."""
    terms = [term.lower() for term in _WORDS.findall(search)]
    if not terms:
        return list(query_ids)
    found = []
    for query in query_ids:
        text = (queries.text(query) if queries is not None else None) or ""
        words = [word.lower() for word in _WORDS.findall(text)]
        if all(term in query.lower() or any(word.startswith(term) for word in words)
               for term in terms):
            found.append(query)
    return found
