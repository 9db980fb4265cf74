"""python -m metrics history: `append` an evaluation's snapshot to a history store with its
time, commit and label; `show` each figure over time with the changes that are more than
noise (the store and the trend are `metrics.snapshot.history`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from metrics.cli.common import add_snapshot_key_argument, print_load_report, read
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    add_metric_argument,
    to_stderr,
)
from metrics.outputs.history import trend_csv, trend_document, trend_text
from metrics.snapshot import Snapshot, snapshot_key
from metrics.snapshot import load as load_snapshot
from metrics.snapshot.history import Store, append, trend, utc_time
from metrics.vocabulary.comparisons import (
    ALPHA,
    CORRECTIONS,
    DEFAULT_CORRECTION,
    DEFAULT_PERMUTATIONS,
)
from metrics.vocabulary.gates import EXIT_OK, EXIT_USAGE
from metrics.vocabulary.history import INDEX, NO_COMMIT

ACTIONS = {"append": "add an evaluation (or a snapshot file) to the store",
           "show": "each figure over time, with the changes more than noise marked"}


def history_command(argv: Sequence[str]) -> int:
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: python -m metrics history {append,show} --store DIR ...\n\n"
                         "A history of evaluations of one query set: a directory of snapshots "
                         f"and its {INDEX}.\n\n"
                         + "".join(f"  {name:<7} {line}\n" for name, line in ACTIONS.items())
                         + "\nhistory ACTION --help: that action's options\n")
        return EXIT_OK if argv else EXIT_USAGE
    action, rest = argv[0], argv[1:]
    if action == "append":
        return _append(rest)
    if action == "show":
        return _show(rest)
    raise UsageError(f"unknown history action {action!r}; expected one of {', '.join(ACTIONS)}")


def _git_head() -> str | None:
    """`git rev-parse HEAD` in the working directory, or None outside a repository."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    head = done.stdout.strip()
    return head if done.returncode == 0 and head else None


def _append(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics history append",
        description="Add an evaluation to a history store (a directory, made if absent): "
        "scored from the same flags as compare and snapshot, or an existing --snapshot "
        "file; refused when it is not comparable with the store's first entry (another "
        "query set or labels, K or conventions).",
    )
    parser.add_argument("--store", type=Path, required=True, metavar="DIR",
                        help=f"the history store: a directory holding {INDEX} and snapshots/")
    parser.add_argument("--snapshot", type=Path, metavar="FILE",
                        help="append this snapshot file rather than scoring --qrels and --run")
    parser.add_argument("--time", help="when the evaluation was made, ISO 8601 with a zone "
                        "(stored in UTC; default now)")
    parser.add_argument("--commit", help="the commit evaluated (default `git rev-parse HEAD` "
                        "in the working directory; outside a repository none is stored)")
    parser.add_argument("--label", help='a note, e.g. "nightly"; default the snapshot\'s label')
    add_input_arguments(parser, formats=("table",))
    add_snapshot_key_argument(parser, "signs the snapshot's figures (and reads the store's)")
    add_metric_argument(parser, "freeze these figures too, beside the default ones")
    args = parser.parse_args(argv)
    key = snapshot_key(args.snapshot_key_file)
    time = utc_time(args.time)  # checked before any scoring
    if args.snapshot is not None:
        if args.run or args.qrels:
            raise UsageError("--snapshot appends a snapshot file: give it without --qrels "
                             "and --run")
        snapshot = load_snapshot(args.snapshot, key=key)
    else:
        inputs = read(args)
        evaluation = inputs.evaluation()
        print_load_report(inputs)
        snapshot = Snapshot.from_evaluation(evaluation, label=args.label, created=time, key=key)
    commit = args.commit
    if commit is None:
        commit = _git_head()
        if commit is None:
            to_stderr(f"no commit stored ({NO_COMMIT}): not in a git repository; give "
                      "--commit to name one")
    entry = append(args.store, snapshot, time=time, commit=commit, label=args.label, key=key)
    to_stderr(f"{args.store}: appended {entry.describe()} as {entry.file}: "
              f"{len(snapshot.runs)} run(s) at K = {snapshot.k}")
    return EXIT_OK


def _show(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics history show",
        description="Each figure of a history store over time, with its interval, and the "
        "change from the previous point of the same run marked when it is more than noise: "
        "a paired randomization test where both points store their per-query figures, else "
        "an unpaired comparison of the two intervals (said so); the p-values of every change "
        "shown are corrected as one family.",
    )
    parser.add_argument("--store", type=Path, required=True, metavar="DIR")
    parser.add_argument("--metric", action="append", default=[],
                        help="a summary figure (nDCG, MRR, P, ...); repeat for several; "
                        "default all")
    parser.add_argument("--run", action="append", default=[],
                        help="a run's name; repeat for several; default all")
    parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    parser.add_argument("--correction", choices=list(CORRECTIONS), default=DEFAULT_CORRECTION,
                        help="over every change shown (default %(default)s)")
    parser.add_argument("--alpha", type=float, default=ALPHA,
                        help="a change is marked when its adjusted p is below (default "
                        "%(default)s)")
    parser.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS,
                        help="sign flips of the paired test (default %(default)s)")
    add_snapshot_key_argument(parser, "signed the store's snapshots")
    args = parser.parse_args(argv)
    key = snapshot_key(args.snapshot_key_file)
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must lie in (0, 1), got {args.alpha}")
    found = trend(Store.at(args.store), metrics=args.metric, runs=args.run,
                  correction=args.correction, alpha=args.alpha,
                  n_permutations=args.permutations, key=key)
    if args.format == "json":
        sys.stdout.write(json.dumps(trend_document(found), indent=2, ensure_ascii=False) + "\n")
    elif args.format == "csv":
        sys.stdout.write(trend_csv(found))
    else:
        sys.stdout.write(trend_text(found))
    return EXIT_OK
