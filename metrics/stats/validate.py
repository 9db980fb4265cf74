"""Checks of the arguments of the statistics: names, counts, fractions, random generators,
and the runs, query ids and per-query scores a paired comparison is given.

Each returns the value in the type the computation uses, or raises ValueError naming the bad
value (never ``assert``: the checks must survive ``python -O``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from metrics.vocabulary.conventions import DEFAULT_SEED

__all__ = [
    "check_count",
    "check_fraction",
    "check_names",
    "check_rng",
    "check_scores",
    "check_selection",
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
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_fraction(name: str, value: object) -> float:
    """value as a float if it is a number strictly between 0 and 1 (a bool is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def check_rng(rng: object) -> tuple[np.random.Generator, int | None]:
    """(generator, seed) from a Generator (seed None), a non-negative integer seed, or None
    (``DEFAULT_SEED``)."""
    if rng is None:
        return np.random.default_rng(DEFAULT_SEED), DEFAULT_SEED
    if isinstance(rng, np.random.Generator):
        return rng, None
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    raise ValueError(
        f"rng must be a numpy Generator, a non-negative integer seed or None, got {rng!r}"
    )


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
    if not np.isfinite(values).all():
        first = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(
            f"scores of run {run!r} for {metric!r} must be finite, got {values[first]!r} "
            f"for query {first}"
        )
    return values
