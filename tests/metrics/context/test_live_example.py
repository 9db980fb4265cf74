"""benchmarks/live_retrievers.py's printed report on a small input (the script itself calls
two real retrievers over 10,669 chunks: slow, and it times things): each run's latency mean,
p50 and p95 with the engine's bootstrap intervals, as `metrics.timed` reads them and numpy
reads the points; the paired latency differences and the p95 ratio with their intervals."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

import metrics
from tests.benchmark_scripts import benchmark_script
from tests.metrics.builders import make_qrels, make_run

N = 40


@pytest.fixture(scope="module")
def printed():
    rng = np.random.default_rng(3)
    ids = [f"q{i:02d}" for i in range(N)]
    judgments = {q: {f"{q}-d{j}": int(rng.integers(0, 3)) if j else 1 for j in range(4)}
                 for q in ids}
    judgments["q00"] = {"q00-d0": 0}  # no relevant id: not scored, its latency not read
    lists = {name: {q: list(rng.permutation([f"{q}-d{j}" for j in range(6)])) for q in ids}
             for name in ("bm25", "tfidf")}
    evaluation = metrics.evaluate(make_qrels(judgments),
                                  [make_run(lists[n], n) for n in ("bm25", "tfidf")], 10)
    latency = {"bm25": {q: float(v) for q, v in zip(ids, rng.lognormal(1, 0.5, N),
                                                    strict=True)},
               "tfidf": {q: float(v) for q, v in zip(ids, rng.lognormal(2.5, 0.3, N),
                                                     strict=True)}}
    del latency["tfidf"]["q07"]  # a failed call: no latency
    results = {n: SimpleNamespace(latency_ms=latency[n]) for n in latency}
    with benchmark_script("live_retrievers") as script:
        timings = script.live_timings(results)
        found = metrics.timed(evaluation.run_names, evaluation.scored_ids, timings,
                              evaluation.conventions, baseline="bm25")
        lines = script.report_lines(evaluation, found, failed={"tfidf": 1}, k=10)
    return evaluation, latency, found, lines


def test_each_run_s_latency_figures_carry_the_engine_s_intervals(printed):
    evaluation, latency, found, lines = printed
    assert lines[0].split() == ["retriever", "nDCG@10", "R@10", "latency", "mean", "ms",
                                "p50", "ms", "p95", "ms", "failed"]
    scored = list(evaluation.scored_ids)
    assert "q00" not in scored and len(scored) == N - 1
    for row, name in zip(lines[2:4], ("bm25", "tfidf"), strict=True):
        cells = re.findall(r"(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]", row)
        assert row.startswith(name) and len(cells) == 5  # nDCG, R, mean, p50, p95
        values = np.array([latency[name][q] for q in scored if q in latency[name]])
        cost = found.of(name)
        for (point, low, high), statistic, plain in zip(
                cells[2:], ("mean", "p50", "p95"),
                (values.mean(), *np.percentile(values, [50, 95])), strict=True):
            figure = cost.figure(statistic)
            assert float(point) == pytest.approx(plain, abs=0.005)  # numpy's own reading
            assert (float(low), float(high)) == pytest.approx((figure.low, figure.high),
                                                               abs=0.005)
            assert float(low) < float(high)
    assert lines[3].split()[-1] == "1" and lines[2].split()[-1] == "0"  # failed calls


def test_the_paired_latency_line_has_each_difference_with_its_interval(printed):
    evaluation, latency, found, lines = printed
    line = next(x for x in lines if x.startswith("latency, tfidf - bm25"))
    both = [q for q in evaluation.scored_ids if q in latency["tfidf"]]
    assert f"({len(both)} scored queries both answered; 95% intervals, paired bootstrap)" in line
    mean = re.search(r"per-query differences ([+-]\d+\.\d+) \[([+-]\d+\.\d+), ([+-]\d+\.\d+)\]",
                     line)
    plain = np.mean([latency["tfidf"][q] - latency["bm25"][q] for q in both])
    assert float(mean[1]) == pytest.approx(plain, abs=0.005)
    pair = found.pair("tfidf")
    assert (float(mean[2]), float(mean[3])) == pytest.approx(
        (pair.difference("mean").low, pair.difference("mean").high), abs=0.005)
    ratio = pair.ratio("p95")
    assert metrics.vocabulary.timings.ratio_interval(ratio.value, ratio.low, ratio.high) in line
    p95 = {n: np.percentile([latency[n][q] for q in both], 95) for n in latency}
    assert ratio.value == pytest.approx(p95["tfidf"] / p95["bm25"])
    assert any(x.startswith("tfidf ") and "bm25 on nDCG@10" in x for x in lines)  # headline
    assert lines[-1].startswith("latency intervals: A quantile's interval is a percentile "
                                "bootstrap of the quantile")
