"""The engine's decisions, cached through the store: the leaderboard and every
pair of runs compared. Like cache.py, each is computed once per view and kept in the server's
one store; the pages lay them out."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import metrics
from dashboard.data.cache import (
    CompareOptions,
    Inputs,
    View,
    compare,
    derived,
    spinner,
    store,
    view_at,
)
from metrics import COMPARED

# two threads for the decisions a page starts ahead: numpy's products and scipy's tests let
# go of the interpreter, so they run beside the page drawing what comes before them
_AHEAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ahead")


def ahead(*steps: Callable[[], object]) -> None:
    """Start the steps a page reads further down (comparisons, the leaderboard) on threads
    of their own; when the page reaches one, the store hands over its value or waits for it
    (Store.get makes an entry once). A step that fails is made again by the page, which then
    shows the error."""
    for step in steps:
        _AHEAD.submit(step)


# the K decided ahead, one step at a time on a thread of its own: one core stays free for the
# reader's next step, which stops it (moved_on) after the step under way. The short pause lets
# the page's last messages go first (0.3 s left a step of K in browser.py undecided: 2.6x the
# floor instead of 1.8x; no other action gained from it)
_NEXT_K = ThreadPoolExecutor(max_workers=1, thread_name_prefix="next-k")
NEXT_K_PAUSE_S = 0.05


def next_ks(view: View, inputs: Inputs, steps: Sequence[Callable[[View], object]],
            moved_on: Callable[[], bool] = lambda: False) -> None:
    """After a page is drawn: the K either side of the view's, read from the scored
    evaluation, and `steps` (what the page drawn reads at a K, each given the view at the
    other K) made there, so that a step of the sidebar's K (its - and + buttons, the likeliest
    next K) finds them made. Nothing more is made once `moved_on()` says the reader has asked
    for something else (a later run started). Every other K is decided when asked for."""
    k = view.evaluation.k
    _NEXT_K.submit(_unless_moved_on, [
        functools.partial(_decided_at, view, inputs, other, tuple(steps))
        for other in (k + 1, k - 1) if 1 <= other <= metrics.DASHBOARD_MAX_K], moved_on)


def _unless_moved_on(work: list[Callable[[], None]], moved_on: Callable[[], bool]) -> None:
    time.sleep(NEXT_K_PAUSE_S)
    for step in work:
        if moved_on():
            return
        step()


def _decided_at(view: View, inputs: Inputs, k: int,
                steps: tuple[Callable[[View], object], ...]) -> None:
    at = view_at(view, inputs, k)
    if at is not None:
        for step in steps:
            step(at)


def leaderboard(view: View) -> metrics.Leaderboard:
    """Every shown run's rank, rank interval and P(best) on each compared metric."""
    return store().get("leaderboard", view.key, lambda: metrics.leaderboard(view.evaluation),
                       files=view.files, parents=[view.source], shared=(view.evaluation,),
                       on_miss=spinner("Ranking the runs over the bootstrap resamples…"))


def all_pairs(view: View, metric: str, correction: str, alpha: float, *,
              test: str = "paired", min_effect: float | None = None) -> metrics.AllPairs:
    """Every pair of shown runs on one metric (a measure key): the paired tests under one
    correction over the pairs, or the randomized Tukey HSD (`test`), each pair's equivalence
    test against a minimum effect when one is declared."""
    waits = {"paired": "Comparing every pair of runs…",
             "tukey": "Permuting every query's scores across the runs (randomized Tukey "
                      "HSD)…"}
    tested = store().get(
        "all pairs", (view.key, metric, test, min_effect),
        lambda: metrics.all_pairs(view.evaluation, [metric], test=test, min_effect=min_effect),
        files=view.files, parents=[view.source], shared=(view.evaluation,),
        on_miss=spinner(waits[test]))
    return tested.adjusted(correction, alpha)


