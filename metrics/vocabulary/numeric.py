"""What the engine takes for a number, declared once: the predicate every check of a number
argument reads (the conventions, K, the statistics' levels and counts, thresholds, prices,
weights, a snapshot's JSON values). Pure: the standard library's number types, which numpy
registers its own with, so no numpy here.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["is_number"]


def is_number(value: object, *, integer: bool = False) -> bool:
    """Whether `value` is a number the engine computes with: a Python or numpy integer, or
    (unless `integer`) a finite Python or numpy float. Never a bool (True is not 1 here), a
    string, None, an array, a complex, a Fraction or Decimal (exact types no figure is kept
    in), nan or ±inf, nor an integer beyond float range (every count meets a float)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False  # numpy's bool is no Real either
    if isinstance(value, numbers.Integral):  # int and numpy's integers
        return _in_float_range(value)
    if integer or isinstance(value, numbers.Rational):  # a Fraction: Real but exact
        return False
    return math.isfinite(value)  # float and numpy's floats


def _in_float_range(value: numbers.Integral) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True
