"""`python -m metrics --engine spark`: the score command's summary with Spark reading the
Parquet files and scoring blocks of queries with this engine's kernel (metrics.spark). The
flags are the score command's; what Spark's result holds (metrics.vocabulary.spark) bounds
what it can print: the summary as a table or JSON, for the default figures."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from metrics.core.evaluate import DEFAULT_SUMMARY
from metrics.inputs.arguments import UsageError, conventions_from
from metrics.outputs.documents import write_json
from metrics.outputs.text import format_spark_table
from metrics.snapshot.contract import spark_dict
from metrics.spark.evaluate import evaluate_spark, spark_session
from metrics.vocabulary.cutoffs import DEFAULT_K
from metrics.vocabulary.engines import DEFAULT_ENGINE, ENGINE_HELP, ENGINES
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.spark import (
    MASTER_HELP,
    ONLY_DEFAULTS,
    ONLY_FORMATS,
    ONLY_PARQUET,
)

SPARK_FORMATS = ("table", "json")


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """--engine and --spark-master."""
    parser.add_argument("--engine", choices=list(ENGINES), default=DEFAULT_ENGINE,
                        help=ENGINE_HELP)
    parser.add_argument("--spark-master", metavar="URL", help=MASTER_HELP)


def spark_score(args: argparse.Namespace, shown) -> int:
    """The score command on Spark: check what it can do, read the Parquet files in a
    session on --spark-master, score, print."""
    if args.format not in SPARK_FORMATS:
        raise UsageError(ONLY_FORMATS)
    defaults = {s.key for s in DEFAULT_SUMMARY}
    beyond = [s.name() for s in shown or () if s.key not in defaults]
    if beyond:
        raise UsageError(ONLY_DEFAULTS.format(names=", ".join(beyond)))
    if args.qrels is None or not args.run:
        raise UsageError("--engine spark needs --qrels and at least one --run")
    for path in [args.qrels, *(run.source for run in args.run)]:
        if not _parquet(Path(path)):
            raise UsageError(ONLY_PARQUET.format(path=path))
    names = [run.name or Path(run.source).name.split(".")[0] for run in args.run]
    if len(set(names)) != len(names):
        raise UsageError(f"run names must be distinct, got {names}")
    # pyspark warns of every pandas it has not been tested with; nothing here uses pandas
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    spark = spark_session(args.spark_master or "local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    from pyspark.errors import PythonException

    try:
        evaluation = evaluate_spark(
            spark.read.parquet(str(args.qrels)),
            {name: spark.read.parquet(str(run.source)) for name, run in zip(names, args.run,
                                                                            strict=True)},
            args.k or DEFAULT_K, conventions_from(args), sweep=args.sweep)
    except PythonException as error:  # a block refused its rows: the worker's own line
        lines = [line for line in str(error).splitlines() if line.strip()]
        raise ValueError(lines[-1].removeprefix("ValueError: ")) from None
    if args.format == "json":
        write_json(spark_dict(evaluation, shown))
    else:
        sys.stdout.write(format_spark_table(evaluation, shown))
    return EXIT_OK


def _parquet(path: Path) -> bool:
    """A Parquet file, or a directory holding some (a partitioned dataset)."""
    if path.is_dir():
        return any(path.rglob("*.parquet"))
    return path.suffix == ".parquet" and path.is_file()
