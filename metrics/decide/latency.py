"""What each run costs per query, beside what it scores: latency (and cost, tokens) figures
with intervals, the paired comparison of two runs' latencies, and the latency gate.

- Per run (``RunCost``): the mean, p50, p95 and p99 of a column (latency_ms, cost, tokens)
  over the scored queries that have a value, each with its percentile bootstrap interval:
  the quantile read on every resample of the queries (``metrics.stats.quantiles``), the
  resamples drawn by ``resampled_queries`` on the conventions' seed and resamples.
- Per pair (``PairedCost``): over the queries both runs timed, each statistic's difference
  (candidate − baseline; for the mean, the mean of the per-query differences) and ratio
  (candidate / baseline), both runs read on the same resampled queries.
- The gate (``compare --max-latency p95=+20%``): a limit on a statistic, relative to the
  baseline (the ratio's interval), an increase over it (the difference's interval) or an
  absolute ceiling (the candidate's own interval), judged with the budgets' verdicts.
- The trade-off chart's Pareto front (``pareto_front``) on the point figures, and each run's
  standing held against the intervals (``pareto_standing``: certain, or not where they
  overlap).

The words are ``metrics.vocabulary.timings``'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics.decide.budget import one_per_metric
from metrics.io.timings import RunTimings
from metrics.stats.bootstrap import percentile_bounds, resampled_queries
from metrics.stats.quantiles import resampled_quantiles, sample_quantiles
from metrics.stats.validate import is_number
from metrics.vocabulary.budget import CANNOT_TELL, PASSING, WITHIN, WORSE
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.format import listing
from metrics.vocabulary.timings import (
    DOMINATED,
    DOMINATED_UNSURE,
    FRONT,
    FRONT_UNSURE,
    LATENCY,
    LATENCY_PARSE_ERRORS,
    MEAN,
    QUANTILES,
    STATISTICS,
    TIMING_NAMES,
    amount,
    figure_sentence,
    headline_piece,
    latency_sentence,
    signed_amount,
)

__all__ = ["CostFigure", "LatencyLimit", "LatencyVerdict", "PairedCost", "RunCost",
           "Timed", "judge_latency", "paired_cost", "pareto_front", "pareto_standing",
           "parse_latency_limit", "parse_latency_limits", "run_cost", "timed",
           "timing_report_lines"]

# a ratio's or difference's interval end within this of the limit counts as on it (passes)
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class CostFigure:
    """One figure and its interval: ``value`` read on the queries, ``low``/``high`` the
    percentile bootstrap's ends, ``distribution`` each resample's figure (what a plot needs).
    ``undefined`` says why when the figure cannot be read (then value, low, high are NaN)."""

    statistic: str
    value: float
    low: float
    high: float
    distribution: np.ndarray = field(repr=False, compare=False)
    undefined: str | None = None

    def as_dict(self) -> dict:
        if self.undefined is not None:
            return {"statistic": self.statistic, "value": None, "low": None, "high": None,
                    "undefined": self.undefined}
        return {"statistic": self.statistic, "value": self.value, "low": self.low,
                "high": self.high}


@dataclass(frozen=True)
class RunCost:
    """A run's figures of one column over its timed scored queries."""

    run: str
    column: str
    n: int  # scored queries with a value
    missing: tuple[str, ...]  # scored queries without one
    figures: tuple[CostFigure, ...]
    confidence_level: float
    n_resamples: int
    seed: int

    def figure(self, statistic: str) -> CostFigure:
        return next(f for f in self.figures if f.statistic == statistic)

    def sentence(self, statistic: str) -> str:
        return figure_sentence(statistic, self.column, n=self.n, level=self.confidence_level)

    def as_dict(self) -> dict:
        return {"run": self.run, "column": self.column, "queries": self.n,
                "missing": len(self.missing),
                "figures": {f.statistic: f.as_dict() for f in self.figures},
                "method": {f.statistic: self.sentence(f.statistic) for f in self.figures}}


