"""python -m metrics leaderboard: each run's rank per metric, the interval of its rank over the
paired bootstrap, and P(best); with --test, every pair of runs tested (the paired
randomization test under one correction, or the randomized Tukey HSD with the two-way ANOVA)
and each run's significance letters beside its standing."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.cli.compare import add_min_effect_argument, add_test_argument
from metrics.core.compare import figures_of
from metrics.core.evaluate import Evaluation
from metrics.decide.leaderboard import AllPairs, all_pairs, leaderboard
from metrics.inputs.arguments import (
    Parser,
    add_input_arguments,
    add_metric_argument,
    confidence,
    permutations,
)
from metrics.outputs.documents import leaderboard_document, write_json
from metrics.outputs.latex import latex_table
from metrics.outputs.text import format_leaderboard
from metrics.stats.comparison import DEFAULT_PERMUTATIONS
from metrics.vocabulary.comparisons import ALPHA, CORRECTIONS, DEFAULT_CORRECTION
from metrics.vocabulary.gates import EXIT_OK

FORMATS = ("table", "json", "latex")


def leaderboard_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics leaderboard",
        description="Each run's rank per metric with its interval over the paired bootstrap "
        "(the same resampled queries for every run) and the share of resamples it ranks "
        "first in, P(best); with --test, every pair of runs tested and each run's "
        "significance letters.",
    )
    add_input_arguments(parser, formats=FORMATS)
    add_metric_argument(parser, "rank on these; default every compared measure")
    add_test_argument(parser, default=None)
    parser.add_argument("--correction", choices=list(CORRECTIONS), default=DEFAULT_CORRECTION,
                        help="with --test paired: the adjustment over every pair and metric")
    parser.add_argument("--alpha", type=confidence, default=ALPHA,
                        help="with --test: a pair differs when its p is below this")
    parser.add_argument("--permutations", type=permutations, default=DEFAULT_PERMUTATIONS,
                        help="with --test: sign flips of the paired test, or permutations "
                        "of the Tukey HSD")
    add_min_effect_argument(parser)
    args = parser.parse_args(argv)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    board = leaderboard(evaluation, args.metric or None)
    pairs = tested_pairs(args, evaluation)
    if args.format == "json":
        write_json(leaderboard_document(board, pairs))
    elif args.format == "latex":
        evaluation, keys = figures_of(evaluation, args.metric or None)
        specs = [evaluation.spec(key) for key in keys]
        sys.stdout.write(latex_table(evaluation, None, specs, pairs=pairs))
    else:
        sys.stdout.write(format_leaderboard(board, pairs))
    return EXIT_OK


def tested_pairs(args: argparse.Namespace, evaluation: Evaluation) -> AllPairs | None:
    """Every pair under --test (None without it): the flags' correction, alpha,
    permutations and minimum effect; the conventions' seed and draws, as compare's."""
    if args.test is None:
        return None
    return all_pairs(evaluation, args.metric or None, test=args.test,
                     correction=args.correction, alpha=args.alpha,
                     n_permutations=args.permutations, min_effect=args.min_effect)
