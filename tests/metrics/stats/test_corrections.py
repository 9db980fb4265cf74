"""metrics.stats.corrections: the declared table, adjust() by key, and compare's re-exports."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from metrics.stats import CORRECTIONS, adjust, benjamini_hochberg, check_correction, holm


def test_the_table_declares_each_correction_once_in_order() -> None:
    assert CORRECTIONS == {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "none"}
    assert list(CORRECTIONS) == ["holm", "bh", "none"]


@pytest.mark.parametrize("key", list(CORRECTIONS))
def test_adjust_by_key_is_the_named_correction(key: str) -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    expected = {"holm": holm(p), "bh": benjamini_hochberg(p), "none": p}[key]
    np.testing.assert_array_equal(adjust(p, key), expected)


def test_unknown_corrections_are_named() -> None:
    with pytest.raises(ValueError, match="correction must be one of holm, bh, none, got 'bonf'"):
        adjust([0.1], "bonf")
    with pytest.raises(ValueError, match="'Holm'"):
        check_correction("Holm")  # the display name is not a key
    check_correction("bh")


def test_no_correction_still_checks_the_p_values() -> None:
    with pytest.raises(ValueError, match=r"p-values must lie in \[0, 1\]"):
        adjust([0.2, 1.2], "none")


def test_compare_re_exports_the_same_objects() -> None:
    # by module path: the package `metrics` exports a function named compare
    module = importlib.import_module("metrics.stats.comparison")
    assert module.CORRECTIONS is CORRECTIONS
    assert module.holm is holm
    assert module.benjamini_hochberg is benjamini_hochberg
