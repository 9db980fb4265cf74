"""How different the runs are and what combining them gives, cached through the
store like decisions.py; and the frames the Overlap page lays out."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd

import metrics
from dashboard import safe
from dashboard.data.cache import Inputs, Parsed, View, spinner, store
from metrics import vocabulary

SYMMETRIC = ("jaccard", "rbo", "hybrid_ceiling")  # the same read from either run
ONLY_IN = "unique_relevant"  # the matrix of relevant ids only the row's run finds


def recipe_from_link(value: str) -> dict:
    """A fusion recipe from the link: JSON the engine checks (metrics.recipe_from_text)."""
    return metrics.recipe_from_text(value)


def recipe_link(recipe: dict) -> str:
    return json.dumps(recipe, separators=(",", ":"))


def compared_runs(view: View) -> list[str]:
    """The shown runs the overlap reads: the first MAX_RUNS_COMPARED (pairs are capped)."""
    return view.evaluation.run_names[:metrics.vocabulary.overlap.MAX_RUNS_COMPARED]


def overlap(view: View, p: float) -> metrics.Overlap:
    """Every pair of the compared runs (`compared_runs`) at K with persistence p."""
    runs = compared_runs(view)
    return store().get("overlap", (view.key, p),
                       lambda: metrics.overlap(view.evaluation, p=p, runs=runs),
                       files=view.files, parents=[view.source], shared=(view.evaluation,),
                       on_miss=spinner("Comparing every pair of runs' top K…"))


def matrix(found: metrics.Overlap, key: str) -> pd.DataFrame:
    """One row per ordered pair (row run, column run): the mean of `key` and its interval;
    ONLY_IN reads the relevant ids the row's run finds and the column's misses."""
    rows = []
    for pair in found.by_pair:
        for row, column, which in ((pair.a, pair.b, "a"), (pair.b, pair.a, "b")):
            figure = f"{ONLY_IN}_{which}" if key == ONLY_IN else key
            interval = pair.intervals[figure]
            rows.append({"row": row, "column": column, "mean": interval.mean,
                         "low": interval.low, "high": interval.high})
    return pd.DataFrame(rows, columns=["row", "column", "mean", "low", "high"])


def figure_table(found: metrics.Overlap, key: str) -> pd.DataFrame:
    """The chosen figure's mean and interval per pair: each unordered pair once for a
    symmetric figure, both directions for the relevant ids only one run finds."""
    frame = matrix(found, key)
    if key in SYMMETRIC:
        order = {name: i for i, name in enumerate(found.runs)}
        frame = frame[[order[r] < order[c] for r, c in zip(frame["row"], frame["column"],
                                                            strict=True)]]
    return pd.DataFrame({
        "Run": frame["row"], "Compared with": frame["column"], "Mean": frame["mean"],
        "Interval": [f"[{metrics.format.figure(lo)}, {metrics.format.figure(hi)}]"
                     for lo, hi in zip(frame["low"], frame["high"], strict=True)]})


def pairs_csv(found: metrics.Overlap) -> str:
    """Every pair's every figure with its bounds, as the JSON's rows."""
    return safe.csv_text(pd.DataFrame(found.rows()))


def for_query(view: View, p: float, query_id: str) -> pd.DataFrame:
    """Each pair of the compared runs (`compared_runs`) on one query at K with persistence p:
    the drill-down, which says K above it. That query's lists alone are read, so a change
    of K does not score every query's overlap."""
    words = vocabulary.overlap
    rows = metrics.query_overlap(view.evaluation, query_id, p=p, runs=compared_runs(view))
    return pd.DataFrame({"A": [r["a"] for r in rows], "B": [r["b"] for r in rows],
                         **{words.SHORT_NAMES[key]: [r[key] for r in rows]
                            for key in words.OVERLAP_KEYS}})


# --------------------------------------------------------------------------- fused runs

FUSED_FORMAT = "fused"  # a derived run's load report format: no file behind it


