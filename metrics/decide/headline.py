"""The headline: for each candidate, one sentence on the primary metric that says who wins,
by how much with its interval, on how many queries, how surely, and what this query set could
have detected. Built only from a Comparison's tests (metrics.compare) and the power of the
paired t-test on their differences (metrics.stats.power); the words are in
metrics/vocabulary/headline.py.
"""

from __future__ import annotations

from typing import Any

from metrics.core.compare import compare_evaluation, metric_key
from metrics.core.evaluate import Evaluation
from metrics.stats.comparison import CORRECTIONS, Comparison, PairedTest
from metrics.stats.power import power_figure
from metrics.vocabulary import format as fmt
from metrics.vocabulary.headline import (
    BELOW_MIN_EFFECT,
    BETTER,
    CORRECTED,
    EQUIVALENT,
    EVIDENCE,
    METHOD,
    NO_DIFFERENCE,
    SHORT,
    UNCHANGED,
    UNCORRECTED,
    WORSE,
)
from metrics.vocabulary.power import POWER


def headline(comparison: Comparison, test: PairedTest, *, power: float = POWER) -> str:
    """One candidate's sentence: e.g. "reranked beats baseline on nDCG@10 by +0.071 [+0.032,
    +0.109] (paired bootstrap, 95%), 41 queries better, 12 worse, p = 0.002 after Holm; this
    query set detects differences of 0.030 or more with 80% power." """
    opening = _opening(comparison, test)
    if test.wins == 0 and test.losses == 0:
        return opening + "."
    figure = power_figure(comparison.baseline, test, alpha=comparison.alpha, power=power)
    n = comparison.n_comparisons
    correction = ("" if n == 1 else UNCORRECTED.format(n=n) if comparison.correction == "none"
                  else CORRECTED.format(correction=CORRECTIONS[comparison.correction], n=n))
    evidence = EVIDENCE.format(
        method=METHOD.format(level=fmt.confidence(comparison.confidence_level)),
        better=fmt.count(test.wins, "query"), worse=f"{test.losses:,}",
        p=fmt.p_equals(test.p_adjusted), correction=correction, power=figure.sentence)
    return f"{opening} {evidence}."


def short_headline(comparison: Comparison, test: PairedTest) -> str:
    """The same verdict in a few words, for a first screen or a slide: who wins and by how
    much with its interval, e.g. "reranked beats baseline on nDCG@10 by +0.071 [+0.032,
    +0.109] (95% interval)." The method, the queries better and worse, p and the power are
    the long sentence's (headline)."""
    opening = _opening(comparison, test)
    if test.wins == 0 and test.losses == 0:
        return opening + "."
    return SHORT.format(opening=opening,
                        level=fmt.confidence(comparison.confidence_level)) + "."


def _opening(comparison: Comparison, test: PairedTest) -> str:
    """The verdict and the difference with its interval: both sentences' opening."""
    names = dict(candidate=test.candidate, baseline=comparison.baseline, metric=test.metric)
    if test.wins == 0 and test.losses == 0:
        return UNCHANGED.format(**names)
    difference = fmt.difference(test.difference, test.low, test.high)
    decision = comparison.decision(test)
    if decision == "below_min_effect":
        opening = BELOW_MIN_EFFECT
    elif decision == "equivalent":
        opening = EQUIVALENT
    elif not test.significant:
        opening = NO_DIFFERENCE
    else:
        opening = BETTER if test.difference > 0 else WORSE
    minimum = ("" if comparison.min_effect is None else f"{comparison.min_effect:g}")
    return opening.format(**names, difference=difference, min_effect=minimum,
                          p_equivalence=fmt.p_equals(test.p_equivalence))


def headlines(comparison: Comparison, metric: str, *, power: float = POWER) -> list[str]:
    """Every candidate's headline on one compared metric (a label such as "nDCG@10"). Give it
    the comparison of the primary metric alone (FAMILY says why): see headline_comparison."""
    if metric not in comparison.metrics:
        raise ValueError(f"the headline's metric {metric!r} is not compared; compared: "
                         f"{', '.join(comparison.metrics)}")
    return [headline(comparison, test, power=power)
            for test in comparison.tests if test.metric == metric]


def short_headlines(comparison: Comparison, metric: str) -> list[str]:
    """Every candidate's short headline (short_headline) on one compared metric, in the
    order of headlines."""
    if metric not in comparison.metrics:
        raise ValueError(f"the headline's metric {metric!r} is not compared; compared: "
                         f"{', '.join(comparison.metrics)}")
    return [short_headline(comparison, test)
            for test in comparison.tests if test.metric == metric]


def headline_comparison(evaluation: Evaluation, primary: str, **options: Any) -> Comparison:
    """The comparison a headline reads: the primary metric alone (a key or a label), under
    compare_evaluation's other options (baseline, candidates, correction, alpha...)."""
    options["metrics"] = [metric_key(primary, evaluation.k, evaluation.conventions)]
    return compare_evaluation(evaluation, **options)
