"""Would another reasonable convention change the conclusion? Each verdict of a comparison
(the sign and significance of every candidate's difference, and the best run per metric) is
recomputed under every other choice of each convention the vocabulary marks `in_fragility`,
one at a time, and under the other paired tests.

Only what a choice changes is recomputed: the compared runs' per-query figures at K (their
lists cut at K unless a figure reads the full list), then the randomization p of the columns
whose differences changed, all in one call on the comparison's own flips (same seed, same
draws as `compare`), so a verdict under a choice is exactly the one a comparison scored under
that choice would give. The family and correction stay the comparison's: the other p-values
are reused as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from metrics.core.asked import Readings
from metrics.core.evaluate import Evaluation, scored_queries
from metrics.core.kernel import compute
from metrics.core.prepared import lists_as_read, prepare
from metrics.core.ranking import AlignedRun, QuerySet, prepare_query_set
from metrics.io import Run
from metrics.stats import corrections, paired
from metrics.stats.bootstrap import draw_resamples
from metrics.stats.comparison import Comparison
from metrics.vocabulary import CONVENTION_BY_FIELD, CONVENTIONS
from metrics.vocabulary import fragility as words
from metrics.vocabulary.comparisons import MANY_QUERIES, rank_tests_note
from metrics.vocabulary.conventions import Conventions

# run order -> the compared runs read again in that order (None: no run reads differently)
Reread = Callable[[str], Sequence[Run] | None]


@dataclass(frozen=True)
class Flip:
    """One verdict that changes under one alternative choice."""

    candidate: str  # words.BEST_RUN when the best run per metric changes
    metric: str
    convention: str  # a convention's field, or words.TEST_FIELD
    choice: str
    verdict: str
    verdict_under_choice: str
    # beside a verdict the Wilcoxon test makes significant over thousands of queries: what
    # that is worth (metrics.vocabulary.comparisons.rank_tests_note); said, not a JSON key
    note: str = dataclasses.field(default="", compare=False)

    def as_dict(self) -> dict[str, str]:
        return {key: value for key, value in dataclasses.asdict(self).items()
                if key != "note"}

    @property
    def title(self) -> str:
        """The convention's name as a control shows it."""
        if self.convention == words.TEST_FIELD:
            return words.TEST_TITLE
        return CONVENTION_BY_FIELD[self.convention].title

    @property
    def choice_label(self) -> str:
        if self.convention == words.TEST_FIELD:
            return words.PAIRED_TESTS[self.choice]
        return CONVENTION_BY_FIELD[self.convention].label(_typed(self.convention, self.choice))

    @property
    def sentence(self) -> str:
        said = words.flip_sentence(self.candidate, self.metric, self.title, self.choice_label,
                                   self.verdict, self.verdict_under_choice)
        return f"{said} ({self.note})" if self.note else said


@dataclass(frozen=True)
class Fragility:
    """Every alternative tried, the verdicts held, and the flips."""

    verdicts: dict[tuple[str, str], str]  # (candidate or BEST_RUN, metric) -> verdict
    tried: tuple[tuple[str, str], ...]  # (convention, choice) in the order tried
    skipped: tuple[tuple[str, str], ...]  # (convention, why it was not tried)
    flips: tuple[Flip, ...]

    def robust(self, candidate: str, metric: str) -> bool:
        return not any(f.candidate == candidate and f.metric == metric for f in self.flips)

    def flipped(self) -> set[tuple[str, str]]:
        return {(f.candidate, f.metric) for f in self.flips}

    @property
    def summary(self) -> str:
        return words.summary_sentence(len(self.verdicts), len(self.flipped()), len(self.tried))

    def rows(self) -> list[dict[str, str]]:
        """The flips, JSON-ready: candidate, metric, convention, choice, verdict and
        verdict_under_choice."""
        return [flip.as_dict() for flip in self.flips]


