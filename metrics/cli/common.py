"""What every command prints the same way: the inputs read with their load reports on standard
error, the load report of an evaluation, and the snapshot key's flag. The arguments
themselves (and the refusal of an output that names an input), and the reading of what they
name, are `metrics.inputs`; the JSON documents and their writer, `metrics.outputs.documents`;
the one writer of every file, `metrics.io.writing`."""

from __future__ import annotations

import argparse
from pathlib import Path

from metrics.inputs.arguments import to_stderr
from metrics.inputs.reading import Inputs
from metrics.snapshot import KEY_VARIABLE


def read(args: argparse.Namespace) -> Inputs:
    """The inputs the parsed flags name; each file's report goes to standard error as read."""
    return Inputs.from_arguments(args, report=to_stderr)


def print_load_report(inputs: Inputs) -> None:
    """The evaluation's load report (`load_report_lines`) on standard error, and the whole of
    it in the file --load-report names."""
    inputs.report_load()


def add_snapshot_key_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """--snapshot-key-file: the key read from a file, never given on the command line."""
    parser.add_argument(
        "--snapshot-key-file",
        type=Path,
        metavar="FILE",
        help=f"a file holding the secret key that {what} (HMAC-SHA256); default the "
        f"environment variable {KEY_VARIABLE}, if set",
    )
