"""python -m metrics: the dashboard's numbers from the command line, as a table, as JSON, in
trec_eval's format (-q for every query) or as a paper's LaTeX table.

Without --qrels and --run it scores the bundled sample (K = 5 unless --k says otherwise).
--metric chooses the figures shown (any name: nDCG@10, P(rel=2)@5, Rprec, trec_eval's
ndcg_cut_10...); without it, the default summary. gm_map (trec_eval's geometric mean of AP)
is a summary alone: its value and interval beside the others, its all line in trec_eval's
format (named alone, the trec_eval format prints it alone, as trec_eval -m gm_map).
Standard output holds the result alone; the load report and warnings go to standard error.
Errors exit non-zero with one line naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from metrics.cli.common import print_load_report, read
from metrics.cli.engine import (
    add_engine_arguments,
    over_bound,
    score_blocks,
    score_on_spark,
    without_lists,
)
from metrics.context.cost import costs
from metrics.core.asked import brought
from metrics.core.blocks import DEFAULT_BLOCK_QUERIES, BlockEvaluation
from metrics.core.evaluate import Evaluation
from metrics.core.geometric import geometric_means
from metrics.core.per_query import write_long
from metrics.core.saved import about
from metrics.decide.baseline import baseline_comparison, picked_at_k
from metrics.decide.best import best_marks
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    add_metric_argument,
    add_text_arguments,
    output_file,
    positive_int,
)
from metrics.inputs.reading import Inputs
from metrics.io.writing import for_flag
from metrics.outputs.documents import geometric_document, score_document, write_json
from metrics.outputs.latex import latex_table
from metrics.outputs.text import (
    format_block_table,
    format_costs,
    format_geometric,
    format_slices,
    format_table,
    format_timings,
)
from metrics.outputs.trec_eval import trec_eval_text
from metrics.spark.evaluate import SparkEvaluation
from metrics.stats.intervals import Interval
from metrics.vocabulary.columns import PER_QUERY_COLUMNS
from metrics.vocabulary.engines import DEFAULT_ENGINE
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.measures import split_summaries
from metrics.vocabulary.names import Spec
from metrics.vocabulary.timings import TIMINGS_FLAG, TIMINGS_HELP

FORMATS = ("table", "json", "trec_eval", "latex")


def score_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(parser, FORMATS)
    add_text_arguments(parser, cost=True)
    add_metric_argument(parser, "show these figures (default the summary's)", summaries=True)
    parser.add_argument("-q", dest="per_query", action="store_true",
                        help="with --format trec_eval: every query's lines before the all "
                        "lines, as trec_eval -q")
    parser.add_argument("--mark-best", action="store_true",
                        help="mark each metric's best run, and the runs not significantly "
                        "worse than it (every run against the best: paired randomization "
                        "tests, Holm over all of them); in the JSON, 'marks'")
    add_engine_arguments(parser)
    parser.add_argument("--block-queries", type=positive_int, default=DEFAULT_BLOCK_QUERIES,
                        metavar="N", help="with --engine blocks: queries scored at once "
                        f"(default {DEFAULT_BLOCK_QUERIES:,})")
    parser.add_argument("--per-query-out", type=output_file, metavar="FILE.parquet",
                        help="also write every scored query's figures at K as Parquet, one "
                        "row per (query, run, figure): " + ", ".join(PER_QUERY_COLUMNS)
                        + " (any --engine)")
    parser.add_argument(TIMINGS_FLAG, dest="timings", type=Path, metavar="FILE",
                        help=TIMINGS_HELP + " Read with the in-memory engine.")
    args = parser.parse_args(argv)
    # the geometric summaries named (gm_map): computed apart, from AP over the full list
    geometric, args.metric = split_summaries(args.metric)
    alone = bool(geometric) and not args.metric
    if geometric and args.engine != DEFAULT_ENGINE:
        raise UsageError(f"{geometric[0].key} is computed by the default --engine only: leave "
                         "out --engine")
    if args.timings is not None and args.engine != DEFAULT_ENGINE:
        raise UsageError(f"{TIMINGS_FLAG} is read with the in-memory engine (the default): "
                         f"timings are one number per query and run; leave out --engine")
    if args.per_query and args.format != "trec_eval":
        raise UsageError("-q prints every query's lines of --format trec_eval")
    if args.engine != DEFAULT_ENGINE and args.standardise:
        raise UsageError("--standardise reads every run's figures together: it needs the "
                         "default --engine")
    if args.engine != DEFAULT_ENGINE:
        # the same result for the default figures, scored without holding the lists
        shown = without_lists(args)
        evaluation = score_blocks(args) if args.engine == "blocks" else score_on_spark(args)
        return _write(args, evaluation, shown)
    inputs = read(args)
    with over_bound(args):
        evaluation = inputs.evaluation()
    print_load_report(inputs)
    try:
        summaries = {g.key: geometric_means(evaluation, g) for g in geometric}
    except ValueError as error:
        raise UsageError(str(error)) from None
    # the figures named, each with what it brings (RBP its residual); gm_map named alone
    # shows nothing else in trec_eval's format, the default summary beside it elsewhere
    shown = brought(evaluation.resolve(m) for m in args.metric) or None
    if alone and args.format == "trec_eval":
        shown = ()
    return _write(args, evaluation, shown, inputs, summaries)


def _write(args: argparse.Namespace, evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
           shown: Sequence[Spec] | None, inputs: Inputs | None = None,
           summaries: dict[str, dict[str, Interval]] | None = None) -> int:
    """Any engine's result in the --format asked for, by the one writer of each format;
    `inputs` (in memory) also give the slices and the context cost."""
    if args.per_query_out:
        with for_flag("--per-query-out"):
            write_long(args.per_query_out, evaluation.per_query_tables(),
                       about(evaluation, evaluation.engine))
    if args.format == "trec_eval":
        sys.stdout.write(trec_eval_text(evaluation, shown, per_query=args.per_query,
                                        summaries=summaries))
        return EXIT_OK
    if args.format == "latex":
        # the daggers: compare's own comparison against the first run (the figures named at
        # K, not what they bring, else the compared family): one verdict per pair in both
        picked = [evaluation.resolve(m) for m in args.metric]
        comparison = baseline_comparison(evaluation, picked_at_k(picked))
        sys.stdout.write(latex_table(evaluation, comparison, shown, summaries=summaries))
        return EXIT_OK
    marks = (best_marks(evaluation, [s.key for s in shown] if shown else None)
             if args.mark_best and len(evaluation.runs) > 1 else None)
    slices = inputs.slices() if inputs is not None else []
    tokens = inputs.tokens() if inputs is not None else None
    run_costs = costs(evaluation, tokens) if tokens is not None else ()
    timed = inputs.timed() if inputs is not None else None
    if args.format == "json":
        document = score_document(evaluation, slices, run_costs, shown)
        if summaries:
            document["geometric"] = geometric_document(summaries)
        if timed is not None:
            document["timings"] = timed.as_dict()
        if marks is not None:
            document["marks"] = {"sentence": marks.sentence, "metrics": marks.marks}
        write_json(document)
        return EXIT_OK
    if isinstance(evaluation, BlockEvaluation):  # and the sweep's bands it computed
        sys.stdout.write(format_block_table(evaluation, marks, shown))
    else:
        sys.stdout.write(format_table(evaluation, marks, shown))
    if summaries:
        sys.stdout.write("\n" + format_geometric(summaries))
    if slices:
        sys.stdout.write("\n" + format_slices(evaluation, slices, shown))
    if run_costs:
        sys.stdout.write("\n" + format_costs(run_costs))
    if timed is not None:
        sys.stdout.write("\n" + format_timings(timed))
    return EXIT_OK
