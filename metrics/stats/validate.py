"""Checks of the arguments of the statistics and of every public entry point above them:
numbers (one predicate, ``is_number``, declared in ``metrics.vocabulary.numeric``), counts,
fractions, bounded numbers, random generators and seeds, arrays of per-query values, names,
and the runs, query ids and per-query scores a paired comparison is given.

A public function validates and normalises every argument at its top, as scipy's
``_resampling.py`` does with one ``_iv`` function per entry point, and hands the values on to
code that checks nothing again. Each check returns the value in the type the computation
uses, or raises ValueError naming the argument and the bad value (never ``assert``: the checks
must survive ``python -O``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from metrics.vocabulary.conventions import DEFAULT_SEED
from metrics.vocabulary.numeric import is_number

__all__ = [
    "check_count",
    "check_fraction",
    "check_generator",
    "check_integer",
    "check_names",
    "check_number",
    "check_rng",
    "check_scores",
    "check_selection",
    "check_values",
    "is_number",
]


def check_names(kind: str, names: object, allowed: Sequence[str], where: str) -> tuple[str, ...]:
    """names as a tuple: a non-empty sequence (not a string) of distinct members of allowed.

    kind names one item in messages ("candidate", "metric"); where introduces the allowed
    names ("runs besides the baseline").
    """
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ValueError(f"{kind}s must be a sequence of names, got {names!r}")
    chosen = tuple(names)
    if not chosen:
        raise ValueError(f"{kind}s must name at least one {kind}, got an empty list")
    for name in chosen:
        if name not in allowed:
            raise ValueError(f"unknown {kind} {name!r}; {where}: {', '.join(map(str, allowed))}")
    seen: set[str] = set()
    for name in chosen:
        if name in seen:
            raise ValueError(f"{kind} {name!r} is listed twice")
        seen.add(name)
    return chosen


def check_count(name: str, value: object) -> int:
    """value as an int if it is a positive integer (a bool is not)."""
    if not is_number(value, integer=True) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_integer(name: str, value: object, *, low: int = 0, what: str = "an integer") -> int:
    """value as an int if it is an integer (a bool is not) of at least `low`; `what` names
    it in the message ("a whole number of queries")."""
    if not is_number(value, integer=True) or value < low:
        raise ValueError(f"{name} must be {what} >= {low}, got {value!r}")
    return int(value)


def check_fraction(name: str, value: object) -> float:
    """value as a float if it is a number strictly between 0 and 1 (a bool is not)."""
    if not is_number(value):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def check_number(name: str, value: object, *, low: float | None = None,
                 high: float | None = None, low_open: bool = False, high_open: bool = False,
                 meaning: str = "") -> float:
    """value as a float if it is a finite number (a bool is not) within the bounds given
    (each included unless open); `meaning`, in parentheses after the bounds, says what it
    is ("the metric's units")."""
    inside = is_number(value) and (
        low is None or (value > low if low_open else value >= low)) and (
        high is None or (value < high if high_open else value <= high))
    if not inside:
        said = f" ({meaning})" if meaning else ""
        raise ValueError(f"{name} must be {_bounded(low, high, low_open, high_open)}{said}, "
                         f"got {value!r}")
    return float(value)


def _bounded(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    """'a finite number >= 0', 'a number from 0 to 1', 'a number in (0, 1]'..."""
    if low is None and high is None:
        return "a finite number"
    if high is None:
        return f"a finite number {'>' if low_open else '>='} {_shown(low)}"
    if low is None:
        return f"a finite number {'<' if high_open else '<='} {_shown(high)}"
    if low_open and high_open:
        return f"a number strictly between {_shown(low)} and {_shown(high)}"
    if not (low_open or high_open):
        return f"a number from {_shown(low)} to {_shown(high)}"
    return (f"a number in {'(' if low_open else '['}{_shown(low)}, "
            f"{_shown(high)}{')' if high_open else ']'}")


def _shown(bound: float) -> str:
    return f"{bound:,}" if float(bound).is_integer() else f"{bound:g}"


def check_generator(rng: object) -> np.random.Generator:
    """rng if it is a numpy Generator (what a draw that must go on from it takes)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {rng!r}")
    return rng


