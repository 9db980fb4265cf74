"""Multiple-comparison corrections of p-values: Holm (the default), Benjamini-Hochberg, none.

Each correction is declared in the vocabulary (``metrics.vocabulary.comparisons.CORRECTIONS``:
its key, its name and what it controls); here each key gets its adjustment, so adding a
correction is its declaration plus its function.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.vocabulary.comparisons import CORRECTIONS

__all__ = [
    "adjust",
    "benjamini_hochberg",
    "check_correction",
    "check_pvalues",
    "holm",
]


def check_pvalues(p: object) -> np.ndarray:
    """p as a 1-D float array; ValueError if it is not one or a value lies outside [0, 1]."""
    values = np.asarray(p, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"p-values must be a 1-D array, got shape {values.shape}")
    bad = ~((values >= 0) & (values <= 1))  # also catches nan
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"p-values must lie in [0, 1], got {values[first]!r} at position {first}")
    return values


def holm(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the original order.

    The i-th smallest p (1-based) is multiplied by m - i + 1; a running maximum makes the
    adjusted values monotone in p, and they are capped at 1.
    """
    values = check_pvalues(p)
    m = values.size
    order = np.argsort(values, kind="stable")
    stepped = values[order] * (m - np.arange(m))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(np.maximum.accumulate(stepped), 1.0)
    return adjusted


def benjamini_hochberg(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the original order.

    The i-th smallest p (1-based) is multiplied by m / i; a running minimum from the largest
    down makes the adjusted values monotone in p, and they are capped at 1.
    """
    values = check_pvalues(p)
    m = values.size
    order = np.argsort(values, kind="stable")
    stepped = values[order] * (m / np.arange(1, m + 1))  # factors >= 1: never below p
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(np.minimum.accumulate(stepped[::-1])[::-1], 1.0)
    return adjusted


# "none" adjusts nothing: the p-values are only checked
_ADJUST = {"holm": holm, "bh": benjamini_hochberg, "none": check_pvalues}
if _ADJUST.keys() != CORRECTIONS.keys():
    raise ImportError(f"corrections declared {sorted(CORRECTIONS)} but computed {sorted(_ADJUST)}")


def check_correction(correction: object) -> None:
    """ValueError naming correction unless it is a key of ``CORRECTIONS``."""
    if correction not in _ADJUST:
        raise ValueError(f"correction must be one of {', '.join(_ADJUST)}, got {correction!r}")


def adjust(p: Sequence[float] | np.ndarray, correction: str) -> np.ndarray:
    """p-values adjusted by the named correction ("holm", "bh" or "none"), in the original order.

    With "none" the p-values come back unadjusted (checked and as a float array).
    """
    check_correction(correction)
    return _ADJUST[correction](p)
