"""Latency figures against a plain-loop bootstrap: the resampled queries drawn as indices
from a Generator on the conventions' seed (as the engine's dense draw does), np.quantile and
np.mean on each resample, the interval np.quantile of those; the paired difference and ratio
on the same indices; and the latency gate's verdicts and parsing."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.decide.latency import (
    judge_latency,
    paired_cost,
    parse_latency_limit,
    parse_latency_limits,
    run_cost,
    timed,
)
from metrics.io.timings import RunTimings
from metrics.vocabulary.budget import CANNOT_TELL, WITHIN, WORSE
from metrics.vocabulary.conventions import Conventions

CONVENTIONS = Conventions(n_resamples=400, seed=2024)
STATS = {"mean": None, "p50": 0.5, "p95": 0.95, "p99": 0.99}


def plain_loop(values: np.ndarray, conventions: Conventions) -> np.ndarray:
    """(resamples, statistics): each resample drawn as n indices, its mean and quantiles."""
    n = len(values)
    draws = np.random.default_rng(conventions.seed).integers(
        0, n, size=(conventions.n_resamples, n))
    out = []
    for row in draws:
        drawn = values[row]
        out.append([np.mean(drawn) if q is None else np.quantile(drawn, q)
                    for q in STATS.values()])
    return np.array(out)


def bounds(distribution: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    a = 1 - level
    return np.quantile(distribution, a / 2, axis=0), np.quantile(distribution, 1 - a / 2, axis=0)


def latencies(n: int, seed: int, scale: float = 20.0) -> np.ndarray:
    return np.round(np.random.default_rng(seed).lognormal(np.log(scale), 0.5, n), 2)


def test_run_figures_are_a_plain_loop_bootstrap_of_mean_and_quantiles():
    values = latencies(120, 1)
    ids = [f"q{i:03d}" for i in range(120)]
    cost = run_cost("bm25", values, ids, CONVENTIONS)
    loop = plain_loop(values, CONVENTIONS)
    low, high = bounds(loop, CONVENTIONS.confidence_level)
    for i, name in enumerate(STATS):
        figure = cost.figure(name)
        q = STATS[name]
        assert figure.value == pytest.approx(np.mean(values) if q is None
                                             else np.quantile(values, q), rel=1e-12)
        np.testing.assert_allclose(figure.distribution, loop[:, i], rtol=1e-12)
        assert figure.low == pytest.approx(low[i], rel=1e-12)
        assert figure.high == pytest.approx(high[i], rel=1e-12)
    assert cost.n == 120 and cost.missing == ()
    assert "percentile bootstrap of the quantile" in cost.sentence("p95")


def test_missing_queries_are_left_out_and_counted():
    values = latencies(50, 2)
    values[[3, 7]] = np.nan
    ids = [f"q{i}" for i in range(50)]
    cost = run_cost("bm25", values, ids, CONVENTIONS)
    assert cost.n == 48 and cost.missing == ("q3", "q7")
    kept = values[~np.isnan(values)]
    assert cost.figure("p95").value == pytest.approx(np.quantile(kept, 0.95))
    nothing = run_cost("bm25", np.full(3, np.nan), ["a", "b", "c"], CONVENTIONS)
    assert nothing.figure("p95").undefined and np.isnan(nothing.figure("p95").value)


def test_paired_difference_and_ratio_read_both_runs_on_the_same_resamples():
    before = latencies(90, 3)
    after = before + latencies(90, 4, scale=40)
    pair = paired_cost("bm25", "reranked", before, after, CONVENTIONS)
    a, b = plain_loop(before, CONVENTIONS), plain_loop(after, CONVENTIONS)
    level = CONVENTIONS.confidence_level
    for i, name in enumerate(STATS):
        low, high = bounds(b[:, i] - a[:, i], level)
        d = pair.difference(name)
        assert d.low == pytest.approx(low, rel=1e-9) and d.high == pytest.approx(high, rel=1e-9)
        ratio_low, ratio_high = bounds(b[:, i] / a[:, i], level)
        r = pair.ratio(name)
        assert r.low == pytest.approx(ratio_low, rel=1e-9)
        assert r.high == pytest.approx(ratio_high, rel=1e-9)
    # the mean difference is the mean of the per-query differences
    assert pair.difference("mean").value == pytest.approx(np.mean(after - before))
    assert pair.difference("p95").value == pytest.approx(
        np.quantile(after, 0.95) - np.quantile(before, 0.95))
    assert pair.headline().startswith("p95 latency +")


def test_a_zero_baseline_makes_the_ratio_undefined_with_its_reason():
    pair = paired_cost("a", "b", np.zeros(20), np.ones(20), CONVENTIONS)
    assert pair.ratio("p95").undefined is not None
    assert pair.difference("p95").value == 1


def test_timed_aligns_runs_on_the_scored_queries_and_pairs_them_with_the_first():
    ids = [f"q{i}" for i in range(30)]
    base = RunTimings("bm25", "t.csv", tuple(ids), {"latency_ms": latencies(30, 5)})
    slow = RunTimings("rr", "t.csv", tuple(ids[:29] + ["extra"]),
                      {"latency_ms": latencies(30, 6, 60)})
    found = timed(["bm25", "rr"], ids, {"bm25": base, "rr": slow}, CONVENTIONS)
    assert [c.run for c in found.runs] == ["bm25", "rr"]
    assert found.of("rr").missing == ("q29",)
    assert found.not_scored == {"bm25": 0, "rr": 1}
    assert found.pair("rr").n == 29


@pytest.mark.parametrize("text, kind, amount", [
    ("p95=+20%", "relative", 20.0), ("p95=+30ms", "increase", 30.0),
    ("P99 = 150ms", "absolute", 150.0), ("mean=+0%", "relative", 0.0)])
def test_limits_parse(text, kind, amount):
    limit = parse_latency_limit(text)
    assert (limit.kind, limit.amount) == (kind, amount)


@pytest.mark.parametrize("text, says", [
    ("p95", "STAT=LIMIT"), ("p90=+20%", "mean, p50, p95, p99"), ("p95=20%", "+N%"),
    ("p95=-5ms", "finite number"), ("p95=fast", "finite number"), ("p95=nanms", "finite")])
def test_bad_limits_are_refused_saying_why(text, says):
    with pytest.raises(ValueError, match=None) as error:
        parse_latency_limit(text)
    assert says in str(error.value)


def test_one_limit_per_statistic():
    with pytest.raises(ValueError, match="two latency limits on p95"):
        parse_latency_limits(["p95=+20%", "p95=100ms"])


def test_the_gate_reads_the_whole_interval_against_the_limit():
    before = latencies(200, 7)
    pair = paired_cost("a", "b", before, before * 1.5, CONVENTIONS)
    own = run_cost("b", before * 1.5, [str(i) for i in range(200)], CONVENTIONS)
    ratio = pair.ratio("p95")
    assert ratio.low == pytest.approx(1.5) and ratio.high == pytest.approx(1.5)
    assert judge_latency(parse_latency_limit("p95=+60%"), candidate="b", own=own,
                         pair=pair).verdict == WITHIN
    assert judge_latency(parse_latency_limit("p95=+40%"), candidate="b", own=own,
                         pair=pair).verdict == WORSE
    p95 = own.figure("p95")
    middle = (p95.low + p95.high) / 2
    verdict = judge_latency(parse_latency_limit(f"p95={middle}ms"), candidate="b", own=own,
                            pair=pair)
    assert verdict.verdict == CANNOT_TELL and not verdict.passed
    assert "straddles" in verdict.sentence
    assert judge_latency(parse_latency_limit("p95=+20%"), candidate="b", own=own,
                         pair=None).verdict == CANNOT_TELL


def test_the_pareto_front_against_a_plain_double_loop():
    from metrics.decide.latency import pareto_front
    rng = np.random.default_rng(9)
    for _ in range(50):
        costs = rng.integers(0, 5, 7).astype(float)
        figures = rng.integers(0, 5, 7).astype(float)
        costs[rng.integers(0, 7)] = np.nan
        expected = []
        for i in range(7):
            if np.isnan(costs[i]):
                expected.append(False)
                continue
            expected.append(not any(
                j != i and not np.isnan(costs[j]) and costs[j] <= costs[i]
                and figures[j] >= figures[i] and (costs[j] < costs[i] or figures[j] > figures[i])
                for j in range(7)))
        assert pareto_front(costs, figures) == tuple(expected)



def loop_standing(points: list[tuple[float, float, float, float, float, float]]) -> list[str]:
    """The FRONT_RULE one pair at a time, from the words: (cost, low, high, figure, low,
    high) per point; the front read on the points by a double loop."""
    from metrics.vocabulary.timings import DOMINATED, DOMINATED_UNSURE, FRONT, FRONT_UNSURE
    out = []
    for i, (c, cl, ch, f, fl, fh) in enumerate(points):
        if any(v != v for v in points[i]):
            out.append(DOMINATED_UNSURE)
            continue
        rest = [p for j, p in enumerate(points) if j != i and not any(v != v for v in p)]
        on = not any(p[0] <= c and p[3] >= f and (p[0] < c or p[3] > f) for p in rest)
        if on:
            could = any(p[1] <= ch and p[5] >= fl for p in rest)
            out.append(FRONT_UNSURE if could else FRONT)
        else:
            surely = any(p[2] <= cl and p[4] >= fh for p in rest)
            out.append(DOMINATED if surely else DOMINATED_UNSURE)
    return out


def test_the_front_s_certainty_against_a_plain_loop():
    from metrics.decide.latency import pareto_standing
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(200):
        n = int(rng.integers(1, 7))
        cost = rng.integers(0, 8, n).astype(float)
        figure = rng.integers(0, 8, n).astype(float)
        c_width, f_width = rng.integers(0, 3, n), rng.integers(0, 3, n)
        points = [(cost[i], cost[i] - c_width[i], cost[i] + c_width[i], figure[i],
                   figure[i] - f_width[i], figure[i] + f_width[i]) for i in range(n)]
        if n > 2 and rng.random() < 0.2:
            points[0] = (np.nan,) + points[0][1:]
        got = pareto_standing(*(np.array(col) for col in zip(*points, strict=True)))
        assert list(got) == loop_standing(points)
        seen.update(got)
    assert len(seen) == 4  # every standing met


def test_the_front_s_certainty_on_a_worked_example():
    from metrics.decide.latency import pareto_front, pareto_standing
    from metrics.vocabulary.timings import DOMINATED, DOMINATED_UNSURE, FRONT, FRONT_UNSURE
    # fast 10 ms [9, 11], 0.50 [0.48, 0.52]; good 50 [45, 55], 0.60 [0.58, 0.62];
    # close 12 [10, 14], 0.51 [0.49, 0.53]; slow 80 [75, 85], 0.45 [0.43, 0.47];
    # near 52 [44, 60], 0.59 [0.57, 0.61].
    # By the points fast, good and close are the front. fast and close could each dominate
    # the other (their intervals overlap both ways), near could dominate good: all three
    # front, not certain. slow lies wholly above and below fast: surely dominated. near is
    # dominated by good's points only, their intervals overlapping: not certain.
    cost, c_low, c_high = [10, 50, 12, 80, 52], [9, 45, 10, 75, 44], [11, 55, 14, 85, 60]
    fig, f_low, f_high = ([0.50, 0.60, 0.51, 0.45, 0.59], [0.48, 0.58, 0.49, 0.43, 0.57],
                          [0.52, 0.62, 0.53, 0.47, 0.61])
    assert pareto_front(cost, fig) == (True, True, True, False, False)
    assert pareto_standing(cost, c_low, c_high, fig, f_low, f_high) == (
        FRONT_UNSURE, FRONT_UNSURE, FRONT_UNSURE, DOMINATED, DOMINATED_UNSURE)
    # the two far apart alone: both certain
    assert pareto_standing([10, 50], [9, 45], [11, 55], [0.5, 0.6], [0.48, 0.58],
                           [0.52, 0.62]) == (FRONT, FRONT)
    with pytest.raises(ValueError, match="one cost, figure"):
        pareto_standing([1, 2], [1], [1, 2], [1, 2], [1, 2], [1, 2])

def test_an_undefined_verdict_writes_null_not_nan():
    verdict = judge_latency(parse_latency_limit("p95=+20%"), candidate="b", own=None, pair=None)
    data = verdict.as_dict()
    assert data["low"] is None and data["high"] is None and data["passed"] is False
    assert "cannot tell" in data["sentence"]
