"""Empirical coverage of the engine's intervals of a mean over queries.

    python benchmarks/coverage.py [--sizes 30,100,500] [--replications 2000] [--resamples 1000]
                                  [--confidence-level 0.95] [--seed 16]

A measurement, not a test: it prints a Markdown table and always exits 0. Each replication
draws n per-query figures from a population whose mean is known exactly (point masses at 0
and 1 with a beta between, or a discrete law: the mean is analytic), builds each interval
the engine offers from them, and counts how often the interval holds the true mean:

- percentile and BCa bootstrap of the mean, on every single-run population;
- Wilson, on the 0/1 (Hit-like) populations, as the engine reports Hit@K;
- paired percentile and paired BCa: the same two intervals of the mean of per-query
  differences (``paired_differences``) of two correlated runs, as ``paired_bootstrap``
  computes them (percentile bounds of the bootstrap means of the differences).

Everything goes through the engine's own functions (resample_counts, bootstrap_means,
percentile_bounds, wilson, bca_bounds), so the table measures what the product computes.
Every replication has its own resamples: one resample_counts call draws a batch's
replications x resamples rows, and each replication takes its own block of rows, shared by
its populations as the engine shares one draw between metrics. The bounds of a batch are
then one percentile_bounds and one bca_bounds call over (replication, population) columns.
A size's draws come from the generator seeded with (seed, n), so `--sizes 30` reproduces the
n = 30 rows of a full run.

The Monte Carlo standard error of a coverage p over R replications is sqrt(p (1 - p) / R):
0.005 at p = 0.95 and R = 2000.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics.stats.bca import bca_bounds  # noqa: E402
from metrics.stats.bootstrap import bootstrap_means, percentile_bounds, resample_counts  # noqa: E402
from metrics.stats.intervals import wilson  # noqa: E402
from metrics.stats.paired import paired_differences  # noqa: E402

TARGET = 0.93
# A batch's resample counts hold at most this many floats (64 MB).
_BATCH_CELLS = 1 << 23

Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


@dataclass(frozen=True)
class Population:
    name: str
    mean: float  # the true mean, exact
    draw: Draw
    binary: bool = False  # 0/1 outcomes: Wilson applies
    paired: bool = False  # per-query differences of two runs


@dataclass(frozen=True)
class Row:
    method: str
    population: str
    n: int
    coverage: float
    standard_error: float  # Monte Carlo: sqrt(p (1 - p) / replications)
    mean_width: float
    fell_back: int | None  # BCa intervals that fell back to the percentile bounds


def _graded(zero: float, one: float, a: float, b: float) -> tuple[float, Draw]:
    """nDCG-like: 0 with probability zero, 1 with probability one, else Beta(a, b)."""

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        u = rng.random(shape)
        middle = rng.beta(a, b, shape)
        return np.where(u < zero, 0.0, np.where(u < zero + one, 1.0, middle))

    return one + (1 - zero - one) * a / (a + b), draw


def _reciprocal_rank(found: float, q: float, depth: int = 10) -> tuple[float, Draw]:
    """RR-like: 0 (no relevant id in the top depth) with probability 1 - found, else 1/r with
    the rank r of the first relevant id geometric(q), truncated to 1..depth."""
    ranks = np.arange(1, depth + 1)
    weights = q * (1 - q) ** (ranks - 1)
    values = np.concatenate([[0.0], 1 / ranks])
    probabilities = np.concatenate([[1 - found], found * weights / weights.sum()])

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.choice(values, size=shape, p=probabilities)

    return math.fsum(values * probabilities), draw


def _hit(rate: float) -> tuple[float, Draw]:
    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return (rng.random(shape) < rate).astype(float)

    return rate, draw


def _pair(before: tuple[float, Draw], after: tuple[float, Draw], kept: float):
    """Two correlated runs: the second keeps a query's figure with probability kept (a
    reranker that leaves it alone: a tie) and otherwise scores it afresh from after."""
    (before_mean, draw_before), (after_mean, draw_after) = before, after

    def draw(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        first = draw_before(rng, shape)
        second = np.where(rng.random(shape) < kept, first, draw_after(rng, shape))
        return paired_differences(second, first)

    return (1 - kept) * (after_mean - before_mean), draw


def _population(name: str, mean_and_draw: tuple[float, Draw], **kind: bool) -> Population:
    return Population(name, *mean_and_draw, **kind)


NDCG = _graded(0.35, 0.20, 2, 3)
NDCG_BETTER = _graded(0.25, 0.30, 3, 2)
RR = _reciprocal_rank(0.7, 0.5)
RR_HARD = _reciprocal_rank(0.25, 0.3)

POPULATIONS = (
    _population("nDCG-like (35% 0, 20% 1)", NDCG),
    _population("nDCG-like, hard (70% 0, 5% 1)", _graded(0.70, 0.05, 1.5, 4)),
    _population("RR-like (70% found)", RR),
    _population("RR-like, hard (25% found)", RR_HARD),
    *(_population(f"Hit rate {rate}", _hit(rate), binary=True) for rate in (0.1, 0.5, 0.9)),
    _population("paired ΔnDCG (50% ties)", _pair(NDCG, NDCG_BETTER, 0.5), paired=True),
    _population("paired ΔRR (60% ties)", _pair(RR_HARD, RR, 0.6), paired=True),
)


def _methods(population: Population) -> tuple[str, ...]:
    if population.paired:
        return ("paired percentile", "paired BCa")
    return ("percentile", "BCa", "Wilson") if population.binary else ("percentile", "BCa")


def _cell(
    populations: Sequence[Population],
    n: int,
    *,
    replications: int,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> list[Row]:
    rng = np.random.default_rng([seed, n])
    means = np.array([population.mean for population in populations])
    binary = [j for j, population in enumerate(populations) if population.binary]
    covered: dict[str, list[np.ndarray]] = {"percentile": [], "BCa": [], "Wilson": []}
    widths: dict[str, list[np.ndarray]] = {"percentile": [], "BCa": [], "Wilson": []}
    fell_back: list[np.ndarray] = []
    per_batch = max(1, _BATCH_CELLS // (n_resamples * n))
    for start in range(0, replications, per_batch):
        size = min(per_batch, replications - start)
        # (replication, query, population): every figure of the batch in one draw each
        values = np.stack([population.draw(rng, (size, n)) for population in populations], -1)
        counts = resample_counts(n, n_resamples=size * n_resamples, rng=rng)
        counts = counts.reshape(size, n_resamples, n)
        distribution = np.stack(
            [bootstrap_means(values[r], counts[r]) for r in range(size)], axis=1
        ).reshape(n_resamples, -1)  # column r * P + j: replication r, population j
        columns = values.transpose(1, 0, 2).reshape(n, -1)
        low, high = percentile_bounds(distribution, confidence_level=confidence_level)
        bca = bca_bounds(columns, distribution, confidence_level=confidence_level)
        for method, (lo, hi) in (("percentile", (low, high)), ("BCa", (bca.low, bca.high))):
            lo, hi = lo.reshape(size, -1), hi.reshape(size, -1)
            covered[method].append((lo <= means) & (means <= hi))
            widths[method].append(hi - lo)
        fell_back.append(bca.fell_back.reshape(size, -1))
        bounds = np.full((size, len(populations), 2), np.nan)
        for r in range(size):
            for j in binary:
                interval = wilson(int(values[r, :, j].sum()), n, confidence_level=confidence_level)
                bounds[r, j] = interval.low, interval.high
        covered["Wilson"].append((bounds[..., 0] <= means) & (means <= bounds[..., 1]))
        widths["Wilson"].append(bounds[..., 1] - bounds[..., 0])
    fallbacks = np.concatenate(fell_back).sum(axis=0)
    rows = []
    for j, population in enumerate(populations):
        for method in _methods(population):
            kind = method.removeprefix("paired ")
            coverage = float(np.concatenate(covered[kind])[:, j].mean())
            rows.append(
                Row(
                    method=method,
                    population=population.name,
                    n=n,
                    coverage=coverage,
                    standard_error=math.sqrt(coverage * (1 - coverage) / replications),
                    mean_width=float(np.concatenate(widths[kind])[:, j].mean()),
                    fell_back=int(fallbacks[j]) if kind == "BCa" else None,
                )
            )
    return rows


def coverage_rows(
    sizes: Sequence[int] = (30, 100, 500),
    *,
    replications: int = 2000,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int = 16,
    populations: Sequence[Population] = POPULATIONS,
) -> list[Row]:
    """One row per (method, population, n), methods in the order of _methods."""
    rows = []
    for n in sizes:
        rows += _cell(
            populations,
            n,
            replications=replications,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            seed=seed,
        )
    order = {"percentile": 0, "BCa": 1, "Wilson": 2, "paired percentile": 3, "paired BCa": 4}
    names = [population.name for population in populations]
    return sorted(rows, key=lambda row: (order[row.method], names.index(row.population), row.n))


def first_sizes(rows: Sequence[Row], target: float = TARGET) -> dict[str, int | None]:
    """Per method, the smallest n at which every population's coverage reaches target."""
    first: dict[str, int | None] = {}
    for method in dict.fromkeys(row.method for row in rows):
        sizes = sorted({row.n for row in rows if row.method == method})
        first[method] = next(
            (
                n
                for n in sizes
                if all(r.coverage >= target for r in rows if r.method == method and r.n == n)
            ),
            None,
        )
    return first


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| method | population | n | coverage | MC s.e. | mean width | BCa fell back |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        fell_back = "" if row.fell_back is None else str(row.fell_back)
        lines.append(
            f"| {row.method} | {row.population} | {row.n} | {row.coverage:.3f} | "
            f"{row.standard_error:.3f} | {row.mean_width:.4f} | {fell_back} |"
        )
    return "\n".join(lines)