def alternatives(evaluation: Evaluation, reread: Reread | None = None
                 ) -> tuple[list[tuple[str, object]], list[tuple[str, str]]]:
    """(field, value) of every other choice the check tries, and what it skips and why."""
    conventions, tried, skipped = evaluation.conventions, [], []
    for convention in CONVENTIONS:
        if not convention.in_fragility:
            continue
        current = getattr(conventions, convention.field)
        if convention.field == "relevance_level":
            if int(evaluation.qrels.grade.max(initial=0)) < 2:
                skipped.append((convention.field, words.NOT_APPLICABLE[convention.field]))
                continue
            tried.append((convention.field, 2 if current == 1 else 1))
        elif convention.field == "order" and reread is None:
            skipped.append((convention.field, words.NOT_APPLICABLE[convention.field]))
        else:
            tried += [(convention.field, value) for value in convention.values
                      if value != current]
    return tried, skipped


def fragility(evaluation: Evaluation, comparison: Comparison, *,
              reread: Reread | None = None) -> Fragility:
    """The comparison's verdicts under every alternative choice. `comparison` must compare
    runs of `evaluation` at its K (as compare_evaluation does, on all or some of its scored
    queries); `reread(order)` gives the runs read in the other TREC order, when any can be."""
    names = (comparison.baseline, *comparison.candidates)
    evaluation = evaluation.with_measures(comparison.metrics)
    specs = [evaluation.resolve(label) for label in comparison.metrics]
    keys = [spec.key for spec in specs]
    rows = _rows_of(evaluation.query_set, comparison.query_ids)
    base = _Verdicts.of(comparison, names, _means(comparison, names))
    tried, skipped = alternatives(evaluation, reread)
    flips: list[Flip] = []
    same_n: list[tuple[str, object, np.ndarray, dict]] = []
    for field, value in tried:
        if field == "order":
            runs = reread(str(value))
            if runs is None:
                skipped.append((field, words.NOT_APPLICABLE[field]))
                continue
        scores = _scores_under(evaluation, names, specs, field, value,
                               runs if field == "order" else None)
        if field == "relevance_level":
            chosen = _rows_under_level(evaluation, comparison, scores.query_set)
            flips += base.flips(field, value, _reread_verdicts(comparison, names, keys, scores,
                                                               chosen))
        else:
            same_n.append((field, value, rows, scores.values))
    flips += _same_queries(comparison, names, keys, base, same_n)
    for test in ("t", "wilcoxon"):
        p = np.array([getattr(t, f"p_{test}") for t in comparison.tests])
        found = base.flips(words.TEST_FIELD, test, base.with_p(comparison, p))
        if test == "wilcoxon" and len(comparison.query_ids) >= MANY_QUERIES:
            # a verdict made significant by the rank test at this size says what it is worth
            note = rank_tests_note(len(comparison.query_ids), comparison.min_effect)
            found = [dataclasses.replace(flip, note=note)
                     if flip.verdict_under_choice != words.UNCLEAR else flip for flip in found]
        flips += found
    tried.extend((words.TEST_FIELD, test) for test in ("t", "wilcoxon"))
    return Fragility(base.all(), tuple((f, str(v)) for f, v in tried),
                     tuple(skipped), tuple(flips))


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class _Verdicts:
    """The verdicts of one reading: per test (candidate, metric) and the best run per metric."""

    tests: dict[tuple[str, str], str]
    best: dict[str, str]

    @classmethod
    def of(cls, comparison: Comparison, names: Sequence[str],
           means: dict[str, dict[str, float]], differences: np.ndarray | None = None,
           p: np.ndarray | None = None) -> _Verdicts:
        best = {}
        for metric in comparison.metrics:
            top = max(means[name][metric] for name in names)
            best[metric] = words.best_verdict(
                tuple(name for name in names if means[name][metric] == top))
        return cls(_test_verdicts(comparison, differences, p), best)

    def with_p(self, comparison: Comparison, p: np.ndarray) -> _Verdicts:
        """The same readings judged on other p-values (another paired test)."""
        return _Verdicts(_test_verdicts(comparison, None, p), self.best)

    def all(self) -> dict[tuple[str, str], str]:
        return {**self.tests, **{(words.BEST_RUN, m): v for m, v in self.best.items()}}

    def flips(self, field: str, value: object, other: _Verdicts) -> list[Flip]:
        found = [Flip(candidate, metric, field, str(value), verdict, other.tests[candidate, metric])
                 for (candidate, metric), verdict in self.tests.items()
                 if other.tests[candidate, metric] != verdict]
        found += [Flip(words.BEST_RUN, metric, field, str(value), verdict, other.best[metric])
                  for metric, verdict in self.best.items() if other.best[metric] != verdict]
        return found