def leaderboard_pairs(view: View, metric: str, test: str, alpha: float,
                      min_effect: float | None) -> metrics.AllPairs | None:
    """What the leaderboard on one metric (a measure key) is read by besides its ranks: with
    the randomized Tukey HSD as the test in force (`test`) and two runs or more, every pair
    by it (its letters go beside each run's standing: the Overview, the report, the LaTeX
    table), the same entry as Compare's every-pair view; None with the paired tests, whose
    pairs the comparison reads (the leaderboard as the bootstrap ranks it)."""
    if test != "tukey" or len(view.evaluation.runs) < 2:
        return None
    # the correction applies to nothing under the Tukey HSD: Compare's entry, whatever it is
    return all_pairs(view, metric, metrics.vocabulary.comparisons.DEFAULT_CORRECTION, alpha,
                     test=test, min_effect=min_effect)


def topic_set_sizes(view: View, metrics_compared: tuple[str, ...],
                    min_difference: float) -> dict[str, metrics.TopicSetSize]:
    """The queries a future query set needs to detect `min_difference` on each metric (a
    paired t-test, a one-way ANOVA over the runs shown, Sakai 2016), this set as the pilot."""
    return derived(view, "topic-set sizes", (metrics_compared, min_difference),
                   lambda: metrics.topic_set_sizes(view.evaluation, list(metrics_compared),
                                                   min_difference=min_difference))


def headlines(view: View, options: CompareOptions, snapshots, primary: str) -> list[str]:
    """The headline of each candidate on the primary metric (a measure key): the comparison
    of that metric alone, under the Compare page's baseline, candidates, correction and
    alpha (metrics.headline_comparison's family): Compare's own comparison restricted to
    that metric when it is among those compared (no second set of flips and resamples for
    one metric), else that metric's comparison, cached as Compare's own comparisons."""
    comparison, label = _headline_comparison(view, options, snapshots, primary)
    if comparison is None:
        return []
    # each sentence solves for the difference the query set detects: once per comparison
    return store().get(
        "headlines", (view.key, options, primary),
        lambda: metrics.headlines(comparison, label),
        files=view.files, parents=[view.source])


def short_headlines(view: View, options: CompareOptions, snapshots, primary: str) -> list[str]:
    """The same headlines in a few words each (metrics.short_headlines: the verdict and the
    difference with its interval), for the first screen; from the same comparison."""
    comparison, label = _headline_comparison(view, options, snapshots, primary)
    return [] if comparison is None else metrics.short_headlines(comparison, label)


def _headline_comparison(view: View, options: CompareOptions, snapshots, primary: str
                         ) -> tuple[metrics.Comparison | None, str]:
    """The comparison the headline reads (None when the engine made none) and the label of
    its metric."""
    label = metrics.label_of(primary, view.evaluation.k, view.evaluation.conventions)
    compared = compare(view, options, snapshots)
    if compared.comparison is not None and label in compared.comparison.metrics:
        return compared.comparison.restricted([label]), label
    compared = compare(view, replace(options, metrics=(primary,)), snapshots)
    return compared.comparison, label


def best_marks(view: View) -> metrics.BestMarks:
    """Each metric's best run and those not significantly worse than it (Holm, alpha 0.05)."""
    return store().get("best marks", view.key, lambda: metrics.best_marks(view.evaluation),
                       files=view.files, parents=[view.source], shared=(view.evaluation,),
                       on_miss=spinner("Testing every run against each metric's best…"))


def agreements(view: View, primary: str) -> list[metrics.Agreement]:
    """Every other figure shown (the compared ones and those added) against the headline
    metric: how far each orders the runs as the headline's does. Means only: no resampling,
    so nothing to cache."""
    evaluation = view.evaluation
    keys = [s.key for s in evaluation.summary_specs if s.measure.compared]
    return metrics.measure_agreements(evaluation, keys, against=primary)


def run_table(view: View, correction: str, alpha: float) -> metrics.RunTable | None:
    """Every shown run against the baseline (the first) on every compared metric, as one
    run x metric table; the comparison is Compare's default one, cached as its own. None with
    a single run."""
    names = view.evaluation.run_names
    if len(names) < 2:
        return None
    options = CompareOptions(names[0], tuple(names[1:]), COMPARED, correction, alpha)
    compared = compare(view, options, [])
    if compared.comparison is None:
        return None
    return metrics.run_table(view.evaluation, compared.comparison)
