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
  metric (``test="paired"``), or through the randomized Tukey HSD of each metric with the
  classic Tukey p and the two-way ANOVA beside it (``test="tukey"``, ``metrics.stats.tukey``);
  per metric a matrix of p and of differences, and the compact letter display. With a minimum
  effect, each pair's equivalence p (TOST) and its decision.

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
from metrics.stats.anova import TwoWayAnova, two_way_anova
from metrics.stats.bootstrap import Resamples, as_resamples, resampled_queries
from metrics.stats.comparison import DEFAULT_PERMUTATIONS, Comparison
from metrics.stats.equivalence import tost_pvalues
from metrics.stats.paired import paired_differences
from metrics.stats.tukey import TukeyHSD, tukey_hsd_figures
from metrics.vocabulary.comparisons import ALPHA, DEFAULT_CORRECTION, decision
from metrics.vocabulary.conventions import Conventions, check_min_effect, check_permutations
from metrics.vocabulary.leaderboard import (
    TIE_TOLERANCE,
    letters_sentence,
    standing_sentence,
)
from metrics.vocabulary.tukey import ALL_PAIRS_TESTS, DEFAULT_ALL_PAIRS_TEST, tukey_sentence

__all__ = [
    "AllPairs",
    "anova_tables",
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
    """Every pair of runs on every metric, read by one test (``test``).

    Matrices are (runs, runs) in ``runs`` order, per metric label: ``differences[m][i, j]``
    is mean(i) − mean(j) (the mean of the paired per-query differences, so the matrix is
    antisymmetric), ``p_values`` the p before any correction and ``p_adjusted`` the p a pair
    is judged by (both symmetric; 1 on the diagonal).

    ``test="paired"``: the paired randomization test of each pair, ``p_adjusted`` under one
    correction over every pair and metric; ``comparisons`` are the paired comparisons made,
    one per baseline (each earlier run against every later one), with their p adjusted over
    the whole family. ``test="tukey"``: the randomized Tukey HSD of each metric (``tukey``,
    per label: its classic p, effect sizes, ANOVA and null distribution), whose p needs no
    correction (``p_values`` and ``p_adjusted`` are both its p); no comparisons are made.

    With ``min_effect``, ``equivalence[m][i, j]`` is the TOST p of the pair's per-query
    differences against ±min_effect (0 on the diagonal), and ``decision`` names each pair's
    verdict. Two are equal when their figures are (``as_dict``): numpy matrices have no
    single truth value to compare by.
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
    test: str = DEFAULT_ALL_PAIRS_TEST
    tukey: dict[str, TukeyHSD] = field(default_factory=dict, repr=False)
    min_effect: float | None = None
    equivalence: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

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

    def decision(self, metric: str, first: str, second: str) -> str:
        """The verdict on second against first (a key of
        ``metrics.vocabulary.comparisons.DECISIONS``): better, worse, below the minimum
        effect, equivalent within it, or no significant difference."""
        label = self.label(metric)
        i, j = self.runs.index(first), self.runs.index(second)
        equivalence = self.equivalence.get(label)
        return decision(float(self.differences[label][j, i]),
                        bool(self.significant(label)[i, j]), self.min_effect,
                        None if equivalence is None else float(equivalence[i, j]),
                        self.alpha)

    def groups(self, metric: str) -> list[tuple[str, ...]]:
        """The significance groups in letter order, each's runs best first."""
        label = self.label(metric)
        order = _best_first(np.array(self.means[label]))
        significant = self.significant(label)[np.ix_(order, order)]
        return [tuple(self.runs[order[p]] for p in group)
                for group in significance_groups(significant)]

    def letters(self, metric: str) -> dict[str, str]:
        """run -> its letters (runs by mean, best first): runs that share a letter do not
        differ significantly at alpha by the test (after the correction, for paired tests)."""
        label = self.label(metric)
        return compact_letters(self.runs, self.means[label], self.significant(label))

    def sentence(self) -> str:
        """What the letters say, with alpha and the test (the correction and the family's
        size, or the Tukey HSD's permutations)."""
        if self.test == "tukey":
            return tukey_sentence(self.alpha, self.n_permutations, self.seed, len(self.runs))
        return letters_sentence(self.alpha, CORRECTIONS[self.correction], self.n_comparisons)

    def adjusted(self, correction: str | None = None, alpha: float | None = None) -> AllPairs:
        """The same tests under another correction or alpha: only the adjustment is redone.
        The Tukey HSD's p needs no correction: only alpha changes."""
        alpha = self.alpha if alpha is None else validate.check_fraction("alpha", alpha)
        correction = self.correction if correction is None else correction
        if self.test == "tukey":  # the correction is recorded, and applies to nothing
            corrections.check_correction(correction)
            return replace(self, correction=correction, alpha=alpha)
        return _assemble(self, self.comparisons, correction, alpha)

    def pair_rows(self) -> list[dict]:
        """One flat dict per (metric, pair), the earlier run as the baseline: the difference
        (candidate − baseline), p, p adjusted, significant, and the decision; with the Tukey
        HSD the classic p and the effect size (difference ÷ √V_E); with a minimum effect the
        equivalence p. Plain Python types; nan (an undefined effect size) is None."""
        rows = []
        for label in self.metrics:
            found = self.tukey.get(label)
            for i, j in combinations(range(len(self.runs)), 2):
                baseline, candidate = self.runs[i], self.runs[j]
                row = {"metric": label, "baseline": baseline, "candidate": candidate,
                       "difference": float(self.differences[label][j, i]),
                       "p": float(self.p_values[label][i, j]),
                       "p_adjusted": float(self.p_adjusted[label][i, j]),
                       "significant": bool(self.significant(label)[i, j])}
                if found is not None:
                    row["p_classic"] = float(found.p_classic[i, j])
                    row["effect_size"] = _finite(found.effect_sizes[j, i])
                if label in self.equivalence:
                    row["p_equivalence"] = float(self.equivalence[label][i, j])
                row["decision"] = self.decision(label, baseline, candidate)
                rows.append(row)
        return rows

    def as_dict(self) -> dict:
        """Plain Python types: per metric label, the means, the matrices as
        {row run: {column run: value}} and the letters; with the Tukey HSD also the classic
        p, the effect sizes and the ANOVA; with a minimum effect the equivalence p."""
        def matrix(values: np.ndarray) -> dict:
            return {a: {b: _finite(values[i, j]) for j, b in enumerate(self.runs)}
                    for i, a in enumerate(self.runs)}

        def figures(label: str) -> dict:
            out = {"means": dict(zip(self.runs, self.means[label], strict=True)),
                   "difference": matrix(self.differences[label]),
                   "p": matrix(self.p_values[label]),
                   "p_adjusted": matrix(self.p_adjusted[label]),
                   "letters": self.letters(label)}
            found = self.tukey.get(label)
            if found is not None:
                out |= {"p_classic": matrix(found.p_classic),
                        "effect_size": matrix(found.effect_sizes),
                        "anova": found.anova.as_dict()}
            if label in self.equivalence:
                out["p_equivalence"] = matrix(self.equivalence[label])
            return out

        return {
            "k": self.k, "test": self.test,
            "correction": self.correction if self.test == "paired" else None,
            "alpha": self.alpha, "n_comparisons": self.n_comparisons,
            "n_permutations": self.n_permutations, "seed": self.seed,
            "min_effect": self.min_effect, "runs": list(self.runs),
            "metrics": {label: figures(label) for label in self.metrics},
        }


def _finite(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def check_test(test: object) -> str:
    """test if it names a way to read every pair (``ALL_PAIRS_TESTS``)."""
    if test not in ALL_PAIRS_TESTS:
        raise ValueError(f"test must be one of {', '.join(ALL_PAIRS_TESTS)}, got {test!r}")
    return test


def all_pairs(evaluation: Evaluation, metrics: Sequence[str] | None = None, *,
              correction: str = DEFAULT_CORRECTION, alpha: float = ALPHA,
              n_permutations: int = DEFAULT_PERMUTATIONS, rng: int | None = None,
              test: str = DEFAULT_ALL_PAIRS_TEST, min_effect: float | None = None,
              **options: Any) -> AllPairs:
    """Every unordered pair of runs compared on each metric (keys or labels; default the
    compared family).

    ``test="paired"`` (the default): the paired randomization test, one correction over all
    pairs and metrics. Each earlier run is the baseline of one ``compare_evaluation`` call
    against every later run, uncorrected; all their p-values are then adjusted as one family.
    ``test="tukey"``: the randomized Tukey HSD of each metric over n_permutations
    permutations (the same permutations for every metric), the classic Tukey HSD p and the
    two-way ANOVA beside it; `correction` is recorded and applies to nothing (the HSD controls
    the family-wise error over each metric's pairs itself). ``min_effect`` (> 0, or None):
    each pair's equivalence p (TOST) and the decisions it changes.

    `rng` is an integer seed (default the conventions' seed) that every call starts from, so
    each pair gets the p-value its own pairwise comparison would: a Generator would be
    consumed call after call, and is refused. Other options (confidence_level, n_resamples)
    go to ``compare_evaluation``; they default to the conventions'.
    """
    corrections.check_correction(correction)
    alpha = validate.check_fraction("alpha", alpha)
    test = check_test(test)
    min_effect = check_min_effect(min_effect)
    n_permutations = check_permutations(n_permutations)
    if isinstance(rng, np.random.Generator):
        raise ValueError("all_pairs needs an integer seed, not a Generator: every baseline's "
                         "comparison starts from the same seed")
    _, seed = validate.check_rng(evaluation.conventions.seed if rng is None else rng)
    names = evaluation.run_names
    if len(names) < 2:
        raise ValueError("all pairs needs at least two runs")
    evaluation, keys = _figures(evaluation, metrics)
    labels = tuple(evaluation.label(key) for key in keys)
    tables = _tables(evaluation, keys)
    equivalence = ({} if min_effect is None else
                   {label: _equivalence(table, min_effect)
                    for label, table in zip(labels, tables, strict=True)})
    if test == "tukey":
        return _tukey_pairs(evaluation, labels, tables, correction, alpha, n_permutations,
                            seed, min_effect, equivalence, options)
    pieces = tuple(
        compare_evaluation(evaluation, baseline=baseline, candidates=names[i + 1:],
                           metrics=keys, correction="none", alpha=alpha,
                           n_permutations=n_permutations, rng=seed, min_effect=min_effect,
                           **options)
        for i, baseline in enumerate(names[:-1])
    )
    first = pieces[0]
    means = {label: (first.test(names[1], label).before_mean,
                     *(first.test(name, label).after_mean for name in names[1:]))
             for label in labels}
    shell = AllPairs(evaluation.k, tuple(names), labels, "none", alpha, 0,
                     first.n_permutations, seed, means, {}, {}, {}, (), evaluation.conventions,
                     min_effect=min_effect, equivalence=equivalence)
    return _assemble(shell, pieces, correction, alpha)


def anova_tables(evaluation: Evaluation, metrics: Sequence[str] | None = None
                 ) -> dict[str, TwoWayAnova]:
    """The two-way ANOVA without replication (query x run) of each metric (keys or labels;
    default the compared family) over every run and scored query, by label; the margin of
    error at the conventions' confidence level."""
    if len(evaluation.run_names) < 2:
        raise ValueError("an ANOVA of runs needs at least two runs")
    evaluation, keys = _figures(evaluation, metrics)
    level = evaluation.conventions.confidence_level
    return {evaluation.label(key): two_way_anova(table, confidence_level=level)
            for key, table in zip(keys, _tables(evaluation, keys), strict=True)}


def _tables(evaluation: Evaluation, keys: Sequence[str]) -> list[np.ndarray]:
    """Each figure's per-query scores (scored queries, runs), runs in the evaluation's
    order."""
    scores = [evaluation.per_query_scores(name) for name in evaluation.run_names]
    n = len(evaluation.scored_ids)
    return [np.column_stack([s[key] for s in scores]).reshape(n, len(scores)) for key in keys]


def _equivalence(table: np.ndarray, min_effect: float) -> np.ndarray:
    """(runs, runs) TOST p of every pair's per-query differences against ±min_effect, 0 on
    the diagonal (a run is the same as itself)."""
    runs = table.shape[1]
    first, second = np.triu_indices(runs, 1)
    p = tost_pvalues(paired_differences(table[:, second], table[:, first]), margin=min_effect)
    matrix = np.zeros((runs, runs))
    matrix[first, second] = matrix[second, first] = p
    matrix.setflags(write=False)
    return matrix


def _tukey_pairs(evaluation: Evaluation, labels: tuple[str, ...], tables: list[np.ndarray],
                 correction: str, alpha: float, n_permutations: int, seed: int,
                 min_effect: float | None, equivalence: dict[str, np.ndarray],
                 options: dict[str, Any]) -> AllPairs:
    """all_pairs by the randomized Tukey HSD: one call over every metric's table, the same
    permutations for each (a metric's p is that of a call on it alone)."""
    level = options.get("confidence_level", evaluation.conventions.confidence_level)
    found = tukey_hsd_figures(np.stack(tables, axis=2), n_permutations=n_permutations,
                              rng=seed, confidence_level=level)
    tukey = dict(zip(labels, found, strict=True))
    runs = len(evaluation.run_names)
    return AllPairs(
        evaluation.k, tuple(evaluation.run_names), labels, correction, alpha,
        len(labels) * runs * (runs - 1) // 2, n_permutations, seed,
        {label: tuple(float(v) for v in hsd.means) for label, hsd in tukey.items()},
        {label: hsd.differences for label, hsd in tukey.items()},
        {label: hsd.p_randomized for label, hsd in tukey.items()},
        {label: hsd.p_randomized for label, hsd in tukey.items()},
        (), evaluation.conventions, test="tukey", tukey=tukey, min_effect=min_effect,
        equivalence=equivalence)


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