def _test_verdicts(comparison: Comparison, differences: np.ndarray | None,
                   p: np.ndarray | None) -> dict[tuple[str, str], str]:
    """Each test's verdict from its differences (default the comparison's) and raw p
    (default its randomization p), adjusted under the comparison's correction."""
    p = np.array([t.p_randomization for t in comparison.tests]) if p is None else p
    adjusted = corrections.adjust(p, comparison.correction)
    verdicts = {}
    for j, test in enumerate(comparison.tests):
        d = test.differences if differences is None else differences[:, j]
        verdicts[test.candidate, test.metric] = words.verdict(
            float(d.mean()) if len(d) else 0.0, bool(adjusted[j] < comparison.alpha))
    return verdicts


def _means(comparison: Comparison, names: Sequence[str]) -> dict[str, dict[str, float]]:
    means = {name: {} for name in names}
    for test in comparison.tests:
        means[comparison.baseline][test.metric] = test.before_mean
        means[test.candidate][test.metric] = test.after_mean
    return means


# --------------------------------------------------------------------------- rescoring


@dataclass(frozen=True)
class _Rescored:
    query_set: QuerySet
    values: dict[str, dict[str, np.ndarray]]  # run -> measure key -> per query-set row


def _scores_under(evaluation: Evaluation, names: Sequence[str], specs: Sequence,
                  field: str, value: object, runs: Sequence[Run] | None) -> _Rescored:
    """The compared runs' per-query figures at their K under one other choice (a figure whose
    name sets that convention keeps its own)."""
    conventions = dataclasses.replace(evaluation.conventions, **{field: value})
    query_set = evaluation.query_set
    if field == "relevance_level":
        query_set = prepare_query_set(evaluation.qrels, relevance_level=int(value))
    if runs is not None:
        prepared = prepare(evaluation.qrels, list(runs),
                           relevance_level=conventions.relevance_level,
                           identical_ids=conventions.identical_ids)
        aligned = dict(zip((r.name for r in runs), prepared.aligned, strict=True))
    else:
        aligned = {name: evaluation.run(name).aligned for name in names}
    # the lists cut at K unless a figure reads past it
    depth = max((None if s.reads_whole(conventions) else s.k(evaluation.k) for s in specs),
                key=lambda d: float("inf") if d is None else d, default=evaluation.k)
    values = {}
    for name in names:
        run = _as_scored(name, aligned[name], evaluation, conventions, query_set, field, depth)
        readings = Readings(evaluation.qrels, query_set, conventions, run.width)
        _, curves, _ = readings.score(run, evaluation.run(name).run,
                                      compute(query_set, run, conventions), specs)
        values[name] = {s.key: curves[s.key][:, s.k(evaluation.k) - 1] for s in specs}
    return _Rescored(query_set, values)


def _as_scored(name: str, run: AlignedRun, evaluation: Evaluation, conventions: Conventions,
               query_set: QuerySet, field: str, depth: int | None) -> AlignedRun:
    """One run's aligned lists as the other choice scores them, down to `depth` (None: the
    whole list)."""
    if field == "unjudged":
        # the evaluation holds the lists as its own choice read them
        run = run.judged_only() if conventions.unjudged == "drop" else lists_as_read(
            evaluation.run(name), evaluation.query_set, "drop")
    elif field == "relevance_level":
        level = query_set.relevance_level
        run = dataclasses.replace(run, relevant=run.judged & (run.grade >= level))
    elif field == "order" and conventions.unjudged == "drop":
        run = run.judged_only()
    if conventions.rr == "full" or conventions.ap == "full" or depth is None:
        return run  # a figure reads the whole list
    return run.truncated(depth)


def _rows_of(query_set: QuerySet, query_ids: Sequence[str]) -> np.ndarray:
    position = {str(q): i for i, q in enumerate(query_set.query_ids)}
    return np.array([position[q] for q in query_ids], dtype=np.int64)


