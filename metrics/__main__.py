"""python -m metrics: the dashboard's numbers from the command line, as a table or as JSON.

Without --qrels and --run it scores the bundled sample (K = 5 unless --k says otherwise).
Standard output holds the result alone; the load report and warnings go to standard error.
Errors exit non-zero with one line naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

import orjson

from metrics.compare import DEFAULT_PERMUTATIONS, compare_evaluation, metric_key, regressions
from metrics.conventions import CHOICES, Conventions
from metrics.evaluate import Evaluation
from metrics.files import RunSource, evaluate_files
from metrics.io import QRELS_FORMATS, RUN_FORMATS
from metrics.measures import MEASURE_BY_KEY
from metrics.output import comparison_dict, format_comparison, format_table, to_dict
from metrics.sample import SAMPLE_K, load_sample
from metrics.snapshot import compare_with_snapshot, snapshot_run, to_snapshot
from metrics.snapshot import load as load_snapshot
from metrics.snapshot import save as save_snapshot

USER_K = 10


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """One short line on a bad flag, not the whole usage text."""

    def error(self, message: str):
        raise UsageError(message)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def sweep_range(text: str) -> tuple[int, int]:
    parts = text.split(":")
    try:
        lo, hi = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FROM:TO such as 1:20, got {text!r}") from None
    if lo < 1 or hi < lo:
        raise argparse.ArgumentTypeError(f"expected 1 <= FROM <= TO, got {text!r}")
    return lo, hi


def run_source(text: str) -> RunSource:
    """[NAME=]FILE; a name defaults to the file name without its extension."""
    name, sep, path = text.partition("=")
    if sep and name and not Path(text).exists():
        return RunSource(Path(path), name=name)
    return RunSource(Path(text))


CHOICE_HELP = {
    "recall_denominator": "all: every relevant id R (trec_eval); min: min(R, K)",
    "gain": "DCG gain: the grade (trec_eval) or 2^grade - 1 (Burges 2005)",
    "rr": "read RR at K, or over the full list (trec_eval recip_rank)",
    "ap": "read AP at K (map_cut_K), or over the full list (trec_eval map)",
    "order": "TREC run order: score desc then doc_id desc (trec_eval), or rank",
}


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """Inputs and conventions, shared by every subcommand that scores runs."""
    parser.add_argument("--qrels", type=Path, help="labels: TREC, BEIR TSV, CSV or JSONL (.gz ok)")
    parser.add_argument(
        "--run",
        type=run_source,
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="a run; repeat for several; the first is the "
        "baseline. A JSONL run carrying `relevant` may stand without --qrels",
    )
    parser.add_argument(
        "--k",
        type=positive_int,
        help=f"cutoff K (default {SAMPLE_K} on the sample, {USER_K} on your files)",
    )
    for field, help_text in CHOICE_HELP.items():
        parser.add_argument(
            "--" + field.replace("_", "-"),
            choices=CHOICES[field],
            default=CHOICES[field][0],
            help=help_text,
        )
    parser.add_argument(
        "--relevance-level",
        type=integer,
        default=1,
        metavar="N",
        help="a grade >= N is relevant for binary metrics (default 1)",
    )
    parser.add_argument("--qrels-format", choices=("auto", *QRELS_FORMATS), default="auto",
                        help="qrels file format (default: detected from the content)")
    parser.add_argument("--run-format", choices=("auto", *RUN_FORMATS), default="auto",
                        help="format of every --run file (default: detected from the content)")
    parser.add_argument("--confidence-level", type=confidence, default=0.95)
    parser.add_argument(
        "--seed",
        type=integer,
        default=Conventions().seed,
        help="bootstrap seed (fixed by default, so reruns reproduce intervals)",
    )
    parser.add_argument(
        "--sweep",
        type=sweep_range,
        metavar="FROM:TO",
        help="K range of the sweep (default 1 to the longest list)",
    )
    parser.add_argument("--format", choices=["table", "json"], default="table")


def conventions_from(args: argparse.Namespace) -> Conventions:
    return Conventions(
        recall_denominator=args.recall_denominator,
        gain=args.gain,
        rr=args.rr,
        ap=args.ap,
        relevance_level=args.relevance_level,
        order=args.order,
        confidence_level=args.confidence_level,
        seed=args.seed,
    )


def evaluation_from(args: argparse.Namespace) -> Evaluation:
    """The user's files, or the bundled sample when neither --qrels nor --run is given."""
    conventions = conventions_from(args)
    if args.qrels is None and not args.run:
        return load_sample(args.k or SAMPLE_K, conventions, sweep=args.sweep)
    if not args.run:
        raise UsageError("--qrels needs at least one --run")
    runs = [dataclasses.replace(run, format=args.run_format) for run in args.run]
    return evaluate_files(
        args.qrels, runs, args.k or USER_K, conventions, qrels_format=args.qrels_format,
        sweep=args.sweep,
    )


