"""python -m metrics overlap: how different the runs are, pair by pair at K: Jaccard, RBO, the
relevant ids only one finds, and the recall a perfect fusion of the two could reach."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.context.overlap import check_persistence, overlap
from metrics.inputs.arguments import Parser, UsageError, add_input_arguments
from metrics.outputs.documents import write_json
from metrics.outputs.text import table
from metrics.vocabulary.format import figure
from metrics.vocabulary.overlap import (
    DEFAULT_PERSISTENCE,
    OVERLAP_KEYS,
    OVERLAP_RULES,
    PERSISTENCE_MEANING,
    label,
    persistence_sentence,
)


def _persistence(text: str) -> float:
    try:
        return check_persistence(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must lie strictly between 0 and 1, got {text!r}") from None


def overlap_command(argv: Sequence[str]) -> int:
    """Every pair of runs at K: how alike their top K are and what a fusion could reach."""
    parser = Parser(prog="python -m metrics overlap",
                    description="How different the runs are: for every pair at K, Jaccard, "
                    "rank-biased overlap, the relevant ids only one finds and the recall a "
                    "perfect fusion of the two could reach, each mean with its interval.")
    add_input_arguments(parser)
    parser.add_argument("--p", type=_persistence, default=DEFAULT_PERSISTENCE,
                        metavar="P", help=PERSISTENCE_MEANING)
    args = parser.parse_args(argv)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    if len(evaluation.runs) < 2:
        raise UsageError("overlap needs at least two --run")
    found = overlap(evaluation, p=args.p)
    if args.format == "json":
        write_json(found.as_dict())
        return 0
    k = found.k
    header = ["A", "B", *(label(key, k) for key in OVERLAP_KEYS)]
    rows = [[row["a"], row["b"], *(f"{figure(row[key])} [{figure(row[key + '_low'])}, "
                                   f"{figure(row[key + '_high'])}]" for key in OVERLAP_KEYS)]
            for row in found.rows()]
    sys.stdout.write("\n".join(table(header, rows)) + "\n\n")
    sys.stdout.write(f"{persistence_sentence(found.p, k)} {OVERLAP_RULES['top_k']} "
                     f"{OVERLAP_RULES['denominator']}\n")
    return 0
