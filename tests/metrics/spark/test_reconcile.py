"""Spark's RankingMetrics and this engine on the same run (benchmarks/spark_reconcile.py, the
README's table): under the conventions that ask for Spark's reading, every figure equals
Spark's on the lists with their repeats blanked; under the defaults, those the vocabulary
says differ do."""

from __future__ import annotations

import pytest

from tests.benchmark_scripts import benchmark_script
from tests.marks import THOROUGH


@pytest.fixture(scope="module")
def reconcile():
    with benchmark_script("spark_reconcile") as module:
        yield module


@THOROUGH
def test_spark_reading_gives_spark_figures(spark, reconcile):
    rows = {row.spark_name: row for row in reconcile.reconcile(spark, queries=150, seed=9)}
    for row in rows.values():
        assert row.matched == pytest.approx(row.spark_first, rel=1e-12, abs=1e-15), row
    # the defaults differ where the vocabulary says they do
    assert rows["meanAveragePrecisionAtK"].default != pytest.approx(
        rows["meanAveragePrecisionAtK"].spark_first)
    assert rows["precisionAtK"].default > rows["precisionAtK"].matched  # empty queries kept
    assert rows["precisionAtK"].spark > rows["precisionAtK"].spark_first  # repeats counted
    table = reconcile.markdown(list(rows.values()))
    assert table.count("\n|") == len(rows) + 1
