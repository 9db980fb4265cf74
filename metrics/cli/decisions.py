"""The command line's decisions (issue 15): the leaderboard with rank intervals and P(best),
and every pair of runs compared, with their significance letters.

    python -m metrics leaderboard [--metric nDCG@10 ...] [--format json]
    python -m metrics compare --all-pairs ... [--budget nDCG@10=0.02]
    python -m metrics power [--delta 0.02] [--power 0.8] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from metrics.cli.args import Parser, UsageError, add_input_arguments
from metrics.cli.text import format_comparison, table
from metrics.core.evaluate import Evaluation
from metrics.decide.budget import judge_comparison, parse_budgets
from metrics.decide.compare import Comparison, compare_evaluation, metric_key
from metrics.decide.leaderboard import AllPairs, Leaderboard, all_pairs, leaderboard
from metrics.stats.power import PowerFigure, power_report, power_table
from metrics.vocabulary import format as fmt
from metrics.vocabulary.budget import BUDGET_FLAG, BUDGET_HELP
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.leaderboard import LEADERBOARD_TERMS
from metrics.vocabulary.power import ALPHA, POWER, POWER_METHOD
from metrics.vocabulary.power import FLAGS as POWER_FLAGS


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


# --------------------------------------------------------------------------- budgets


def add_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(BUDGET_FLAG, dest="budget", action="append", default=[],
                        metavar="METRIC=AMOUNT", help=BUDGET_HELP.replace("%", "%%"))


def budget_keys(args: argparse.Namespace, k: int) -> list[str]:
    """The measure keys --budget names, so that compare tests them."""
    try:
        return [metric_key(budget.metric_label, k) for budget in parse_budgets(args.budget, k)]
    except ValueError as error:
        raise UsageError(str(error)) from None


def budget_gates(args: argparse.Namespace, comparison: Comparison, k: int,
                 data: dict[str, Any] | None) -> list[dict[str, Any]]:
    """--budget: each (metric, candidate) judged on its paired interval; the JSON rows of the
    comparison's baseline gain "budget": {"limit", "verdict"}; one gate per verdict."""
    if not args.budget:
        return []
    budgets = parse_budgets(args.budget, k)
    verdicts = {(t.candidate, t.metric): v
                for t, v in zip(comparison.tests, judge_comparison(comparison, budgets),
                                strict=True) if v is not None}
    for row in (data or {}).get("comparisons", []):
        verdict = verdicts.get((row["candidate"], row["metric"]))
        if row["baseline"] == comparison.baseline and "slice" not in row:
            row["budget"] = None if verdict is None else verdict.as_dict()
    return [{"gate": "budget", "metric": metric, "candidate": candidate,
             "passed": verdict.passed, "verdict": verdict.verdict, "limit": verdict.limit,
             "sentence": verdict.sentence}
            for (candidate, metric), verdict in verdicts.items()]


# --------------------------------------------------------------------------- power


def power_command(argv: Sequence[str]) -> int:
    from metrics.cli.commands import evaluation_from, print_load_report, write_json

    parser = Parser(
        prog="python -m metrics power",
        description="Is the query set big enough? For each candidate against the first run "
        "and each metric: the smallest difference this set detects, and with --delta the "
        f"queries a difference needs. {POWER_METHOD}",
    )
    add_input_arguments(parser)
    parser.add_argument("--metric", action="append", default=[], metavar="NAME",
                        help="these metrics (e.g. nDCG@10); default every compared measure")
    for name, reader in (("delta", float), ("power", float), ("alpha", float)):
        flag, text = POWER_FLAGS[name]
        parser.add_argument(flag, dest=name, type=reader, help=text.replace("%", "%%"),
                            default={"power": POWER, "alpha": ALPHA}.get(name))
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    if len(evaluation.runs) < 2:
        raise UsageError("power needs a baseline and at least one candidate --run")
    keys = [metric_key(label, evaluation.k) for label in args.metric] or None
    # the tests' verdicts choose each sentence (underpowered, or what the set detects)
    comparison = compare_evaluation(evaluation, metrics=keys, alpha=args.alpha,
                                    rng=evaluation.conventions.seed)
    try:
        report = power_report(comparison, alpha=args.alpha, power=args.power, delta=args.delta)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.format == "json":
        write_json(report)
    else:
        figures = power_table(comparison, alpha=args.alpha, power=args.power, delta=args.delta)
        sys.stdout.write(format_power(report, figures))
    return EXIT_OK


def format_power(report: dict[str, Any], figures: Sequence[PowerFigure]) -> str:
    rows = [[p["baseline"], p["candidate"], p["metric"], f"{p['queries']:,}",
             fmt.figure(p["sd_difference"]), _maybe(p["min_detectable_difference"]),
             "—" if p["queries_needed"] is None else f"{p['queries_needed']:,}"]
            for p in report["pairs"]]
    needed = f"queries for {report['delta']:g}" if report["delta"] is not None else "needed"
    lines = [POWER_METHOD, f"alpha {report['alpha']:g}, power {report['power']:.0%}", "",
             *table(["baseline", "candidate", "metric", "queries", "sd of diff.",
                     "detectable", needed], rows), ""]
    lines += [f"  {f.candidate} {f.metric}: {f.sentence}" for f in figures]
    return "\n".join(lines) + "\n"


def _maybe(value: float | None) -> str:
    return "—" if value is None else fmt.figure(value)
