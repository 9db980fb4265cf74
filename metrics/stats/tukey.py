"""Every pair of runs at once: the randomized Tukey HSD test (Carterette 2012; Sakai 2014,
2018) with the classic Tukey HSD p beside it, over the scores of one figure (n queries, m
runs).

- **randomized**: each of B permutations shuffles every query's m scores across the runs (a
  uniform permutation per query, independently), and keeps the largest minus the smallest of
  the runs' permuted means; a pair's p is the share of permutations whose range reaches the
  pair's observed |difference|, with the +1 correction of a permutation test:
  p = (1 + hits) / (1 + B). Comparing every pair with the null distribution of the range
  controls the family-wise error over all pairs without a correction;
- **classic**: q = |difference| / sqrt(V_E / n) against the studentized range distribution of
  m means and the residual degrees of freedom (scipy.stats.studentized_range), V_E being the
  two-way ANOVA's residual variance (``metrics.stats.anova``);
- **effect size** of a pair: difference / sqrt(V_E) (Sakai's, standardised by the residual
  variance).

The permutations are drawn in chunks from the Generator, in a fixed way for given (n, m, B),
so the same seed gives the same p whatever the machine: per chunk of permutations, one
integer per (permutation, query) in [0, m!) naming a permutation in lexicographic order (up to
``_TABLE_RUNS`` runs, read from a table of every permutation), or beyond that m uniform keys
per (permutation, query) whose stable argsort is the permutation. Run s of a permuted query t
gets the score of run perm[s]. Chunks are worked in threads (numpy releases the GIL), drawn in
order first, so threads change the time and never the digits. scipy is imported inside the
functions that use it.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from metrics.stats.anova import TwoWayAnova, anova_of
from metrics.stats.validate import (
    check_count,
    check_fraction,
    check_number,
    check_rng,
    check_values,
)
from metrics.vocabulary.comparisons import DEFAULT_PERMUTATIONS
from metrics.vocabulary.conventions import DEFAULT_CONFIDENCE, check_permutations
from metrics.vocabulary.leaderboard import TIE_TOLERANCE

__all__ = [
    "TukeyHSD",
    "permuted_ranges",
    "studentized_range_pvalues",
    "tukey_hsd",
    "tukey_hsd_figures",
]

# Up to this many runs a permutation is one integer in [0, m!) read from a table of every
# permutation (10! rows of 16 bytes: 58 MB, built in ~0.1 s and kept for the next call); one
# draw and one 16-byte read per (permutation, query) is what makes 10 runs x 10,000 queries x
# 10,000 permutations fit in seconds. Beyond, m random keys and an argsort per query.
_TABLE_RUNS = 10
_ROW_BYTES = 16  # a table row, padded: one complex128 item, read in one take
# (permutation, query, run) cells drawn and worked per chunk: about 35 MB of indices and
# values per chunk in flight. The chunk depends on (n, m) only, so the draws -- and the
# p-values -- are a function of (seed, n, m, B), never of the number of figures or threads.
_CHUNK_CELLS = 1 << 21
# below this many cells in all, threads cost more than they save
_THREADED_CELLS = 1 << 24
_MAX_WORKERS = 4


@dataclass(frozen=True, eq=False)
class TukeyHSD:
    """Every pair of m runs on one figure over n queries.

    Matrices are (m, m) in the runs' order, read-only: ``differences[i, j]`` = mean(i) -
    mean(j); ``p_randomized`` and ``p_classic`` are symmetric with 1 on the diagonal (the
    classic p is computed on first read: scipy integrates each, ~5 ms a pair);
    ``effect_sizes[i, j]`` = differences[i, j] / sqrt(V_E), nan when V_E is 0 and the means
    differ (0 when they do not). ``null_ranges`` (B,) are the permutations' largest minus
    smallest mean, what the randomized p reads (a plot's histogram). ``anova`` is the two-way
    ANOVA whose residual variance the classic p and the effect sizes read.
    """

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable

    anova: TwoWayAnova
    n_permutations: int
    seed: int | None
    differences: np.ndarray = field(repr=False)
    p_randomized: np.ndarray = field(repr=False)
    effect_sizes: np.ndarray = field(repr=False)
    null_ranges: np.ndarray = field(repr=False)

    @property
    def means(self) -> np.ndarray:
        return self.anova.means

    @functools.cached_property
    def p_classic(self) -> np.ndarray:
        """The classic Tukey HSD p of every pair (studentized_range_pvalues)."""
        anova = self.anova
        p = studentized_range_pvalues(
            self.differences, residual_variance=anova.residual_variance,
            residual_df=anova.residual_df, n_queries=anova.n_queries, n_runs=anova.n_runs)
        np.fill_diagonal(p, 1.0)
        p.setflags(write=False)
        return p

    @property
    def residual_variance(self) -> float:
        return self.anova.residual_variance

    def significant(self, alpha: float, *, method: str = "randomized") -> np.ndarray:
        """(m, m) bool: the pair's p ("randomized" or "classic") is below alpha."""
        alpha = check_fraction("alpha", alpha)
        if method not in ("randomized", "classic"):
            raise ValueError(f"method must be randomized or classic, got {method!r}")
        return (self.p_randomized if method == "randomized" else self.p_classic) < alpha

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TukeyHSD):
            return NotImplemented
        return (self.anova == other.anova and self.n_permutations == other.n_permutations
                and all(np.array_equal(getattr(self, name), getattr(other, name),
                                       equal_nan=True)
                        for name in ("differences", "p_randomized", "p_classic",
                                     "effect_sizes", "null_ranges")))


