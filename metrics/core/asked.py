"""The measures an evaluation is asked for beyond the ones it shows by default, scored.

A `Spec` (a measure as a name asks for it: ``P(rel=2)@5``, ``RBP(p=0.9)``, ``Rprec``) is read
under its own reading: the conventions in force with its own parameters set (a relevance
level, a gain, judged-only lists, AP, RR or nDCG read whole) and its own persistence. One kernel
call per run and reading serves every spec that reads it. A spec read as the evaluation
reads adds its measures to the run's own `Scores`, where the explanations find them; a spec
with a reading of its own keeps its curves apart (`Asked.curves`).

Each asked figure is averaged over the evaluation's scored queries, like every other figure:
a query with no id at the spec's own relevance level scores 0 there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics.core.diversity import (
    Subtopics,
    SubtopicSet,
    align_subtopics,
    diversity,
    prepare_subtopics,
)
from metrics.core.kernel import Curves, Scores, compute, extend
from metrics.core.ranking import AlignedRun, QuerySet, align, prepare_query_set
from metrics.io import Qrels, Run
from metrics.vocabulary import MEASURE_BY_KEY
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.measures import ALPHA, BETA, PERSISTENCE, Q_BETA, RECALL
from metrics.vocabulary.names import Spec, distinct, parse_measure, recall_spec

__all__ = ["Reading", "Readings", "as_specs", "brought", "diversity_reading", "figures_at",
           "reading", "summary_methods", "value_key"]


@dataclass(frozen=True)
class Reading:
    """What one kernel call scores under: the conventions, RBP's persistence and the measures
    read over the full list by a parameter of their own (nDCG's read=full)."""

    conventions: Conventions
    persistence: float
    whole: tuple[str, ...] = ()
    beta: float = Q_BETA.default  # Q-measure's blended ratio


def reading(spec: Spec, conventions: Conventions) -> Reading:
    p = spec.given.get(PERSISTENCE.name, PERSISTENCE.default)
    whole = (spec.measure.key,) if spec.whole_by_itself else ()
    beta = spec.given.get(Q_BETA.name, Q_BETA.default) if Q_BETA in spec.measure.parameters \
        else Q_BETA.default
    return Reading(spec.conventions(conventions), float(p), whole, float(beta))


def value_key(spec: Spec) -> str:
    """The key the kernel gives the spec's values: its measure's, or for an interpolated
    precision that of its level ("IPrec@0.5")."""
    level = spec.given.get(RECALL.name)
    return spec.measure.key if level is None else recall_spec(level).key


def as_specs(measures: Iterable[Spec | str]) -> tuple[Spec, ...]:
    """Names or specs -> specs, each read by `parse_measure` (a ValueError names a bad one)."""
    return distinct(m if isinstance(m, Spec) else parse_measure(m) for m in measures)


def brought(specs: Iterable[Spec]) -> tuple[Spec, ...]:
    """The specs with what each brings along, right after it (RBP its residual, at the same
    persistence, cutoff and judged-only choice)."""
    out = []
    for spec in specs:
        out.append(spec)
        for key in spec.measure.brings:
            measure = MEASURE_BY_KEY[key]
            takes = {p.name for p in measure.parameters}
            out.append(Spec(measure, tuple((n, v) for n, v in spec.parameters if n in takes),
                            spec.cutoff))
    return distinct(out)


@dataclass(eq=False)
class Readings:
    """The lists and labels under each reading an evaluation's specs need, each built once:
    the query set at a relevance level, and a run's lists under another relevance level or
    unjudged choice, as wide as the evaluation's."""

    qrels: Qrels
    query_set: QuerySet  # the evaluation's, at its relevance level
    conventions: Conventions  # the evaluation's
    width: int
    subtopics: Subtopics | None = None  # the subtopic qrels the diversity measures read
    _query_sets: dict[int, QuerySet] = field(default_factory=dict)
    _subtopic_sets: dict[int, SubtopicSet] = field(default_factory=dict)

    def subtopic_set(self, level: int) -> SubtopicSet:
        """The subtopic judgments on the query set's rows at a relevance level, once."""
        if level not in self._subtopic_sets:
            self._subtopic_sets[level] = prepare_subtopics(
                self.query_set.query_ids, self.subtopics.judged, relevance_level=level,
                intents=self.subtopics.intents)
        return self._subtopic_sets[level]

    def diverse(self, aligned: AlignedRun, run: Run, specs: Sequence[Spec]
                ) -> tuple[dict[str, Curves], dict[tuple, dict]]:
        """The curves of the specs that read the subtopic qrels (metrics.core.diversity),
        one kernel call per relevance level, alpha and beta; the lists as the evaluation
        reads them. And the parts each call states (`diversity_reading` keys them), with the
        subtopics' names and weights: what the drill-down writes out."""
        if not specs:
            return {}, {}
        if self.subtopics is None:
            raise ValueError(f"{specs[0].name()} reads the subtopic qrels (query_id "
                             "subtopic_id doc_id grade): give them (--subtopic-qrels FILE)")
        groups: dict[tuple, list[Spec]] = {}
        for spec in specs:
            groups.setdefault(diversity_reading(spec, self.conventions), []).append(spec)
        curves, parts = {}, {}
        for group, chosen in groups.items():
            _, level, alpha, beta = group
            subtopics = self.subtopic_set(level)
            covers = align_subtopics(subtopics, run, aligned.row, aligned.repeat)
            values, stated = diversity(subtopics, covers, [s.measure.key for s in chosen],
                                       alpha=alpha, beta=beta)
            curves |= {s.key: values[s.measure.key] for s in chosen}
            parts[group] = stated | {"names": subtopics.subtopic_names,
                                     "weight": subtopics.weight,
                                     "n_relevant": subtopics.n_relevant}
        return curves, parts

    def query_set_at(self, level: int) -> QuerySet:
        if level == self.query_set.relevance_level:
            return self.query_set
        if level not in self._query_sets:
            self._query_sets[level] = prepare_query_set(self.qrels, relevance_level=level)
        return self._query_sets[level]

    def lists(self, aligned: AlignedRun, run: Run, under: Conventions) -> AlignedRun:
        """The run's lists as `under` scores them, from the evaluation's (`aligned`)."""
        if under.unjudged != self.conventions.unjudged:
            # the evaluation holds its lists condensed, or not: the other choice reads the
            # lists as read, condensed or not
            aligned = (aligned.judged_only() if under.unjudged == "drop"
                       else align(self.query_set, run).padded(self.width))
        if under.relevance_level != self.query_set.relevance_level:
            aligned = dataclasses.replace(
                aligned, relevant=aligned.judged & (aligned.grade >= under.relevance_level))
        return aligned

    def score(self, aligned: AlignedRun, run: Run, scores: Scores,
              specs: Sequence[Spec]) -> tuple[Scores, dict[str, Curves], dict[str, Scores]]:
        """The run's scores with the specs read as the evaluation reads added, the curves of
        every spec by its key, and the scores of each other reading (what explains those)."""
        curves, others = self.diverse(aligned, run, [s for s in specs if s.measure.subtopics])
        specs = [s for s in specs if not s.measure.subtopics]
        groups: dict[Reading, list[Spec]] = {}
        for spec in specs:
            groups.setdefault(reading(spec, self.conventions), []).append(spec)
        base = Reading(self.conventions, PERSISTENCE.default)
        for read, chosen in groups.items():
            wanted = list(dict.fromkeys(s.measure.key for s in chosen))
            levels = sorted({s.given[RECALL.name] for s in chosen if RECALL.name in s.given})
            options = dict(persistence=read.persistence, recall_levels=levels,
                           beta=read.beta)
            if read == base:
                scores = extend(scores, self.query_set, aligned, wanted, **options)
                found = scores
            else:
                under = read.conventions
                found = compute(self.query_set_at(under.relevance_level),
                                self.lists(aligned, run, under), under, wanted,
                                whole=read.whole, **options)
                others[read] = found
            curves |= {s.key: found.values[value_key(s)] for s in chosen}
        return scores, curves, others


def diversity_reading(spec: Spec, conventions: Conventions) -> tuple:
    """What one diversity kernel call scores under, for a spec that reads the subtopic
    qrels: ("subtopics", relevance level, alpha, beta); the key of its parts among a run's
    readings."""
    level = spec.given.get("rel") or conventions.relevance_level
    alpha = float(spec.given.get(ALPHA.name, ALPHA.default))
    beta = float(spec.given.get(BETA.name, BETA.default))
    return ("subtopics", int(level), alpha, beta)


def summary_methods(specs: Sequence[Spec]) -> dict[str, str]:
    """Each spec's key -> its interval (Wilson for a 0/1 outcome, the bootstrap otherwise)."""
    return {spec.key: spec.measure.interval for spec in specs}


def figures_at(curves: dict[str, Curves], specs: Sequence[Spec], k: int,
               rows: np.ndarray | slice = slice(None)) -> dict[str, np.ndarray]:
    """Each spec's per-query values at its K (its own cutoff, else `k`), on `rows`."""
    return {spec.key: curves[spec.key][:, spec.k(k) - 1][rows] for spec in specs}
