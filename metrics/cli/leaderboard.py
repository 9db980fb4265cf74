"""python -m metrics leaderboard: each run's rank per metric, the interval of its rank over the
paired bootstrap, and P(best)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.decide.leaderboard import Leaderboard, leaderboard
from metrics.inputs.arguments import Parser, add_input_arguments, add_metric_argument
from metrics.outputs.documents import write_json
from metrics.outputs.text import table
from metrics.vocabulary import format as fmt
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.leaderboard import LEADERBOARD_TERMS


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


def format_leaderboard(board: Leaderboard) -> str:
    """One table per metric, best first: mean, rank, rank interval, P(best)."""
    level = fmt.confidence(board.confidence_level)
    lines = [f"Leaderboard at K = {board.k} over {fmt.count(board.n_queries, 'scored query')}: "
             f"{fmt.count(board.n_resamples, 'paired bootstrap resample')}, seed {board.seed}",
             f"  - {LEADERBOARD_TERMS['rank_interval']}", f"  - {LEADERBOARD_TERMS['p_best']}"]
    for label, standings in board.metrics.items():
        rows = [[s.run, fmt.figure(s.mean), str(s.rank), f"{s.rank_low}–{s.rank_high}",
                 f"{s.p_best:.1%}"] for s in standings]
        lines += ["", f"{label}:", *table(["run", "mean", "rank", f"{level} rank interval",
                                           "P(best)"], rows)]
    return "\n".join(lines) + "\n"
