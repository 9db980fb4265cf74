"""evaluate(qrels, runs, k, conventions) -> Evaluation: the in-memory driver.

It reads (the runs aligned on the query set, `metrics.core.prepared`), runs the kernel over
the query set as one block (`metrics.core.kernel.compute`: each query's figures at every K),
then aggregates what it returned: each run's means and intervals (`metrics.stats.summary`),
its query classes, k suggestion and diagnosis (`metrics.core.diagnosis`). Aggregation reads
the per-query figures and their facts (list lengths, repeats), never a ranked list; the
lists stay on the Evaluation for the views that explain one query.

The bootstrap draws one set of resampled queries per call and applies it to every metric of
every run (in one pass over the resamples, `metrics.stats.bootstrap`), so intervals are
reproducible to the last digit and comparable across runs.

The figures shown are the default summary measures, then those asked for (`measures=`, or
`Evaluation.with_measures`): ``Rprec``, ``P(rel=2)@5``, ``RBP(p=0.9)``... each a `Spec`
scored under its own reading (`metrics.core.asked`), over the same scored queries. A figure
asked for never changes the default ones: its intervals come from their own call on the same
resampled queries.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa

from metrics.core.asked import Readings, as_specs, brought, figures_at, summary_methods
from metrics.core.diagnosis import Finding, Suggestion, k_curves, query_classes, run_readings
from metrics.core.diversity import Subtopics
from metrics.core.kernel import MEASURES, SUMMARY_MEASURES, Curves, Scores, compute, regained
from metrics.core.per_query import long_table
from metrics.core.prepared import Prepared, prepare, with_identical, with_unjudged
from metrics.core.ranking import AlignedRun, QuerySet
from metrics.io import LoadReport, Qrels, ReportLine, Run
from metrics.io.names import plain_name
from metrics.stats.bootstrap import Resamples, resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.standardise import Population
from metrics.stats.summary import summarise_runs, sweep_bands
from metrics.vocabulary import format as fmt
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k, check_sweep
from metrics.vocabulary.engines import ONLY_DEFAULTS
from metrics.vocabulary.names import Spec, default_spec, parse_measure
from metrics.vocabulary.slices import FILTER_SENTENCE

if TYPE_CHECKING:
    import pandas as pd


# the figures shown by default: the summary's, and the per-query ones (DCG and IDCG too)
DEFAULT_SUMMARY: tuple[Spec, ...] = tuple(default_spec(m) for m in SUMMARY_MEASURES)
DEFAULT_PER_QUERY: tuple[Spec, ...] = tuple(default_spec(m) for m in MEASURES)


def _pandas() -> ModuleType:
    """pandas only for the tidy frames: importing it costs the command line ~0.4 s."""
    import pandas

    return pandas


class FiguresShown:
    """How any driver's result names the figures it shows (read from its `query_specs`, `k`
    and `conventions`): by key, label or any name a measure is asked by."""

    def resolve(self, metric: str | Spec) -> Spec:
        """The figure a name, key or label stands for at this K and these conventions:
        'MRR@5', 'RR', 'nDCG', 'P(rel=2)@5', 'Rprec', trec_eval's 'map'. A figure shown is
        found by its key or label; any other name is read (ValueError naming a bad one)."""
        return resolve_among(self.query_specs, metric, self.k, self.conventions)

    def spec(self, key: str) -> Spec:
        """A figure shown, by its key."""
        for spec in self.query_specs:
            if spec.key == key:
                return spec
        shown = ", ".join(s.key for s in self.query_specs)
        raise ValueError(f"{key!r} is not among the figures scored: {shown}")

    def label(self, key: str, *, summary: bool = True) -> str:
        """A figure's label at K under the conventions: 'MRR@5' (or 'MRR' while RR is read
        over the full list), 'P(rel=2)@5', 'Rprec'."""
        return self.spec(key).label(self.k, self.conventions, summary=summary)


@dataclass(frozen=True, eq=False)
class RunEvaluation:
    name: str
    run: Run
    aligned: AlignedRun
    scores: Scores  # every query of the query set (excluded ones too), every K
    classes: np.ndarray  # class at K of each scored query, query-set order
    summary: dict[str, Interval]  # summary measure key ("P", "RR", ...) -> mean and interval at K
    suggestion: Suggestion
    diagnosis: tuple[Finding, ...]
    missing_queries: tuple[str, ...]  # qrels queries the run has no list for (they score 0)
    repeats: int  # repeated ids over the scored queries' whole lists (per-query rows sum to it)
    report: LoadReport | None
    # the sweep's means and intervals, computed once: they depend only on this run's scores,
    # the evaluation's scored queries and conventions (fixed for this object), and
    # Evaluation.select hands the same dict to every selection or renaming of the run
    sweep_memo: dict = field(default_factory=dict, repr=False)
    # every figure asked for beyond the defaults, by spec key: its per-query curves over K
    asked: dict[str, Curves] = field(default_factory=dict, repr=False)
    # the scores of each reading of its own an asked figure has (what explains it)
    readings: dict = field(default_factory=dict, repr=False)

    def curves(self, key: str) -> Curves:
        """One figure's per-query curves over K, a default measure's or an asked one's."""
        return self.asked[key] if key in self.asked else self.scores.values[key]

    @property
    def ignored_queries(self) -> tuple[str, ...]:
        """The run's queries the qrels do not hold (ignored), in the order it gives them."""
        return self.aligned.ignored_queries


