"""python -m metrics leaderboard: each run's rank per metric, the interval of its rank over the
paired bootstrap, and P(best)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.decide.leaderboard import leaderboard
from metrics.inputs.arguments import Parser, add_input_arguments, add_metric_argument
from metrics.outputs.documents import write_json
from metrics.outputs.text import format_leaderboard
from metrics.vocabulary.gates import EXIT_OK


def leaderboard_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics leaderboard",
        description="Each run's rank per metric with its interval over the paired bootstrap "
        "(the same resampled queries for every run) and the share of resamples it ranks "
        "first in, P(best).",
    )
    add_input_arguments(parser)
    add_metric_argument(parser, "rank on these; default every compared measure")
    args = parser.parse_args(argv)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    board = leaderboard(evaluation, args.metric or None)
    if args.format == "json":
        write_json(board.as_dict())
    else:
        sys.stdout.write(format_leaderboard(board))
    return EXIT_OK

