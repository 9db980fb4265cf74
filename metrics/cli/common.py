"""What every command prints the same way: the inputs read with their load reports on standard
error, the load report of an evaluation, and the snapshot key's flag. The arguments
themselves, and the reading of what they name, are `metrics.inputs.reading`; the JSON
documents and their writer, `metrics.outputs.documents`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from metrics.inputs.arguments import UsageError
from metrics.inputs.reading import Inputs
from metrics.snapshot import KEY_VARIABLE
from metrics.vocabulary.format import shortened, terminal


def to_stderr(line: str) -> None:
    """A report line, ids from files in it printed with their control characters escaped."""
    print(terminal(line, keep="\t\n"), file=sys.stderr)


def refuse_own_input(out: Path, inputs: Sequence[object], flag: str = "--out") -> None:
    """A UsageError when `out` names one of the files a command reads: writing it would
    destroy the input before (or while) it is read."""
    for given in inputs:
        if not isinstance(given, str | os.PathLike) or os.fspath(given) == "-":
            continue
        try:
            same = os.path.samefile(out, given)
        except (OSError, ValueError):  # either is missing (or unreadable): not the same file
            same = False
        if same:
            raise UsageError(f"{flag} {shortened(os.fspath(out), 200)} is one of this command's "
                             f"inputs ({shortened(os.fspath(given), 200)}): write it elsewhere")


def write_out(path: Path, write: Callable[[Path], None]) -> None:
    """Run `write(path)`; an OSError becomes one line naming the path ('/proc/version:
    cannot write (Input/output error)')."""
    try:
        write(path)
    except OSError as error:
        raise ValueError(f"{shortened(os.fspath(path), 200)}: cannot write "
                         f"({error.strerror or error})") from None


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
