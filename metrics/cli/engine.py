"""`python -m metrics --engine spark`: the score command's summary with Spark reading the
Parquet files and scoring blocks of queries with this engine's kernel (metrics.spark). The
flags are the score command's; what Spark's result holds (metrics.vocabulary.spark) bounds
what it can print: the summary as a table or JSON, for the default figures."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from metrics.cli.common import write_json
from metrics.cli.inputs import UsageError, conventions_from
from metrics.cli.text import format_spark_table
from metrics.core.evaluate import DEFAULT_SUMMARY
from metrics.core.files import distinct_names
from metrics.io.errors import LoadError
from metrics.io.loaders import run_name_of
from metrics.io.parquet import is_parquet, roles_of
from metrics.io.sources import source_name
from metrics.io.streams import MAX_INPUT_FLAG
from metrics.snapshot.contract import spark_dict
from metrics.spark.evaluate import evaluate_spark, spark_session
from metrics.vocabulary.cutoffs import DEFAULT_K
from metrics.vocabulary.engines import DEFAULT_ENGINE, ENGINE_HELP, ENGINES, OVER_BOUND
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


@contextmanager
def over_bound(args: argparse.Namespace) -> Iterator[None]:
    """A run the in-memory size bound (--max-input-mb) refuses: the refusal says what else
    reads it (the bound raised, or --engine blocks for a Parquet run), which one fits when."""
    try:
        yield
    except LoadError as error:
        if error.limit != MAX_INPUT_FLAG:
            raise
        run = next((run for run in args.run
                    if source_name(run.source, None) == error.source), None)
        if run is None:  # the qrels: every engine reads them whole, under the same bound
            raise
        kind = "parquet" if is_parquet(run.source) else "text"
        raise LoadError(error.source, error.line, f"{error.problem}: "
                        f"{OVER_BOUND[kind].format(flag=MAX_INPUT_FLAG)}",
                        limit=error.limit) from None


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
        if not is_parquet(path):
            raise UsageError(ONLY_PARQUET.format(path=path))
    # the columns the in-memory readers find (every file's schema, read before Spark starts):
    # a file they refuse is refused here with their message
    roles_of(args.qrels, None, "qrels")
    for run in args.run:
        roles_of(run.source, None, "run")
    names = distinct_names([run.name or run_name_of(Path(run.source).name) for run in args.run])
    # pyspark warns of every pandas it has not been tested with; nothing here uses pandas
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    spark = spark_session(args.spark_master or "local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    evaluation = evaluate_spark(
        args.qrels, {name: run.source for name, run in zip(names, args.run, strict=True)},
        args.k or DEFAULT_K, conventions_from(args), sweep=args.sweep)
    if args.format == "json":
        write_json(spark_dict(evaluation, shown))
    else:
        sys.stdout.write(format_spark_table(evaluation, shown))
    return EXIT_OK

