"""What the engine takes for a number, declared once: the predicate every check of a number
argument reads (the conventions, K, the statistics' levels and counts, thresholds, prices,
weights, a snapshot's JSON values). Pure: the standard library's number types, which numpy
registers its own with, so no numpy here. And the grades a file may hold, which every reader
(TREC, CSV/TSV, JSONL, Parquet, a table; every engine) refuses outside their range.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["GRADE_RANGE", "MAX_GRADE", "MAX_RELEVANCE_LEVEL", "MIN_GRADE", "grade_problem",
           "is_number"]

# Up to 960, a grade's exponential gain, 2^grade - 1 (and ERR's 2^grade / 2^max), summed over
# as many judged ids as a query can hold (fewer than 2^63), stays below the largest double
# (2^1024): no DCG, IDCG or ERR overflows to infinity (nDCG would be inf / inf: NaN). The same
# bound below keeps every difference and product of two grades exact (the agreement's
# weights). One range whatever the gain asked for: a file is read once for every convention.
MAX_GRADE = 960
MIN_GRADE = -MAX_GRADE
GRADE_RANGE = (f"grades are integers from {MIN_GRADE:,} to {MAX_GRADE:,} (the exponential "
               "gain, 2^grade - 1, summed over a query's ids must stay a finite number)")


# the highest grade a binary figure may count as relevant from (--relevance-level, a measure's
# rel=): past any grade, so that a level asks for no figure no grade could meet
MAX_RELEVANCE_LEVEL = 1_000_000


def grade_problem(grade: int) -> str | None:
    """Why a grade is refused (None: it is not): its reader names the file and the line."""
    if MIN_GRADE <= grade <= MAX_GRADE:
        return None
    return f"grade {grade} is out of range: {GRADE_RANGE}"


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
