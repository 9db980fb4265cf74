"""The engine's risk-sensitive review, cached through the store like decisions.py:
the fragility check (with the runs read again in the other TREC order) and what to label
next. The risk figures are cheap and read straight from the engine."""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pandas as pd

import metrics
from dashboard.data import combine
from dashboard.data.cache import CompareOptions, Inputs, View, derived, spinner, store
from dashboard.views import frames
from metrics import Comparison, Run, vocabulary


def rereader(inputs: Inputs, view: View) -> Callable[[str], list[Run]] | None:
    """The shown runs read again in another TREC order, under their display names: None when
    no shown run is a TREC file (only those have both a score and a rank to order by). A
    fused run keeps its own order (its fused scores)."""
    shown = dict(view.shown)  # original name -> display name
    originals = dict(zip(inputs.run_names, inputs.usable_runs, strict=True))
    files = [name for name in inputs.run_names if not combine.is_fused(originals[name])]
    if inputs.read_again is None or not any(
            originals[name].report is not None and originals[name].report.format == "trec"
            for name in shown if name in files):
        return None
    conventions = view.evaluation.conventions

    def reread(order: str) -> list[Run]:
        parsed = [p for p in inputs.read_again(replace(conventions, order=order))
                  if p.value is not None]
        again = {name: p.value for name, p in zip(files, parsed, strict=True)}
        return [again[name].renamed(display) if name in again
                else view.evaluation.run(display).run for name, display in shown.items()]

    return reread


def fragility(view: View, inputs: Inputs, options: CompareOptions,
              comparison: Comparison) -> Callable[[], metrics.Fragility]:
    """The comparison's verdicts under each other convention, started now on a thread so
    that the check (most of a second on thousands of queries, numpy that releases the GIL)
    runs while the page draws; the call returned waits for it and keeps it in the store."""
    key = (view.key, options)
    if store().has("fragility", key):
        make = functools.partial(metrics.fragility, view.evaluation, comparison,
                                 reread=rereader(inputs, view))  # if evicted meanwhile
    else:
        make = _CHECKS.submit(metrics.fragility, view.evaluation, comparison,
                              reread=_read_now(inputs, view)).result
    return lambda: store().get(
        "fragility", key, make, files=view.files, parents=[view.source],
        shared=(view.evaluation, comparison),
        on_miss=spinner("Checking each verdict under the other conventions…"))


_CHECKS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fragility")


def _read_now(inputs: Inputs, view: View) -> Callable[[str], list[Run] | None] | None:
    """The runs read in each other TREC order here, on the script's thread (the loads are
    cached and show a spinner), for the check's thread to take."""
    reread = rereader(inputs, view)
    if reread is None:
        return None
    current = view.evaluation.conventions.order
    again = {order: reread(order) for order in metrics.CONVENTION_BY_FIELD["order"].values
             if order != current}
    return again.get


def harm_profile(view: View, comparison: Comparison, candidate: str, metric: str,
                 delta: float) -> metrics.HarmProfile:
    """The words and facet values over-represented among the queries a candidate harms."""
    return store().get(
        "harm profile", (view.key, view.queries_key, comparison.baseline, candidate, metric,
                         delta, comparison.query_ids),
        lambda: metrics.harm_profile(comparison, candidate, metric, view.queries, delta=delta),
        files=view.files | {view.queries_key}, parents=[view.source],
        shared=(comparison, view.queries))


def risks(view: View, comparison: Comparison, delta: float) -> tuple[metrics.Risk, ...]:
    """The harm and risk figures of every test of the comparison at the threshold `delta`:
    Compare's harm section redraws with any control below it, the figures do not change."""
    return store().get(
        "risks", (view.key, comparison.baseline, comparison.candidates, comparison.metrics,
                  comparison.confidence_level, delta, comparison.query_ids),
        lambda: metrics.risks(comparison, delta=delta),
        files=view.files, parents=[view.source], shared=(comparison,))


def to_label(view: View) -> metrics.ToLabel:
    """The unjudged ids in the top K of any shown run, most wanted first."""
    return store().get("to label", view.key, lambda: metrics.to_label(view.evaluation),
                       files=view.files, parents=[view.source], shared=(view.evaluation,))


# --------------------------------------------------------------------------- frames

HISTOGRAM_STEP = 0.05  # the width of a bar of the loss histogram, in the metric's units
SIDES = ("harmed", "lost less", "gained")  # the histogram's colours, worst first