def _rows_under_level(evaluation: Evaluation, comparison: Comparison,
                      query_set: QuerySet) -> np.ndarray:
    """The queries a comparison under another relevance level pairs on: those scored at that
    level, within the evaluation's filter, and within the comparison's slice if it has one."""
    conventions = dataclasses.replace(evaluation.conventions,
                                      relevance_level=query_set.relevance_level)
    chosen = scored_queries(query_set, conventions)
    if evaluation.within is not None:
        chosen &= evaluation.within.mask
    if len(comparison.query_ids) < int(evaluation.scored.sum()):  # a slice of the queries
        sliced = np.zeros_like(chosen)
        sliced[_rows_of(query_set, comparison.query_ids)] = True
        chosen &= sliced
    return np.flatnonzero(chosen)


def _columns(comparison: Comparison, names: Sequence[str], keys: Sequence[str],
             values: dict[str, dict[str, np.ndarray]], rows: np.ndarray) -> np.ndarray:
    """Per-query differences (queries x tests) in the comparison's test order."""
    key_of = dict(zip(comparison.metrics, keys, strict=True))
    return paired.paired_differences(
        np.column_stack([values[t.candidate][key_of[t.metric]][rows] for t in comparison.tests]),
        np.column_stack([values[comparison.baseline][key_of[t.metric]][rows]
                         for t in comparison.tests]))


def _means_of(comparison: Comparison, names: Sequence[str], keys: Sequence[str],
              values: dict[str, dict[str, np.ndarray]], rows: np.ndarray
              ) -> dict[str, dict[str, float]]:
    return {name: {label: float(values[name][key][rows].mean()) if len(rows) else 0.0
                   for label, key in zip(comparison.metrics, keys, strict=True)}
            for name in names}


def _flips_p(comparison: Comparison, differences: np.ndarray) -> np.ndarray:
    """Randomization p of each column on the flips `compare` draws for this many queries."""
    rng = np.random.default_rng(comparison.seed)
    draw_resamples(differences.shape[0], n_resamples=comparison.n_resamples, rng=rng)
    return paired.sign_flip_pvalues(differences, n_permutations=comparison.n_permutations,
                                    rng=rng)


def _same_queries(comparison: Comparison, names: Sequence[str], keys: Sequence[str],
                  base: _Verdicts, alternatives: list[tuple[str, object, np.ndarray, dict]]
                  ) -> list[Flip]:
    """Flips under the choices that pair on the comparison's own queries: every changed
    column of every choice tested in one call on the shared flips."""
    original = np.column_stack([t.differences for t in comparison.tests])
    p_original = np.array([t.p_randomization for t in comparison.tests])
    readings, changed = [], []
    for field, value, rows, values in alternatives:
        differences = _columns(comparison, names, keys, values, rows)
        moved = np.flatnonzero((differences != original).any(axis=0))
        readings.append((field, value, differences, _means_of(comparison, names, keys, values,
                                                               rows), moved))
        changed.append(differences[:, moved])
    if not readings:
        return []
    stacked = np.concatenate(changed, axis=1)
    p_changed = _flips_p(comparison, stacked) if stacked.shape[1] else np.zeros(0)
    flips, at = [], 0
    for field, value, differences, means, moved in readings:
        p = p_original.copy()
        p[moved] = p_changed[at:at + len(moved)]
        at += len(moved)
        flips += base.flips(field, value, _Verdicts.of(comparison, names, means, differences, p))
    return flips


def _reread_verdicts(comparison: Comparison, names: Sequence[str], keys: Sequence[str],
                     scores: _Rescored, rows: np.ndarray) -> _Verdicts:
    """Verdicts on another set of queries (another relevance level scores others)."""
    means = _means_of(comparison, names, keys, scores.values, rows)
    if len(rows) < 2:  # nothing left to test: no difference can be told
        zeros = np.zeros((len(rows), len(comparison.tests)))
        return _Verdicts.of(comparison, names, means, zeros, np.ones(len(comparison.tests)))
    differences = _columns(comparison, names, keys, scores.values, rows)
    return _Verdicts.of(comparison, names, means, differences, _flips_p(comparison, differences))


def _typed(field: str, choice: str) -> object:
    """A choice as its convention holds it (the relevance level is a number)."""
    return int(choice) if field == "relevance_level" else choice
