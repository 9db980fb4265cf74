"""Paired comparison of runs over one frozen query set: did the change help, where, beyond noise?

For a baseline and one or more candidates scored on the same queries (same order), every
(candidate, metric) pair gets the per-query differences (after - before), their mean with a
paired percentile-bootstrap interval, win / tie / loss counts, an effect size, and three
two-sided p-values:

- a paired randomization (sign-flip) test on the mean difference, the default test
  (Smucker, Allan and Carterette 2007), with the +1 correction: p = (1 + hits) / (1 + B);
- a paired t-test (scipy.stats.ttest_rel) and a Wilcoxon signed-rank test
  (scipy.stats.wilcoxon), both with scipy's defaults; the exact sign-flip test that
  wilcoxon picks for up to 13 queries with ties or zeros runs vectorised, same p-value.

The family for the multiple-comparison correction is every (candidate, metric) pair of one
call: Holm's step-down adjustment by default, Benjamini-Hochberg or none as options; the
correction is applied to the randomization p-values.

Randomness comes from one numpy Generator (seeded with ``DEFAULT_SEED`` unless told otherwise)
and is drawn in a fixed order: first the bootstrap resample counts (the same resampled queries
for every pair, and the same draws ``metrics.intervals.bootstrap`` makes from the same seed),
then the sign flips (the same flips for every pair). The same inputs and seed therefore give
identical floats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from metrics.conventions import DEFAULT_RESAMPLES, DEFAULT_SEED
from metrics.intervals import bootstrap_means, percentile_bounds, resample_counts
from metrics.measures import MEASURE_BY_KEY

if TYPE_CHECKING:
    from metrics.evaluate import Evaluation

__all__ = [
    "CORRECTIONS",
    "Comparison",
    "PairedTest",
    "benjamini_hochberg",
    "compare",
    "compare_evaluation",
    "holm",
    "regressions",
]

CORRECTIONS: dict[str, str] = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "none"}

DEFAULT_PERMUTATIONS = 10_000

# Per-query differences are rounded to this many decimals before anything else, so that two
# scores that differ only by float noise (0.1 + 0.2 vs 0.3) count as a tie, not a win.
_DECIMALS = 12
# A permuted mean within this distance of the observed mean counts as "at least as extreme":
# means of scores in [0, 1] that differ by less are float noise, and counting them as ties can
# only make the p-value (very slightly) more conservative.
_TIE_TOLERANCE = 1e-10
# Sign flips are drawn and applied in chunks of at most this many (flip, query) cells, so
# memory stays bounded (about 32 MB of float64) whatever the number of queries. The chunk size
# depends on n only, so the draws -- and the p-values -- are a function of (seed, n, B).
_CHUNK_CELLS = 1 << 22
# Up to this many queries, stats.wilcoxon (method="auto") answers ties or zero differences
# with an exact test over all 2^n sign flips; _wilcoxon_pvalue runs that test vectorised.
_WILCOXON_SIGN_FLIPS = 13


def _readonly(values: np.ndarray) -> np.ndarray:
    values = np.array(values, dtype=float, copy=True)
    values.setflags(write=False)
    return values


@dataclass(frozen=True)
class PairedTest:
    """One candidate against the baseline on one metric, over the same n queries.

    ``difference`` is after - before (the candidate minus the baseline), ``low``/``high`` its
    paired percentile-bootstrap interval, ``p_adjusted`` the randomization p after the
    comparison's multiple-comparison correction. ``effect_size`` is the mean difference over
    the sample standard deviation (ddof=1) of the differences: 0.0 when every difference is 0,
    nan when every query changed by the same non-zero amount (the standard deviation is 0).
    ``before``, ``after`` and ``differences`` are read-only per-query arrays in query order,
    kept for plots; they are left out of equality and hashing.
    """

    candidate: str
    metric: str
    n: int
    before_mean: float
    after_mean: float
    difference: float
    low: float
    high: float
    wins: int
    ties: int
    losses: int
    p_randomization: float
    p_t: float
    p_wilcoxon: float
    effect_size: float
    p_adjusted: float
    significant: bool
    differences: np.ndarray = field(repr=False, compare=False)
    before: np.ndarray = field(repr=False, compare=False)
    after: np.ndarray = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("differences", "before", "after"):
            object.__setattr__(self, name, _readonly(getattr(self, name)))


@dataclass(frozen=True)
class Comparison:
    """Every (candidate, metric) test of one call, candidates outer and metrics inner.

    ``n_comparisons`` is the size of the family the correction was applied to (every pair);
    with ``correction="none"`` nothing was adjusted and ``p_adjusted`` equals the raw
    randomization p. ``seed`` is the integer seed used, or None when a Generator was passed.
    """

    baseline: str
    candidates: tuple[str, ...]
    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    correction: str
    n_comparisons: int
    confidence_level: float
    n_permutations: int
    n_resamples: int
    seed: int | None
    alpha: float
    tests: tuple[PairedTest, ...]

    def adjusted(self, correction: str | None = None, alpha: float | None = None) -> Comparison:
        """The same tests under another correction or alpha: only the adjustment is redone,
        so a switch costs nothing (the flips, bootstrap and Wilcoxon are not rerun)."""
        correction = self.correction if correction is None else correction
        if correction not in _ADJUST:
            raise ValueError(
                f"correction must be one of {', '.join(_ADJUST)}, got {correction!r}"
            )
        alpha = self.alpha if alpha is None else _check_fraction("alpha", alpha)
        p = _ADJUST[correction](np.array([t.p_randomization for t in self.tests]))
        tests = tuple(
            replace(test, p_adjusted=float(q), significant=bool(q < alpha))
            for test, q in zip(self.tests, p, strict=True)
        )
        return replace(self, correction=correction, alpha=alpha, tests=tests)

    def test(self, candidate: str, metric: str) -> PairedTest:
        """The test of one candidate on one metric."""
        for test in self.tests:
            if test.candidate == candidate and test.metric == metric:
                return test
        if candidate not in self.candidates:
            raise ValueError(
                f"unknown candidate {candidate!r}; compared: {', '.join(self.candidates)}"
            )
        raise ValueError(f"unknown metric {metric!r}; compared: {', '.join(self.metrics)}")

    def rows(self) -> list[dict]:
        """One flat, JSON-friendly dict per test (plain Python types, unrounded floats).

        Per-query arrays are left out; a float that is not finite (an undefined effect size)
        becomes None, so ``json.dumps(rows, allow_nan=False)`` works.
        """
        return [
            {
                "baseline": self.baseline,
                "candidate": test.candidate,
                "metric": test.metric,
                "n": int(test.n),
                "before_mean": _json_float(test.before_mean),
                "after_mean": _json_float(test.after_mean),
                "difference": _json_float(test.difference),
                "low": _json_float(test.low),
                "high": _json_float(test.high),
                "confidence_level": float(self.confidence_level),
                "wins": int(test.wins),
                "ties": int(test.ties),
                "losses": int(test.losses),
                "p_randomization": _json_float(test.p_randomization),
                "p_t": _json_float(test.p_t),
                "p_wilcoxon": _json_float(test.p_wilcoxon),
                "p_adjusted": _json_float(test.p_adjusted),
                "correction": self.correction,
                "n_comparisons": int(self.n_comparisons),
                "alpha": float(self.alpha),
                "significant": bool(test.significant),
                "effect_size": _json_float(test.effect_size),
                "verdict": self.verdict(test),
            }
            for test in self.tests
        ]

    def verdict(self, test: PairedTest) -> str:
        """A plain-language sentence about one test that never overstates (three decimals).

        e.g. "better on 41 of 60 queries, worse on 12; difference +0.060 [+0.020, +0.100];
        unlikely to be noise after Holm correction (p = 0.003, adjusted 0.012); effect size 0.450"
        """
        if not isinstance(test, PairedTest):
            raise ValueError(f"verdict needs a PairedTest, got {type(test).__name__}")
        if test.wins == 0 and test.losses == 0:
            return f"no query changed (all {test.n} queries tie)"
        counts = f"better on {test.wins} of {test.n} queries, worse on {test.losses}"
        interval = f"difference {test.difference:+.3f} [{test.low:+.3f}, {test.high:+.3f}]"
        p, adjusted = test.p_randomization, test.p_adjusted
        if self.correction == "none":
            uncorrected = (
                f", not corrected for {self.n_comparisons} comparisons"
                if self.n_comparisons > 1
                else ""
            )
            noise = (
                f"unlikely to be noise (p {_p_text(p)}{uncorrected})"
                if test.significant
                else f"could be noise (p {_p_text(p)}{uncorrected})"
            )
        else:
            name = CORRECTIONS[self.correction]
            noise = (
                f"unlikely to be noise after {name} correction "
                f"(p {_p_text(p)}, adjusted {_p_text(adjusted, bare=True)})"
                if test.significant
                else f"could be noise after {name} correction (adjusted p {_p_text(adjusted)})"
            )
        if np.isfinite(test.effect_size):
            effect = f"effect size {test.effect_size:.3f}"
        else:
            effect = "effect size undefined (every query changed by the same amount)"
        return "; ".join((counts, interval, noise, effect))


def _json_float(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _p_text(p: float, *, bare: bool = False) -> str:
    """'= 0.003' (or '0.003' when bare), and '< 0.001' rather than a rounded-down 0.000."""
    if p < 0.0005:
        return "< 0.001"
    return f"{p:.3f}" if bare else f"= {p:.3f}"


# --------------------------------------------------------------------------- corrections


def _check_pvalues(p: object) -> np.ndarray:
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
    values = _check_pvalues(p)
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
    values = _check_pvalues(p)
    m = values.size
    order = np.argsort(values, kind="stable")
    stepped = values[order] * (m / np.arange(1, m + 1))  # factors >= 1: never below p
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(np.minimum.accumulate(stepped[::-1])[::-1], 1.0)
    return adjusted


_ADJUST = {"holm": holm, "bh": benjamini_hochberg, "none": _check_pvalues}


# --------------------------------------------------------------------------- the tests


def _sign_flip_pvalues(
    differences: np.ndarray, *, n_permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """Two-sided paired randomization p of the mean of each column of differences (n, m).

    Each of n_permutations draws flips the sign of every query's difference with probability
    1/2 -- the same flips for every column -- and counts the draws whose |mean| reaches the
    observed |mean|; p = (1 + count) / (1 + n_permutations). A flip vector s in {-1, +1}^n is
    drawn as bits b in {0, 1}^n (s = 2b - 1), so one chunk of flips costs one matrix product:
    sum(s * d) = 2 (b @ d) - sum(d).
    """
    n, _ = differences.shape
    total = differences.sum(axis=0)
    threshold = np.abs(total) - _TIE_TOLERANCE * n  # compared on sums: mean * n
    count = np.zeros(differences.shape[1], dtype=np.int64)
    rows = max(1, _CHUNK_CELLS // n)
    n_bytes = (n + 7) // 8
    for start in range(0, n_permutations, rows):
        size = min(rows, n_permutations - start)
        packed = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = np.unpackbits(packed, axis=1, count=n).astype(np.float64)
        flipped = 2.0 * (bits @ differences) - total
        count += (np.abs(flipped) >= threshold).sum(axis=0)
    return (1.0 + count) / (1.0 + n_permutations)


def _t_pvalue(differences: np.ndarray, constant: bool) -> float:
    if constant:
        # Every query changed by the same amount: the standard deviation is 0 and scipy
        # returns nan (all zero) or t = +-inf, p = 0.0 (non-zero) -- or, when float noise
        # leaves a tiny spread, an arbitrary value. Pin both cases so they do not depend on
        # that noise: no change -> p = 1.0, the same non-zero change everywhere -> p = 0.0.
        return 1.0 if differences[0] == 0 else 0.0
    # ttest_rel(a, b) is the one-sample t-test of a - b; passing the rounded differences
    # keeps it consistent with the other tests.
    from scipy import stats  # imported here: it costs the command line ~0.8 s of start-up

    return float(stats.ttest_rel(differences, np.zeros_like(differences)).pvalue)


def _wilcoxon_pvalue(differences: np.ndarray) -> float:
    if not differences.any():
        # Every difference is zero: scipy's default zero_method="wilcox" drops them all and,
        # depending on the version, raises or warns and returns nan/1.0. Nothing changed, so
        # there is no evidence of a difference: p = 1.0.
        return 1.0
    from scipy import stats

    is_nonzero = differences != 0
    nonzero = differences[is_nonzero]
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    if (ties or len(nonzero) < len(differences)) and len(differences) <= _WILCOXON_SIGN_FLIPS:
        # stats.wilcoxon's own choice here is an exact test over every sign flip, but it
        # calls its statistic once per flip in Python (~0.2 s a test, 2.5 s for the sample's
        # comparison). The same test with the statistic vectorised: flips keep |d|, so the
        # ranks are fixed; zeros are dropped from the ranking (zero_method="wilcox").
        ranks = np.zeros(len(differences))
        ranks[is_nonzero] = stats.rankdata(np.abs(nonzero))

        def rank_sum_of_positives(d: np.ndarray, axis: int) -> np.ndarray:
            return np.sum((d > 0) * ranks, axis=axis)

        return float(
            stats.permutation_test(
                (differences,), rank_sum_of_positives, permutation_type="samples",
                vectorized=True, n_resamples=9999, alternative="two-sided",
            ).pvalue
        )
    return float(stats.wilcoxon(differences).pvalue)


def _effect_size(differences: np.ndarray, constant: bool) -> float:
    if constant:
        # sd = 0: 0.0 when nothing changed; nan (undefined, not inf) when every query changed
        # by the same non-zero amount.
        return 0.0 if differences[0] == 0 else float("nan")
    return float(differences.mean() / differences.std(ddof=1))


# --------------------------------------------------------------------------- validation


def _check_names(kind: str, names: object, allowed: Sequence[str], where: str) -> tuple[str, ...]:
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


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def _generator(rng: object) -> tuple[np.random.Generator, int | None]:
    if rng is None:
        return np.random.default_rng(DEFAULT_SEED), DEFAULT_SEED
    if isinstance(rng, np.random.Generator):
        return rng, None
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    raise ValueError(
        f"rng must be a numpy Generator, a non-negative integer seed or None, got {rng!r}"
    )


def _scores(
    scores: Mapping[str, Mapping[str, np.ndarray]], run: str, metric: str, n: int
) -> np.ndarray:
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


# --------------------------------------------------------------------------- entry points


def compare(
    baseline: str,
    scores: Mapping[str, Mapping[str, np.ndarray]],
    query_ids: Sequence[str],
    *,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    correction: str = "holm",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    rng: np.random.Generator | int | None = None,
) -> Comparison:
    """Compare each candidate with the baseline on each metric, paired by query.

    Parameters
    ----------
    baseline
        The run every candidate is compared with (``before``).
    scores
        run name -> metric name -> per-query scores, shape (n,), in the order of query_ids
        (the same frozen, scored query set for every run).
    query_ids
        The n query ids (at least 2, unique).
    candidates
        The runs compared with the baseline (``after``); default every other run in
        ``scores``, in order.
    metrics
        The metrics compared; default every metric of the baseline, in order.
    correction
        "holm" (default), "bh" (Benjamini-Hochberg) or "none"; the family is every
        (candidate, metric) pair of this call, and the randomization p-values are adjusted.
    confidence_level
        Of the bootstrap interval of the mean difference.
    alpha
        ``significant`` means adjusted p < alpha.
    n_resamples
        Paired bootstrap resamples (the same resampled queries for every pair).
    n_permutations
        Sign flips of the randomization test (the same flips for every pair).
    rng
        A numpy Generator (consumed), an integer seed, or None for ``DEFAULT_SEED``.
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
        chosen = _check_names("candidate", candidates, others, "runs besides the baseline")
    baseline_metrics = list(scores[baseline])
    metric_names = _check_names(
        "metric",
        baseline_metrics if metrics is None else metrics,
        baseline_metrics,
        f"baseline {baseline!r} has",
    )
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    confidence_level = _check_fraction("confidence_level", confidence_level)
    alpha = _check_fraction("alpha", alpha)
    n_resamples = _check_count("n_resamples", n_resamples)
    n_permutations = _check_count("n_permutations", n_permutations)
    generator, seed = _generator(rng)

    n = len(ids)
    before = {metric: _scores(scores, baseline, metric, n) for metric in metric_names}
    pairs = [(candidate, metric) for candidate in chosen for metric in metric_names]
    after = {pair: _scores(scores, pair[0], pair[1], n) for pair in pairs}

    # One column of per-query differences per pair, rounded so float noise is a tie.
    differences = np.column_stack(
        [np.round(after[pair] - before[pair[1]], _DECIMALS) for pair in pairs]
    )
    differences[differences == 0] = 0.0  # no -0.0 after rounding

    # Draw order is part of the reproducibility contract: bootstrap counts, then sign flips.
    counts = resample_counts(n, n_resamples=n_resamples, rng=generator)
    low, high = percentile_bounds(
        bootstrap_means(differences, counts), confidence_level=confidence_level
    )
    p_randomization = _sign_flip_pvalues(differences, n_permutations=n_permutations, rng=generator)
    p_adjusted = _ADJUST[correction](p_randomization)

    tests = []
    for j, (candidate, metric) in enumerate(pairs):
        d = differences[:, j]
        constant = bool((d == d[0]).all())
        tests.append(
            PairedTest(
                candidate=candidate,
                metric=metric,
                n=n,
                before_mean=float(before[metric].mean()),
                after_mean=float(after[candidate, metric].mean()),
                difference=float(d.mean()),
                low=float(low[j]),
                high=float(high[j]),
                wins=int((d > 0).sum()),
                ties=int((d == 0).sum()),
                losses=int((d < 0).sum()),
                p_randomization=float(p_randomization[j]),
                p_t=_t_pvalue(d, constant),
                p_wilcoxon=_wilcoxon_pvalue(d),
                effect_size=_effect_size(d, constant),
                p_adjusted=float(p_adjusted[j]),
                significant=bool(p_adjusted[j] < alpha),
                differences=d,
                before=before[metric],
                after=after[candidate, metric],
            )
        )
    return Comparison(
        baseline=baseline,
        candidates=chosen,
        metrics=metric_names,
        query_ids=ids,
        correction=correction,
        n_comparisons=len(pairs),
        confidence_level=confidence_level,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        seed=seed,
        alpha=alpha,
        tests=tuple(tests),
    )