def tukey_hsd(scores: object, *, n_permutations: int = DEFAULT_PERMUTATIONS,
              rng: np.random.Generator | int | None = None,
              confidence_level: float = DEFAULT_CONFIDENCE) -> TukeyHSD:
    """The randomized and classic Tukey HSD of every pair of runs over scores (n queries, m
    runs; at least 2 of each, every score finite). `rng`: a Generator (consumed), an integer
    seed, or None for the conventions' seed; confidence_level is the ANOVA's margin of
    error's."""
    (result,) = tukey_hsd_figures(_as_stack(scores, ndim=2), n_permutations=n_permutations,
                                  rng=rng, confidence_level=confidence_level)
    return result


def tukey_hsd_figures(scores: object, *, n_permutations: int = DEFAULT_PERMUTATIONS,
                      rng: np.random.Generator | int | None = None,
                      confidence_level: float = DEFAULT_CONFIDENCE) -> tuple[TukeyHSD, ...]:
    """tukey_hsd of each figure of scores (n queries, m runs, figures), the same permutations
    for every figure: with the same seed, each equals tukey_hsd of that figure alone. Each
    figure is its own family (as each metric has its own ANOVA)."""
    stack, n_permutations, generator, seed, confidence_level = _tukey_iv(
        scores, n_permutations, rng, confidence_level)
    ranges = _null_ranges(stack, n_permutations, generator)  # (B, figures), in sums
    n = stack.shape[0]
    results = []
    for k in range(stack.shape[2]):
        anova = anova_of(stack[:, :, k], confidence_level)
        sums = stack[:, :, k].sum(axis=0)
        results.append(_result(anova, sums, ranges[:, k], n_permutations, seed, n))
    return tuple(results)


def permuted_ranges(scores: object, *, n_permutations: int = DEFAULT_PERMUTATIONS,
                    rng: np.random.Generator | int | None = None) -> np.ndarray:
    """The null distribution the randomized test reads: for each of n_permutations
    permutations of every query's scores across the runs, the largest minus the smallest
    run mean; (B,) for scores (n, m), (B, figures) for (n, m, figures)."""
    ndim = np.ndim(scores)
    stack = _as_stack(scores, ndim=(2, 3))
    generator, _ = check_rng(rng)
    ranges = _null_ranges(stack, check_permutations(n_permutations), generator)
    ranges /= stack.shape[0]
    return ranges[:, 0] if ndim == 2 else ranges


