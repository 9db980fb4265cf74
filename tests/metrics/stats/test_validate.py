"""metrics.stats.validate: argument checks return the value in its working type or name it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from metrics.stats.validate import check_count, check_fraction, check_names, check_rng
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