@dataclass(frozen=True)
class PairedCost:
    """Two runs' figures of one column on the queries both have a value for, read on the same
    resampled queries: each statistic's difference (candidate − baseline) and ratio."""

    baseline: str
    candidate: str
    column: str
    n: int
    differences: tuple[CostFigure, ...]
    ratios: tuple[CostFigure, ...]
    confidence_level: float

    def difference(self, statistic: str) -> CostFigure:
        return next(f for f in self.differences if f.statistic == statistic)

    def ratio(self, statistic: str) -> CostFigure:
        return next(f for f in self.ratios if f.statistic == statistic)

    def headline(self, statistic: str = "p95") -> str:
        """'p95 latency +35 ms [+28, +43] (+42%)'."""
        d, r = self.difference(statistic), self.ratio(statistic)
        if d.undefined is not None:
            return f"{statistic} latency: {d.undefined}"
        return headline_piece(statistic, d.value, d.low, d.high,
                              None if r.undefined is not None else r.value)

    def as_dict(self) -> dict:
        return {"baseline": self.baseline, "candidate": self.candidate, "column": self.column,
                "queries": self.n,
                "difference": {f.statistic: f.as_dict() for f in self.differences},
                "ratio": {f.statistic: f.as_dict() for f in self.ratios}}


def _figures(values: np.ndarray, resampled: np.ndarray, statistics: Sequence[str],
             level: float) -> list[CostFigure]:
    """Each statistic's point value and percentile interval, given each resample's
    statistics (n_resamples, len(statistics))."""
    point = _statistics(values, statistics)
    low, high = percentile_bounds(resampled, confidence_level=level)
    return [CostFigure(s, float(point[i]), float(low[i]), float(high[i]), resampled[:, i])
            for i, s in enumerate(statistics)]


def _statistics(values: np.ndarray, statistics: Sequence[str]) -> np.ndarray:
    quantiles = sample_quantiles(values, [QUANTILES[s] for s in statistics if s != MEAN])
    it = iter(quantiles)
    return np.array([float(np.mean(values)) if s == MEAN else next(it) for s in statistics])


def _resampled(values: np.ndarray, resamples, statistics: Sequence[str]) -> np.ndarray:
    """(n_resamples, statistics): each resample's mean or quantile of the values."""
    qs = [QUANTILES[s] for s in statistics if s != MEAN]
    quantiles = resampled_quantiles(values, resamples, qs)
    means = resamples.means(values[:, None])[0][:, 0]
    columns, i = [], 0
    for s in statistics:
        if s == MEAN:
            columns.append(means)
        else:
            columns.append(quantiles[:, i])
            i += 1
    return np.column_stack(columns)


def _undefined(statistic: str, reason: str, n_resamples: int) -> CostFigure:
    nan = float("nan")
    return CostFigure(statistic, nan, nan, nan, np.full(n_resamples, nan), reason)


def _aligned(timings: RunTimings, column: str, scored: Sequence[str]) -> np.ndarray:
    """The column's values in the scored queries' order; NaN where a query has none."""
    by_query = timings.column(column)
    return np.array([by_query.get(q, np.nan) for q in scored], dtype=float)


def run_cost(run: str, values: np.ndarray, scored: Sequence[str], conventions: Conventions,
             *, column: str = LATENCY) -> RunCost:
    """One run's figures of a column: `values` beside the scored queries `scored` (NaN where
    a query has none), read over the queries that have one."""
    values = np.asarray(values, dtype=float)
    timed = ~np.isnan(values)
    kept = values[timed]
    missing = tuple(q for q, t in zip(scored, timed, strict=True) if not t)
    level, resamples_n = conventions.confidence_level, conventions.n_resamples
    if not len(kept):
        figures = tuple(_undefined(s, f"no scored query has a {column} value", resamples_n)
                        for s in STATISTICS)
    else:
        resamples = resampled_queries(len(kept), seed=conventions.seed, n_resamples=resamples_n)
        figures = tuple(_figures(kept, _resampled(kept, resamples, STATISTICS), STATISTICS,
                                 level))
    return RunCost(run, column, len(kept), missing, figures, level, resamples_n,
                   conventions.seed)