def studentized_range_pvalues(differences: object, *, residual_variance: float,
                              residual_df: int, n_queries: int, n_runs: int) -> np.ndarray:
    """The classic Tukey HSD p of mean differences (1-D or 2-D): q = |difference| /
    sqrt(residual_variance / n_queries) against the studentized range of n_runs means with
    residual_df degrees of freedom. A residual variance of 0 gives 0 for a difference beyond
    float noise, else 1."""
    from scipy import stats  # imported here: it costs the command line ~0.8 s of start-up

    differences = np.abs(check_values("differences", np.atleast_1d(differences),
                                      ndim=(1, 2)))
    residual_variance = check_number("residual_variance", residual_variance, low=0)
    residual_df = check_count("residual_df", residual_df)
    n_queries = check_count("n_queries", n_queries)
    n_runs = check_count("n_runs", n_runs)
    if n_runs < 2:
        raise ValueError(f"n_runs must be at least 2 (a range of means), got {n_runs}")
    apart = differences > TIE_TOLERANCE
    if residual_variance <= 0:
        return np.where(apart, 0.0, 1.0)
    p = np.ones(differences.shape)
    q = differences[apart] / math.sqrt(residual_variance / n_queries)
    if q.size:
        # every q of a table at once; equal q (a matrix's two halves) computed once
        unique, where = np.unique(q, return_inverse=True)
        p[apart] = np.minimum(stats.studentized_range.sf(unique, n_runs, residual_df),
                              1.0)[where]
    return p


# --------------------------------------------------------------------------- the arithmetic


def _tukey_iv(scores: object, n_permutations: object, rng: object, confidence_level: object
              ) -> tuple[np.ndarray, int, np.random.Generator, int | None, float]:
    """tukey_hsd_figures' arguments checked: the scores (n, m, figures), the permutations,
    the Generator with the seed it was made from (None for a Generator passed), the level."""
    stack = _as_stack(scores, ndim=3)
    n_permutations = check_permutations(n_permutations)
    generator, seed = check_rng(rng)
    return (stack, n_permutations, generator, seed,
            check_fraction("confidence_level", confidence_level))


def _as_stack(scores: object, *, ndim: int | tuple[int, ...]) -> np.ndarray:
    """scores as a float array (n, m, figures): at least 2 queries and 2 runs, finite."""
    values = check_values("scores", scores, ndim=ndim, least=2)
    if values.shape[1] < 2:
        raise ValueError(f"scores need at least 2 runs (columns), got {values.shape[1]}")
    if values.ndim == 3 and values.shape[2] < 1:
        raise ValueError("scores need at least one figure")
    return values[:, :, None] if values.ndim == 2 else values


def _result(anova: TwoWayAnova, sums: np.ndarray, ranges: np.ndarray, n_permutations: int,
            seed: int | None, n: int) -> TukeyHSD:
    """One figure's matrices from its ANOVA, its runs' sums and its permuted ranges (sums)."""
    gaps = np.abs(sums[:, None] - sums[None, :])
    ordered = np.sort(ranges)
    # a permuted range within the tolerance of the observed gap counts as reaching it (float
    # noise; a hair more conservative), compared on sums: mean * n
    below = np.searchsorted(ordered, gaps - TIE_TOLERANCE * n, side="left")
    p_randomized = (1.0 + (n_permutations - below)) / (1.0 + n_permutations)
    np.fill_diagonal(p_randomized, 1.0)
    differences = anova.means[:, None] - anova.means[None, :]
    if anova.residual_variance > 0:
        effects = differences / math.sqrt(anova.residual_variance)
    else:
        effects = np.where(np.abs(differences) > TIE_TOLERANCE, np.nan, 0.0)
    null = ranges / n  # in draw order, as means
    for matrix in (differences, p_randomized, effects, null):
        matrix.setflags(write=False)
    return TukeyHSD(anova, n_permutations, seed, differences, p_randomized, effects, null)


