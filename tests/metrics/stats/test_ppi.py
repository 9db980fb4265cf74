"""Prediction-powered means against the authors' package (ppi-python's ppi_mean_ci and
classical_mean_ci, a test oracle only), for lambda = 1 and the tuned lambda; the tuned weight
against PPI++'s formula written out; and coverage on a biased judge (thorough)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.stats.ppi import clt_mean, ppi_mean, tuned_lambda
from tests.marks import THOROUGH

ppi_py = pytest.importorskip("ppi_py")


def _sample(seed: int, n: int = 60, big_n: int = 600, *, bias: float = 0.1):
    """Per-query figures in [0, 1]: the judge's track the humans' with noise and a bias."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, size=n + big_n)
    judged = np.clip(truth + bias + rng.normal(scale=0.15, size=n + big_n), 0, 1)
    return truth[:n], judged[:n], judged[n:]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lam", [None, 1.0, 0.3])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_ppi_interval_is_ppi_python_s(seed, lam, level):
    y, f, u = _sample(seed, n=30 + 20 * seed)
    low, high = ppi_py.ppi_mean_ci(y, f, u, alpha=1 - level, lam=lam)
    found = ppi_mean(y, f, u, lam=lam, confidence_level=level)
    assert found.low == pytest.approx(float(low[0]), abs=1e-12)
    assert found.high == pytest.approx(float(high[0]), abs=1e-12)
    point = ppi_py.ppi_mean_pointestimate(y, f, u, lam=lam)
    assert found.mean == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)


def test_tuned_lambda_is_ppi_plus_plus_formula_written_out():
    y, f, u = _sample(3)
    n, big_n = len(y), len(u)
    cov = sum((a - y.mean()) * (b - f.mean()) for a, b in zip(y, f, strict=True)) / n
    both = np.concatenate([f, u])
    var = sum((x - both.mean()) ** 2 for x in both) / (len(both) - 1)
    expected = min(1.0, max(0.0, cov / ((1 + n / big_n) * var)))
    assert tuned_lambda(y, f, u) == pytest.approx(expected, rel=1e-12)
    assert 0 < expected < 1  # the case is not a clipped one


def test_lambda_zero_is_the_human_only_mean_and_classical_interval():
    y, f, u = _sample(5)
    found, clt = ppi_mean(y, f, u, lam=0.0, confidence_level=0.95), clt_mean(
        y, confidence_level=0.95)
    low, high = ppi_py.classical_mean_ci(y, alpha=0.05)
    assert (found.mean, found.low, found.high) == pytest.approx((clt.mean, clt.low, clt.high))
    assert (clt.low, clt.high) == pytest.approx((float(np.ravel(low)[0]),
                                                  float(np.ravel(high)[0])), abs=1e-12)


def test_a_constant_judge_carries_nothing():
    y = np.array([0.2, 0.4, 0.9, 0.1])
    assert tuned_lambda(y, np.full(4, 0.5), np.full(10, 0.5)) == 0.0
    assert ppi_mean(y, np.full(4, 0.5), np.full(10, 0.5),
                    confidence_level=0.95).mean == pytest.approx(y.mean())


def test_a_perfect_judge_narrows_the_interval():
    y, _, _ = _sample(1)
    rng = np.random.default_rng(2)
    u = rng.beta(2, 3, size=600)
    tuned = ppi_mean(y, y, u, confidence_level=0.95)
    assert tuned.lam > 0.5
    assert tuned.width < 0.7 * clt_mean(y, confidence_level=0.95).width


@pytest.mark.parametrize("bad", [
    dict(gold=[0.1], predicted=[0.1], predicted_unlabelled=[0.2]),
    dict(gold=[0.1, 0.2], predicted=[0.1], predicted_unlabelled=[0.2]),
    dict(gold=[0.1, 0.2], predicted=[0.1, float("nan")], predicted_unlabelled=[0.2]),
    dict(gold=[0.1, 0.2], predicted=[0.1, 0.3], predicted_unlabelled=[0.2], lam=1.5),
])
def test_bad_input_is_refused_naming_it(bad):
    with pytest.raises(ValueError):
        ppi_mean(**bad, confidence_level=0.95)


@THOROUGH
def test_ppi_covers_a_biased_judge_s_truth():
    """A fast version of benchmarks/judge_coverage.py: a judge biased by +0.1, 1,000 draws
    of 100 human labels; PPI++ covers the truth at >= 0.93, the judge alone never."""
    rng = np.random.default_rng(29)
    truth = rng.beta(2, 3, size=3000)
    judged = np.clip(truth + 0.1 + rng.normal(scale=0.15, size=3000), 0, 1)
    hits = {"ppi": 0, "judge": 0}
    for _ in range(1000):
        labelled = np.zeros(3000, dtype=bool)
        labelled[rng.choice(3000, size=100, replace=False)] = True
        found = ppi_mean(truth[labelled], judged[labelled], judged[~labelled],
                         confidence_level=0.95)
        hits["ppi"] += found.covers(truth.mean())
        hits["judge"] += clt_mean(judged, confidence_level=0.95).covers(truth.mean())
    assert hits["ppi"] / 1000 >= 0.93
    assert hits["judge"] == 0


def test_the_coverage_benchmark_runs_on_a_small_population():
    """benchmarks/judge_coverage.py's smallest configuration: every (n, figure, interval)
    row, the judge alone missing the truth it is biased away from."""
    from tests.benchmark_scripts import benchmark_script

    with benchmark_script("judge_coverage") as script:
        rows = script.simulate(400, [40], replications=40, judges=2, seed=3)
        assert len(rows) == 3 * len(script.METHODS)
        table = script.table(rows)
    judge_only = [r for r in rows if r["method"] == "judge only"]
    assert all(abs(r["judge_bias"]) > 0.02 for r in judge_only)
    assert all(r["coverage"] < 0.5 for r in judge_only)
    assert all(r["coverage"] >= 0.8 for r in rows if r["method"].startswith("PPI"))
    assert "| 40 | nDCG@10 B - A | PPI++ (tuned) |" in table
