"""`--engine blocks` and `--engine spark`: the score command's inputs scored block by block or
inside Spark (metrics.core.blocks, metrics.spark). What they score is the in-memory engine's
result for the default figures, written by the same writers in every format; what they
cannot give (figures asked by name beyond the defaults, the texts and what reads them) is
refused before anything is read, each flag with its reason (metrics.vocabulary.engines)."""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from metrics.core.asked import brought
from metrics.core.blocks import BlockEvaluation, evaluate_blocks
from metrics.core.evaluate import DEFAULT_PER_QUERY, resolve_among
from metrics.core.files import distinct_names, read_qrels
from metrics.inputs.arguments import ReadingOutOfMemory, UsageError, to_stderr
from metrics.inputs.reading import Inputs, file_report_lines
from metrics.io.errors import LoadError
from metrics.io.loaders import run_name_of
from metrics.io.parquet import bounded_layout, is_parquet
from metrics.io.sources import source_name
from metrics.io.streams import MAX_INPUT_FLAG
from metrics.io.writing import write_text
from metrics.spark.evaluate import SparkEvaluation, evaluate_spark, spark_session
from metrics.vocabulary.cutoffs import DEFAULT_K
from metrics.vocabulary.engines import (
    DEFAULT_ENGINE,
    ENGINE_HELP,
    ENGINES,
    NEEDS_MEMORY,
    ONLY_DEFAULTS,
    OVER_BOUND,
)
from metrics.vocabulary.identifiers import NORMALIZE_IDS
from metrics.vocabulary.names import Spec
from metrics.vocabulary.spark import DEFAULT_MASTER, MASTER_HELP, ONLY_PARQUET


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


def without_lists(args: argparse.Namespace) -> tuple[Spec, ...] | None:
    """What --engine blocks or spark is asked for, checked before anything is read: a flag
    only the in-memory engine reads is refused with its reason, and so is a figure named by
    --metric beyond the default ones. The figures --metric names (None without it)."""
    given = [flag for dest, flag in NEEDS_MEMORY_FLAGS.items() if getattr(args, dest, None)]
    if getattr(args, "normalize_ids", NORMALIZE_IDS[0]) != NORMALIZE_IDS[0]:
        given.append("--normalize-ids")
    if args.engine == "spark" and args.load_report is not None:
        given.append("--load-report")
    if args.engine == "blocks" and args.interval_method == "bca":
        given.append("--interval bca")
    if given:
        raise UsageError(f"{given[0]} needs the in-memory engine (--engine memory): "
                         f"{NEEDS_MEMORY[given[0]]}")
    if args.qrels is None or not args.run:
        raise UsageError(f"--engine {args.engine} needs --qrels and at least one --run")
    k = args.k or DEFAULT_K
    conventions = Inputs.from_arguments(args).conventions
    shown = brought(resolve_among(DEFAULT_PER_QUERY, m, k, conventions) for m in args.metric)
    defaults = {s.key for s in DEFAULT_PER_QUERY}
    beyond = [s.name() for s in shown if s.key not in defaults]
    if beyond:
        raise UsageError(ONLY_DEFAULTS.format(engine=args.engine, names=", ".join(beyond)))
    return tuple(shown) or None


# the flags only the in-memory engine reads (dest -> flag), their reasons in the vocabulary
NEEDS_MEMORY_FLAGS = {"queries": "--queries", "by": "--by", "corpus": "--corpus",
                      "tokens_per_chunk": "--tokens-per-chunk",
                      "price_per_mtok": "--price-per-mtok"}


@contextmanager
def files_named(inputs: Inputs) -> Iterator[None]:
    """Memory running out while an engine reads and scores the files: one line naming them,
    as the in-memory engine's does (Inputs.reading), not the command alone."""
    try:
        yield
    except ReadingOutOfMemory:
        raise
    except MemoryError:
        raise ReadingOutOfMemory(inputs.reading("evaluation")) from None


def score_blocks(args: argparse.Namespace) -> BlockEvaluation:
    """The runs scored a block of queries at a time, each file's report on standard error."""
    inputs = Inputs.from_arguments(args)
    max_bytes = args.max_input_mb << 20
    with files_named(inputs):
        qrels, qrels_report = read_qrels(inputs.labels_file, format=args.qrels_format,
                                         max_bytes=max_bytes)
        with over_bound(args):
            evaluation = evaluate_blocks(
                qrels, inputs.run_sources, args.k or DEFAULT_K, inputs.conventions,
                sweep=args.sweep, block_queries=args.block_queries, qrels_report=qrels_report,
                max_bytes=max_bytes)
    if args.load_report is not None:  # the whole report, as the in-memory command writes it
        whole = file_report_lines(evaluation, whole=True)
        write_text(args.load_report, "\n".join(whole) + "\n", flag="--load-report")
    for line in file_report_lines(evaluation, written_to=args.load_report):
        to_stderr(line)
    return evaluation


def score_on_spark(args: argparse.Namespace) -> SparkEvaluation:
    """The Parquet files read and scored inside a Spark session on --spark-master."""
    inputs = Inputs.from_arguments(args)
    qrels = inputs.labels_file
    for path in [qrels, *(run.source for run in args.run)]:
        if not is_parquet(path):
            raise UsageError(ONLY_PARQUET.format(path=path))
    # every file's columns and their types, checked as every engine checks them, and what its
    # rows decode to, bounded as the block engine bounds it, before Spark starts
    # (metrics.io.parquet.bounded_layout): a file the readers refuse is refused with their line
    max_bytes = args.max_input_mb << 20
    bounded_layout(qrels, None, "qrels", max_bytes)
    for run in args.run:
        bounded_layout(run.source, None, "run", max_bytes)
    names = run_names(args.run)
    # pyspark warns of every pandas it has not been tested with; nothing here uses pandas
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    spark = spark_session(args.spark_master or DEFAULT_MASTER)
    # a task's failure is the error this command prints in one line (a block's reader
    # refusing a row): not a Java stack trace logged before it as well
    spark.sparkContext.setLogLevel("FATAL")
    with files_named(inputs):
        return evaluate_spark(qrels, {name: run.source for name, run
                                      in zip(names, args.run, strict=True)},
                              args.k or DEFAULT_K, inputs.conventions, sweep=args.sweep,
                              max_bytes=max_bytes)


def run_names(runs: Sequence) -> list[str]:
    """The runs' names as the readers give them: NAME= or the file's name without its
    extensions, repeated names told apart (distinct_names)."""
    return distinct_names([run.name or run_name_of(Path(run.source).name) for run in runs])
