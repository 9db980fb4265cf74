"""How firmly the runs are ordered: a leaderboard with rank intervals and P(best), and every
pair of runs compared, read as compact significance letters.

- ``leaderboard``: per metric, each run's mean and rank, the interval of its rank and the
  share of resamples in which it ranks first, from the paired bootstrap over queries. The
  resamples are the summary intervals' (``resampled_queries`` on the conventions' seed,
  every metric in one pass over them) and the same queries are drawn
  for every run, so one run's rank in a resample is read against the others' on the same
  queries.
- ``all_pairs``: every unordered pair (the earlier run as the baseline) through the paired
  randomization test of ``metrics.stats.comparison``, with one correction over every pair and
  metric; per metric a matrix of adjusted p and of differences, and the compact letter display.

The words (rank rule, ties, intervals, letters) are declared in
``metrics.vocabulary.leaderboard``; this module only computes.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from metrics.core.compare import compare_evaluation, figures_of, metric_label
from metrics.core.evaluate import Evaluation
from metrics.stats import CORRECTIONS, corrections, validate
from metrics.stats.bootstrap import Resamples, as_resamples, resampled_queries
from metrics.stats.comparison import DEFAULT_PERMUTATIONS, Comparison
from metrics.vocabulary.comparisons import ALPHA, DEFAULT_CORRECTION
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.leaderboard import (
    TIE_TOLERANCE,
    letters_sentence,
    standing_sentence,
)

__all__ = [
    "AllPairs",
    "Leaderboard",
    "Standing",
    "all_pairs",
    "compact_letters",
    "competition_ranks",
    "leaderboard",
    "rank_bounds",
    "rank_standings",
    "significance_groups",
]

# a, b, ..., z, then A, ..., Z: one character a group, so a run's letters read unambiguously
LETTERS = string.ascii_lowercase + string.ascii_uppercase


# --------------------------------------------------------------------------- ranks


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """Ranks of the last axis of means (..., runs): 1 + the number of runs whose mean is
    higher by more than TIE_TOLERANCE, so tied runs share the better rank (1, 1, 3).

    One pass per run over every resample at once: memory stays (resamples, runs), and ties
    are read by the same tolerance wherever the means came from.
    """
    means = np.asarray(means, dtype=float)
    ranks = np.empty(means.shape, dtype=np.int64)
    for i in range(means.shape[-1]):
        ranks[..., i] = 1 + (means - means[..., i : i + 1] > TIE_TOLERANCE).sum(axis=-1)
    return ranks


def _best_first(means: np.ndarray) -> np.ndarray:
    """Positions of the runs by mean, best first; tied runs keep their given order."""
    ranks = competition_ranks(means)
    return np.lexsort((np.arange(len(means)), ranks))


@dataclass(frozen=True)
class Standing:
    """One run on one metric: its mean over the scored queries, the rank of that mean, the
    rank interval over the resamples and P(best), the share of resamples it ranks first."""

    run: str
    mean: float
    rank: int
    rank_low: int
    rank_high: int
    p_best: float

    def as_dict(self) -> dict:
        return {"run": self.run, "mean": self.mean, "rank": self.rank,
                "rank_low": self.rank_low, "rank_high": self.rank_high, "p_best": self.p_best}


@dataclass(frozen=True)
class Leaderboard:
    """Per metric label ("nDCG@10"), the runs' standings, best mean first."""

    k: int
    confidence_level: float
    n_resamples: int
    seed: int
    n_queries: int  # scored queries the means and resamples run over
    metrics: dict[str, tuple[Standing, ...]]
    conventions: Conventions  # what the labels were made under (a key is read by them)

    def label(self, metric: str) -> str:
        """A metric's label from its label or key ("nDCG@10" or "nDCG")."""
        return _label(metric, self.k, self.conventions, self.metrics)

    def standings(self, metric: str) -> tuple[Standing, ...]:
        """The standings of one metric, by label ("nDCG@10") or key ("nDCG")."""
        return self.metrics[self.label(metric)]

    def sentences(self, metric: str) -> list[str]:
        """One sentence a run, best first: "reranked ranks 1 (95% interval 1–2), first in
        71% of resamples"."""
        standings = self.standings(metric)
        ranks = [s.rank for s in standings]
        return [standing_sentence(s.run, s.rank, s.rank_low, s.rank_high, s.p_best,
                                  confidence_level=self.confidence_level,
                                  tied=ranks.count(s.rank) > 1)
                for s in standings]

    def as_dict(self) -> dict:
        """{"k", "metrics": {label: [{"run", "mean", "rank", "rank_low", "rank_high",
        "p_best"}, ...]}}: plain Python types, runs best first."""
        return {"k": self.k,
                "metrics": {label: [s.as_dict() for s in standings]
                            for label, standings in self.metrics.items()}}


