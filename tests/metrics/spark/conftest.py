"""One small Spark session shared by every Spark test (local[2], two shuffle partitions, no
UI), started on first use; the Spark tests are skipped, saying why, when pyspark or a Java
runtime is missing."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

MISSING = ("pyspark is not installed (pip install -e \".[spark]\")"
           if importlib.util.find_spec("pyspark") is None
           else "no Java runtime on the PATH (Debian: apt-get install openjdk-17-jre-headless)"
           if shutil.which("java") is None else "")


@pytest.fixture(scope="session")
def spark():
    if MISSING:
        pytest.skip(f"Spark tests need Spark: {MISSING}")
    from metrics.spark.evaluate import spark_session

    session = spark_session("local[2]", app_name="retrieval-compare-tests",
                            shuffle_partitions=2, driver_memory="1g")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