def loss_histogram(test: metrics.PairedTest, delta: float) -> tuple[pd.DataFrame, int]:
    """The per-query differences that moved, counted in bins of HISTOGRAM_STEP on [-1, 1]
    per side (harmed: lost more than delta; lost less; gained), and the number of ties,
    which the histogram leaves out (they would dwarf every bar)."""
    d = test.differences
    edges = np.linspace(-1, 1, int(round(2 / HISTOGRAM_STEP)) + 1)
    sides = {"harmed": metrics.is_harmed(d, delta), "gained": d > 0}
    sides["lost less"] = (d < 0) & ~sides["harmed"]
    rows = []
    for side in SIDES:
        counts, _ = np.histogram(d[sides[side]], bins=edges)
        rows += [{"low": float(lo), "high": float(hi), "side": side, "queries": int(c)}
                 for lo, hi, c in zip(edges[:-1], edges[1:], counts, strict=True) if c]
    return pd.DataFrame(rows, columns=["low", "high", "side", "queries"]), int((d == 0).sum())


def risk_table(risks: list[metrics.Risk], alpha: float) -> pd.DataFrame:
    """One row per metric of one candidate: the share harmed with its interval, the mean
    loss, URisk and TRisk at the chosen risk aversion and what TRisk reads as."""
    return pd.DataFrame({
        "Metric": [r.metric for r in risks],
        "Harmed": [f"{vocabulary.risk.share(r.harm_share)} [{vocabulary.risk.share(r.harm_low)}, "
                   f"{vocabulary.risk.share(r.harm_high)}]" for r in risks],
        "Queries harmed": [f"{r.harmed:,} of {r.n:,}" for r in risks],
        "Mean loss": [None if r.losing == 0 else r.mean_loss for r in risks],
        "URisk": [metrics.format.zero_as_written(r.urisk_at(alpha)) for r in risks],
        "TRisk": [r.trisk_at(alpha) for r in risks],
        "Reading": [r.reading(alpha) for r in risks],
    })


def worst_losses(risk: metrics.Risk, view: View) -> pd.DataFrame:
    """The worst losses of one candidate on one metric, with the question when known."""
    frame = pd.DataFrame(list(risk.worst), columns=["query_id", "difference"])
    if view.queries is not None:
        frame.insert(1, "text", [view.text(q) or "" for q in frame["query_id"]])
    return frame


def shared_table(found: metrics.HarmProfile) -> pd.DataFrame:
    """What the harmed queries share, one row per word or facet value, with the counts."""
    def share(part: int, whole: int) -> str:
        return f"{part:,} of {whole:,} ({metrics.format.percent_of(part, whole)})" if whole \
            else metrics.format.MISSING

    return pd.DataFrame({
        "Feature": [f"{vocabulary.risk.FEATURE_KINDS[s.kind]}: {s.value}" for s in found.shared],
        "Harmed queries holding it": [share(s.harmed_with, s.harmed) for s in found.shared],
        "Other queries holding it": [share(s.rest_with, s.rest) for s in found.shared],
        # none of the others holds it: the ratio is undefined, and says why
        "Times as common": [vocabulary.risk.times(s.lift, s.lift_undefined)
                            for s in found.shared],
        "p adjusted": [metrics.format.p_value(s.q) for s in found.shared],
    })


def flips_table(found: metrics.Fragility) -> pd.DataFrame:
    return pd.DataFrame({
        "Candidate": [f.candidate for f in found.flips],
        "Metric": [f.metric for f in found.flips],
        "Under": [f"{f.title} = {f.choice_label}" for f in found.flips],
        "Verdict": [f.verdict for f in found.flips],
        "Becomes": [f.verdict_under_choice for f in found.flips],
    })


def paired(view: View, comparison: Comparison, options: CompareOptions,
           metric: str) -> pd.DataFrame:
    """Each compared query's figure under the baseline and every candidate on `metric` (a
    label), and their differences: what the scatter, the bars and the lists below read."""
    return derived(view, "paired", (options, metric),
                    lambda: frames.paired_scores(comparison, metric))


def biggest_changes(view: View, table: pd.DataFrame, options: CompareOptions, metric: str,
                    candidate: str, shown: int, *, gains: bool) -> pd.DataFrame:
    """The candidate's `shown` biggest gains (or losses) on `metric`, each with its question
    when a queries file gives one."""
    def build() -> pd.DataFrame:
        changes = frames.biggest_changes(table, candidate, shown, gains=gains)
        if view.queries is not None and not changes.empty:
            changes.insert(1, "text", [view.text(q) or "" for q in changes["query_id"]])
        return changes
    return derived(view, "biggest changes", (options, metric, candidate, shown, gains), build)