def paired_cost(baseline: str, candidate: str, before: np.ndarray, after: np.ndarray,
                conventions: Conventions, *, column: str = LATENCY) -> PairedCost:
    """Two runs' values over the same scored queries (NaN where missing) -> the difference
    and ratio of each statistic on the queries both have, both read on the same resampled
    queries."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    both = ~np.isnan(before) & ~np.isnan(after)
    a, b = before[both], after[both]
    level, resamples_n = conventions.confidence_level, conventions.n_resamples
    if not len(a):
        reason = f"no scored query has a {column} value under both runs"
        nothing = tuple(_undefined(s, reason, resamples_n) for s in STATISTICS)
        return PairedCost(baseline, candidate, column, 0, nothing, nothing, level)
    resamples = resampled_queries(len(a), seed=conventions.seed, n_resamples=resamples_n)
    base, cand = _resampled(a, resamples, STATISTICS), _resampled(b, resamples, STATISTICS)
    base_point, cand_point = _statistics(a, STATISTICS), _statistics(b, STATISTICS)
    differences, ratios = [], []
    low, high = percentile_bounds(cand - base, confidence_level=level)
    for i, s in enumerate(STATISTICS):
        differences.append(CostFigure(s, float(cand_point[i] - base_point[i]), float(low[i]),
                                      float(high[i]), cand[:, i] - base[:, i]))
        if base_point[i] == 0 or np.any(base[:, i] == 0):
            where = "" if base_point[i] == 0 else " on some resample"
            ratios.append(_undefined(s, f"the baseline's {s} of {column} is 0{where}: a "
                                     "ratio to it is undefined", resamples_n))
            continue
        ratio = cand[:, i] / base[:, i]
        r_low, r_high = percentile_bounds(ratio, confidence_level=level)
        ratios.append(CostFigure(s, float(cand_point[i] / base_point[i]), float(r_low),
                                 float(r_high), ratio))
    return PairedCost(baseline, candidate, column, len(a), tuple(differences), tuple(ratios),
                      level)


@dataclass(frozen=True)
class Timed:
    """Every run's figures of every column given, and each candidate against the baseline
    (the first run) on latency: what the command line, the dashboard and the report read."""

    runs: tuple[RunCost, ...]
    pairs: tuple[PairedCost, ...]
    columns: tuple[str, ...]
    not_scored: dict[str, int]  # run -> timed queries that are not scored (ignored)

    def of(self, run: str, column: str = LATENCY) -> RunCost | None:
        return next((c for c in self.runs if c.run == run and c.column == column), None)

    def pair(self, candidate: str, column: str = LATENCY) -> PairedCost | None:
        return next((p for p in self.pairs if p.candidate == candidate and p.column == column),
                    None)

    def as_dict(self) -> dict:
        return {"runs": [c.as_dict() for c in self.runs],
                "pairs": [p.as_dict() for p in self.pairs]}


def timed(run_names: Sequence[str], scored: Sequence[str],
          timings: Mapping[str, RunTimings], conventions: Conventions, *,
          baseline: str | None = None) -> Timed:
    """Each run's figures of each column some run has, over the scored queries, and each
    other run against `baseline` (default the first run) on every column both have."""
    scored = list(scored)
    columns = tuple(c for c in TIMING_NAMES if any(c in t.values for t in timings.values()))
    runs, pairs = [], []
    aligned = {(run, c): _aligned(timings[run], c, scored)
               for run in run_names if run in timings for c in columns
               if c in timings[run].values}
    for (run, c), values in aligned.items():
        runs.append(run_cost(run, values, scored, conventions, column=c))
    baseline = baseline or (run_names[0] if run_names else None)
    for candidate in run_names:
        if candidate == baseline:
            continue
        for c in columns:
            if (baseline, c) in aligned and (candidate, c) in aligned:
                pairs.append(paired_cost(baseline, candidate, aligned[baseline, c],
                                         aligned[candidate, c], conventions, column=c))
    chosen = set(scored)
    not_scored = {run: sum(q not in chosen for q in t.query_ids)
                  for run, t in timings.items()}
    return Timed(tuple(runs), tuple(pairs), columns, not_scored)


def timing_report_lines(found: Timed) -> list[str]:
    """The load report's lines on timings: per run, how many scored queries have a value of
    each column, those missing (the first few named), and timed queries not scored."""
    lines = []
    for run in dict.fromkeys(cost.run for cost in found.runs):
        costs = [cost for cost in found.runs if cost.run == run]
        by_count: dict[tuple[int, tuple[str, ...]], list[str]] = {}
        for cost in costs:
            by_count.setdefault((cost.n, cost.missing), []).append(cost.column)
        for (n, missing), columns in by_count.items():
            total = n + len(missing)
            line = f"{run}: {', '.join(columns)} for {n:,} of {total:,} scored queries"
            if missing:
                line += (f"; no value for {len(missing):,} (left out of these figures): "
                         f"{listing(missing, limit=5)}")
            lines.append(line)
    for run, n in found.not_scored.items():
        if n:
            lines.append(f"{run}: timings for {n:,} queries that are not scored (ignored)")
    return lines


def pareto_front(costs: Sequence[float], figures: Sequence[float]) -> tuple[bool, ...]:
    """Which points (cost, figure) no other point dominates: none costs as little or less and
    scores as high or higher, better in one of the two. Lower cost and higher figure are
    better; a point with an undefined (NaN) coordinate is never on the front. Ties (two
    runs at one point) are both on it."""
    costs = np.asarray(costs, dtype=float)
    figures = np.asarray(figures, dtype=float)
    if costs.shape != figures.shape:
        raise ValueError("give one figure per cost")
    defined = ~np.isnan(costs) & ~np.isnan(figures)
    front = []
    for i in range(len(costs)):
        if not defined[i]:
            front.append(False)
            continue
        dominated = defined & (costs <= costs[i]) & (figures >= figures[i]) & (
            (costs < costs[i]) | (figures > figures[i]))
        front.append(not dominated.any())
    return tuple(front)


def pareto_standing(costs: Sequence[float], cost_low: Sequence[float],
                    cost_high: Sequence[float], figures: Sequence[float],
                    figure_low: Sequence[float], figure_high: Sequence[float]
                    ) -> tuple[str, ...]:
    """Each point's standing (``vocabulary.timings.STANDINGS``): on the front or dominated as
    ``pareto_front`` reads the point figures, and whether the intervals make that certain
    (``FRONT_RULE``). Lower cost and higher figure are better. A run on the front is certain
    when no other run j could dominate it: not (cost_low[j] <= cost_high[i] and
    figure_high[j] >= figure_low[i]). A dominated run is certain when some run j surely
    dominates it: cost_high[j] <= cost_low[i] and figure_low[j] >= figure_high[i]. A point
    with an undefined coordinate is dominated, not certain (never on the front)."""
    arrays = [np.asarray(a, dtype=float) for a in (costs, cost_low, cost_high, figures,
                                                     figure_low, figure_high)]
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("give one cost, figure and interval ends per point")
    cost, c_low, c_high, figure, f_low, f_high = arrays
    front = pareto_front(cost, figure)
    defined = ~np.isnan(arrays).any(axis=0) if len(cost) else np.zeros(0, bool)
    others = ~np.eye(len(cost), dtype=bool)
    standings = []
    for i, on in enumerate(front):
        if not defined[i]:
            standings.append(DOMINATED_UNSURE)
            continue
        if on:
            could = others[i] & defined & (c_low <= c_high[i]) & (f_high >= f_low[i])
            standings.append(FRONT_UNSURE if could.any() else FRONT)
        else:
            surely = others[i] & defined & (c_high <= c_low[i]) & (f_low >= f_high[i])
            standings.append(DOMINATED if surely.any() else DOMINATED_UNSURE)
    return tuple(standings)


# --------------------------------------------------------------------------- the gate


@dataclass(frozen=True)
class LatencyLimit:
    """How slow a candidate may be on one statistic of latency_ms: ``kind`` "relative" (a
    percentage above the baseline's), "increase" (ms above it) or "absolute" (ms)."""

    statistic: str
    amount: float
    kind: str

    def __post_init__(self) -> None:
        if self.statistic not in STATISTICS:
            raise ValueError(LATENCY_PARSE_ERRORS["statistic"] + f", got {self.statistic!r}")
        if not is_number(self.amount) or self.amount < 0:
            raise ValueError(LATENCY_PARSE_ERRORS["amount"] + f", got {self.amount!r}")
        if self.kind not in ("relative", "increase", "absolute"):
            raise ValueError(f"a latency limit's kind is relative, increase or absolute, "
                             f"got {self.kind!r}")

    def __str__(self) -> str:
        written = {"relative": f"+{self.amount:g}%", "increase": f"+{self.amount:g}ms",
                   "absolute": f"{self.amount:g}ms"}[self.kind]
        return f"{self.statistic}={written}"

    @property
    def metric_label(self) -> str:  # one limit per statistic (decide.budget.one_per_metric)
        return self.statistic


def parse_latency_limit(text: str) -> LatencyLimit:
    """'p95=+20%', 'p95=+30ms' or 'p95=150ms' -> a LatencyLimit; ValueError naming the bad
    part."""
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"latency limit {text!r}: {LATENCY_PARSE_ERRORS['form']}")
    statistic, _, written = (part.strip() for part in text.partition("="))
    statistic = statistic.lower()
    if statistic not in STATISTICS:
        raise ValueError(f"latency limit {text!r}: {LATENCY_PARSE_ERRORS['statistic']}")
    value = written.replace(" ", "").lower()
    if value.endswith("%"):
        kind, number = "relative", value[:-1]
        if not number.startswith("+"):
            raise ValueError(f"latency limit {text!r}: a relative limit is written +N%, "
                             f"e.g. +20%")
    elif value.endswith("ms"):
        number = value[:-2]
        kind = "increase" if number.startswith("+") else "absolute"
    else:
        raise ValueError(f"latency limit {text!r}: {LATENCY_PARSE_ERRORS['amount']}")
    try:
        amount_ = float(number)
    except ValueError:
        raise ValueError(f"latency limit {text!r}: {LATENCY_PARSE_ERRORS['amount']}") from None
    if not is_number(amount_) or amount_ < 0 or number.startswith("-"):
        raise ValueError(f"latency limit {text!r}: {LATENCY_PARSE_ERRORS['amount']}")
    return LatencyLimit(statistic, amount_, kind)