def print_load_report(evaluation: Evaluation) -> None:
    reports = [evaluation.qrels_report] + [run.report for run in evaluation.runs]
    for report in filter(None, reports):
        print(report.summary(), file=sys.stderr)
        for entry in report.dropped:
            print(f"  {report.source}, line {entry.line}: {entry.reason}", file=sys.stderr)
    for run in evaluation.runs:
        if run.missing_queries:
            print(
                f"{run.name}: no list for {len(run.missing_queries)} qrels queries "
                f"(they score 0): {', '.join(run.missing_queries[:10])}"
                + (" ..." if len(run.missing_queries) > 10 else ""),
                file=sys.stderr,
            )


def write_json(document: dict) -> None:
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
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    if args.format == "json":
        write_json(to_dict(evaluation))
    else:
        sys.stdout.write(format_table(evaluation))
    return 0


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
    args = parser.parse_args(argv)
    snapshot = load_snapshot(args.snapshot) if args.snapshot is not None else None
    if snapshot is None and args.snapshot_run is not None:
        raise UsageError("--snapshot-run needs --snapshot")
    if snapshot is not None and args.k is None:
        args.k = snapshot["k"]
    evaluation = evaluation_from(args)
    if snapshot is None and len(evaluation.runs) < 2:
        raise UsageError("compare needs a baseline and at least one candidate --run")
    keys = [metric_key(label, evaluation.k) for label in args.metric] or None
    guarded = [metric_key(label, evaluation.k) for label in args.fail_on_regression]
    if keys is not None:
        keys += [key for key in guarded if key not in keys]
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
    if args.format == "json":
        data = comparison_dict(evaluation, comparison)
        if snapshot is not None:
            data["snapshot"] = snapshot_source(snapshot, args.snapshot, args.snapshot_run)
        write_json(data)
    else:
        sys.stdout.write(format_comparison(evaluation, comparison))
    failed = False
    for key in guarded:
        label = MEASURE_BY_KEY[key].label(evaluation.k)
        for name in regressions(comparison, label):
            print(
                f"regression: {name} is significantly worse than {comparison.baseline} on {label}",
                file=sys.stderr,
            )
            failed = True
    return 3 if failed else 0


def snapshot_source(snapshot: dict, path: Path, run_name: str | None) -> dict:
    """What the baseline of a comparison against a snapshot was (for the JSON output)."""
    header = snapshot["snapshot"]
    run = snapshot_run(snapshot, run_name)
    return {
        "file": str(path),
        "created": header["created"],
        "label": header.get("label"),
        "tool_version": header.get("tool_version"),
        "run": run["name"],
        "run_fingerprint": run["fingerprint"],
        "query_set_fingerprint": snapshot["query_set"]["fingerprint"],
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
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    snapshot = to_snapshot(evaluation, label=args.label)
    save_snapshot(snapshot, args.out)
    print(
        f"snapshot of {len(evaluation.runs)} runs at K = {evaluation.k} over "
        f"{len(evaluation.scored_ids)} scored queries written to {args.out} "
        f"(query set {snapshot['query_set']['fingerprint']})",
        file=sys.stderr,
    )
    return 0


COMMANDS = {"score": score_command, "compare": compare_command, "snapshot": snapshot_command}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = COMMANDS.get(argv[0]) if argv else None
    if command is not None:
        argv = argv[1:]
    return guarded(command or score_command, argv)


def guarded(command, argv: Sequence[str]) -> int:
    """Run a command; errors become one line on standard error and a non-zero exit."""
    try:
        return command(argv)
    except UsageError as error:
        print(f"error: {error} (see --help)", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
