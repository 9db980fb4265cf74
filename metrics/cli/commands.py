"""python -m metrics: the dashboard's numbers from the command line, as a table or as JSON.

Without --qrels and --run it scores the bundled sample (K = 5 unless --k says otherwise).
Standard output holds the result alone; the load report and warnings go to standard error.
Errors exit non-zero with one line naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from metrics.cli import combine, decisions, review, texts
from metrics.cli.args import (
    USER_K,
    Parser,
    UsageError,
    add_input_arguments,
    confidence,
    conventions_from,
    positive_int,
)
from metrics.cli.text import (
    format_comparison,
    format_costs,
    format_slice_comparison,
    format_slices,
    format_table,
)
from metrics.context.cost import costs
from metrics.core.evaluate import Evaluation
from metrics.core.files import evaluate_files
from metrics.core.sample import SAMPLE_K, load_sample
from metrics.decide.best import best_marks
from metrics.decide.compare import (
    DEFAULT_PERMUTATIONS,
    Comparison,
    compare_evaluation,
    metric_key,
    regressions,
)
from metrics.decide.headline import headlines
from metrics.explain.mismatch import id_mismatches
from metrics.snapshot import (
    KEY_VARIABLE,
    Snapshot,
    compare_with_snapshot,
    same_run_note,
    snapshot_key,
)
from metrics.snapshot import load as load_snapshot
from metrics.snapshot import save as save_snapshot
from metrics.snapshot.contract import comparison_dict, slice_rows, to_dict
from metrics.vocabulary import MEASURE_BY_KEY
from metrics.vocabulary.format import count, listing
from metrics.vocabulary.gates import (
    EXIT_BAD_INPUT,
    EXIT_GATE,
    EXIT_LEAK,
    EXIT_OK,
    EXIT_USAGE,
    gate_failure,
)
from metrics.vocabulary.headline import PRIMARY, PRIMARY_HELP

Command = Callable[[Sequence[str]], int]


def evaluation_from(args: argparse.Namespace) -> Evaluation:
    """The user's files, or the bundled sample when neither --qrels nor --run is given."""
    conventions = conventions_from(args)
    if args.qrels is None and not args.run:
        return load_sample(args.k or SAMPLE_K, conventions, sweep=args.sweep)
    if not args.run:
        raise UsageError("--qrels needs at least one --run")
    runs = [dataclasses.replace(run, format=args.run_format) for run in args.run]
    # the conventions carry the run order and the score precision to the loaders
    return evaluate_files(
        args.qrels, runs, args.k or USER_K, conventions, qrels_format=args.qrels_format,
        sweep=args.sweep, max_bytes=args.max_input_mb << 20,
    )


def print_load_report(evaluation: Evaluation) -> None:
    """What each file held, what was dropped and the loaders' notes; then the queries a run
    has no list for, and a warning for each run whose ids barely meet the qrels'."""
    reports = [evaluation.qrels_report] + [run.report for run in evaluation.runs]
    for report in filter(None, reports):
        print(report.summary(), file=sys.stderr)
        for entry in report.dropped:
            print(f"  {report.source}, line {entry.line}: {entry.reason}", file=sys.stderr)
        for note in report.notes:
            print(f"  {report.source}: {note}", file=sys.stderr)
    for run in evaluation.runs:
        if run.missing_queries:
            print(
                f"{run.name}: no list for "
                f"{count(len(run.missing_queries), 'qrels query', 'qrels queries')} "
                f"(they score 0): {listing(run.missing_queries, limit=10)}",
                file=sys.stderr,
            )
    for finding in id_mismatches(evaluation):
        print(f"warning: {finding.sentence}", file=sys.stderr)


def write_json(document: dict[str, Any]) -> None:
    """The document as one line on standard output. orjson writes the per-query records of
    10,000 queries in 10 ms where json.dumps takes 85 ms (benchmarks/bench_engine.py
    --profile), and it writes null, never an invalid NaN."""
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


