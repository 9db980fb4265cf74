"""python -m metrics run-retriever MODULE:FUNCTION --queries q.jsonl --out bm25.run: a
retriever called live on every query, each call timed; its TREC run and timings written, and
its figures printed when --qrels is given (`metrics.evaluate_retriever`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from metrics.context.live import LiveRun, evaluate_retriever
from metrics.inputs.arguments import Parser, output_file, positive_int, to_stderr
from metrics.inputs.retriever import load_target
from metrics.io.loaders import run_name_of
from metrics.io.writing import write_text
from metrics.outputs.text import format_table
from metrics.vocabulary import live as words
from metrics.vocabulary.cutoffs import DEFAULT_K
from metrics.vocabulary.format import count

PROGRESS_EVERY_S = 1.0  # the progress line on standard error, at most once a second


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _count(low: int, high: int):
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low} to {high:,}, got "
                                             f"{text!r}")
        return value
    return read


def run_retriever_command(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m metrics run-retriever",
                    description=words.COMMAND_HELP + ". " + words.TIMEOUT_RULE)
    parser.add_argument("target", metavar="MODULE:FUNCTION", help=words.TARGET_HELP)
    parser.add_argument("--queries", required=True, type=Path, metavar="FILE",
                        help=words.QUERIES_HELP)
    parser.add_argument("--out", required=True, type=output_file, metavar="FILE",
                        help=words.OUT_HELP)
    parser.add_argument("--timings-out", type=output_file, metavar="FILE",
                        help=words.TIMINGS_OUT_HELP)
    parser.add_argument("--k", type=positive_int, default=words.DEFAULT_DEPTH,
                        help=words.DEPTH_HELP)
    parser.add_argument("--eval-k", type=positive_int, default=DEFAULT_K, metavar="K",
                        help=words.EVAL_K_HELP)
    parser.add_argument("--warmup", type=_count(0, words.MAX_WARMUP),
                        default=words.DEFAULT_WARMUP, metavar="N", help=words.WARMUP_HELP)
    parser.add_argument("--concurrency", type=_count(1, words.MAX_CONCURRENCY),
                        default=words.DEFAULT_CONCURRENCY, metavar="N",
                        help=words.CONCURRENCY_HELP)
    parser.add_argument("--timeout", type=_seconds, metavar="S", help=words.TIMEOUT_HELP)
    parser.add_argument("--qrels", type=Path, metavar="FILE",
                        help="score the run against these labels right away")
    parser.add_argument("--name", help=words.NAME_HELP)
    args = parser.parse_args(argv)
    timings_out = args.timings_out or args.out.with_name(
        args.out.name.removesuffix(".run") + ".timings.csv")
    retriever = load_target(args.target)
    name = args.name or run_name_of(str(args.out))  # the name the run file loads under
    shown = {"at": 0.0}

    def progress(done: int, total: int, failures: int) -> None:
        now = time.monotonic()
        if done == total or now - shown["at"] >= PROGRESS_EVERY_S:
            shown["at"] = now
            to_stderr(f"{name}: {done:,}/{total:,} queries asked, "
                      f"{count(failures, 'failure')}")

    result = evaluate_retriever(
        retriever, args.queries, args.k, run_name=name, warmup=args.warmup,
        concurrency=args.concurrency, timeout_s=args.timeout, progress=progress,
        qrels=args.qrels, eval_k=args.eval_k)
    write_text(args.out, result.trec_text, flag="--out")
    write_text(timings_out, result.timings_text,
               flag="--timings-out" if args.timings_out else None)
    for line in summary_lines(result, args.out, timings_out):
        to_stderr(line)
    if result.evaluation is not None:
        sys.stdout.write(format_table(result.evaluation))
    return 0


def summary_lines(result: LiveRun, out: Path, timings_out: Path) -> list[str]:
    """What the command says on standard error once every query is asked."""
    asked = len(result.query_ids)
    lines = [f"{result.name}: {result.answered:,} of {count(asked, 'query', 'queries')} "
             f"answered in {result.wall_s:.2f} s ({result.concurrency} at a time"
             + (f", {result.warmup} warm-up calls first" if result.warmup else "") + ")"]
    points = result.latency_points()
    if points:
        lines.append("latency (ms, answered calls): " + ", ".join(
            f"{key} {value:,.2f}" for key, value in points.items()))
    if result.failures:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in result.failure_counts().items())
        lines.append(f"{count(len(result.failures), 'query', 'queries')} failed ({kinds}):")
        lines += [f"  {failure.line}" for failure in result.failures[:words.FAILURES_SHOWN]]
        if len(result.failures) > words.FAILURES_SHOWN:
            lines.append(f"  ... and {len(result.failures) - words.FAILURES_SHOWN:,} more")
    if result.warmup_failures:
        lines.append(f"{count(len(result.warmup_failures), 'warm-up call')} failed (not "
                     f"counted): {result.warmup_failures[0].line}")
    if result.empty:
        lines.append(f"{count(len(result.empty), 'query', 'queries')} answered with no id "
                     "(no line in the run: scored as missing)")
    if result.cut:
        lines.append(f"{count(result.cut, 'list')} cut at --k {result.k}")
    if result.rank_scored:
        lines.append(f"{count(len(result.rank_scored), 'query', 'queries')} written with rank "
                     f"scores: {words.ORDER_RULE}")
    if result.still_running:
        lines.append(f"{count(result.still_running, 'overrunning call')} still running at the "
                     "end (left to finish, unread)")
    lines.append(f"run written to {out}, timings to {timings_out}")
    return lines
