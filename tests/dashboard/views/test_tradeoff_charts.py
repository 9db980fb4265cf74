"""The trade-off chart on chart.to_dict(): each run at (p95 latency, headline figure) with both
intervals, the Pareto front (filled points and a dashed line through them, in cost order),
run colours from the shared scale, and the runs left out named with why."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from dashboard.views import chart_base
from dashboard.views.tradeoff_charts import DOMINATED, FRONT, tradeoff_chart, tradeoff_frame
from metrics import Conventions, RunTimings, timed

RUNS = ["bm25", "tfidf", "reranked", "slowworse"]
IDS = [f"q{i}" for i in range(60)]


def summary() -> pd.DataFrame:
    means = {"bm25": 0.57, "tfidf": 0.49, "reranked": 0.62, "slowworse": 0.50, "untimed": 0.7}
    return pd.DataFrame([{"run": run, "metric": "nDCG", "label": "nDCG@10", "mean": mean,
                          "low": mean - 0.02, "high": mean + 0.02, "interval": "bootstrap"}
                         for run, mean in means.items()])


def timings() -> dict:
    rng = np.random.default_rng(4)
    scale = {"bm25": 20, "tfidf": 15, "reranked": 90, "slowworse": 120}
    return {run: RunTimings(run, "t.csv", tuple(IDS),
                            {"latency_ms": rng.lognormal(np.log(s), 0.3, len(IDS))})
            for run, s in scale.items()}


def built():
    found = timed(RUNS, IDS, timings(), Conventions(n_resamples=200))
    return tradeoff_frame(summary(), found, metric="nDCG")


def test_the_frame_holds_each_timed_run_its_intervals_and_the_front():
    frame, left_out = built()
    assert list(frame["run"]) == RUNS
    assert left_out == ["untimed: no latency_ms"]
    standing = dict(zip(frame["run"], frame["standing"], strict=True))
    # tfidf fastest, bm25 between, reranked best; slowworse is slower and worse than bm25
    assert standing == {"bm25": FRONT, "tfidf": FRONT, "reranked": FRONT,
                        "slowworse": DOMINATED}
    assert (frame["cost_low"] <= frame["cost"]).all()
    assert (frame["cost"] <= frame["cost_high"]).all()


def test_the_chart_draws_both_intervals_the_front_and_names_the_left_out():
    frame, left_out = built()
    scale = chart_base.run_scale(RUNS + ["untimed"])
    spec = tradeoff_chart(frame, scale, k=10, metric_label="nDCG@10",
                          confidence_level=0.95, left_out=left_out).to_dict()
    layers = spec["layer"]
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in layers]
    assert marks == ["line", "rule", "rule", "point", "text"]
    assert layers[1]["encoding"]["x2"]["field"] == "cost_high"
    assert layers[2]["encoding"]["y2"]["field"] == "score_high"
    assert layers[0]["transform"] == [{"filter": "datum.front"}]
    assert layers[0]["encoding"]["order"]["field"] == "cost"
    text = json.dumps(spec["title"])
    assert "nDCG@10 at K = 10 against p95 latency_ms" in text
    assert "percentile bootstrap of the quantile" in text and "untimed: no latency_ms" in text
    colour = layers[3]["encoding"]["color"]
    assert colour["scale"]["domain"] == RUNS + ["untimed"]
    data = next(iter(spec["datasets"].values()))
    assert {row["run"]: row["front"] for row in data} == {
        "bm25": True, "tfidf": True, "reranked": True, "slowworse": False}