def with_fused(inputs: Inputs, recipes: list[dict]) -> tuple[Inputs, list[str]]:
    """The inputs with one derived run per recipe after the loaded ones, each fused once
    (kept in the store beside the files it reads), and why a recipe made none."""
    named = dict(zip(inputs.run_names, inputs.usable_runs, strict=True))
    fused, problems = [], []
    for recipe in recipes:
        missing = [name for name in recipe["runs"] if name not in named]
        if missing:
            shown = metrics.format.listing(map(metrics.format.shortened, missing), limit=5)
            problems.append(f"fuse: no run named {shown}; the fused run is left out")
            continue
        parts = [named[name] for name in recipe["runs"]]
        key = f"fused:{recipe_link(recipe)}|" + "|".join(p.key for p in parts)
        fused.append(store().get(
            "file", ("fused", key), lambda parts=parts, recipe=recipe, key=key: _fused(
                parts, recipe, key), files=[p.key for p in parts],
            parents=[("file", ("run", p.key)) for p in parts],
            on_miss=spinner("Fusing the runs…")))
    return replace(inputs, runs=inputs.runs + tuple(fused)), problems


def _pooled(parts: list[Parsed]) -> metrics.FusionPool:
    """The runs' rows pooled once (most of a fusion's time: every doc id matched and sorted
    as a string), for every recipe that fuses the same runs in the same order: another k,
    method or weight is a fusion of the pool alone."""
    keys = tuple(p.key for p in parts)
    return store().get("fusion pool", keys,
                       lambda: metrics.fusion_pool([p.value for p in parts]),
                       files=list(keys), parents=[("file", ("run", k)) for k in keys],
                       shared=tuple(p.value for p in parts))


def _fused(parts: list[Parsed], recipe: dict, key: str) -> Parsed:
    runs = [p.value.renamed(name) for p, name in zip(parts, recipe["runs"], strict=True)]
    try:
        run, made = metrics.fuse(runs, method=recipe["method"], norm=recipe["norm"],
                                 rrf_k=recipe["k"], weights=recipe["weights"],
                                 pool=_pooled(parts))
    except ValueError as error:
        return Parsed(key, key, error=str(error))
    rows = len(run.line)
    report = metrics.LoadReport(made.name, "run", FUSED_FORMAT, rows, rows, (), (),
                                notes=(made.sentence,))
    return Parsed(made.name, key, run, report)


def is_fused(parsed: Parsed) -> bool:
    return parsed.report is not None and parsed.report.format == FUSED_FORMAT


# --------------------------------------------------------------------------- weight search


def cross_fit(view: View, first: str, second: str, metric: str) -> metrics.CrossFit:
    """The first run's weight in a weighted CombSUM of two shown runs, chosen by 2-fold
    cross-fitting on `metric` at the view's K (a few seconds on thousands of queries)."""
    evaluation = view.evaluation
    runs = [evaluation.run(first).run, evaluation.run(second).run]
    return store().get(
        "cross fit", (view.key, first, second, metric),
        lambda: metrics.cross_fitted_weights(view.qrels, runs, metric=metric, k=evaluation.k,
                                             conventions=evaluation.conventions),
        files=view.files, parents=[view.source], shared=(view.evaluation,),
        on_miss=spinner("Fusing at every weight and scoring each half…"))


def cross_fit_table(found: metrics.CrossFit) -> pd.DataFrame:
    """The mean at each weight on each half and on every query: where each half's choice
    and the in-sample choice come from."""
    halves = {f"Half {h + 1}": found.table[found.fold == h].mean(axis=0) for h in (0, 1)}
    return pd.DataFrame({"Weight": found.grid, **halves, "Every query": found.table.mean(axis=0)})


def cross_fit_interval(view: View, found: metrics.CrossFit) -> metrics.Interval:
    """The cross-fitted mean's bootstrap interval, drawn as the summary's."""
    c = view.evaluation.conventions
    return metrics.bootstrap(found.per_query, confidence_level=c.confidence_level,
                             n_resamples=c.n_resamples, rng=c.seed,
                             method=c.interval_method)[0]
