"""python -m metrics snapshot: freeze an evaluation as a JSON snapshot, the baseline drift and
later comparisons are read against."""

from __future__ import annotations

from collections.abc import Sequence

from metrics.cli.common import add_snapshot_key_argument, print_load_report, read
from metrics.inputs.arguments import (
    Parser,
    add_input_arguments,
    add_metric_argument,
    output_file,
    to_stderr,
)
from metrics.io.writing import for_flag
from metrics.snapshot import Snapshot, snapshot_key
from metrics.snapshot import save as save_snapshot
from metrics.vocabulary.format import count
from metrics.vocabulary.gates import EXIT_OK


def snapshot_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics snapshot",
        description="Freeze an evaluation as a JSON snapshot: summary and per-query figures, "
        "conventions, K, fingerprints of the qrels and of each run, tool version, timestamp. "
        "Re-scoring the same query set later and comparing snapshots is how drift is read.",
    )
    add_input_arguments(parser)
    parser.add_argument("--out", type=output_file, required=True, metavar="FILE",
                        help="snapshot file")
    parser.add_argument("--label", help='a note kept in the snapshot, e.g. "before the rebuild"')
    add_snapshot_key_argument(parser, "signs the snapshot's figures")
    add_metric_argument(parser, "freeze these figures too, beside the default ones")
    args = parser.parse_args(argv)
    key = snapshot_key(args.snapshot_key_file)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    snapshot = Snapshot.from_evaluation(evaluation, label=args.label, key=key)
    with for_flag("--out"):
        save_snapshot(snapshot, args.out, key=key)
    to_stderr(
        f"snapshot of {count(len(evaluation.runs), 'run')} at K = {evaluation.k} over "
        f"{count(len(evaluation.scored_ids), 'scored query')} written to {args.out} "
        f"(query set {snapshot.query_set_fingerprint}; figures "
        f"{'signed with HMAC-SHA256' if key else 'fingerprinted with SHA-256, unsigned'})")
    return EXIT_OK
