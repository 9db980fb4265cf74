"""The stakeholder report's contents, decided in one place: the Export page and `python -m
dashboard report` both call `report_contents`, and the dashboard only lays out (as HTML, with
its charts) what it returns.

What goes in: the evaluation and the comparison shown (each candidate against its baseline);
the headline on the primary figure (the comparison's options on that figure alone); the
leaderboard and each figure's best marks; with a comparison of live runs, the harm, whether
each verdict survives another convention (fragility, when asked) and what to label next;
with texts, the queries and chunks for the examples, the leakage check (both texts), the
figures by kind of query and each slice's paired difference (a facet), what K costs (a token
figure); a model judge's section (its report); every pair of runs on the primary figure as
the leaderboard is read (the randomized Tukey HSD's letters, p, effect sizes and ANOVA) and
the queries a future set needs to detect a difference (topic-set sizes), each when given.
Where the two front ends differ, they say so here, as parameters: the comparison (the Compare
page's, or each run against the first), the harm threshold, whether to check fragility and
how to read the runs again, the facet, the token figure, the runs the leakage check reads,
the judge's report, every pair's reading and the topic-set sizes (the last three computed
where the front end shows them, and passed in).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.context.cost import ChunkTokens, Cost, costs
from metrics.context.judge import JudgeReport
from metrics.context.labelling import ToLabel, to_label
from metrics.context.leakage import Leakage, find_leaks, retrieved_or_judged
from metrics.core.compare import comparison_settings, metric_label
from metrics.core.evaluate import Evaluation
from metrics.decide.best import BestMarks, best_marks
from metrics.decide.fragility import Fragility, Reread, fragility
from metrics.decide.headline import headline_comparison, headlines
from metrics.decide.latency import Timed
from metrics.decide.leaderboard import AllPairs, Leaderboard, leaderboard
from metrics.decide.risk import Risk, risks
from metrics.explain.facets import Facet
from metrics.explain.slices import Slice, compare_slices, slice_evaluation
from metrics.io import Corpus, Qrels, Queries, Run
from metrics.stats.comparison import Comparison
from metrics.stats.topic_set_size import TopicSetSize
from metrics.vocabulary.headline import PRIMARY
from metrics.vocabulary.report import EXAMPLES_ON
from metrics.vocabulary.risk import HARM_DELTA

__all__ = ["ReportContents", "report_contents"]


@dataclass(frozen=True, eq=False)
class ReportContents:
    """Everything the report shows, each part None when it has nothing to show. The fields
    are the keywords of the dashboard's HTML renderer (`keywords()`)."""

    evaluation: Evaluation
    comparison: Comparison | None = None
    primary: str = PRIMARY  # the measure key the headline, leaderboard, harm and judge read
    headline: tuple[str, ...] | None = None
    board: Leaderboard | None = None
    marks: BestMarks | None = None
    risks: tuple[Risk, ...] | None = None
    fragility: Fragility | None = None
    to_label: ToLabel | None = None
    queries: Queries | None = None
    corpus: Corpus | None = None
    slices: tuple[Slice, ...] | None = None
    slice_pieces: tuple[tuple[str, Comparison], ...] | None = None
    leakage: Leakage | None = None
    costs: tuple[Cost, ...] | None = None
    judge: JudgeReport | None = None
    pairs: AllPairs | None = None  # every pair on the primary figure, as the leaderboard reads
    topic_sets: dict[str, TopicSetSize] | None = None  # per figure label
    timed: Timed | None = None  # latency and cost per query, beside the figures

    def keywords(self) -> dict[str, Any]:
        """Every part by its name (a shallow mapping: the objects themselves)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @property
    def holds(self) -> list[str]:
        """What the texts and the judge add to the report, in words, in the order shown."""
        return [words for words, part in (
            ("the questions", self.queries), ("the chunks", self.corpus),
            ("leakage", self.leakage), ("by kind of query", self.slices),
            ("what K costs", self.costs), ("the judge's labels", self.judge),
            ("latency and cost per query", self.timed)) if part]


def report_contents(
    evaluation: Evaluation,
    comparison: Comparison | None = None,
    *,
    primary: str = PRIMARY,
    harm_delta: float = HARM_DELTA,
    check_fragility: bool = True,
    reread: Reread | None = None,
    queries: Queries | None = None,
    corpus: Corpus | None = None,
    facet: Facet | None = None,
    tokens: ChunkTokens | None = None,
    leakage_qrels: Qrels | None = None,
    leakage_runs: Sequence[Run] | None = None,
    judge: JudgeReport | None = None,
    pairs: AllPairs | None = None,
    topic_sets: dict[str, TopicSetSize] | None = None,
    timed: Timed | None = None,
) -> ReportContents:
    """The report's contents for an evaluation and the comparison it shows (None: no
    comparison; `metrics.baseline_comparison` gives each run against the first).

    `primary` (a measure key) is the headline's, the leaderboard's, the harm's and the
    judge's figure; `harm_delta` the loss a query must exceed to count as harmed;
    `check_fragility` re-reads the verdicts under each other convention (`reread`: the runs
    read again in another TREC order); `facet` slices the queries; `tokens` prices K;
    `leakage_qrels` and `leakage_runs` are the labels and runs whose ids the leakage check
    reads (default the evaluation's); `judge` is the judge's report when a judge labelled;
    `pairs` (`all_pairs` on the primary figure) every pair as the leaderboard is read, its
    letters beside the standings; `topic_sets` (`topic_set_sizes`) the queries a future set
    needs, beside the comparison.
    A comparison against a snapshot's figures (its baseline no run of the evaluation) has no
    headline, fragility or paired difference per slice: those compare live runs again."""
    live = comparison is not None and comparison.baseline in evaluation.run_names
    review: dict[str, Any] = {}
    if comparison is not None:
        review = dict(risks=risks(comparison, delta=harm_delta), to_label=to_label(evaluation))
        if live and check_fragility:
            review["fragility"] = fragility(evaluation, comparison, reread=reread)
    slices = slice_pieces = None
    if facet is not None:
        slices = tuple(slice_evaluation(evaluation, facet))
        if live:
            slice_pieces = tuple(compare_slices(
                evaluation, facet, metrics=[EXAMPLES_ON], **_options(evaluation, comparison)))
    return ReportContents(
        evaluation, comparison, primary,
        headline=headline_sentences(evaluation, comparison, primary) if live else None,
        board=leaderboard(evaluation),
        marks=best_marks(evaluation) if len(evaluation.runs) > 1 else None,
        queries=queries, corpus=corpus, slices=slices, slice_pieces=slice_pieces,
        leakage=_leakage(evaluation, queries, corpus, leakage_qrels, leakage_runs),
        costs=None if tokens is None else costs(evaluation, tokens), judge=judge,
        pairs=pairs, topic_sets=topic_sets, timed=timed, **review)


def _options(evaluation: Evaluation, comparison: Comparison) -> dict[str, Any]:
    """The comparison's own choices (baseline, candidates, correction, alpha, sign flips) and
    the conventions' draws: what a comparison of one figure or one slice repeats."""
    return comparison_settings(evaluation.conventions) | dict(
        baseline=comparison.baseline, candidates=list(comparison.candidates),
        correction=comparison.correction, alpha=comparison.alpha,
        n_permutations=comparison.n_permutations)


def headline_sentences(evaluation: Evaluation, comparison: Comparison, primary: str
              ) -> tuple[str, ...]:
    """Each candidate's sentence on the primary figure alone (HEADLINE_FAMILY): the
    comparison's own tests of it, corrected over that smaller family, or, when it does not
    test that figure, a comparison of it alone under the same options."""
    label = metric_label(primary, evaluation.k, evaluation.conventions)
    if label in comparison.metrics:
        alone = comparison.restricted([label])
    else:
        alone = headline_comparison(evaluation, primary, **_options(evaluation, comparison))
        label = alone.metrics[0]
    return tuple(headlines(alone, label))


def _leakage(evaluation: Evaluation, queries: Queries | None, corpus: Corpus | None,
             qrels: Qrels | None, runs: Iterable[Run] | None) -> Leakage | None:
    """The queries copied into the chunks their runs retrieve or their labels judge; None
    without both texts."""
    if queries is None or corpus is None:
        return None
    qrels = evaluation.qrels if qrels is None else qrels
    runs = [run.run for run in evaluation.runs] if runs is None else list(runs)
    return find_leaks(queries, corpus, candidates=retrieved_or_judged(qrels, runs))

