"""Argument parsing for the command line: the inputs, K, the sweep and the conventions.

The convention flags are generated from `metrics.vocabulary.CONVENTIONS`: a categorical
convention gets its choices, default and help from there, a numeric one its default, help and
bounds; a convention without a flag (the bootstrap resamples) gets none. A new convention in
the vocabulary is therefore a new flag here, and reaches `Conventions` through
`conventions_from` without a line of this module changing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from metrics.conventions import Conventions
from metrics.core.evaluate import MAX_SWEEP, check_sweep
from metrics.core.files import RunSource
from metrics.core.kernel import MAX_K
from metrics.core.sample import SAMPLE_K
from metrics.io import MAX_INPUT_BYTES, QRELS_FORMATS, RUN_FORMATS
from metrics.vocabulary import CONVENTIONS, Convention

USER_K = 10  # the default K on the user's files (the sample's is SAMPLE_K)

Reader = Callable[[str], object]


class UsageError(Exception):
    """A bad flag or a missing input: exit status 2 and one line."""


class Parser(argparse.ArgumentParser):
    """One short line on a bad flag, not the whole usage text."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def cutoff(text: str) -> int:
    """K: a positive integer up to MAX_K (any K is computed without arrays as wide as K, but
    a K past every list and label says nothing more)."""
    value = positive_int(text)
    if value > MAX_K:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer up to {MAX_K:,} (MAX_K), got {text!r}"
        )
    return value


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
    try:
        check_sweep(lo, hi)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return lo, hi


def run_source(text: str) -> RunSource:
    """[NAME=]FILE; a name defaults to the file name without its extension."""
    name, sep, path = text.partition("=")
    if sep and name and not Path(text).exists():
        return RunSource(Path(path), name=name)
    return RunSource(Path(text))


def within_bounds(convention: Convention) -> Reader:
    """The type function of a numeric convention's flag: a number of its default's type within
    the vocabulary's inclusive bounds, so that a bad value is a usage error naming the flag
    (exit 2) rather than an engine error."""
    kind = int if isinstance(convention.default, int) else float
    noun = "an integer" if kind is int else "a number"
    lo, hi = convention.bounds or (float("-inf"), float("inf"))

    def read(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {noun} from {lo:,} to {hi:,}, got {text!r}")
        return value

    return read


# --confidence-level keeps the reading it had before the vocabulary: any level strictly between
# 0 and 1 (the vocabulary's bounds are the dashboard slider's). Any other numeric convention,
# --seed and --relevance-level included, reads a number within its vocabulary bounds.
READERS: dict[str, tuple[Reader, str | None]] = {
    "confidence_level": (confidence, None),
}


def _help(text: str) -> str:
    """argparse formats help with %: a literal one must be doubled."""
    return text.replace("%", "%%")


def add_convention_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per convention of the vocabulary that has one; dest is the convention's field."""
    group = parser.add_argument_group("conventions")
    for c in CONVENTIONS:
        if not c.flag:
            continue
        if c.choices:
            group.add_argument(c.flag, dest=c.field, choices=c.values, default=c.default,
                               help=_help(c.help))
            continue
        reader, metavar = READERS.get(c.field, (within_bounds(c), "N"))
        group.add_argument(c.flag, dest=c.field, type=reader, default=c.default,
                           metavar=metavar, help=_help(c.help))


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
        type=cutoff,
        help=f"cutoff K, up to {MAX_K:,} (default {SAMPLE_K} on the sample, {USER_K} on your "
        "files)",
    )
    parser.add_argument("--qrels-format", choices=("auto", *QRELS_FORMATS), default="auto",
                        help="qrels file format (default: detected from the content)")
    parser.add_argument("--run-format", choices=("auto", *RUN_FORMATS), default="auto",
                        help="format of every --run file (default: detected from the content)")
    parser.add_argument(
        "--sweep",
        type=sweep_range,
        metavar="FROM:TO",
        help=f"K range of the sweep, at most {MAX_SWEEP:,} cutoffs up to K = {MAX_K:,} "
        "(default 1 to the longest list)",
    )
    parser.add_argument(
        "--max-input-mb",
        type=positive_int,
        default=MAX_INPUT_BYTES >> 20,
        metavar="MB",
        help="refuse an input file that holds (or a .gz that expands to) more than MB "
        f"megabytes (default {MAX_INPUT_BYTES >> 20}; the dashboard uses the default)",
    )
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_convention_arguments(parser)


def conventions_from(args: argparse.Namespace) -> Conventions:
    """Every convention that has a flag, as parsed; the others keep their defaults."""
    return Conventions(**{c.field: getattr(args, c.field) for c in CONVENTIONS if c.flag})

