"""Overlap and rank similarity between every pair of runs at K: Jaccard of the top K,
rank-biased overlap (RBO_EXT), the relevant ids only one run of the pair finds, and the hybrid
ceiling (the recall a perfect fusion of the two could reach).

- ``rbo_ext``: the paper's extrapolated RBO for two plain lists, read as the formula is
  written; the reference the vectorised figures are tested and explained against.
- ``overlap``: every pair's per-query figures over the evaluation's scored queries, in
  query-set order, and their means with the summary's bootstrap intervals (the same
  resampled queries: ``resampled_queries`` on the conventions' seed).

Vectorised: the ids in every run's top K (repeats dropped, the ids below moving up within
the K slots) are coded once, and each distinct (query, id) becomes a group holding its
position in each run's list. A pair reads the groups both runs hold: an id at position i in A
and j in B is shared from depth max(i, j) + 1 on, so one histogram and a cumulative sum give
the overlap at every depth, which Jaccard and RBO both read.

The words (definitions, edge cases, JSON keys) are declared in
``metrics.vocabulary.overlap``; this module only computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pyarrow as pa

from metrics.core.evaluate import Evaluation
from metrics.core.ranking import AlignedRun
from metrics.io import Run
from metrics.io.arrow import from_numbers, numbers
from metrics.stats.bca import bootstrap_bounds
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.validate import check_fraction
from metrics.vocabulary.cutoffs import check_k
from metrics.vocabulary.overlap import DEFAULT_PERSISTENCE, HIGH, LOW, OVERLAP_KEYS, PAIR_KEYS

# figures (pairs x 5) whose resampled means are held at once: 128 pairs, 5 MB at 1,000
# resamples, so any number of runs is read in bounded memory
_COLUMNS_AT_ONCE = 128 * len(OVERLAP_KEYS)

__all__ = ["Overlap", "PairOverlap", "overlap", "rbo_ext"]


def check_persistence(p: object) -> float:
    return check_fraction("p (the RBO persistence)", p)


# --------------------------------------------------------------------------- reference


def rbo_ext(a: Sequence, b: Sequence, p: float = DEFAULT_PERSISTENCE) -> float:
    """RBO_EXT of two ranked lists (Webber, Moffat and Zobel 2010, equation 32; equation 30
    when they are as long): a repeated item counts at its first occurrence only. Two empty
    lists are identical (1); an empty list shares nothing with another (0)."""
    p = check_persistence(p)
    a, b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    short, long = sorted((a, b), key=len)
    s, l = len(short), len(long)  # noqa: E741  (the paper's names)
    if l == 0:
        return 1.0
    if s == 0:
        return 0.0
    x = [0] + [len(set(short[:d]) & set(long[:d])) for d in range(1, l + 1)]  # X_d
    seen = sum(x[d] / d * p**d for d in range(1, l + 1))
    unseen = sum(x[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * (seen + unseen) + ((x[l] - x[s]) / l + x[s] / s) * p**l


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class PairOverlap:
    """One pair: per-query values (the Overlap's query_ids, in order) and each mean's
    interval, by the keys of metrics.vocabulary.overlap."""

    a: str
    b: str
    values: dict[str, np.ndarray]  # key -> (n scored queries,) float
    intervals: dict[str, Interval]  # key -> mean and bootstrap interval

    def row(self) -> dict:
        """{"a", "b", key, key_low, key_high for every key}: plain Python types."""
        row: dict = dict(zip(PAIR_KEYS, (self.a, self.b), strict=True))
        for key in OVERLAP_KEYS:
            band = self.intervals[key]
            row |= {key: band.mean, key + LOW: band.low, key + HIGH: band.high}
        return row

    def swapped(self) -> PairOverlap:
        """The same pair read from B's side: the two unique figures trade places."""
        swap = {"unique_relevant_a": "unique_relevant_b", "unique_relevant_b": "unique_relevant_a"}
        return replace(self, a=self.b, b=self.a,
                       values={swap.get(k, k): v for k, v in self.values.items()},
                       intervals={swap.get(k, k): v for k, v in self.intervals.items()})


@dataclass(frozen=True, eq=False)
class Overlap:
    """Every unordered pair of runs (A the earlier in `runs`), at K with persistence p."""

    k: int
    p: float
    runs: tuple[str, ...]
    query_ids: tuple[str, ...]  # the scored queries, query-set order: the values' rows
    by_pair: tuple[PairOverlap, ...]
    confidence_level: float
    n_resamples: int
    seed: int
    interval_method: str

    def pair(self, a: str, b: str) -> PairOverlap:
        """The pair of runs a and b, A being a (either order)."""
        for pair in self.by_pair:
            if (pair.a, pair.b) == (a, b):
                return pair
            if (pair.b, pair.a) == (a, b):
                return pair.swapped()
        raise ValueError(f"no pair {a!r}, {b!r}; runs: {', '.join(self.runs)}")

    def rows(self) -> list[dict]:
        """One JSON row a pair: {"a", "b", "jaccard", "jaccard_low", "jaccard_high", ...}."""
        return [pair.row() for pair in self.by_pair]

    def as_dict(self) -> dict:
        """{"k", "p", "pairs": rows()}."""
        return {"k": self.k, "p": self.p, "pairs": self.rows()}

    def for_query(self, query_id: str) -> list[dict]:
        """Each pair's figures on one scored query: [{"a", "b", key: value, ...}]."""
        try:
            at = self.query_ids.index(str(query_id))
        except ValueError:
            raise _not_scored(query_id, len(self.query_ids)) from None
        return [{"a": pair.a, "b": pair.b,
                 **{key: float(pair.values[key][at]) for key in OVERLAP_KEYS}}
                for pair in self.by_pair]


# --------------------------------------------------------------------------- computation


@dataclass(frozen=True, eq=False)
class _TopK:
    """The chosen runs' top K on the scored queries, matched: one group per distinct
    (query, id) any of them lists, and each id's position in each run's list."""

    depth: int
    group_query: np.ndarray  # (groups,) the group's row among the scored queries
    group_relevant: np.ndarray  # (groups,) bool: the id is relevant for that query
    position: np.ndarray  # (runs, groups) int32: 0-based position in the run's list, -1 absent
    length: np.ndarray  # (runs, n) distinct ids in each top K
    found: np.ndarray  # (runs, n) relevant ids in each top K


def _top_lists(runs: Sequence[Run], aligned: Sequence[AlignedRun], scored: np.ndarray,
               k: int) -> _TopK:
    depth = max(1, min(k, max(a.width for a in aligned)))
    queries, positions, relevant, taken, lengths, found = [], [], [], [], [], []
    for run, a in zip(runs, aligned, strict=True):
        row = _slots(a.row[:, :depth][scored], depth, -1)
        first = (row >= 0) & ~_slots(a.repeat[:, :depth][scored], depth, False)
        hits = _slots(a.relevant[:, :depth][scored], depth, False)  # first occurrences only
        query, slot = np.nonzero(first)
        queries.append(query)
        # a repeat's slot is closed up: an id's position counts the distinct ids above it
        positions.append((np.cumsum(first, axis=1) - 1)[query, slot])
        relevant.append(hits[query, slot])
        taken.append(run.doc_ids.take(from_numbers(row[query, slot])).cast(pa.large_string()))
        lengths.append(first.sum(axis=1))
        found.append(hits.sum(axis=1))
    # one hash pass codes every run's ids alike; one sort gives each (query, id) its group
    ids = pa.concat_arrays(taken).dictionary_encode()
    query = np.concatenate(queries)
    key = query * max(len(ids.dictionary), 1) + numbers(ids.indices)
    # np.unique sorts: faster here than arrow's hash of int64 keys
    distinct, group = np.unique(key, return_inverse=True)
    n_groups = len(distinct)
    group_query = np.zeros(n_groups, dtype=np.int64)
    group_query[group] = query
    group_relevant = np.zeros(n_groups, dtype=bool)
    group_relevant[group] = np.concatenate(relevant)
    position = np.full((len(runs), n_groups), -1, dtype=np.int32)
    start = 0
    for r, at in enumerate(positions):
        position[r, group[start : start + len(at)]] = at
        start += len(at)
    return _TopK(depth, group_query, group_relevant, position, np.array(lengths),
                 np.array(found))


def _slots(array: np.ndarray, depth: int, empty: object) -> np.ndarray:
    """The first `depth` slots, padded with `empty` when the run's arrays are narrower."""
    extra = depth - array.shape[1]
    return np.pad(array, ((0, 0), (0, extra)), constant_values=empty) if extra > 0 else array


def _pair(top: _TopK, a: int, b: int, n_relevant: np.ndarray, p: float) -> dict[str, np.ndarray]:
    n, depth = len(n_relevant), top.depth
    in_a, in_b = top.position[a], top.position[b]
    both = np.flatnonzero((in_a >= 0) & (in_b >= 0))
    query = top.group_query[both]
    # an id at position i in A and j in B is shared from depth max(i, j) + 1 on: X_d at
    # every depth is a cumulative histogram
    shared_from = np.maximum(in_a[both], in_b[both]).astype(np.int64)
    x = np.bincount(query * depth + shared_from, minlength=n * depth).reshape(n, depth)
    x = np.cumsum(x, axis=1).astype(float)
    length_a, length_b = top.length[a], top.length[b]
    shared = x[:, -1]
    either = length_a + length_b - shared
    jaccard = np.divide(shared, either, out=np.ones(n), where=either > 0)
    relevant_both = np.bincount(query[top.group_relevant[both]], minlength=n)
    found_a, found_b = top.found[a], top.found[b]
    r = np.maximum(n_relevant, 1)  # R = 0 scores 0 (only scored under empty_queries="zero")
    return {
        "jaccard": jaccard,
        "rbo": _rbo(x, np.minimum(length_a, length_b), np.maximum(length_a, length_b), p),
        "unique_relevant_a": (found_a - relevant_both) / r,
        "unique_relevant_b": (found_b - relevant_both) / r,
        "hybrid_ceiling": (found_a + found_b - relevant_both) / r,
    }


def _rbo(x: np.ndarray, s: np.ndarray, l: np.ndarray, p: float) -> np.ndarray:  # noqa: E741
    """Equation 32 per row, from the overlaps X_d (n, depth) and the lists' lengths s <= l."""
    n, depth = x.shape
    d = np.arange(1, depth + 1)
    weight = p**d / d
    rows = np.arange(n)
    x_s = np.where(s > 0, x[rows, np.maximum(s, 1) - 1], 0.0)
    x_l = np.where(l > 0, x[rows, np.maximum(l, 1) - 1], 0.0)
    within = d <= l[:, None]
    beyond = within & (d > s[:, None])  # depths where only the longer list is seen
    seen = (x * weight * within).sum(axis=1)
    s_safe, l_safe = np.maximum(s, 1), np.maximum(l, 1)
    unseen = x_s / s_safe * ((d - s[:, None]) * weight * beyond).sum(axis=1)
    rbo = (1 - p) / p * (seen + unseen) + ((x_l - x_s) / l_safe + x_s / s_safe) * p**l
    return np.where(l == 0, 1.0, np.where(s == 0, 0.0, rbo))


def query_overlap(evaluation: Evaluation, query_id: str, *, k: int | None = None,
                  p: float = DEFAULT_PERSISTENCE,
                  runs: Sequence[str] | None = None) -> list[dict]:
    """Each pair's figures on one scored query, as Overlap.for_query gives them, computed on
    that query alone (no other query's lists, no intervals): what one query's view reads."""
    k, p, names = _checked(evaluation, k, p, runs)
    row = evaluation.query_set.row(str(query_id))  # one not in the qrels is refused there
    if not evaluation.scored[row]:
        raise _not_scored(query_id, int(evaluation.scored.sum()))
    alone = np.zeros_like(evaluation.scored)
    alone[row] = True
    pairs, values = _pairs(evaluation, alone, k, p, names)
    return [{"a": names[i], "b": names[j], **{key: float(v[key][0]) for key in OVERLAP_KEYS}}
            for (i, j), v in zip(pairs, values, strict=True)]


def _not_scored(query_id: str, n_scored: int) -> ValueError:
    return ValueError(f"query {query_id!r} is not among the {n_scored:,} scored queries")


def _checked(evaluation: Evaluation, k: int | None, p: float,
             runs: Sequence[str] | None) -> tuple[int, float, tuple[str, ...]]:
    """K (default the evaluation's), p and the run names, each checked."""
    k = check_k(evaluation.k if k is None else k)
    p = check_persistence(p)
    names = tuple(evaluation.run_names if runs is None else runs)
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {list(names)}")
    if len(names) < 2:
        raise ValueError(f"overlap needs at least two runs, got {list(names)}")
    return int(k), p, names


def _pairs(evaluation: Evaluation, queries: np.ndarray, k: int, p: float,
           names: Sequence[str]) -> tuple[list[tuple[int, int]], list[dict[str, np.ndarray]]]:
    """Every unordered pair of the named runs and its per-query figures on `queries` (a mask
    over the query set)."""
    chosen = [evaluation.run(name) for name in names]
    top = _top_lists([r.run for r in chosen], [r.aligned for r in chosen], queries, k)
    n_relevant = evaluation.query_set.n_relevant[queries]
    pairs = list(combinations(range(len(names)), 2))
    return pairs, [_pair(top, i, j, n_relevant, p) for i, j in pairs]


def overlap(evaluation: Evaluation, *, k: int | None = None, p: float = DEFAULT_PERSISTENCE,
            runs: Sequence[str] | None = None) -> Overlap:
    """Every unordered pair of `runs` (names, in order; default every run) at K (default the
    evaluation's) with RBO persistence p: per-query figures over the scored queries and means
    with the summary's bootstrap intervals."""
    k, p, names = _checked(evaluation, k, p, runs)
    pairs, values = _pairs(evaluation, evaluation.scored, k, p, names)

    c = evaluation.conventions
    table = np.column_stack([v[key] for v in values for key in OVERLAP_KEYS])
    n = table.shape[0]
    resamples = resampled_queries(n, seed=c.seed, n_resamples=c.n_resamples)
    # the resampled means of a few columns at a time: many runs make many pairs, and all
    # their means at once would hold resamples x 5 x pairs floats
    low, high = np.empty(table.shape[1]), np.empty(table.shape[1])
    for start in range(0, table.shape[1], _COLUMNS_AT_ONCE):
        part = slice(start, start + _COLUMNS_AT_ONCE)
        low[part], high[part] = bootstrap_bounds(
            table[:, part], resamples.means(table[:, part])[0],
            confidence_level=c.confidence_level, method=c.interval_method)
    means = table.mean(axis=0) if n else np.zeros(table.shape[1])
    by_pair, column = [], 0
    for (i, j), figures in zip(pairs, values, strict=True):
        intervals = {}
        for key in OVERLAP_KEYS:
            figures[key].setflags(write=False)
            intervals[key] = Interval(float(means[column]), float(low[column]),
                                      float(high[column]), "bootstrap", c.confidence_level)
            column += 1
        by_pair.append(PairOverlap(names[i], names[j], figures, intervals))
    return Overlap(int(k), p, names, tuple(evaluation.scored_ids), tuple(by_pair),
                   c.confidence_level, c.n_resamples, c.seed, c.interval_method)