@dataclass(frozen=True, eq=False)
class Within:
    """The queries a filter keeps: a mask over the query set and the words that chose it."""

    mask: np.ndarray  # (n_queries,) bool over query_set.query_ids
    description: str  # "intent = navigational"
    of: int  # the scored queries of the whole query set


@dataclass(frozen=True, eq=False)
class Evaluation(FiguresShown):
    engine: ClassVar[str] = "memory"  # the engine that scored it (metrics.vocabulary.engines)
    k: int
    conventions: Conventions
    qrels: Qrels  # the labels as loaded (fingerprints and exports read them)
    query_set: QuerySet
    runs: tuple[RunEvaluation, ...]
    sweep_range: tuple[int, int]
    scored: np.ndarray  # (n_queries,) bool: the queries every mean runs over
    qrels_report: LoadReport | None = None
    within: Within | None = None  # the filter that chose the queries, None for all of them
    asked: tuple[Spec, ...] = ()  # the figures asked for beyond the defaults, in order
    subtopics: Subtopics | None = None  # the subtopic qrels the diversity measures read
    # a standardised evaluation (metrics.core.standardise): the sentence said once, and the
    # words said beside every figure; "" for raw figures
    standardised: str = ""
    standardised_words: str = ""
    population: Population | None = None  # what it was standardised against, None when raw

    @property
    def summary_specs(self) -> tuple[Spec, ...]:
        """The figures every summary shows: the default summary measures, then those asked
        for (a per-query explanation such as DCG stays out)."""
        return DEFAULT_SUMMARY + tuple(s for s in self.asked if s.measure.in_summary)

    @property
    def query_specs(self) -> tuple[Spec, ...]:
        """The per-query figures: the default measures (DCG and IDCG too), then those asked."""
        return DEFAULT_PER_QUERY + self.asked

    @property
    def sweep_specs(self) -> tuple[Spec, ...]:
        """The summary figures a sweep over K draws (`sweep_specs_of`)."""
        return sweep_specs_of(self.summary_specs, self.conventions)

    @property
    def query_ids(self) -> np.ndarray:
        """Every query of the query set, in its order."""
        return self.query_set.query_ids

    def query_repeats(self, name: str) -> np.ndarray:
        """Each scored query's repeated ids in the run's list."""
        return self.run(name).aligned.repeats[self.scored]

    def with_measures(self, measures) -> Evaluation:
        """The same evaluation with more figures (names or specs: 'Rprec', 'P(rel=2)@5',
        'RBP(p=0.9)'; RBP brings its residual), each scored under its own reading over the
        same queries. Those shown already are not scored again; nothing else changes."""
        present = {s.key for s in self.query_specs}
        new = [s for s in brought(self.resolve(m) for m in as_specs(measures))
               if s.key not in present]
        if not new:
            return self
        if self.standardised:  # a raw figure beside standardised ones would be misread
            raise ValueError(f"the figures are standardised: {new[0].key} cannot be added "
                             "raw; ask for it before standardising")
        c, query_set = self.conventions, self.query_set
        readings = Readings(self.qrels, query_set, c, self.runs[0].aligned.width,
                            self.subtopics)
        resamples = resampled_queries(int(self.scored.sum()), seed=c.seed,
                                      n_resamples=c.n_resamples)
        scored = [readings.score(run.aligned, run.run, run.scores, new) for run in self.runs]
        summaries = summarise_runs(
            [figures_at(curves, new, self.k, self.scored) for _, curves, _ in scored],
            resamples, c, summary_methods([s for s in new if s.measure.in_summary]))
        runs = [dataclasses.replace(run, scores=scores, summary=run.summary | summary,
                                    sweep_memo={}, asked=run.asked | curves,
                                    readings=run.readings | others)
                for run, (scores, curves, others), summary
                in zip(self.runs, scored, summaries, strict=True)]
        return dataclasses.replace(self, runs=tuple(runs), asked=self.asked + tuple(new))

    def notes(self, specs: Sequence[Spec] | None = None) -> dict[str, str]:
        """What each figure (default those shown) says beside it when its name sets
        something or it reads a fact of the data: 'relevant from grade 2', 'p = 0.8', ERR's
        highest grade of the qrels. Keyed by figure key; a figure with nothing to say is
        left out."""
        notes = figure_notes(self.summary_specs if specs is None else specs, self.conventions,
                             int(self.query_set.max_grade.max(initial=1)))
        if not self.standardised:
            return notes
        return {spec.key: "; ".join(filter(None, (notes.get(spec.key),
                                                   self.standardised_words)))
                for spec in (self.summary_specs if specs is None else specs)}

    def per_query_tables(self) -> Iterator[pa.Table]:
        """Every scored query's figures at K, a run at a time, as the long table
        (`metrics.core.per_query`: query, run, figure, K, value)."""
        for run in self.runs:
            yield long_table(self.scored_ids, run.name, self.query_specs,
                             self.per_query_scores(run.name), self.k, self.conventions)

    @functools.cached_property  # read on every page of every rerun: built once per object
    def scored_ids(self) -> list[str]:
        return [str(q) for q in self.query_set.query_ids[self.scored]]

    @functools.cached_property
    def excluded_ids(self) -> list[str]:
        """Queries left out of every mean: those without a relevant id, unless the
        empty_queries convention scores them 0 (within the filter, when there is one)."""
        return [str(q) for q in self.query_set.query_ids[~self.scored & self._within]]

    @property
    def empty_ids(self) -> list[str]:
        """Queries without a relevant id, whether excluded or scored 0."""
        empty = self.query_set.n_relevant == 0
        return [str(q) for q in self.query_set.query_ids[empty & self._within]]

    @property
    def _within(self) -> np.ndarray | bool:
        return True if self.within is None else self.within.mask

    @property
    def scope(self) -> str:
        """What the means run over when a filter chose the queries ("" for every query)."""
        if self.within is None:
            return ""
        return FILTER_SENTENCE.format(queries=int(self.scored.sum()), of=self.within.of,
                                      description=self.within.description)

    def restricted(self, mask: np.ndarray, description: str) -> Evaluation:
        """The evaluation over the queries `mask` keeps (a bool per query of the query set),
        as `description` names them: each run's summary, classes, suggestion and diagnosis
        read again from the same scores, with the same seed, so the figures are those of
        evaluating those queries alone. Nothing is rescored."""
        if self.within is not None:
            raise ValueError("this evaluation is already restricted: restrict the whole one")
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != self.scored.shape:
            raise ValueError(f"mask covers {mask.shape[0]:,} queries; the query set holds "
                             f"{self.scored.shape[0]:,}")
        scored = self.scored & mask
        runs = self._read_again(self.k, scored, mask,
                                asked=(self.asked, [(r.asked, r.readings) for r in self.runs]))
        within = Within(mask, description, len(self.scored_ids))
        return dataclasses.replace(self, runs=runs, scored=scored, within=within)

    def at(self, k: int) -> Evaluation:
        """The same evaluation read at another K: the kernel scored every K, so each run's
        summary, classes, suggestion and diagnosis are read again from the same scores with
        the same seed, and the figures are those of evaluating at `k`. Nothing is rescored;
        the sweep (which does not depend on K) is shared. An evaluation with figures asked
        by name is read at K whole: ask for them again on the result."""
        check_k(k)
        if self.asked:
            raise ValueError("read the evaluation at another K before asking for figures")
        if k == self.k:
            return self
        runs = self._read_again(k, self.scored,
                                None if self.within is None else self.within.mask)
        runs = tuple(dataclasses.replace(new, sweep_memo=old.sweep_memo)
                     for new, old in zip(runs, self.runs, strict=True))
        return dataclasses.replace(self, k=k, runs=runs)

    def _read_again(self, k: int, scored: np.ndarray, mask: np.ndarray | None,
                    asked=None) -> tuple[RunEvaluation, ...]:
        """Every run read again from its scores at `k` over the `scored` queries (those of
        `mask`, a filter, when given), with the seed's resampled queries: what restricting
        to a filter and reading at another K share."""
        c = self.conventions
        resamples = resampled_queries(int(scored.sum()), seed=c.seed, n_resamples=c.n_resamples)
        longest = max(int((r.scores.list_length if mask is None
                           else r.scores.list_length[mask]).max(initial=0)) for r in self.runs)
        return _read_runs([(r.run, r.aligned, r.scores, r.report) for r in self.runs],
                          self.query_set, scored, c, k, resamples, longest, within=mask,
                          asked=asked)

    @property
    def run_names(self) -> list[str]:
        return [r.name for r in self.runs]

    def run(self, name: str) -> RunEvaluation:
        for run in self.runs:
            if run.name == name:
                return run
        raise ValueError(f"no run named {name!r}; runs: {', '.join(self.run_names)}")

    def select(self, names: Sequence[str], shown: dict[str, str] | None = None) -> Evaluation:
        """The same evaluation over some of its runs, in the order given, each under the name
        `shown` gives it (default its own). Nothing is rescored: every run's figures and
        intervals are its own (the bootstrap draws the same resampled queries for every run,
        so a run's interval does not depend on which other runs were scored beside it)."""
        shown = shown or {}
        chosen = []
        for name in names:
            run, display = self.run(name), shown.get(name, name)
            if display != run.name:
                run = dataclasses.replace(run, name=display, run=run.run.renamed(display))
            chosen.append(run)
        if len({plain_name(r.name) for r in chosen}) != len(chosen):  # as they look
            raise ValueError(f"run names must be distinct, got {[r.name for r in chosen]}")
        return dataclasses.replace(self, runs=tuple(chosen))

    def per_query_scores(self, name: str, k: int | None = None) -> dict[str, np.ndarray]:
        """Scored queries' values at K (default the evaluation's K), keyed by figure key (the
        measure key of a default measure); a figure whose name fixes a cutoff reads it."""
        run = self.run(name)
        at = run.scores.at(k or self.k)
        values = {m.key: at[m.key][self.scored] for m in MEASURES}
        return values | figures_at(run.asked, self.asked, k or self.k, self.scored)

    def per_query(self) -> pd.DataFrame:
        """One row per (run, scored query) at K: class, repeats, first relevant rank, measures."""
        pd = _pandas()
        frames = []
        for run in self.runs:
            values = self.per_query_scores(run.name)
            frames.append(
                pd.DataFrame(
                    {
                        "run": run.name,
                        "query_id": self.scored_ids,
                        "class": run.classes,
                        "repeats": run.aligned.repeats[self.scored],
                        "first_relevant_rank": run.scores.first_relevant_rank[self.scored],
                        "n_relevant": self.query_set.n_relevant[self.scored],
                        **{s.key: values[s.key] for s in self.query_specs},
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """One row per (run, summary measure): mean and interval at K."""
        return summary_frame(self)

    def sweep_means(self, name: str) -> dict[str, np.ndarray]:
        """Mean over scored queries of each summary measure at every K of the sweep."""
        run = self.run(name)
        lo, hi = self.sweep_range
        if ("means", lo, hi) not in run.sweep_memo:
            means = {"k": np.arange(lo, hi + 1)}
            for s in self.sweep_specs:
                curve = run.curves(s.key).columns(np.arange(lo - 1, hi))[self.scored]
                means[s.name()] = (curve.mean(axis=0) if len(curve)
                                   else np.zeros(hi - lo + 1))
            run.sweep_memo["means", lo, hi] = means
        return {key: values.copy() for key, values in run.sweep_memo["means", lo, hi].items()}

    def sweep_intervals(self) -> list[tuple[str, int, str, float, float]]:
        """(run, k, summary key, low, high) at every K of the sweep, every run and measure.

        Like the summary's: Wilson for Hit@K; for the rest, the percentile bootstrap drawn
        from a fresh Generator on the conventions' seed, so the same resampled queries as
        evaluate() and, at the chosen K, exactly the summary interval. One bootstrap call
        per run covers every (measure, K) column; a run's bands are computed once.
        """
        lo, hi = self.sweep_range
        return [(run.name, k, key, low, high)
                for run in self.runs
                for k, key, low, high in self._run_sweep_intervals(run, lo, hi)]

    def _run_sweep_intervals(self, run: RunEvaluation, lo: int,
                             hi: int) -> list[tuple[int, str, float, float]]:
        if ("intervals", lo, hi) in run.sweep_memo:
            return run.sweep_memo["intervals", lo, hi]
        curves = {m.key: run.scores.curve(m.key, lo, hi)[self.scored] for m in SUMMARY_MEASURES}
        rows = sweep_bands(curves, range(lo, hi + 1), self.conventions)
        asked = [s for s in self.sweep_specs if s.key in run.asked]
        if asked:  # their own call on the same draws: the default bands stay as they are
            rows += sweep_bands(
                {s.key: run.curves(s.key).columns(np.arange(lo - 1, hi))[self.scored]
                 for s in asked}, range(lo, hi + 1), self.conventions,
                [(s.key, s.name(), s.measure.interval) for s in asked])
        run.sweep_memo["intervals", lo, hi] = rows
        return rows

    def to_frame(self) -> pd.DataFrame:
        """The summary at K as a wide frame: a row per run, a column per measure label
        ("nDCG@10"), each cell the mean (the intervals are in `summary()`)."""
        wide = self.summary().pivot(index="run", columns="label", values="mean")
        return wide.loc[self.run_names, [self.label(s.key) for s in DEFAULT_SUMMARY]]

    def _repr_html_(self) -> str:
        """A notebook shows the summary: runs down, measures across, 'mean [low, high]'."""
        cells = self.summary().assign(cell=lambda f: [
            fmt.interval(m, lo, hi) for m, lo, hi in zip(f["mean"], f["low"], f["high"],
                                                     strict=True)])
        wide = cells.pivot(index="run", columns="label", values="cell")
        wide = wide.loc[self.run_names, [self.label(s.key) for s in DEFAULT_SUMMARY]]
        return (wide.to_html() + f"<p><small>K = {self.k}, {len(self.scored_ids):,} scored "
                "queries; mean [low, high] of each interval.</small></p>")

    def sweep(self) -> pd.DataFrame:
        """Means over scored queries at every K of the sweep: run, k, one column a measure."""
        return sweep_frame(self)


def resolve_among(specs: Sequence[Spec], metric: str | Spec, k: int,
                  conventions: Conventions) -> Spec:
    """The figure a name, key or label stands for at K and these conventions: one of
    `specs` found by its key, label or name, else the name read (ValueError naming a bad
    one) and settled."""
    if isinstance(metric, str):
        for spec in specs:
            if metric in (spec.key, spec.label(k, conventions),
                          spec.label(k, conventions, summary=False), spec.name()):
                return spec
    spec = metric if isinstance(metric, Spec) else parse_measure(metric)
    return spec.settled(k, conventions)


def sweep_specs_of(summary_specs: Sequence[Spec], conventions: Conventions
                   ) -> tuple[Spec, ...]:
    """The summary figures a sweep over K draws: every default one (flat when the conventions
    read it over the whole list, as RR under rr=full, and labelled without @K), and those
    asked for that are read at K with no cutoff of their own."""
    return tuple(s for s in summary_specs if s in DEFAULT_SUMMARY
                 or (not s.reads_whole(conventions) and s.cutoff is None))


def summary_frame(evaluation) -> pd.DataFrame:
    """One row per (run, summary figure): mean and interval at K, of any driver's result
    (its `k`, `runs` with their `summary`, and `summary_specs`)."""
    rows = [
        {
            "run": run.name,
            "metric": s.name(),
            "label": s.label(evaluation.k, evaluation.conventions),
            "mean": run.summary[s.key].mean,
            "low": run.summary[s.key].low,
            "high": run.summary[s.key].high,
            "interval": run.summary[s.key].method,
        }
        for run in evaluation.runs
        for s in evaluation.summary_specs
    ]
    return _pandas().DataFrame(rows)


def sweep_frame(evaluation) -> pd.DataFrame:
    """Means at every K of the sweep, of any driver's result that has `sweep_means(run)`:
    run, k, one column a measure."""
    pd = _pandas()
    return pd.concat([pd.DataFrame({"run": run.name, **evaluation.sweep_means(run.name)})
                      for run in evaluation.runs], ignore_index=True)


def evaluate(
    qrels: Qrels,
    runs: Sequence[Run],
    k: int,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
    reports: dict[str, LoadReport] | None = None,
    qrels_report: LoadReport | None = None,
    measures: Sequence[Spec | str] = (),
    subtopics: Subtopics | None = None,
) -> Evaluation:
    """Score every run at every K up to MAX_K; summarise at k (1..MAX_K).

    Memory follows the data, not K: the arrays stop one column past the longest list, and
    every K beyond is closed form (metrics.measures).
    `sweep` (FROM:TO, at most MAX_SWEEP cutoffs, TO <= MAX_K) defaults to 1..longest list.
    `reports` (run name -> its LoadReport) get the lines the alignment ignores added to them.
    `measures` adds figures to the default ones (names such as 'Rprec' or 'P(rel=2)@5', or
    specs); the diversity measures ('alpha_nDCG(alpha=0.5)@20', 'ERR_IA@20', 'StRecall@10'...)
    read `subtopics`, the subtopic qrels (and intent probabilities) the evaluation keeps.
    """
    conventions = conventions or Conventions()
    prepared = prepare(qrels, runs, relevance_level=conventions.relevance_level,
                       identical_ids=conventions.identical_ids)
    return evaluate_prepared(
        prepared, k, conventions, sweep=sweep, reports=reports, qrels_report=qrels_report,
        measures=measures, subtopics=subtopics,
    )


def evaluate_prepared(
    prepared: Prepared,
    k: int,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
    reports: dict[str, LoadReport] | None = None,
    qrels_report: LoadReport | None = None,
    measures: Sequence[Spec | str] = (),
    progress: Callable[[int, int, str | None], None] | None = None,
    regain: Evaluation | None = None,
    subtopics: Subtopics | None = None,
) -> Evaluation:
    """evaluate() on runs already aligned by prepare() at the same relevance level.
    `progress(done, total, run)` is called before each run is scored (its name) and once
    they all are (None, before the summaries): a caller shows how far scoring has come.
    `regain`: an evaluation of these same prepared runs under conventions that differ from
    `conventions` in the DCG gain alone. Each run it scored from the very arrays this one
    scores keeps its figures that no gain changes (kernel.regained: the same arrays, not
    copies) and has only DCG, IDCG and nDCG scored again; the result is the same either way."""
    conventions = conventions or Conventions()
    check_k(k)
    query_set = prepared.query_set
    if query_set.relevance_level != conventions.relevance_level:
        raise ValueError(
            f"the runs were prepared at relevance level {query_set.relevance_level}, not "
            f"{conventions.relevance_level}: prepare them again"
        )
    if prepared.identical_ids != conventions.identical_ids:
        raise ValueError(f"the runs were prepared with identical_ids={prepared.identical_ids!r}, "
                         f"not {conventions.identical_ids!r}: prepare them again")
    reports = with_identical(reports, prepared.identical_lines)
    aligned, reports, longest = _as_scored(prepared, conventions, reports)
    sweep = _check_sweep(sweep, longest=max(longest, 1))

    scored = scored_queries(query_set, conventions)
    # the resampled queries are drawn in a second thread while the runs are scored (numpy
    # lets go of the GIL for most of either); the draw has the seed's Generator to itself
    with ThreadPoolExecutor(max_workers=1) as pool:
        drawing = pool.submit(resampled_queries, int(scored.sum()), seed=conventions.seed,
                              n_resamples=conventions.n_resamples)
        scored_runs = []
        for run, a in zip(prepared.runs, aligned, strict=True):
            if progress is not None:
                progress(len(scored_runs), len(prepared.runs), run.name)
            scored_runs.append(_score_run(run, a, query_set, conventions, reports,
                                          _regainable(regain, a, query_set, conventions)))
        if progress is not None:
            progress(len(scored_runs), len(prepared.runs), None)
        resamples = drawing.result()
    evaluated = _read_runs(scored_runs, query_set, scored, conventions, k, resamples, longest)
    evaluation = Evaluation(k, conventions, prepared.qrels, query_set, evaluated, sweep, scored,
                            qrels_report, subtopics=subtopics)
    return evaluation.with_measures(measures) if measures else evaluation


def _as_scored(prepared: Prepared, conventions: Conventions,
               reports: dict[str, LoadReport] | None = None,
               ) -> tuple[list[AlignedRun], dict[str, LoadReport] | None, int]:
    """The aligned runs as the kernel scores them under the conventions (judged-only when
    unjudged ids are dropped, the reports then saying how many), the reports, and the
    longest list."""
    aligned = list(prepared.aligned)
    if conventions.unjudged == "drop":
        aligned = [a.judged_only() for a in aligned]
        reports = with_unjudged(reports, prepared.aligned, aligned)
    longest = max(int(a.list_length.max(initial=0)) for a in aligned)
    # one column past the longest list: every K beyond is closed form (metrics.measures)
    return [a.padded(longest + 1) for a in aligned], reports, longest


def figure_by_query(qrels: Qrels, runs: Sequence[Run], k: int, key: str,
                    conventions: Conventions | None = None) -> tuple[np.ndarray, list[str], str]:
    """One default figure (`key`, "nDCG") at k of every scored query for each run, as
    evaluate(...).per_query_scores(run)[key] gives it, without the summaries, intervals and
    readings evaluate() adds (the weight search scores a fused run per weight and reads one
    figure): (queries x runs), the scored query ids, the figure's per-query label."""
    conventions = conventions or Conventions()
    check_k(k)
    spec = next((s for s in DEFAULT_PER_QUERY if s.key == key), None)
    if spec is None:
        raise ValueError(f"{key!r} is not among the figures scored: "
                         + ", ".join(s.key for s in DEFAULT_PER_QUERY))
    prepared = prepare(qrels, runs, relevance_level=conventions.relevance_level,
                       identical_ids=conventions.identical_ids)
    aligned, _, _ = _as_scored(prepared, conventions)
    scored = scored_queries(prepared.query_set, conventions)
    table = np.column_stack([compute(prepared.query_set, a, conventions).at(k)[key][scored]
                             for a in aligned])
    return (table, [str(q) for q in prepared.query_set.query_ids[scored]],
            spec.label(k, conventions, summary=False))


class WithoutLists(FiguresShown):
    """What a driver's result shares when it keeps every query's figures but no ranked list
    (the block-by-block and Spark drivers): read from its `k`, `conventions`, `query_ids`,
    `scored`, `runs`, `max_grade`, `summary_specs` and `query_specs`. It scores the default
    figures only: a figure asked by name beyond them needs the in-memory engine."""

    engine: ClassVar[str]
    asked: ClassVar[tuple[Spec, ...]] = ()
    # never standardised: --standardise is refused on the block and Spark engines, and a
    # saved figures file holds raw figures (Evaluation.standardised's words, none here)
    standardised: ClassVar[str] = ""
    standardised_words: ClassVar[str] = ""

    def with_measures(self, measures) -> WithoutLists:
        """Itself when every figure named is among those it scored (by name, key, label or
        spec, as `Evaluation.with_measures` reads them); ValueError naming the others."""
        shown = {s.key for s in self.query_specs}
        beyond = [spec.name() for spec in (self.resolve(m) for m in as_specs(measures))
                  if spec.key not in shown]
        if beyond:
            raise ValueError(ONLY_DEFAULTS.format(engine=self.engine, names=", ".join(beyond)))
        return self

    @property
    def run_names(self) -> list[str]:
        return [run.name for run in self.runs]

    @property
    def scored_ids(self) -> list[str]:
        return [str(q) for q in self.query_ids[self.scored]]

    @property
    def excluded_ids(self) -> list[str]:
        return [str(q) for q in self.query_ids[~self.scored]]

    def run(self, name: str):
        for run in self.runs:
            if run.name == name:
                return run
        raise ValueError(f"no run named {name!r}; runs: {', '.join(self.run_names)}")

    def per_query_tables(self) -> Iterator[pa.Table]:
        """Every scored query's figures at K, a run at a time, as the long table
        (`metrics.core.per_query`), as `Evaluation.per_query_tables` gives them."""
        for run in self.runs:
            yield long_table(self.scored_ids, run.name, self.query_specs,
                             self.per_query_scores(run.name), self.k, self.conventions)

    def notes(self, specs: Sequence[Spec] | None = None) -> dict[str, str]:
        """What each figure says beside it, as `Evaluation.notes` words it."""
        return figure_notes(self.summary_specs if specs is None else specs, self.conventions,
                            self.max_grade)


def figure_notes(specs: Sequence[Spec], conventions: Conventions,
                 max_grade: int) -> dict[str, str]:
    """What each figure says beside it when its name sets something or it reads a fact of
    the data (the qrels' highest grade, `max_grade`), keyed by figure key; a figure with
    nothing to say is left out. Every driver's result words its notes with this."""
    facts = {"max_grade": max_grade}
    notes = {}
    for spec in specs:
        said = spec.words(conventions)
        if spec.measure.note:
            said.append(spec.measure.note.format(**facts))
        if said:
            notes[spec.key] = "; ".join(said)
    return notes


def scored_queries(query_set: QuerySet, conventions: Conventions) -> np.ndarray:
    """The queries the means run over: those with a relevant id (the seed's rule), or every
    query when the empty_queries convention scores the others 0 (trec_eval -c)."""
    if conventions.empty_queries == "zero":
        return np.ones(len(query_set.query_ids), dtype=bool)
    return query_set.scored


def _check_sweep(sweep: tuple[int, int] | None, *, longest: int) -> tuple[int, int]:
    return (1, longest) if sweep is None else check_sweep(*sweep)


_Scored = tuple[Run, AlignedRun, Scores, LoadReport | None]


def _score_run(
    run: Run,
    aligned: AlignedRun,
    query_set: QuerySet,
    conventions: Conventions,
    reports: dict[str, LoadReport] | None,
    other_gain: Scores | None = None,
) -> _Scored:
    report = (reports or {}).get(run.name)
    if report is not None and len(aligned.ignored_lines):
        report = report.with_dropped(
            ReportLine(int(line), "query is not in the qrels: ignored")
            for line in aligned.ignored_lines
        )
    if other_gain is None:
        scores = compute(query_set, aligned, conventions)  # the kernel: the query set is one block
    else:
        scores = regained(other_gain, query_set, aligned, conventions.gain)
    return run, aligned, scores, report


def _regainable(regain: Evaluation | None, aligned: AlignedRun, query_set: QuerySet,
                conventions: Conventions) -> Scores | None:
    """A run's scores in `regain` when they were computed from `aligned` itself, over the
    same query set, under `conventions` but for the gain; None otherwise."""
    if regain is None or regain.query_set is not query_set:
        return None
    if dataclasses.replace(regain.conventions, gain=conventions.gain) != conventions:
        return None
    return next((r.scores for r in regain.runs if r.aligned is aligned), None)


def _read_runs(
    scored_runs: Sequence[_Scored],
    query_set: QuerySet,
    scored: np.ndarray,
    conventions: Conventions,
    k: int,
    resamples: Resamples,
    longest: int,
    within: np.ndarray | None = None,
    asked: tuple[tuple[Spec, ...], Sequence[tuple[dict[str, Curves], dict]]] | None = None,
    *,
    bootstrap_only: bool = False,
) -> tuple[RunEvaluation, ...]:
    """Aggregation: every run's summary from one pass over the resamples, then the rest of
    what its scores say (`_read_run`). `asked` holds the figures asked for beyond the
    defaults: their specs, and each run's curves and readings of them. `bootstrap_only`:
    every interval a bootstrap one, for figures that are no longer 0/1 outcomes (Hit@K
    standardised)."""
    at_ks = [{key: values[scored] for key, values in scores.at(k).items()}
             for _, _, scores, _ in scored_runs]
    defaults = ({key: "bootstrap" for key in summary_methods(DEFAULT_SUMMARY)}
                if bootstrap_only else None)
    summaries = summarise_runs(at_ks, resamples, conventions, defaults)
    specs, per_run = asked or ((), [({}, {})] * len(scored_runs))
    if specs:  # their own call on the same resamples: the default figures stay as they are
        methods = summary_methods([s for s in specs if s.measure.in_summary])
        if bootstrap_only:
            methods = dict.fromkeys(methods, "bootstrap")
        more = summarise_runs([figures_at(curves, specs, k, scored) for curves, _ in per_run],
                              resamples, conventions, methods)
        summaries = [summary | extra for summary, extra in zip(summaries, more, strict=True)]
    return tuple(
        _read_run(run, aligned, scores, report, query_set, scored, k, at_k, summary, longest,
                  within, run_asked)
        for (run, aligned, scores, report), at_k, summary, run_asked
        in zip(scored_runs, at_ks, summaries, per_run, strict=True))


def _read_run(
    run: Run,
    aligned: AlignedRun,
    scores: Scores,
    report: LoadReport | None,
    query_set: QuerySet,
    scored: np.ndarray,
    k: int,
    at_k: dict[str, np.ndarray],
    summary: dict[str, Interval],
    longest: int,
    within: np.ndarray | None = None,
    asked: tuple[dict[str, Curves], dict] = ({}, {}),
) -> RunEvaluation:
    """Aggregation: everything read from a run's per-query scores over the `scored` queries
    (those `within` a filter, when one is given) and its summary: classes, suggestion and
    diagnosis. The lists (`aligned`) are kept for the explanations, not read here. `asked`
    holds the curves and readings of the figures asked for beyond the defaults."""
    curves, readings = asked
    classes = query_classes(scores, query_set.n_relevant, k)[scored]
    suggestion, diagnosis = run_readings(
        at_k, {key: interval.mean for key, interval in summary.items()}, classes,
        k_curves(scores, query_set.n_relevant, k, within), query_set.n_relevant, k=k,
        longest_list=longest, answered=int((scores.list_length[scored] > 0).sum()),
        within=within)
    return RunEvaluation(
        name=run.name,
        run=run,
        aligned=aligned,
        scores=scores,
        classes=classes,
        summary=summary,
        suggestion=suggestion,
        diagnosis=diagnosis,
        missing_queries=tuple(str(q) for q in query_set.query_ids[
            ~aligned.answered if within is None else ~aligned.answered & within]),
        repeats=int(scores.repeats[scored].sum()),
        report=report,
        asked=curves,
        readings=readings,
    )