def score_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(parser)
    texts.add_text_arguments(parser, cost=True)
    parser.add_argument("--mark-best", action="store_true",
                        help="mark each metric's best run, and the runs not significantly "
                        "worse than it (every run against the best: paired randomization "
                        "tests, Holm over all of them); in the JSON, 'marks'")
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    marks = best_marks(evaluation) if args.mark_best and len(evaluation.runs) > 1 else None
    slices = texts.slices_from(args, evaluation)
    tokens = texts.tokens_from(args, evaluation)
    run_costs = costs(evaluation, tokens) if tokens is not None else ()
    if args.format == "json":
        document = to_dict(evaluation, slices, run_costs)
        if marks is not None:
            document["marks"] = {"sentence": marks.sentence, "metrics": marks.marks}
        write_json(document)
    else:
        sys.stdout.write(format_table(evaluation, marks))
        if slices:
            sys.stdout.write("\n" + format_slices(evaluation, slices))
        if run_costs:
            sys.stdout.write("\n" + format_costs(run_costs))
    return EXIT_OK


def compare_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics compare",
        description="Paired comparison: the first --run is the baseline, whatever its name. "
        "Exit status 3 when --fail-on-regression finds a candidate significantly worse.",
    )
    add_input_arguments(parser)
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        help="compare only these (e.g. nDCG@10, MRR); default every measure at K except Judged",
    )
    parser.add_argument(
        "--correction",
        choices=["holm", "bh", "none"],
        default="holm",
        help="multiple-comparison adjustment over every (candidate, metric) pair",
    )
    parser.add_argument("--alpha", type=confidence, default=0.05)
    parser.add_argument(
        "--permutations",
        type=positive_int,
        default=DEFAULT_PERMUTATIONS,
        help="sign flips of the randomization test",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="append",
        default=[],
        metavar="METRIC",
        help="exit 3 if a candidate is significantly worse on METRIC (lower mean, "
        "adjusted randomization p < --alpha); repeatable",
    )
    parser.add_argument(
        "--snapshot",
        type=Path,
        metavar="FILE",
        help="baseline: a snapshot's per-query figures (of the same query set, K and "
        "conventions); every --run is then a candidate, and --k defaults to the snapshot's",
    )
    parser.add_argument(
        "--snapshot-run",
        metavar="NAME",
        help="which run of the snapshot is the baseline (default its first)",
    )
    add_snapshot_key_argument(parser, "checks the HMAC of the --snapshot's figures")
    texts.add_text_arguments(parser)
    decisions.add_all_pairs_argument(parser)
    decisions.add_budget_argument(parser)
    review.add_review_arguments(parser)
    parser.add_argument("--primary", default=PRIMARY, metavar="METRIC", help=PRIMARY_HELP)
    args = parser.parse_args(argv)
    if args.by and args.snapshot is not None:
        raise UsageError("--by compares live runs: a snapshot keeps no query texts")
    if args.all_pairs and args.snapshot is not None:
        raise UsageError("--all-pairs compares live runs with each other, not a snapshot")
    if args.fragility and args.snapshot is not None:
        raise UsageError("--fragility scores the runs again: a snapshot keeps only its figures")
    for flag in ("snapshot_run", "snapshot_key_file"):
        if args.snapshot is None and getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} needs --snapshot")
    key = snapshot_key(args.snapshot_key_file) if args.snapshot is not None else None
    snapshot = load_snapshot(args.snapshot, key=key) if args.snapshot is not None else None
    if snapshot is not None and args.k is None:
        args.k = snapshot.k
    evaluation = evaluation_from(args)
    if snapshot is None and len(evaluation.runs) < 2:
        raise UsageError("compare needs a baseline and at least one candidate --run")
    keys = [metric_key(label, evaluation.k) for label in args.metric] or None
    gated = [metric_key(label, evaluation.k) for label in args.fail_on_regression]
    try:
        primary = metric_key(args.primary, evaluation.k)
    except ValueError as error:
        raise UsageError(f"--primary: {error}") from None
    if keys is not None:
        keys += [key for key in [primary, *gated, *decisions.budget_keys(args, evaluation.k),
                                 *review.harm_keys(args, evaluation.k)] if key not in keys]
    else:
        review.harm_keys(args, evaluation.k)  # a bad limit fails before any test runs
    options = dict(
        metrics=keys,
        correction=args.correction,
        alpha=args.alpha,
        confidence_level=evaluation.conventions.confidence_level,
        n_permutations=args.permutations,
        rng=evaluation.conventions.seed,
    )
    if snapshot is None:
        comparison = compare_evaluation(evaluation, **options)
    else:
        comparison = compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **options)
    print_load_report(evaluation)
    queries = texts.queries_from(args, evaluation) if snapshot is None else None
    pieces = texts.compared_slices(args, evaluation, queries, baseline=comparison.baseline,
                                   **options) if snapshot is None else []
    pairs = decisions.pairs_from(args, evaluation, options)
    if pairs is not None:  # the first run's tests, adjusted over every pair, gate the build
        comparison = pairs.comparisons[0]
    note = None
    if snapshot is not None:
        signed = not key or snapshot.verification != "verified"  # a plain SHA-256 under a key
        unsigned = "" if signed else " (not signed, although a key was given)"
        print(f"{args.snapshot}: snapshot figures {snapshot.verification}{unsigned}",
              file=sys.stderr)
        note = same_run_note(snapshot, evaluation, run=args.snapshot_run,
                             candidates=comparison.candidates)
        if note is not None:
            print(f"note: {note}", file=sys.stderr)
    gates = regression_gates(comparison, [MEASURE_BY_KEY[key].label(evaluation.k)
                                          for key in gated])
    primary_label = MEASURE_BY_KEY[primary].label(evaluation.k)
    alone = options | {"metrics": [primary]}  # the headline's family: the primary metric
    said = headlines(compare_evaluation(evaluation, **alone) if snapshot is None else
                     compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **alone),
                     primary_label)
    data = comparison_dict(evaluation, comparison) | {
        "primary": primary_label, "headline": " ".join(said), "headlines": said}
    if pairs is not None:
        data |= decisions.all_pairs_json(pairs)
    gates += decisions.budget_gates(args, comparison, evaluation.k, data)
    gates += review.harm_gates(args, comparison, evaluation.k)
    review.add_risk(data, comparison, args.harm_delta, queries)
    found = review.fragility_of(args, evaluation, comparison) if args.fragility else None
    if found is not None:
        data |= review.fragility_json(found)
    if args.format == "json":
        data["gates"] = gates
        if snapshot is not None:
            data["snapshot"] = snapshot_source(snapshot, args.snapshot, args.snapshot_run, note)
        if args.by:
            data["by"] = args.by
            data["comparisons"] += slice_rows(args.by, pieces)
        write_json(data)
    else:
        sys.stdout.write("".join(f"{sentence}\n" for sentence in said) + "\n")
        sys.stdout.write(format_comparison(evaluation, comparison) if pairs is None
                         else decisions.format_all_pairs(evaluation, pairs))
        if args.by:
            sys.stdout.write("\n" + format_slice_comparison(args.by, pieces))
        for kind, title in (("budget", "Budgets"), ("harm", "Harm limits")):
            if any(gate["gate"] == kind for gate in gates):
                sys.stdout.write(f"\n{title}:\n" + "".join(
                    f"  {gate['candidate']} {gate['metric']}: {gate['sentence']}\n"
                    for gate in gates if gate["gate"] == kind))
        sys.stdout.write(review.format_review(comparison, args.harm_delta, found))
    failed = [gate for gate in gates if not gate["passed"]]
    for gate in failed:
        print(gate_failure(gate["gate"], gate["candidate"], gate["metric"],
                           comparison.baseline, gate.get("sentence", "")), file=sys.stderr)
    return EXIT_GATE if failed else EXIT_OK