def _figures(evaluation: Evaluation, metrics: Sequence[str] | None
             ) -> tuple[Evaluation, tuple[str, ...]]:
    """The evaluation with the figures named (keys, labels or any name: "nDCG", "nDCG@10",
    "MRR@10", "Rprec"; default the compared family) and their keys. Only summary figures:
    higher is better."""
    evaluation, keys = figures_of(evaluation, metrics)
    for key in keys:
        if not evaluation.spec(key).measure.in_summary:
            raise ValueError(f"{key} is a per-query explanation, not a summary measure to rank")
    return evaluation, keys


def _label(metric: str, k: int, conventions: Conventions, labels) -> str:
    label = metric if metric in labels else metric_label(metric, k, conventions)
    if label not in labels:
        raise ValueError(f"{metric!r} is not among the metrics: {', '.join(labels)}")
    return label


def rank_bounds(ranks: np.ndarray, *, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile of each column of integer ranks (resamples, runs), read on
    the inverted empirical distribution: the smallest rank r that at least a tail's share
    (then 1 − a tail's share) of the resamples reach, r or better, the tail being
    (1 − confidence_level) / 2. Each bound is a rank that occurred, and the interval holds
    at least the confidence level's share of the resamples.

    The shares are counted, not interpolated: the needed count is rounded to 9 decimals, so
    the float noise of 1 − 0.95 cannot move a bound by one resample (np.quantile's
    "inverted_cdf" would, at 1,000 resamples).
    """
    tail = (1 - validate.check_fraction("confidence_level", confidence_level)) / 2
    ranks = np.asarray(ranks)
    runs = ranks.shape[1]
    reached = np.stack([(ranks <= r).sum(axis=0) for r in range(1, runs + 1)])  # (rank, run)
    low_count, high_count = np.round(np.array([tail, 1 - tail]) * ranks.shape[0], 9)
    # `reached` grows with r, so the first rank reaching a count is 1 + the ranks that fall short
    return 1 + (reached < low_count).sum(axis=0), 1 + (reached < high_count).sum(axis=0)


def rank_standings(values: np.ndarray, counts: np.ndarray | Resamples, *,
                   confidence_level: float, resampled_means: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mean, rank, rank_low, rank_high, p_best) per run from per-query values (n, runs)
    and the resampled queries (Resamples, or counts (n_resamples, n)); `resampled_means`,
    when the caller has them already, are the values' means over those resamples.

    Ranks are competition ranks of the means (``competition_ranks``), in each resample as
    for the observed means; the bounds are ``rank_bounds``. P(best): each resample's credit
    of 1 is split equally among the runs that rank first in it (there is always one: the
    highest mean), so the shares sum to 1.
    """
    values = np.asarray(values, dtype=float)
    means = values.mean(axis=0) if len(values) else np.zeros(values.shape[1])
    if resampled_means is None:
        resampled_means = as_resamples(counts).means(values)[0]
    resampled = competition_ranks(resampled_means)
    low, high = rank_bounds(resampled, confidence_level=confidence_level)
    first = resampled == 1
    p_best = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
    return means, competition_ranks(means), low, high, p_best


def leaderboard(evaluation: Evaluation, metrics: Sequence[str] | None = None) -> Leaderboard:
    """Every run's standing on each metric (keys or labels; default the compared family),
    from the paired bootstrap over the scored queries with the conventions' seed,
    resamples and confidence level: the same inputs give the same floats."""
    conventions, k = evaluation.conventions, evaluation.k
    evaluation, keys = _figures(evaluation, metrics)
    names = evaluation.run_names
    scores = [evaluation.per_query_scores(name) for name in names]
    n = len(evaluation.scored_ids)
    resamples = resampled_queries(n, seed=conventions.seed,
                                  n_resamples=conventions.n_resamples)
    tables = [np.column_stack([s[key] for s in scores]).reshape(n, len(names)) for key in keys]
    table = {}
    for key, values, resampled in zip(keys, tables, resamples.means(*tables), strict=True):
        means, rank, low, high, p_best = rank_standings(
            values, resamples, confidence_level=conventions.confidence_level,
            resampled_means=resampled)
        table[evaluation.label(key)] = tuple(
            Standing(names[i], float(means[i]), int(rank[i]), int(low[i]), int(high[i]),
                     float(p_best[i]))
            for i in _best_first(means))
    return Leaderboard(k, conventions.confidence_level, conventions.n_resamples,
                       conventions.seed, n, table, conventions)


# --------------------------------------------------------------------------- letters


def significance_groups(significant: np.ndarray) -> list[tuple[int, ...]]:
    """The maximal groups of runs no two of which differ significantly, by Piepho's (2004)
    insert-and-absorb: start from one group of every run; for each significant pair, split
    every group holding both into a copy without either; then drop every group contained in
    another. What remains is every maximal clique of the "not significantly different"
    graph, so two runs share a group exactly when they do not differ.

    `significant` is a symmetric (runs, runs) bool matrix (the diagonal is ignored); groups
    come back as sorted tuples of positions, sorted.
    """
    significant = np.asarray(significant, dtype=bool)
    runs = significant.shape[0]
    if significant.shape != (runs, runs) or not (significant == significant.T).all():
        raise ValueError("significant must be a symmetric square matrix")
    groups = [frozenset(range(runs))] if runs else []
    for i, j in combinations(range(runs), 2):
        if not significant[i, j]:
            continue
        split = []
        for group in groups:
            split += [group - {j}, group - {i}] if i in group and j in group else [group]
        unique = set(split)
        groups = [g for g in unique if not any(g < other for other in unique)]
    return sorted(tuple(sorted(g)) for g in groups)


def compact_letters(runs: Sequence[str], means: Sequence[float],
                    significant: np.ndarray) -> dict[str, str]:
    """The compact letter display: run -> its letters, runs by mean, best first.

    Runs are put in mean order (ties keep the given order), each maximal group of runs that
    do not differ significantly gets a letter, and letters a, b, c, … go to the groups in
    the order of their best run (then their next best, and so on). A run's letters are in
    alphabetical order. More than 52 groups cannot be written one character each: ValueError.
    """
    means = np.asarray(means, dtype=float)
    significant = np.asarray(significant, dtype=bool)
    if len(runs) != len(means) or significant.shape != (len(runs), len(runs)):
        raise ValueError("runs, means and significant must cover the same runs")
    order = _best_first(means)
    groups = significance_groups(significant[np.ix_(order, order)])  # positions in that order
    if len(groups) > len(LETTERS):
        raise ValueError(f"{len(groups)} significance groups: more than {len(LETTERS)} letters")
    letters = {runs[i]: "" for i in order}
    for letter, group in zip(LETTERS, groups, strict=False):
        for position in group:
            letters[runs[order[position]]] += letter
    return letters


# --------------------------------------------------------------------------- all pairs


@dataclass(frozen=True, eq=False)
class AllPairs:
    """Every pair of runs on every metric, under one correction over the whole family.

    Matrices are (runs, runs) in ``runs`` order, per metric label: ``differences[m][i, j]``
    is mean(i) − mean(j) (the mean of the paired per-query differences, so the matrix is
    antisymmetric), ``p_values`` the randomization p before the correction and
    ``p_adjusted`` after it (both symmetric; 1 on the diagonal). ``comparisons`` are the
    paired comparisons made, one per baseline (each earlier run against every later one),
    with their p adjusted over the whole family. Two are equal when their figures are
    (``as_dict``): numpy matrices have no single truth value to compare by.
    """

    __hash__ = None  # type: ignore[assignment]  # mutable-looking matrices: not hashable

    k: int
    runs: tuple[str, ...]
    metrics: tuple[str, ...]
    correction: str
    alpha: float
    n_comparisons: int
    n_permutations: int
    seed: int
    means: dict[str, tuple[float, ...]]
    differences: dict[str, np.ndarray] = field(repr=False)
    p_values: dict[str, np.ndarray] = field(repr=False)
    p_adjusted: dict[str, np.ndarray] = field(repr=False)
    comparisons: tuple[Comparison, ...] = field(repr=False, compare=False)
    conventions: Conventions = field(repr=False, compare=False)  # what the labels were made under

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AllPairs):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def label(self, metric: str) -> str:
        """A metric's label from its label or key ("nDCG@10" or "nDCG")."""
        return _label(metric, self.k, self.conventions, self.metrics)

    def significant(self, metric: str) -> np.ndarray:
        """(runs, runs) bool: the pair's adjusted p is below alpha."""
        return self.p_adjusted[self.label(metric)] < self.alpha

    def groups(self, metric: str) -> list[tuple[str, ...]]:
        """The significance groups in letter order, each's runs best first."""
        label = self.label(metric)
        order = _best_first(np.array(self.means[label]))
        significant = self.significant(label)[np.ix_(order, order)]
        return [tuple(self.runs[order[p]] for p in group)
                for group in significance_groups(significant)]

    def letters(self, metric: str) -> dict[str, str]:
        """run -> its letters (runs by mean, best first): runs that share a letter do not
        differ significantly at alpha after the correction."""
        label = self.label(metric)
        return compact_letters(self.runs, self.means[label], self.significant(label))

    def sentence(self) -> str:
        """What the letters say, with alpha, the correction and the family's size."""
        return letters_sentence(self.alpha, CORRECTIONS[self.correction], self.n_comparisons)

    def adjusted(self, correction: str | None = None, alpha: float | None = None) -> AllPairs:
        """The same tests under another correction or alpha: only the adjustment is redone."""
        correction = self.correction if correction is None else correction
        alpha = self.alpha if alpha is None else validate.check_fraction("alpha", alpha)
        return _assemble(self, self.comparisons, correction, alpha)

    def as_dict(self) -> dict:
        """Plain Python types: per metric label, the means, the matrices as
        {row run: {column run: value}} and the letters."""
        def matrix(values: np.ndarray) -> dict:
            return {a: {b: float(values[i, j]) for j, b in enumerate(self.runs)}
                    for i, a in enumerate(self.runs)}
        return {
            "k": self.k, "correction": self.correction, "alpha": self.alpha,
            "n_comparisons": self.n_comparisons, "n_permutations": self.n_permutations,
            "seed": self.seed, "runs": list(self.runs),
            "metrics": {
                label: {"means": dict(zip(self.runs, self.means[label], strict=True)),
                        "difference": matrix(self.differences[label]),
                        "p": matrix(self.p_values[label]),
                        "p_adjusted": matrix(self.p_adjusted[label]),
                        "letters": self.letters(label)}
                for label in self.metrics
            },
        }


def all_pairs(evaluation: Evaluation, metrics: Sequence[str] | None = None, *,
              correction: str = DEFAULT_CORRECTION, alpha: float = ALPHA,
              n_permutations: int = DEFAULT_PERMUTATIONS, rng: int | None = None,
              **options: Any) -> AllPairs:
    """Every unordered pair of runs compared on each metric (keys or labels; default the
    compared family) with the paired randomization test, one correction over all pairs and
    metrics.

    Each earlier run is the baseline of one ``compare_evaluation`` call against every later
    run, uncorrected; all their p-values are then adjusted as one family. `rng` is an
    integer seed (default the conventions' seed) that every call starts from, so each pair
    gets the p-value its own pairwise comparison would: a Generator would be consumed call
    after call, and is refused. Other options (confidence_level, n_resamples) go to
    ``compare_evaluation``; they default to the conventions'.
    """
    corrections.check_correction(correction)
    alpha = validate.check_fraction("alpha", alpha)
    if isinstance(rng, np.random.Generator):
        raise ValueError("all_pairs needs an integer seed, not a Generator: every baseline's "
                         "comparison starts from the same seed")
    _, seed = validate.check_rng(evaluation.conventions.seed if rng is None else rng)
    names = evaluation.run_names
    if len(names) < 2:
        raise ValueError("all pairs needs at least two runs")
    evaluation, keys = _figures(evaluation, metrics)
    pieces = tuple(
        compare_evaluation(evaluation, baseline=baseline, candidates=names[i + 1:],
                           metrics=keys, correction="none", alpha=alpha,
                           n_permutations=n_permutations, rng=seed, **options)
        for i, baseline in enumerate(names[:-1])
    )
    labels = tuple(evaluation.label(key) for key in keys)
    first = pieces[0]
    means = {label: (first.test(names[1], label).before_mean,
                     *(first.test(name, label).after_mean for name in names[1:]))
             for label in labels}
    shell = AllPairs(evaluation.k, tuple(names), labels, "none", alpha, 0,
                     first.n_permutations, seed, means, {}, {}, {}, (), evaluation.conventions)
    return _assemble(shell, pieces, correction, alpha)


def _assemble(base: AllPairs, pieces: Sequence[Comparison], correction: str,
              alpha: float) -> AllPairs:
    """The matrices of every pair under one correction over all the pieces' tests."""
    corrections.check_correction(correction)
    p = np.array([t.p_randomization for c in pieces for t in c.tests])
    adjusted = corrections.adjust(p, correction)
    position = {name: i for i, name in enumerate(base.runs)}
    size = len(base.runs)
    differences = {label: np.zeros((size, size)) for label in base.metrics}
    p_values = {label: np.ones((size, size)) for label in base.metrics}
    p_adjusted = {label: np.ones((size, size)) for label in base.metrics}
    out, start = [], 0
    for comparison in pieces:
        end = start + len(comparison.tests)
        comparison = comparison.with_adjusted(adjusted[start:end], correction, alpha,
                                              n_comparisons=len(p))
        start = end
        out.append(comparison)
        i = position[comparison.baseline]
        for test in comparison.tests:
            j = position[test.candidate]
            differences[test.metric][j, i] = test.difference
            differences[test.metric][i, j] = -test.difference
            for matrix, value in ((p_values, test.p_randomization),
                                  (p_adjusted, test.p_adjusted)):
                matrix[test.metric][i, j] = matrix[test.metric][j, i] = value
    for matrices in (differences, p_values, p_adjusted):
        for matrix in matrices.values():
            matrix.setflags(write=False)
    return replace(base, correction=correction, alpha=alpha, n_comparisons=len(p),
                   differences=differences, p_values=p_values, p_adjusted=p_adjusted,
                   comparisons=tuple(out))
