"""Paired comparison of runs over one frozen query set: did the change help, where, beyond noise?

For a baseline and one or more candidates scored on the same queries (same order), every
(candidate, metric) pair gets the per-query differences (after - before), their mean with a
paired percentile-bootstrap interval, win / tie / loss counts, an effect size, and three
two-sided p-values: a paired randomization (sign-flip) test of the mean difference (the
default), a paired t-test and a Wilcoxon signed-rank test, all in ``metrics.stats.paired``.

The family for the multiple-comparison correction is every (candidate, metric) pair of one
call: Holm's step-down adjustment by default, Benjamini-Hochberg or none as options; the
correction is applied to the randomization p-values.

Randomness comes from one numpy Generator (seeded with ``DEFAULT_SEED`` unless told otherwise)
and is drawn in a fixed order: first the bootstrap resample counts (the same resampled queries
for every pair, and the same draws ``metrics.stats.intervals.bootstrap`` makes from the same seed),
then the sign flips (the same flips for every pair). The same inputs and seed therefore give
identical floats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from metrics.stats import CORRECTIONS, benjamini_hochberg, corrections, holm, paired, validate
from metrics.stats.equivalence import tost_pvalues
from metrics.vocabulary import format as fmt
from metrics.vocabulary.comparisons import (
    ALPHA,
    DEFAULT_CORRECTION,
    DEFAULT_PERMUTATIONS,
    MANY_QUERIES,
    decision,
    min_effect_clause,
    rank_tests_at_scale,
)
from metrics.vocabulary.conventions import (
    CONVENTION_BY_FIELD,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    check_min_effect,
    check_permutations,
)

__all__ = [
    "CORRECTIONS",
    "Comparison",
    "PairedTest",
    "benjamini_hochberg",
    "compare",
    "holm",
    "regressions",
]



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
    # the equivalence test's p against +-the comparison's minimum effect (TOST), when one is
    # declared; None otherwise
    p_equivalence: float | None = None

    def __post_init__(self) -> None:
        for name in ("differences", "before", "after"):
            values = getattr(self, name)
            if (isinstance(values, np.ndarray) and values.dtype == np.float64
                    and values.flags.owndata and not values.flags.writeable):
                continue  # frozen already (a test re-adjusted): shared, not copied again
            values = np.array(values, dtype=float, copy=True)
            values.setflags(write=False)
            object.__setattr__(self, name, values)


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
    interval_method: str = "percentile"  # of the paired bootstrap: "percentile" or "bca"
    # the smallest difference that matters (metrics.vocabulary.conventions.MIN_EFFECT), or
    # None: it changes the verdicts, never a figure
    min_effect: float | None = None

    def with_min_effect(self, min_effect: float | None) -> Comparison:
        """The same tests under another minimum effect: each test's equivalence p (TOST
        against +-min_effect) computed from its differences, or dropped with None."""
        min_effect = check_min_effect(min_effect)
        p = (equivalence_pvalues([t.differences for t in self.tests], min_effect)
             if min_effect is not None else [None] * len(self.tests))
        tests = tuple(replace(t, p_equivalence=q) for t, q in zip(self.tests, p, strict=True))
        return replace(self, tests=tests, min_effect=min_effect)

    def decision(self, test: PairedTest) -> str:
        """What the test says, a key of ``metrics.vocabulary.comparisons.DECISIONS``:
        better, worse, below the minimum effect, equivalent within it, or no difference."""
        return decision(test.difference, test.significant, self.min_effect,
                        test.p_equivalence, self.alpha)

    def adjusted(self, correction: str | None = None, alpha: float | None = None) -> Comparison:
        """The same tests under another correction or alpha: only the adjustment is redone,
        so a switch costs nothing (the flips, bootstrap and Wilcoxon are not rerun)."""
        correction = self.correction if correction is None else correction
        corrections.check_correction(correction)
        alpha = self.alpha if alpha is None else validate.check_fraction("alpha", alpha)
        p = corrections.adjust(np.array([t.p_randomization for t in self.tests]), correction)
        return self.with_adjusted(p, correction, alpha)

    def with_adjusted(self, p_adjusted: Sequence[float], correction: str, alpha: float,
                      n_comparisons: int | None = None) -> Comparison:
        """The same tests with p-values adjusted elsewhere (over a larger family, say: every
        slice's tests at once), each called significant when its adjusted p is below alpha."""
        tests = tuple(
            replace(test, p_adjusted=float(q), significant=bool(q < alpha))
            for test, q in zip(self.tests, p_adjusted, strict=True)
        )
        return replace(self, correction=correction, alpha=alpha, tests=tests,
                       n_comparisons=self.n_comparisons if n_comparisons is None
                       else n_comparisons)

    def restricted(self, metrics: Sequence[str]) -> Comparison:
        """The tests of these compared metrics alone (labels, in this order), corrected over
        that smaller family under the same correction and alpha: what comparing those metrics
        alone gives, without drawing the flips and resamples again. Every test reads the same
        sign flips and resampled queries, column by column, so the p-values are the same; an
        interval's bounds may differ from a call of their own in the last bits of a float
        (a resampled mean is a matrix product whose rounding depends on the columns beside)."""
        unknown = [m for m in metrics if m not in self.metrics]
        if unknown or not metrics:
            raise ValueError(f"can only restrict to compared metrics ({', '.join(self.metrics)}), "
                             f"got {', '.join(unknown) or 'none'}")
        kept = tuple(dict.fromkeys(metrics))
        tests = tuple(self.test(c, m) for c in self.candidates for m in kept)
        narrower = replace(self, metrics=kept, tests=tests, n_comparisons=len(tests))
        return narrower.adjusted()

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

    def to_frame(self):
        """rows() as a pandas frame: one row per (candidate, metric)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def _repr_html_(self) -> str:
        """A notebook shows each test: candidate, metric, means, the difference with its
        interval, better / tie / worse, p adjusted and the verdict."""
        import pandas as pd

        return pd.DataFrame([{
            "candidate": t.candidate, "metric": t.metric, "before": fmt.figure(t.before_mean),
            "after": fmt.figure(t.after_mean),
            "difference": fmt.difference(t.difference, t.low, t.high),
            "better / tie / worse": fmt.win_tie_loss(t.wins, t.ties, t.losses),
            "p adjusted": fmt.p_value(t.p_adjusted), "verdict": self.verdict(t),
        } for t in self.tests]).to_html(index=False) + (
            f"<p><small>Against {self.baseline}; paired randomization test, "
            f"{CORRECTIONS[self.correction]} correction over {self.n_comparisons:,} "
            "comparisons, alpha "
            f"{self.alpha:g}.</small></p>")

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
                "min_effect": self.min_effect,
                "p_equivalence": (None if test.p_equivalence is None
                                  else _json_float(test.p_equivalence)),
                "decision": self.decision(test),
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
            return f"no query changed (all {test.n:,} queries tie)"
        counts = f"better on {test.wins:,} of {test.n:,} queries, worse on {test.losses:,}"
        interval = f"difference {fmt.difference(test.difference, test.low, test.high)}"
        p, adjusted = test.p_randomization, test.p_adjusted
        if self.correction == "none":
            uncorrected = (
                f", not corrected for {self.n_comparisons} comparisons"
                if self.n_comparisons > 1
                else ""
            )
            noise = (
                f"unlikely to be noise (p {fmt.p_equals(p)}{uncorrected})"
                if test.significant
                else f"could be noise (p {fmt.p_equals(p)}{uncorrected})"
            )
        else:
            name = CORRECTIONS[self.correction]
            noise = (
                f"unlikely to be noise after {name} correction "
                f"(p {fmt.p_equals(p)}, adjusted {fmt.p_value(adjusted)})"
                if test.significant
                else f"could be noise after {name} correction (adjusted p {fmt.p_equals(adjusted)})"
            )
        parts = [counts, interval, noise]
        if self.min_effect is not None:
            parts.append(min_effect_clause(self.decision(test), self.min_effect,
                                           test.p_equivalence, fmt.p_equals(test.p_equivalence)))
        if np.isfinite(test.effect_size):
            parts.append(f"effect size {fmt.effect(test.effect_size)}")
        else:
            parts.append("effect size undefined (every query changed by the same amount)")
        if (test.n >= MANY_QUERIES and test.p_wilcoxon < self.alpha
                and self.decision(test) not in ("better", "worse")):
            # the rank test rejects where the verdict does not call a difference that matters
            parts.append(rank_tests_at_scale(test.n, fmt.p_equals(test.p_wilcoxon),
                                             self.min_effect))
        return "; ".join(parts)


def _json_float(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def compare(
    baseline: str,
    scores: Mapping[str, Mapping[str, np.ndarray]],
    query_ids: Sequence[str],
    *,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    correction: str = DEFAULT_CORRECTION,
    confidence_level: float = DEFAULT_CONFIDENCE,
    alpha: float = ALPHA,
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    rng: np.random.Generator | int | None = None,
    interval_method: str = "percentile",
    min_effect: float | None = None,
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
    interval_method
        The paired bootstrap's interval: "percentile" (the seed's) or "bca".
    min_effect
        The smallest difference that matters (> 0, in each metric's units), or None (the
        default): with one, a significant difference below it is its own verdict and each
        test carries the equivalence test's p against +-min_effect (TOST).
    """
    (ids, chosen, metric_names, before, after, confidence_level, alpha, n_resamples,
     n_permutations, generator, seed) = _compare_iv(
        baseline, scores, query_ids, candidates, metrics, correction, confidence_level, alpha,
        n_resamples, n_permutations, rng, interval_method)
    min_effect = check_min_effect(min_effect)
    n = len(ids)
    pairs = list(after)

    # One column of per-query differences per pair, rounded so float noise is a tie.
    differences = paired.paired_differences(
        np.column_stack([after[pair] for pair in pairs]),
        np.column_stack([before[metric] for _, metric in pairs]),
    )

    # Draw order is part of the reproducibility contract: bootstrap counts, then sign flips.
    low, high = paired.paired_bootstrap(
        differences, confidence_level=confidence_level, n_resamples=n_resamples, rng=generator,
        method=interval_method,
    )
    p_randomization = paired.sign_flip_pvalues(
        differences, n_permutations=n_permutations, rng=generator
    )
    p_adjusted = corrections.adjust(p_randomization, correction)
    p_t, p_wilcoxon = paired.t_pvalues(differences), paired.wilcoxon_pvalues(differences)
    p_equivalence = (tost_pvalues(differences, margin=min_effect).tolist()
                     if min_effect is not None else [None] * len(pairs))

    tests = tuple(
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
            p_t=float(p_t[j]),
            p_wilcoxon=float(p_wilcoxon[j]),
            effect_size=paired.effect_size(d),
            p_adjusted=float(p_adjusted[j]),
            significant=bool(p_adjusted[j] < alpha),
            differences=d,
            before=before[metric],
            after=after[candidate, metric],
            p_equivalence=p_equivalence[j],
        )
        for j, ((candidate, metric), d) in enumerate(zip(pairs, differences.T, strict=True))
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
        tests=tests,
        interval_method=interval_method,
        min_effect=min_effect,
    )