def regressions(comparison: Comparison, metric: str, *, alpha: float | None = None) -> list[str]:
    """Candidates significantly worse than the baseline on metric, in candidate order.

    Worse means a lower mean (negative mean difference) and an adjusted randomization p below
    alpha (default: the comparison's alpha), under the comparison's correction.
    """
    if not isinstance(comparison, Comparison):
        raise ValueError(f"regressions needs a Comparison, got {type(comparison).__name__}")
    if metric not in comparison.metrics:
        raise ValueError(f"unknown metric {metric!r}; compared: {', '.join(comparison.metrics)}")
    level = comparison.alpha if alpha is None else _check_fraction("alpha", alpha)
    return [
        test.candidate
        for test in comparison.tests
        if test.metric == metric and test.difference < 0 and test.p_adjusted < level
    ]


# the family compared by default: every summary measure at K except Judged@K, which says how
# far the labels reach, not how good the ranking is
DEFAULT_COMPARED = ("P", "R", "F1", "Hit", "RR", "AP", "nDCG", "CP")


def compare_evaluation(
    evaluation: Evaluation,
    *,
    baseline: str | None = None,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    **options,
) -> Comparison:
    """Compare runs of one Evaluation at its K; metrics are measure keys ("nDCG", "RR", ...)
    and appear in the Comparison under their labels ("nDCG@10", "MRR@10")."""
    baseline = baseline or evaluation.run_names[0]
    keys = tuple(metrics or DEFAULT_COMPARED)
    unknown = [key for key in keys if key not in MEASURE_BY_KEY]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; known: {', '.join(MEASURE_BY_KEY)}")
    labels = {key: MEASURE_BY_KEY[key].label(evaluation.k) for key in keys}
    names = [baseline, *(candidates or [n for n in evaluation.run_names if n != baseline])]
    scores = {}
    for name in names:
        values = evaluation.per_query_scores(name)
        scores[name] = {labels[key]: values[key] for key in keys}
    return compare(
        baseline,
        scores,
        evaluation.scored_ids,
        candidates=names[1:],
        metrics=list(labels.values()),
        **options,
    )


def metric_key(label: str, k: int) -> str:
    """'nDCG@10' or 'nDCG' -> 'nDCG'; 'MRR@10' -> 'RR'. The K, if given, must be the K compared."""
    name, _, at = label.partition("@")
    if at and at != str(k):
        raise ValueError(f"{label!r} names K = {at}, but the comparison is at K = {k}")
    for measure in MEASURE_BY_KEY.values():
        if name in (measure.key, measure.summary_key):
            return measure.key
    raise ValueError(f"unknown metric {label!r}; known: {', '.join(MEASURE_BY_KEY)}")