def _null_ranges(stack: np.ndarray, n_permutations: int,
                 rng: np.random.Generator) -> np.ndarray:
    """(B, figures): each permutation's largest minus smallest run sum, per figure. Chunks
    are drawn in order from rng and worked in threads, at most `workers` in flight."""
    n, m, figures = stack.shape
    rows = max(1, _CHUNK_CELLS // (n * m))
    draw, work = _permuter(stack, rows)
    ranges = np.empty((n_permutations, figures))
    workers = _workers(n * m * n_permutations)
    sizes = [min(rows, n_permutations - start) for start in range(0, n_permutations, rows)]
    if workers == 1:
        start = 0
        for size in sizes:
            ranges[start:start + size] = work(draw(rng, size))
            start += size
        return ranges
    pending: deque[tuple[int, int, Future]] = deque()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        start = 0
        for size in sizes:
            if len(pending) == workers:  # bounded memory: wait for the oldest chunk
                begun, length, future = pending.popleft()
                ranges[begun:begun + length] = future.result()
            pending.append((start, size, pool.submit(work, draw(rng, size))))
            start += size
        for begun, length, future in pending:
            ranges[begun:begun + length] = future.result()
    return ranges


def _workers(cells: int) -> int:
    if cells < _THREADED_CELLS:
        return 1
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(_MAX_WORKERS, available))


def _permuter(stack: np.ndarray, rows: int
              ) -> tuple[Callable[[np.random.Generator, int], np.ndarray],
                         Callable[[np.ndarray], np.ndarray]]:
    """(draw, work): draw(rng, size) takes one chunk's random numbers (the reproducibility
    contract: integers (size, n) in [0, m!) up to _TABLE_RUNS runs, uniform keys (size, n, m)
    beyond); work(drawn) gives the chunk's ranges (size, figures)."""
    n, m, figures = stack.shape
    columns = [np.ascontiguousarray(stack[:, :, k]).ravel() for k in range(figures)]
    offsets = (np.arange(n, dtype=np.intp) * m)[None, :, None]  # query t's first cell
    ones = np.ones(n)
    # each thread's buffers, kept from chunk to chunk: a fresh 16 MB array per chunk costs
    # more in page faults than the work in it does
    local = threading.local()

    def buffers(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if getattr(local, "flat", None) is None:
            local.flat = np.empty((rows, n, m), dtype=np.intp)
            local.values = np.empty((rows, n, m))
            local.packed = np.empty((rows, n), dtype=np.complex128)
        return local.flat[:size], local.values[:size], local.packed[:size]

    def ranges_of(flat: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Each figure's permuted range (size, figures) from the flat cell each run reads."""
        out = np.empty((flat.shape[0], figures))
        for k, column in enumerate(columns):
            np.take(column, flat, out=values)
            sums = np.matmul(ones, values)  # (size, m): every run's sum over the queries
            out[:, k] = sums.max(axis=1) - sums.min(axis=1)
        return out

    if m <= _TABLE_RUNS:
        table = _permutation_table(m)
        total = math.factorial(m)

        def draw(rng: np.random.Generator, size: int) -> np.ndarray:
            return rng.integers(0, total, size=(size, n), dtype=np.int64)

        def work(drawn: np.ndarray) -> np.ndarray:
            flat, values, packed = buffers(len(drawn))
            np.take(table, drawn, out=packed)  # (size, n) rows of 16 bytes
            perms = packed.view(np.uint8).reshape(*drawn.shape, _ROW_BYTES)[:, :, :m]
            np.add(perms, offsets, out=flat)
            return ranges_of(flat, values)
    else:
        def draw(rng: np.random.Generator, size: int) -> np.ndarray:
            return rng.random((size, n, m))

        def work(drawn: np.ndarray) -> np.ndarray:
            flat, values, _ = buffers(len(drawn))
            flat[...] = np.argsort(drawn, axis=2, kind="stable")
            flat += offsets
            return ranges_of(flat, values)

    return draw, work


@functools.lru_cache(maxsize=2)
def _permutation_table(m: int) -> np.ndarray:
    """Every permutation of range(m) in lexicographic order, one complex128 item (16 bytes:
    the permutation's m bytes, then zeros) each, read-only: row u is the permutation the
    integer u names. Built from those of m - 1: for each first element f, f followed by the
    smaller permutations with every value >= f moved up by one."""
    table = np.zeros((1, 0), dtype=np.uint8)
    for size in range(1, m + 1):
        table = np.concatenate([
            np.column_stack([np.full(len(table), first, dtype=np.uint8),
                             table + (table >= first).astype(np.uint8)])
            for first in range(size)])
    rows = np.zeros((len(table), _ROW_BYTES), dtype=np.uint8)
    rows[:, :m] = table
    packed = rows.view(np.complex128).ravel()
    packed.setflags(write=False)
    return packed
