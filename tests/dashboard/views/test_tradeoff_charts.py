"""The trade-off chart on chart.to_dict(): each run at (p95 latency, headline figure) with both
intervals, the Pareto front (filled points and a dashed line through them, in cost order),
run colours from the shared scale, and the runs left out named with why."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from dashboard.views import chart_base
from dashboard.views.tradeoff_charts import (
    DOMINATED,
    FRONT,
    score_scale,
    sweep_cost_chart,
    sweep_cost_frame,
    tradeoff_chart,
    tradeoff_frame,
)
from metrics import ChunkTokens, Conventions, RunTimings, load_sample, sweep_costs, timed
from metrics.vocabulary.timings import FRONT_RULE, FRONT_UNSURE

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
    place = dict(zip(frame["run"], frame["place"], strict=True))
    # tfidf fastest, bm25 between, reranked best; slowworse is slower and worse than bm25
    assert place == {"bm25": FRONT, "tfidf": FRONT, "reranked": FRONT,
                     "slowworse": DOMINATED}
    assert list(frame["front"]) == [True, True, True, False]
    # but bm25's latency interval reaches down into tfidf's (27.1 ms under tfidf's top,
    # 28.0) and its score interval up into tfidf's: bm25 could dominate tfidf, whose place
    # on the front is not certain; slowworse is slower than bm25 and worse, both intervals
    # apart: surely dominated
    standing = dict(zip(frame["run"], frame["standing"], strict=True))
    assert standing == {"bm25": FRONT, "tfidf": FRONT_UNSURE, "reranked": FRONT,
                        "slowworse": DOMINATED}
    assert list(frame["sure"]) == [True, False, True, True]
    row = frame.set_index("run")
    assert row.loc["bm25", "cost_low"] < row.loc["tfidf", "cost_high"]
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
    # the shapes' legend (an invisible layer in one colour), the front, both intervals, the
    # points, their names
    assert marks == ["point", "line", "rule", "rule", "point", "text"]
    assert layers[0]["mark"]["opacity"] == 0 and layers[0]["encoding"]["shape"]["legend"]
    assert layers[2]["encoding"]["x2"]["field"] == "cost_high"
    assert layers[3]["encoding"]["y2"]["field"] == "score_high"
    assert layers[1]["transform"] == [{"filter": "datum.front"}]
    assert layers[1]["encoding"]["order"]["field"] == "cost"
    text = json.dumps(spec["title"])
    assert "nDCG@10 at K = 10 against p95 latency_ms" in text
    assert "percentile bootstrap of the quantile" in text and "untimed: no latency_ms" in text
    said = " ".join(spec["title"]["subtitle"])  # the lines wrapped to the chart's width
    assert FRONT_RULE in said and "hollow: they overlap" in said
    points = layers[4]["encoding"]
    assert points["fill"]["condition"]["test"] == "datum.sure"  # filled when certain
    assert points["fill"]["value"] == "transparent"  # hollow where the intervals overlap
    assert points["shape"]["field"] == "place"  # circle on the front by the points
    colour = layers[4]["encoding"]["color"]
    assert colour["scale"]["domain"] == RUNS + ["untimed"]
    data = next(iter(spec["datasets"].values()))
    assert {row["run"]: row["front"] for row in data} == {
        "bm25": True, "tfidf": True, "reranked": True, "slowworse": False}


def swept(k: int = 5):
    sample = load_sample(k=k)
    sweeps = sweep_costs(sample, ChunkTokens.from_words(300))
    means = {run: sample.sweep_means(run) for run in sample.run_names}
    return sample, sweeps, means


def test_the_k_sweep_s_points_are_each_run_s_figure_and_tokens_at_every_k():
    sample, sweeps, means = swept()
    frame = sweep_cost_frame(sweeps, means, metric="nDCG", k=5, runs=sample.run_names[::-1])
    lo, hi = sample.sweep_range
    assert list(dict.fromkeys(frame["run"])) == sample.run_names[::-1]
    assert len(frame) == len(sample.run_names) * (hi - lo + 1)
    for sweep in sweeps:
        rows = frame[frame["run"] == sweep.run]
        assert list(rows["k"]) == list(sweep.ks)
        assert np.allclose(rows["cost"], sweep.tokens)
        assert np.allclose(rows["score"], means[sweep.run]["nDCG"])
        assert list(rows["k"][rows["chosen"]]) == [5]
    # tokens at K are the mean ids returned within K (<= K) x 390 tokens a chunk
    assert (frame["cost"] <= frame["k"] * 390 + 1e-9).all()
    assert frame["cost"].max() > 0
    # a run without a sweep (or a metric no sweep has) is left out, not drawn at 0
    assert sweep_cost_frame(sweeps[:1], means, metric="nDCG", k=5,
                            runs=sample.run_names)["run"].unique().tolist() == [sweeps[0].run]
    assert sweep_cost_frame(sweeps, means, metric="nope", k=5).empty


def test_the_k_sweep_s_token_chart_says_how_the_tokens_were_estimated():
    sample, sweeps, means = swept()
    frame = sweep_cost_frame(sweeps, means, metric="nDCG", k=5)
    spec = sweep_cost_chart(frame, chart_base.run_scale(sample.run_names), k=5,
                            metric_label="nDCG@K", method=sweeps[0].sentence).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == [
        "line", "point", "text", "point"]
    said = " ".join(spec["title"]["subtitle"])
    assert "estimated from the corpus: 300 words per chunk × 1.3" in said
    assert "ringed: the chosen K = 5" in said
    # the score axis holds every point and does not reach below 0 (the sweep starts near 0)
    low, high = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert 0 <= low <= frame["score"].min() and high >= frame["score"].max()


def test_the_score_axis_keeps_negative_figures_in_sight():
    standardised = pd.Series([-1.2, 0.3, 0.8])
    scale = score_scale(standardised).to_dict()
    assert "domain" not in scale and scale["padding"] == 16
    low, high = score_scale(pd.Series([0.01, 0.6])).to_dict()["domain"]
    assert low == 0.0 and 0.6 < high < 0.7
    low, high = score_scale(pd.Series([0.5, 0.5])).to_dict()["domain"]  # one figure
    assert low < 0.5 < high


def test_the_k_sweep_goes_on_the_trade_off_chart_s_tokens_axis():
    sample, sweeps, means = swept()
    frame = sweep_cost_frame(sweeps, means, metric="nDCG", k=5)
    found = timed(sample.run_names, list(sample.scored_ids), {
        run: RunTimings(run, "t.csv", tuple(sample.scored_ids),
                        {"tokens": np.full(len(sample.scored_ids), 1000.0 + i)})
        for i, run in enumerate(sample.run_names)}, Conventions(n_resamples=50))
    points, left_out = tradeoff_frame(sample.summary(), found, metric="nDCG",
                                      statistic="mean", column="tokens")
    spec = tradeoff_chart(points, chart_base.run_scale(sample.run_names), k=5,
                          metric_label="nDCG@5", statistic="mean", column="tokens",
                          confidence_level=0.95, left_out=left_out, sweep=frame,
                          sweep_method=sweeps[0].sentence).to_dict()
    # the sweep's line, dots and K labels under the trade-off chart's own layers
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["line", "point", "text", "point", "line", "rule", "rule", "point", "text"]
    said = " ".join(spec["title"]["subtitle"])
    assert "every K of the sweep" in said and "300 words per chunk × 1.3" in said
    assert "The mean's interval is the mean's percentile bootstrap" in said
    data = spec["datasets"]
    assert any(len(rows) == len(frame) and "k" in rows[0] for rows in data.values())