def equivalence_pvalues(differences: Sequence[np.ndarray], min_effect: float) -> list[float]:
    """The TOST p of each test's differences against +-min_effect."""
    if not differences:
        return []
    return tost_pvalues(np.column_stack(differences), margin=min_effect).tolist()


def _compare_iv(baseline: str, scores: object, query_ids: object, candidates: object,
                metrics: object, correction: object, confidence_level: object, alpha: object,
                n_resamples: object, n_permutations: object, rng: object,
                interval_method: object) -> tuple:
    """compare's arguments checked and normalised: the ids, candidates and metrics, the
    baseline's scores by metric and each (candidate, metric) pair's, the levels and counts,
    and the Generator with the seed it was made from (None for a Generator passed)."""
    ids, chosen, metric_names = validate.check_selection(
        baseline, scores, query_ids, candidates, metrics
    )
    corrections.check_correction(correction)
    confidence_level = validate.check_fraction("confidence_level", confidence_level)
    alpha = validate.check_fraction("alpha", alpha)
    n_resamples = validate.check_count("n_resamples", n_resamples)
    n_permutations = check_permutations(n_permutations)
    generator, seed = validate.check_rng(rng)
    CONVENTION_BY_FIELD["interval_method"].choice(interval_method)
    n = len(ids)
    before = {metric: validate.check_scores(scores, baseline, metric, n) for metric in metric_names}
    after = {(candidate, metric): validate.check_scores(scores, candidate, metric, n)
             for candidate in chosen for metric in metric_names}
    return (ids, chosen, metric_names, before, after, confidence_level, alpha, n_resamples,
            n_permutations, generator, seed)


def regressions(comparison: Comparison, metric: str, *, alpha: float | None = None) -> list[str]:
    """Candidates significantly worse than the baseline on metric, in candidate order.

    Worse means a lower mean (negative mean difference) and an adjusted randomization p below
    alpha (default: the comparison's alpha), under the comparison's correction.
    """
    if not isinstance(comparison, Comparison):
        raise ValueError(f"regressions needs a Comparison, got {type(comparison).__name__}")
    if metric not in comparison.metrics:
        raise ValueError(f"unknown metric {metric!r}; compared: {', '.join(comparison.metrics)}")
    level = comparison.alpha if alpha is None else validate.check_fraction("alpha", alpha)
    return [
        test.candidate
        for test in comparison.tests
        if test.metric == metric and test.difference < 0 and test.p_adjusted < level
    ]
