"""Evaluation.at(k): an evaluation read at another K is the evaluation at that K, field for
field, without scoring again (what lets the dashboard answer a change of K at once)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core import evaluate as evaluate_module
from metrics.vocabulary.conventions import Conventions
from tests.metrics.spark.collections import random_collection


def same_run(a, b) -> None:
    assert a.name == b.name
    assert a.summary == b.summary  # every mean and bound, float for float
    np.testing.assert_array_equal(a.classes, b.classes)
    assert a.suggestion == b.suggestion
    assert a.diagnosis == b.diagnosis
    assert a.missing_queries == b.missing_queries
    assert a.repeats == b.repeats


CONVENTIONS = [
    Conventions(),
    Conventions(gain="exponential", empty_queries="zero", confidence_level=0.9, seed=7),
    Conventions(unjudged="drop", relevance_level=2),
]


@pytest.mark.parametrize("conventions", CONVENTIONS)
@pytest.mark.parametrize("seed", [1, 2])
def test_reading_at_another_k_gives_the_evaluation_at_that_k(seed, conventions):
    collection = random_collection(seed, queries=80, depth=20, runs=3)
    first = collection.in_memory(5, conventions)
    for k in (1, 3, 20, 40, 5):
        read = first.at(k)
        fresh = collection.in_memory(k, conventions)
        assert read.k == k and read.sweep_range == fresh.sweep_range
        np.testing.assert_array_equal(read.scored, fresh.scored)
        for a, b in zip(read.runs, fresh.runs, strict=True):
            same_run(a, b)
        assert read.sweep_intervals() == fresh.sweep_intervals()


def test_a_filtered_evaluation_reads_at_another_k_as_the_filter_at_that_k():
    collection = random_collection(3, queries=80, depth=20, runs=2)
    whole = collection.in_memory(5)
    mask = np.arange(len(whole.scored)) % 3 == 0
    read = whole.restricted(mask, "every third").at(12)
    fresh = collection.in_memory(12).restricted(mask, "every third")
    assert read.within.description == fresh.within.description
    np.testing.assert_array_equal(read.within.mask, fresh.within.mask)
    for a, b in zip(read.runs, fresh.runs, strict=True):
        same_run(a, b)


def test_nothing_is_scored_again(monkeypatch):
    collection = random_collection(4, queries=30, runs=2)
    evaluation = collection.in_memory(5)

    def refuse(*args, **kwargs):
        raise AssertionError("the kernel ran again")

    monkeypatch.setattr(evaluate_module, "compute", refuse)
    with pytest.raises(AssertionError, match="ran again"):  # the patch reaches the driver
        collection.in_memory(9)
    assert evaluation.at(9).k == 9


def test_figures_asked_by_name_are_asked_again_at_the_new_k():
    evaluation = random_collection(5, queries=30, runs=2).in_memory(5).with_measures(["Rprec"])
    with pytest.raises(ValueError, match="before asking for figures"):
        evaluation.at(9)
