"""What the harmed queries share: counts checked by hand, the p-value against scipy's Fisher
exact test (one-sided), and the order."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from metrics import compare, harm_profile
from metrics.io.queries import Queries
from metrics.vocabulary.risk import NO_OTHER_HOLDS, times


def comparison_of(differences: dict[str, float]):
    ids = list(differences)
    before = {"m@5": [0.5] * len(ids)}
    after = {"m@5": [0.5 + differences[q] for q in ids]}
    return compare("base", {"base": before, "cand": after}, ids, candidates=["cand"],
                   metrics=["m@5"], n_permutations=100, n_resamples=50, rng=1)


def queries_of(texts: dict[str, str], kind: dict[str, str]) -> Queries:
    ids = tuple(texts)
    return Queries("q.jsonl", "jsonl", ids, tuple(texts.values()),
                   {"kind": tuple(kind[q] for q in ids)}, tuple(range(1, len(ids) + 1)))


def test_the_words_and_facet_values_of_the_harmed_queries_come_first():
    texts, kinds, differences = {}, {}, {}
    for i in range(40):
        negation = i % 4 == 0  # 10 queries with "without", each harmed
        q = f"q{i}"
        texts[q] = f"export report {'without header' if negation else 'as csv'} item{i}"
        kinds[q] = "without" if negation else "keyword"
        differences[q] = -0.5 if negation or i in (1, 2) else 0.1
    profile = harm_profile(comparison_of(differences), "cand", "m@5",
                           queries_of(texts, kinds), delta=0.05)
    assert (profile.harmed, profile.rest) == (12, 28)
    top = {s.value for s in profile.shared[:4]}
    assert {"without", "header", "kind = without"} <= top
    word = next(s for s in profile.shared if s.value == "without")
    assert (word.harmed_with, word.harmed, word.rest_with, word.rest) == (10, 12, 0, 28)
    # the one-sided hypergeometric p is Fisher's exact test, 'greater'
    fisher = stats.fisher_exact([[10, 2], [0, 28]], alternative="greater")
    assert word.p == pytest.approx(fisher.pvalue)
    assert word.sentence == ("word 'without': in 10 of 12 harmed queries (83.3%) against 0 of 28 "
                             "others (0.0%)")
    # common words, and words of too few queries, are not features
    values = {s.value for s in profile.shared}
    assert "export" not in values  # in every query: not over-represented
    assert not any(v.startswith("item") for v in values)  # one query each
    assert [s.p for s in profile.shared] == sorted(s.p for s in profile.shared)


def test_nothing_harmed_shares_nothing():
    texts = {f"q{i}": "a query" for i in range(5)}
    profile = harm_profile(comparison_of({q: 0.1 for q in texts}), "cand", "m@5",
                           queries_of(texts, {q: "k" for q in texts}))
    assert profile.harmed == 0 and profile.shared == ()


def test_a_feature_no_other_query_holds_has_an_undefined_lift_with_its_reason():
    """'without' is held by 10 harmed queries and none of the others: its share among them
    over theirs divides by zero, so the lift is undefined and says why, not inf or None."""
    texts = {f"q{i}": ("without header" if i < 4 else "as csv") for i in range(12)}
    differences = {q: -0.5 if i < 4 else 0.1 for i, q in enumerate(texts)}
    profile = harm_profile(comparison_of(differences), "cand", "m@5",
                           queries_of(texts, {q: "k" for q in texts}), delta=0.05)
    word = next(s for s in profile.shared if s.value == "without")
    assert word.rest_with == 0
    assert math.isnan(word.lift) and word.lift_undefined == NO_OTHER_HOLDS
    assert times(word.lift, word.lift_undefined) == f"undefined ({NO_OTHER_HOLDS})"
