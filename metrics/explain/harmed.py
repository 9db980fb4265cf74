"""What the queries a candidate harms share: the words of their texts and the facet values
that are over-represented among them against the other scored queries, with counts and a
test, so that "the reranker breaks the queries with 'without'" is read off a table rather
than guessed from a few examples. The words and the method are in metrics/vocabulary/risk.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

from metrics.explain.facets import facets as query_facets
from metrics.io.queries import Queries
from metrics.stats import benjamini_hochberg
from metrics.stats.comparison import Comparison
from metrics.stats.paired import is_harmed
from metrics.stats.validate import check_integer
from metrics.vocabulary.leakage import FUNCTION_WORDS
from metrics.vocabulary.risk import (
    HARM_DELTA,
    NO_OTHER_HOLDS,
    SHARED_MIN_QUERIES,
    SHARED_SHOWN,
    shared_sentence,
)

_WORDS = re.compile(r"\w+")


@dataclass(frozen=True)
class Shared:
    """One word or facet value, counted among the harmed queries and among the rest."""

    kind: str  # "word" or "facet"
    value: str  # the word, or "facet = value"
    harmed_with: int  # harmed queries that hold it
    harmed: int  # harmed queries
    rest_with: int  # other scored queries that hold it
    rest: int  # other scored queries
    p: float  # one-sided hypergeometric p: as many harmed queries or more by chance
    q: float  # p adjusted by Benjamini-Hochberg over every feature weighed

    @property
    def lift(self) -> float:
        """The share of harmed queries that hold it over the share of the others; nan when
        none of the others holds it (see `lift_undefined`)."""
        mine = self.harmed_with / self.harmed if self.harmed else 0.0
        theirs = self.rest_with / self.rest if self.rest else 0.0
        return mine / theirs if theirs else float("nan")

    @property
    def lift_undefined(self) -> str:
        """Why the lift has no value ("" when it has one)."""
        return "" if self.rest_with else NO_OTHER_HOLDS

    @property
    def sentence(self) -> str:
        return shared_sentence(self.kind, self.value, self.harmed_with, self.harmed,
                               self.rest_with, self.rest)


@dataclass(frozen=True, eq=False)
class HarmProfile:
    candidate: str
    metric: str
    delta: float
    harmed: int
    rest: int
    shared: tuple[Shared, ...]  # over-represented among the harmed, most significant first


def harm_profile(comparison: Comparison, candidate: str, metric: str, queries: Queries, *,
                 delta: float = HARM_DELTA, shown: int = SHARED_SHOWN) -> HarmProfile:
    """The words and facet values over-represented among the queries `candidate` harms on
    `metric` (those losing more than `delta`) against the other compared queries, the
    `shown` most significant."""
    shown = check_integer("shown", shown)
    test = comparison.test(candidate, metric)
    ids = list(comparison.query_ids)
    harmed = is_harmed(test.differences, delta)  # refuses a delta outside [0, 1]
    features: dict[tuple[str, str], np.ndarray] = {}
    texts = [queries.text(q) or "" for q in ids]
    vocabulary: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        for word in set(_WORDS.findall(text.lower())):
            if word not in FUNCTION_WORDS and not word.isdigit():
                vocabulary.setdefault(word, []).append(i)
    for word, rows in vocabulary.items():
        if len(rows) >= SHARED_MIN_QUERIES:
            mask = np.zeros(len(ids), dtype=bool)
            mask[rows] = True
            features["word", word] = mask
    for name, facet in query_facets(queries, ids).items():
        labels = np.array([facet.label(q) for q in ids], dtype=object)
        for value in facet.bins:
            mask = labels == value
            if mask.sum() >= SHARED_MIN_QUERIES:
                features["facet", f"{name} = {value}"] = mask
    n_harmed, n = int(harmed.sum()), len(ids)
    if not features or not n_harmed:
        return HarmProfile(candidate, metric, delta, n_harmed, n - n_harmed, ())
    keys = list(features)
    held = np.array([int(features[k].sum()) for k in keys])
    held_harmed = np.array([int((features[k] & harmed).sum()) for k in keys])
    # P(X >= held_harmed), X hypergeometric: n queries, n_harmed harmed, `held` drawn
    p = scipy_stats.hypergeom.sf(held_harmed - 1, n, n_harmed, held)
    q = benjamini_hochberg(p)
    rest = n - n_harmed
    over = (held_harmed * rest > (held - held_harmed) * n_harmed)
    order = sorted((i for i in range(len(keys)) if over[i]),
                   key=lambda i: (p[i], -held_harmed[i], keys[i]))
    shared = tuple(Shared(keys[i][0], keys[i][1], int(held_harmed[i]), n_harmed,
                          int(held[i] - held_harmed[i]), rest, float(p[i]), float(q[i]))
                   for i in order[:shown])
    return HarmProfile(candidate, metric, delta, n_harmed, rest, shared)


__all__ = ["HarmProfile", "Shared", "harm_profile"]
