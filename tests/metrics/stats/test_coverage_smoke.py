"""benchmarks/coverage.py in its smallest configuration: it runs, and what it counts is right."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.stats.bca import bca_bounds
from metrics.stats.bootstrap import bootstrap_means, percentile_bounds, resample_counts
from metrics.stats.intervals import wilson
from tests.benchmark_scripts import benchmark_script


@pytest.fixture(scope="module")
def coverage():
    with benchmark_script("coverage") as module:
        yield module


SMALL = {"replications": 50, "n_resamples": 200, "seed": 3}


def test_every_method_and_population_gets_a_row_with_a_coverage(coverage):
    rows = coverage.coverage_rows([30], **SMALL)
    methods = [row.method for row in rows]
    # 4 graded + 3 Hit populations x (percentile, BCa); Wilson on the 3 Hit ones; 2 pairs
    assert methods.count("percentile") == methods.count("BCa") == 7
    assert methods.count("Wilson") == 3
    assert methods.count("paired percentile") == methods.count("paired BCa") == 2
    for row in rows:
        assert 0 <= row.coverage <= 1 and row.mean_width > 0 and row.n == 30
        assert row.standard_error == pytest.approx(np.sqrt(row.coverage * (1 - row.coverage) / 50))
        assert (row.fell_back is None) == ("BCa" not in row.method)


def test_a_constant_population_is_covered_every_time_by_zero_width_intervals(coverage):
    constant = coverage.Population("constant", 0.5, lambda rng, shape: np.full(shape, 0.5))
    rows = coverage.coverage_rows([30], populations=[constant], **SMALL)
    assert [(row.method, row.coverage, row.mean_width) for row in rows] == [
        ("percentile", 1.0, 0.0),
        ("BCa", 1.0, 0.0),
    ]


def test_a_wrong_true_mean_is_never_covered(coverage):
    """The count compares bounds with the population's mean: a mean far outside every sample's
    interval must give coverage 0, or the table counts something else."""
    true = coverage.POPULATIONS[0]
    wrong = coverage.Population("wrong mean", true.mean + 0.5, true.draw)
    rows = coverage.coverage_rows([30], populations=[wrong], **SMALL)
    assert [row.coverage for row in rows] == [0.0, 0.0]


def test_the_batched_bounds_are_the_per_replication_bounds(coverage):
    """One replication's share of a batch, rebuilt from its own draws with the engine's
    functions one call at a time, gives the coverage and width the batch counted."""
    hit = next(p for p in coverage.POPULATIONS if p.binary)
    rows = coverage.coverage_rows([30], populations=[hit], replications=3, n_resamples=100, seed=5)
    rng = np.random.default_rng([5, 30])
    values = hit.draw(rng, (3, 30))
    counts = resample_counts(30, n_resamples=300, rng=rng).reshape(3, 100, 30)
    widths = {"percentile": [], "BCa": [], "Wilson": []}
    for r in range(3):
        column = values[r][:, None]
        distribution = bootstrap_means(column, counts[r])
        low, high = percentile_bounds(distribution, confidence_level=0.95)
        widths["percentile"].append(high[0] - low[0])
        bca = bca_bounds(column, distribution, confidence_level=0.95)
        widths["BCa"].append(bca.high[0] - bca.low[0])
        interval = wilson(int(values[r].sum()), 30)
        widths["Wilson"].append(interval.high - interval.low)
    for row in rows:
        assert row.mean_width == pytest.approx(np.mean(widths[row.method]), abs=1e-15)


def test_main_prints_the_table_and_the_summary(coverage, capsys):
    assert coverage.main(["--sizes", "30", "--replications", "20", "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "| method | population | n | coverage | MC s.e. | mean width |" in out
    assert out.count("\n| ") == 1 + 21  # header + one line a row
    assert "Smallest n at which every population's coverage reaches 0.93" in out


def test_first_sizes_names_the_smallest_n_where_every_population_reaches_the_target(coverage):
    def row(method, population, n, value):
        return coverage.Row(method, population, n, value, 0.0, 0.1, None)

    rows = [
        row("percentile", "a", 30, 0.95),
        row("percentile", "b", 30, 0.90),
        row("percentile", "a", 100, 0.94),
        row("percentile", "b", 100, 0.93),
        row("Wilson", "c", 30, 0.80),
        row("Wilson", "c", 100, 0.92),
    ]
    assert coverage.first_sizes(rows) == {"percentile": 100, "Wilson": None}
    assert "Wilson not by n = 100 (c: 0.920)" in coverage.summary(rows)
