"""One query written out for a view, through the engine and the store: what the drill-down
and Compare's rank movement lay out (each run's figures on the query, its ideal list, every
rank's arithmetic, two runs side by side, what the query adds to their difference, the ids a
candidate moved). Built once per view, query and choice: stepping back to a query, or
redrawing a section of the page, reads it from the store."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

import metrics
from dashboard.data.cache import View, derived
from dashboard.views import frames


@dataclass(frozen=True, eq=False)
class Written:
    """One query of a view written out at a depth (K, or the whole list)."""

    query: str
    depth: int
    longest: int  # the longest list any shown run returned for the query
    figures: pd.DataFrame  # a row per run: its class and every default figure at K
    added: pd.DataFrame | None  # the sidebar's measures, a row each (None: none added)
    explanations: tuple[metrics.RunExplanation, ...]  # each shown run, in display order
    ideal: pd.DataFrame  # the ideal list that gives IDCG, with each run's rank of its ids

    @property
    def idcg(self) -> float:
        return self.explanations[0].totals["IDCG"]

    @property
    def n_relevant(self) -> int:
        return self.explanations[0].n_relevant


def longest(view: View, query: str) -> int:
    """The longest list any shown run returned for the query."""
    return derived(view, "longest list", (query,),
                   lambda: metrics.list_length(view.evaluation, query))


def written(view: View, query: str, *, whole: bool) -> Written:
    """The query at K, or down the longest list (`whole`): every run's figures and ranks."""
    def build() -> Written:
        evaluation = view.evaluation
        length = longest(view, query)
        depth = max(length, evaluation.k) if whole else evaluation.k
        figures, added = frames.query_figures_table(metrics.query_figures(evaluation, query),
                                                    evaluation)
        return Written(query, depth, length, figures, added,
                       tuple(metrics.explain_run(evaluation, run, query, depth)
                             for run in evaluation.runs),
                       metrics.ideal_table(evaluation, query))
    return derived(view, "written out", (query, whole), build)


def standardised(view: View, query: str) -> pd.DataFrame:
    """How the query's figures at K were standardised, as the drill-down shows it (a
    standardised view only: its raw figures are the view's `raw`)."""
    return derived(view, "standardised written out", (query,),
                   lambda: frames.standardised_table(
                       metrics.standardised_query(view.evaluation, view.raw, query),
                       view.evaluation))


def added_figures(view: View, run: str, query: str) -> list[metrics.FigureExplanation]:
    """The sidebar's measures of one run on the query, each written out."""
    return derived(view, "added written out", (run, query),
                   lambda: metrics.explain_figures(view.evaluation, view.evaluation.run(run),
                                                   query))


@dataclass(frozen=True, eq=False)
class Pair:
    """Two runs' lists of one query side by side, and what the query adds to the mean
    difference between them."""

    side: pd.DataFrame
    contribution: pd.DataFrame
    unjudged: list[tuple[str, int | None, int | None]]  # the unjudged ids of either list
    sentence: str  # what the query adds to their nDCG difference, in words


def pair(view: View, a: str, b: str, query: str, depth: int) -> Pair:
    """Runs `a` and `b` on the query down to `depth`, side by side."""
    def build() -> Pair:
        evaluation = view.evaluation
        side = metrics.side_by_side(evaluation, a, b, query, depth)
        contribution = frames.contribution_table(
            metrics.query_contribution(evaluation, a, b, query), evaluation)
        label = evaluation.label("nDCG", summary=False)
        h = contribution[contribution["metric"] == label].iloc[0]
        sentence = metrics.vocabulary.readings.contribution_sentence(
            h["metric"], a, b, h["difference"], h["contribution"], h["mean difference"],
            len(evaluation.scored_ids))
        return Pair(side, contribution, frames.unjudged_in(side), sentence)
    return derived(view, "side by side", (a, b, query, depth), build)


@dataclass(frozen=True, eq=False)
class Movement:
    """The ids a candidate moved on one query, against the baseline, down to a depth."""

    table: pd.DataFrame
    sentence: str


def movement(view: View, baseline: str, candidate: str, query: str, depth: int) -> Movement:
    def build() -> Movement:
        evaluation = view.evaluation
        moved = metrics.rank_movement(evaluation, baseline, candidate, query, depth)
        return Movement(moved, metrics.movement_sentence(moved, candidate, evaluation.k))
    return derived(view, "movement", (baseline, candidate, query, depth), build)
