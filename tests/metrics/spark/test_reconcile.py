"""Spark's RankingMetrics and this engine on the same run (benchmarks/spark_reconcile.py, the
README's table): under the conventions that ask for Spark's reading, every figure equals
Spark's on the lists with their repeats blanked; under the defaults, those the vocabulary
says differ do."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.marks import THOROUGH

_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "spark_reconcile.py"


@pytest.fixture(scope="module")
def reconcile():
    spec = importlib.util.spec_from_file_location("benchmark_spark_reconcile", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


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
