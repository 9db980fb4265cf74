"""How different the runs are and what combining them gives (issue 17), cached through the
store like decisions.py; and the frames the Overlap page lays out."""

from __future__ import annotations

import pandas as pd

import metrics
from dashboard import safe
from dashboard.cache import View, spinner, store
from metrics import vocabulary

SYMMETRIC = ("jaccard", "rbo", "hybrid_ceiling")  # the same read from either run
ONLY_IN = "unique_relevant"  # the matrix of relevant ids only the row's run finds


def overlap(view: View, p: float) -> metrics.Overlap:
    """Every pair of shown runs at K with persistence p."""
    return store().get("overlap", (view.key, p), lambda: metrics.overlap(view.evaluation, p=p),
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


def for_query(found: metrics.Overlap, query_id: str) -> pd.DataFrame:
    """Each pair's figures on one query (the drill-down, which says K above it)."""
    words = vocabulary.overlap
    rows = found.for_query(query_id)
    return pd.DataFrame({"A": [r["a"] for r in rows], "B": [r["b"] for r in rows],
                         **{words.SHORT_NAMES[key]: [r[key] for r in rows]
                            for key in words.OVERLAP_KEYS}})
