"""What every command prints the same way: the inputs read with their load reports on standard
error, the load report of an evaluation, the JSON writer, and the snapshot key's flag. The
arguments themselves, and the reading of what they name, are `metrics.cli.inputs`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from metrics.cli.inputs import Inputs
from metrics.snapshot import KEY_VARIABLE


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def read(args: argparse.Namespace) -> Inputs:
    """The inputs the parsed flags name; each file's report goes to standard error as read."""
    return Inputs.from_arguments(args, report=to_stderr)


def print_load_report(inputs: Inputs) -> None:
    """The evaluation's load report (`load_report_lines`) on standard error, and the whole of
    it in the file --load-report names."""
    inputs.report_load()


def write_json(document: dict[str, Any]) -> None:
    """The document as one line on standard output. orjson writes the per-query records of
    10,000 queries in 10 ms where json.dumps takes 85 ms (benchmarks/bench_engine.py
    --profile), and it writes null, never an invalid NaN."""
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_SERIALIZE_NUMPY).decode() + "\n")


def add_snapshot_key_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """--snapshot-key-file: the key read from a file, never given on the command line."""
    parser.add_argument(
        "--snapshot-key-file",
        type=Path,
        metavar="FILE",
        help=f"a file holding the secret key that {what} (HMAC-SHA256); default the "
        f"environment variable {KEY_VARIABLE}, if set",
    )