def check_rng(rng: object, *, none: bool = True) -> tuple[np.random.Generator, int | None]:
    """(generator, seed) from a Generator (seed None), a non-negative integer seed, or, when
    `none` allows it, None (``DEFAULT_SEED``)."""
    if rng is None and none:
        return np.random.default_rng(DEFAULT_SEED), DEFAULT_SEED
    if isinstance(rng, np.random.Generator):
        return rng, None
    if is_number(rng, integer=True) and rng >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    allowed = ", a non-negative integer seed or None" if none else " or a non-negative integer seed"
    raise ValueError(f"rng must be a numpy Generator{allowed}, got {rng!r}")


_SINGULAR = {"queries": "query", "resamples": "resample", "items": "item"}


def check_values(name: str, values: object, *, ndim: int | tuple[int, ...],
                 least: int = 0, rows: str = "queries") -> np.ndarray:
    """values as a float array of `ndim` dimensions (or one of them), `rows` first, at least
    `least` rows, every value a finite number; ValueError naming the first that is not."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"{name} must be numbers: {error}") from None
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if array.ndim not in dims:
        shown = " or ".join(f"{d}-D" for d in dims)
        raise ValueError(f"{name} must be a {shown} array ({rows} first), got shape "
                         f"{array.shape}")
    one = _SINGULAR.get(rows, rows)
    if array.shape[0] < least:
        raise ValueError(f"need the {name} of at least {least} {one if least == 1 else rows}, "
                         f"got {array.shape[0]}")
    finite = np.isfinite(array)
    if not finite.all():
        place = np.argwhere(~finite)[0]
        raise ValueError(f"{name} must be finite, got {array[tuple(place)]} for {one} "
                         f"{place[0]}")
    return array


def check_selection(
    baseline: str,
    scores: object,
    query_ids: object,
    candidates: Sequence[str] | None,
    metrics: Sequence[str] | None,
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(query ids, candidates, metrics) of a comparison of candidates with baseline.

    scores maps run name -> metric name -> per-query scores; query_ids are at least 2 unique
    ids. candidates default to every run but the baseline, metrics to every metric of the
    baseline, both in order.
    """
    if not isinstance(scores, Mapping):
        raise ValueError(f"scores must map run name -> metric name -> scores, got {scores!r}")
    if baseline not in scores:
        raise ValueError(f"unknown baseline {baseline!r}; runs: {', '.join(map(str, scores))}")
    if isinstance(query_ids, str) or not isinstance(query_ids, Sequence):
        raise ValueError(f"query_ids must be a sequence of ids, got {query_ids!r}")
    ids = tuple(query_ids)
    if len(ids) < 2:
        raise ValueError(f"need at least 2 scored queries to compare runs, got {len(ids)}")
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        duplicate = next(q for q in ids if q in seen or seen.add(q))
        raise ValueError(f"query id {duplicate!r} appears twice in query_ids")
    others = [run for run in scores if run != baseline]
    if candidates is None:
        if not others:
            raise ValueError(f"no candidate to compare with baseline {baseline!r}")
        chosen = tuple(others)
    else:
        if not isinstance(candidates, str) and baseline in candidates:
            raise ValueError(f"candidate {baseline!r} is the baseline")
        chosen = check_names("candidate", candidates, others, "runs besides the baseline")
    baseline_metrics = list(scores[baseline])
    metric_names = check_names(
        "metric",
        baseline_metrics if metrics is None else metrics,
        baseline_metrics,
        f"baseline {baseline!r} has",
    )
    return ids, chosen, metric_names


def check_scores(
    scores: Mapping[str, Mapping[str, np.ndarray]], run: str, metric: str, n: int
) -> np.ndarray:
    """The n finite per-query scores of run on metric, as a float array."""
    per_metric = scores[run]
    if metric not in per_metric:
        raise ValueError(
            f"run {run!r} has no scores for metric {metric!r}; it has: "
            f"{', '.join(map(str, per_metric))}"
        )
    try:
        values = np.asarray(per_metric[metric], dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"scores of run {run!r} for {metric!r} are not numbers: {error}") from None
    if values.shape != (n,):
        raise ValueError(
            f"scores of run {run!r} for {metric!r} have shape {values.shape}, "
            f"expected ({n},) -- one per query id, in the same order"
        )
    return check_values(f"scores of run {run!r} for {metric!r}", values, ndim=1)