def parse_latency_limits(texts: Sequence[str]) -> tuple[LatencyLimit, ...]:
    """Every --max-latency of one call; a statistic may have one limit."""
    limits = tuple(parse_latency_limit(text) for text in ([texts] if isinstance(texts, str)
                                                          else texts))
    return one_per_metric(limits, "latency limits", key="statistic")


@dataclass(frozen=True)
class LatencyVerdict:
    candidate: str
    limit: LatencyLimit
    threshold: float  # in the interval's units: a ratio, or ms
    low: float
    high: float
    verdict: str
    sentence: str

    @property
    def passed(self) -> bool:
        return self.verdict in PASSING

    def as_dict(self) -> dict:
        def number(value: float) -> float | None:  # JSON has no NaN: undefined is null
            return None if value != value else float(value)
        return {"gate": "latency", "metric": self.limit.statistic, "candidate": self.candidate,
                "limit": str(self.limit), "threshold": self.threshold, "low": number(self.low),
                "high": number(self.high), "passed": self.passed, "verdict": self.verdict,
                "sentence": self.sentence}


def judge_latency(limit: LatencyLimit, *, candidate: str, own: RunCost | None,
                  pair: PairedCost | None) -> LatencyVerdict:
    """Hold a candidate's latency to a limit: within budget when the interval's upper end is
    at or under the threshold, worse beyond budget when its lower end is above it, else
    cannot tell yet. An undefined interval (no timings, a baseline p95 of 0) cannot tell."""
    if limit.kind == "absolute":
        figure = own.figure(limit.statistic) if own is not None else None
        threshold = limit.amount
    elif limit.kind == "increase":
        figure = pair.difference(limit.statistic) if pair is not None else None
        threshold = limit.amount
    else:
        figure = pair.ratio(limit.statistic) if pair is not None else None
        threshold = 1 + limit.amount / 100
    level = (own or pair).confidence_level if (own or pair) is not None else None
    if figure is None or figure.undefined is not None:
        why = ("no latency for it" if figure is None else figure.undefined)
        return LatencyVerdict(candidate, limit, threshold, float("nan"), float("nan"),
                              CANNOT_TELL, f"cannot tell: {why} ({limit.statistic} latency "
                              f"limit {str(limit).split('=', 1)[1]})")
    low, high = figure.low, figure.high
    if high <= threshold + _TOLERANCE:
        verdict = WITHIN
    elif low > threshold + _TOLERANCE:
        verdict = WORSE
    else:
        verdict = CANNOT_TELL

    def shown(value: float) -> str:
        if limit.kind == "relative":
            return f"{value:.2f}"
        return signed_amount(value) if limit.kind == "increase" else amount(value)

    sentence = latency_sentence(verdict, kind=limit.kind, statistic=limit.statistic,
                                written=str(limit).split("=", 1)[1], limit=shown(threshold),
                                low=shown(low), high=shown(high), confidence_level=level)
    return LatencyVerdict(candidate, limit, threshold, low, high, verdict, sentence)
