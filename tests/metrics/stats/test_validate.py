"""metrics.stats.validate: argument checks return the value in its working type or name it."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import metrics
from metrics.stats.validate import (
    check_count,
    check_fraction,
    check_names,
    check_number,
    check_rng,
    check_values,
    is_number,
)
from metrics.vocabulary.conventions import DEFAULT_SEED


def test_good_values_come_back_in_their_working_type() -> None:
    assert check_count("n", np.int64(3)) == 3 and type(check_count("n", np.int64(3))) is int
    assert check_fraction("alpha", np.float32(0.5)) == 0.5
    assert check_names("metric", ["a", "b"], ["b", "a"], "known") == ("a", "b")
    generator, seed = check_rng(None)
    assert seed == DEFAULT_SEED
    assert generator.random() == np.random.default_rng(DEFAULT_SEED).random()
    assert check_rng(7)[1] == 7
    passed = np.random.default_rng(1)
    assert check_rng(passed) == (passed, None)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: check_count("n_resamples", True), "n_resamples"),
        (lambda: check_count("n_resamples", 0), "n_resamples"),
        (lambda: check_fraction("alpha", 1), "alpha"),
        (lambda: check_fraction("alpha", "0.5"), "'0.5'"),
        (lambda: check_names("metric", "ab", ["ab"], "known"), "'ab'"),
        (lambda: check_names("metric", [], ["a"], "known"), "empty"),
        (lambda: check_names("metric", ["c"], ["a"], "known"), "unknown metric 'c'; known: a"),
        (lambda: check_names("metric", ["a", "a"], ["a"], "known"), "listed twice"),
        (lambda: check_rng(-1), "-1"),
        (lambda: check_rng(False), "False"),
    ],
)
def test_bad_values_are_named(call: Callable[[], object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


# --- one predicate ---------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 3, -2, np.int64(7), np.uint8(1), 0.5, -1e300,
                                   np.float32(0.25), np.float64(2.0), 10**300])
def test_a_number_is_an_int_or_a_finite_float_python_s_or_numpy_s(value) -> None:
    assert is_number(value)


@pytest.mark.parametrize("value", [True, False, np.True_, "0.5", None, [0.5], np.array(0.5),
                                   float("nan"), np.float64("inf"), -math.inf, 1 + 0j,
                                   Fraction(1, 2), Decimal("0.5"), 10**400])
def test_nothing_else_is_a_number(value) -> None:
    assert not is_number(value)
    assert not is_number(value, integer=True)


@pytest.mark.parametrize("value", [0.0, 3.0, np.float32(1)])
def test_an_integer_is_not_a_float_that_happens_to_be_whole(value) -> None:
    assert is_number(value) and not is_number(value, integer=True)


@pytest.mark.parametrize(("bounds", "said"), [
    ({}, "x must be a finite number, got"),
    ({"low": 0}, "x must be a finite number >= 0, got"),
    ({"low": 0, "low_open": True}, "x must be a finite number > 0, got"),
    ({"high": 1}, "x must be a finite number <= 1, got"),
    ({"low": 0, "high": 1}, "x must be a number from 0 to 1, got"),
    ({"low": 0, "high": 1, "low_open": True}, r"x must be a number in \(0, 1\], got"),
    ({"low": 0, "high": 1, "low_open": True, "high_open": True},
     "x must be a number strictly between 0 and 1, got"),
    ({"low": 0, "high": 10_000_000, "meaning": "tokens"},
     r"x must be a number from 0 to 10,000,000 \(tokens\), got"),
])
def test_a_bounded_number_says_its_bounds(bounds, said) -> None:
    for bad in (-5, 2e7, math.nan, "1", True):
        if "high" not in bounds and bad == 2e7 or "low" not in bounds and bad == -5:
            continue
        with pytest.raises(ValueError, match=f"^{said} {re.escape(repr(bad))}$"):
            check_number("x", bad, **bounds)
    assert check_number("x", np.float32(0.5), **bounds) == 0.5


def test_values_name_the_first_that_is_not_finite() -> None:
    with pytest.raises(ValueError, match="differences must be finite, got inf for query 2"):
        check_values("differences", [[0.1], [0.2], [np.inf]], ndim=2)
    with pytest.raises(ValueError, match=r"differences must be a 2-D array \(queries first\)"):
        check_values("differences", [0.1, 0.2], ndim=2)
    with pytest.raises(ValueError, match="need the differences of at least 1 query, got 0"):
        check_values("differences", [], ndim=1, least=1)
    assert check_values("v", [1, 2], ndim=(1, 2)).dtype == float


# --- at every public entry point ----------------------------------------------------------
# Inputs each of these refused with a TypeError, an AttributeError or an OverflowError, or
# took (nan as a confidence level, True as 1, a float count), before the checks were made once
# at the entry.

D = np.random.default_rng(0).normal(size=(20, 2))

ENTRIES = {
    "Conventions, nan level": (lambda: metrics.Conventions(confidence_level=math.nan),
                               "confidence_level"),
    "Conventions, text level": (lambda: metrics.Conventions(confidence_level="0.9"),
                                "confidence_level"),
    "Conventions, seed beyond float range": (lambda: metrics.Conventions(seed=10**400), "seed"),
    "bootstrap, nan value": (lambda: metrics.bootstrap([0.1, math.nan], rng=1), "values"),
    "bootstrap, True as rng": (lambda: metrics.bootstrap(D, rng=True), "rng"),
    "bootstrap, no rng": (lambda: metrics.bootstrap(D, rng=None), "rng"),
    "bootstrap, float resamples": (lambda: metrics.bootstrap(D, n_resamples=10.0, rng=1),
                                   "n_resamples"),
    "bootstrap, text level": (lambda: metrics.bootstrap(D, confidence_level="0.9", rng=1),
                              "confidence_level"),
    "bootstrap, unknown method": (lambda: metrics.bootstrap(D, rng=1, method="basic"),
                                  "interval_method"),
    "wilson, True": (lambda: metrics.wilson(True, 10), "successes"),
    "wilson, a fraction of a success": (lambda: metrics.wilson(1.5, 10), "successes"),
    "wilson, infinite trials": (lambda: metrics.wilson(1, math.inf), "trials"),
    "wilson, text level": (lambda: metrics.wilson(1, 10, confidence_level="0.9"),
                           "confidence_level"),
    "min_detectable_difference, sd beyond float range": (
        lambda: metrics.min_detectable_difference(10**400, 20), "sd"),
    "min_detectable_difference, n beyond float range": (
        lambda: metrics.min_detectable_difference(0.1, 10**400), "n"),
    "kendall_tau, nan": (lambda: metrics.kendall_tau([0.1, math.nan], [0.1, 0.2]), "scores"),
    "tau_ap, inf": (lambda: metrics.tau_ap([0.1, 0.2], [math.inf, 0.2]), "scores"),
    "sample_queries, a seed for a Generator": (
        lambda: metrics.sample_queries(["a", "b"], 1, rng=5), "rng"),
    "allocation, a fraction of a query": (lambda: metrics.allocation([3, 4], 2.5), "n"),
    "ppi_mean, True as lam": (lambda: metrics.ppi_mean([0.1, 0.2], [0.1, 0.3], [0.2], lam=True,
                                                       confidence_level=0.9), "lam"),
    "ChunkTokens, text": (lambda: metrics.ChunkTokens("390"), "tokens_per_chunk"),
    "find_leaks, nan threshold": (lambda: metrics.find_leaks(
        metrics.load_queries(b"query_id,text\nq1,a b c\n", file_name="q.csv"), [],
        threshold=math.nan), "threshold"),
    "Budget, an amount beyond float range": (lambda: metrics.Budget("nDCG@5", 10**400),
                                             "amount"),
}


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_entry_point_refuses_a_bad_number_naming_it(entry) -> None:
    call, name = ENTRIES[entry]
    with pytest.raises(ValueError, match=re.escape(name)):
        call()


# entry points that read an evaluation or its comparison: (call on them, the name refused)
ON_A_COMPARISON = {
    "best_marks, nan alpha": (lambda e, c, q: metrics.best_marks(e, alpha=math.nan), "alpha"),
    "best_marks, no permutations": (lambda e, c, q: metrics.best_marks(e, n_permutations=0),
                                    "n_permutations"),
    "is_harmed, nan delta": (lambda e, c, q: metrics.is_harmed(D, math.nan), "delta"),
    "harm_profile, True as shown": (lambda e, c, q: metrics.harm_profile(
        c, c.tests[0].candidate, c.tests[0].metric, q, shown=True), "shown"),
    "harm_profile, a delta beyond 1": (lambda e, c, q: metrics.harm_profile(
        c, c.tests[0].candidate, c.tests[0].metric, q, delta=2.0), "delta"),
    "risks, True as worst": (lambda e, c, q: metrics.risks(c, worst=True), "worst"),
    "compare, unknown method": (lambda e, c, q: metrics.compare_evaluation(
        e, interval_method="basic"), "interval_method"),
    "cross_fitted_weights, True as rng": (lambda e, c, q: metrics.cross_fitted_weights(
        e.qrels, [run.run for run in e.runs][:2], rng=True), "rng"),
    "cross_fitted_weights, K of 0": (lambda e, c, q: metrics.cross_fitted_weights(
        e.qrels, [run.run for run in e.runs][:2], k=0), "k"),
}


@pytest.fixture(scope="module")
def compared():
    evaluation = metrics.load_sample(5)
    comparison = metrics.compare_evaluation(evaluation, n_permutations=100)
    queries = metrics.load_queries(("query_id,text\n" + "".join(
        f"{q},text of {q}\n" for q in comparison.query_ids)).encode(), file_name="q.csv")
    return evaluation, comparison, queries


@pytest.mark.parametrize("entry", ON_A_COMPARISON)
def test_every_decision_refuses_a_bad_number_naming_it(entry, compared) -> None:
    call, name = ON_A_COMPARISON[entry]
    with pytest.raises(ValueError, match=re.escape(name)):
        call(*compared)


def test_a_numpy_number_is_taken_as_the_plain_number_it_is() -> None:
    """The one predicate takes numpy's numbers wherever a number is asked for; a convention
    keeps the plain int or float the JSON writes."""
    conventions = metrics.Conventions(seed=np.int64(7), n_resamples=np.int32(200),
                                      confidence_level=np.float64(0.9))
    assert type(conventions.seed) is int and type(conventions.n_resamples) is int
    assert json.loads(json.dumps(conventions.as_dict()))["seed"] == 7
    assert metrics.wilson(np.int64(3), np.int64(10)).mean == 0.3
    assert check_count("n_resamples", np.uint16(5)) == 5