def regression_gates(comparison: Comparison, metrics: list[str]) -> list[dict[str, Any]]:
    """--fail-on-regression: one gate per (metric, candidate), each naming what it checked
    and whether it passed (the JSON's "gates")."""
    gates = []
    for metric in metrics:
        worse = set(regressions(comparison, metric))
        gates += [{"gate": "regression", "metric": metric, "candidate": candidate,
                   "passed": candidate not in worse} for candidate in comparison.candidates]
    return gates


def add_snapshot_key_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """--snapshot-key-file: the key read from a file, never given on the command line."""
    parser.add_argument(
        "--snapshot-key-file",
        type=Path,
        metavar="FILE",
        help=f"a file holding the secret key that {what} (HMAC-SHA256); default the "
        f"environment variable {KEY_VARIABLE}, if set",
    )


def snapshot_source(snapshot: Snapshot, path: Path, run_name: str | None,
                    note: str | None = None) -> dict[str, Any]:
    """What the baseline of a comparison against a snapshot was, how its figures were
    verified, and the same-run note if any (for the JSON output)."""
    header = snapshot.header
    run = snapshot.run(run_name)
    return {
        "file": str(path),
        "created": header.created,
        "label": header.label,
        "tool_version": header.tool_version,
        "run": run.name,
        "run_fingerprint": run.fingerprint,
        "query_set_fingerprint": snapshot.query_set_fingerprint,
        "figures_fingerprint": header.figures_fingerprint,
        "verification": snapshot.verification,
        "verified": snapshot.verified,
        "same_run": note,
    }


