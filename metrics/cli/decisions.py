"""The command line's decisions (issue 15): the leaderboard with rank intervals and P(best),
and every pair of runs compared, with their significance letters.

    python -m metrics leaderboard [--metric nDCG@10 ...] [--format json]
    python -m metrics compare --all-pairs ...
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from metrics import format as fmt
from metrics.cli.args import Parser, add_input_arguments
from metrics.cli.text import format_comparison, table
from metrics.evaluate import Evaluation
from metrics.leaderboard import AllPairs, Leaderboard, all_pairs, leaderboard
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.leaderboard import LEADERBOARD_TERMS


def leaderboard_command(argv: Sequence[str]) -> int:
    from metrics.cli.commands import evaluation_from, print_load_report, write_json

    parser = Parser(
        prog="python -m metrics leaderboard",
        description="Each run's rank per metric with its interval over the paired bootstrap "
        "(the same resampled queries for every run) and the share of resamples it ranks "
        "first in, P(best).",
    )
    add_input_arguments(parser)
    parser.add_argument("--metric", action="append", default=[], metavar="NAME",
                        help="rank on these (e.g. nDCG@10, MRR); default every compared measure")
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
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


def add_all_pairs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all-pairs", action="store_true",
                        help="compare every pair of runs, not only each with the first; the "
                        "correction covers every pair and metric; adds significance letters")


def pairs_from(args: argparse.Namespace, evaluation: Evaluation,
               options: dict[str, Any]) -> AllPairs | None:
    """compare --all-pairs: every pair under compare's options, adjusted as one family; None
    without the flag. Every pair starts from the conventions' seed, as compare's does."""
    if not getattr(args, "all_pairs", False):
        return None
    chosen = {key: value for key, value in options.items() if key not in ("metrics", "rng")}
    return all_pairs(evaluation, options.get("metrics"), **chosen)


def all_pairs_json(pairs: AllPairs) -> dict[str, Any]:
    """What --all-pairs puts in the compare JSON: every pair's rows, and the matrices and
    letters per metric."""
    return {"comparisons": [row for c in pairs.comparisons for row in c.rows()],
            "n_comparisons": pairs.n_comparisons, "all_pairs": pairs.as_dict()}


def format_all_pairs(evaluation: Evaluation, pairs: AllPairs) -> str:
    """Every baseline's table of tests, then each metric's letters, best first."""
    parts = [format_comparison(evaluation, comparison) for comparison in pairs.comparisons]
    rows = [[label, *(f"{run} {letter}" for run, letter in pairs.letters(label).items())]
            for label in pairs.metrics]
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    parts.append("\n".join(["Significance letters (best first)", pairs.sentence(),
                            *table(["metric", *(["run letters"] + [""] * (width - 2))], rows)])
                 + "\n")
    return "\n".join(parts)