def summary(rows: Sequence[Row], target: float = TARGET) -> str:
    largest = max(row.n for row in rows)
    parts = []
    for method, n in first_sizes(rows, target).items():
        if n is not None:
            parts.append(f"{method} n = {n}")
            continue
        worst = min(
            (r for r in rows if r.method == method and r.n == largest), key=lambda r: r.coverage
        )
        parts.append(f"{method} not by n = {largest} ({worst.population}: {worst.coverage:.3f})")
    return f"Smallest n at which every population's coverage reaches {target}: " + "; ".join(parts)


def _sizes(text: str) -> list[int]:
    sizes = [int(part) for part in text.split(",") if part.strip()]
    if not sizes or min(sizes) < 2:
        raise argparse.ArgumentTypeError(f"sizes must be integers >= 2, got {text!r}")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_sizes, default=[30, 100, 500])
    parser.add_argument("--replications", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--confidence-level", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = coverage_rows(
        args.sizes,
        replications=args.replications,
        n_resamples=args.resamples,
        confidence_level=args.confidence_level,
        seed=args.seed,
    )
    elapsed = time.perf_counter() - started
    print(
        f"Coverage of {args.confidence_level:.0%} intervals: {args.replications} replications "
        f"a cell, {args.resamples} resamples an interval, seed {args.seed}.\n"
    )
    print(table(rows))
    print(f"\n{summary(rows)}.")
    print(f"({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