def snapshot_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics snapshot",
        description="Freeze an evaluation as a JSON snapshot: summary and per-query figures, "
        "conventions, K, fingerprints of the qrels and of each run, tool version, timestamp. "
        "Re-scoring the same query set later and comparing snapshots is how drift is read.",
    )
    add_input_arguments(parser)
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="snapshot file")
    parser.add_argument("--label", help='a note kept in the snapshot, e.g. "before the rebuild"')
    add_snapshot_key_argument(parser, "signs the snapshot's figures")
    args = parser.parse_args(argv)
    key = snapshot_key(args.snapshot_key_file)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    snapshot = Snapshot.from_evaluation(evaluation, label=args.label, key=key)
    save_snapshot(snapshot, args.out, key=key)
    print(
        f"snapshot of {count(len(evaluation.runs), 'run')} at K = {evaluation.k} over "
        f"{count(len(evaluation.scored_ids), 'scored query')} written to {args.out} "
        f"(query set {snapshot.query_set_fingerprint}; figures "
        f"{'signed with HMAC-SHA256' if key else 'fingerprinted with SHA-256, unsigned'})",
        file=sys.stderr,
    )
    return EXIT_OK


def leakage_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics leakage",
        description="Queries of the evaluation set copied into the corpus: every retriever "
        f"scores well on them, so the figures overstate. Exit status {EXIT_LEAK} when more "
        "queries leak than --max-leaks allows.",
    )
    add_input_arguments(parser)
    texts.add_text_arguments(parser, by=False)
    texts.add_leakage_arguments(parser)
    args = parser.parse_args(argv)
    if not texts.on_sample(args) and (args.queries is None or args.corpus is None):
        raise UsageError("leakage needs --queries and --corpus (or neither, on the sample)")
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    queries = texts.queries_from(args, evaluation)
    leakage = texts.leaks(args, evaluation, queries)
    if args.format == "json":
        print(leakage.sentence, file=sys.stderr)
        write_json(leakage.as_dict() | {"max_leaks": args.max_leaks,
                                        "queries_checked": leakage.queries_checked,
                                        "chunks_checked": leakage.chunks_checked})
    else:
        sys.stdout.write(texts.format_leaks(leakage, queries))
    if len(leakage.leaks) > args.max_leaks:
        print(f"leakage: {count(len(leakage.leaks), 'leak')} found, more than --max-leaks "
              f"{args.max_leaks}", file=sys.stderr)
        return EXIT_LEAK
    return EXIT_OK


COMMANDS: dict[str, Command] = {
    "score": score_command,
    "compare": compare_command,
    "snapshot": snapshot_command,
    "leakage": leakage_command,
    "leaderboard": decisions.leaderboard_command,
    "power": decisions.power_command,
    "unjudged": review.unjudged_command,
    "overlap": combine.overlap_command,
    "fuse": combine.fuse_command,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a command (the first argument), scoring when none is named."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = COMMANDS.get(argv[0]) if argv else None
    if command is not None:
        argv = argv[1:]
    return run_guarded(command or score_command, argv)


def run_guarded(command: Command, argv: Sequence[str]) -> int:
    """Run a command; errors become one line on standard error and a non-zero exit."""
    try:
        return command(argv)
    except UsageError as error:
        print(f"error: {error} (see --help)", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        name = getattr(command, "__name__", "command").removesuffix("_command")
        print(f"error: out of memory while running {name}: give smaller inputs, or a smaller "
              "--sweep or --permutations", file=sys.stderr)
        return EXIT_BAD_INPUT
