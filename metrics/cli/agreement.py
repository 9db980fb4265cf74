"""python -m metrics agreement: do two measures, two K or two label sets rank the runs the
same? Kendall's tau and tau_AP between the orderings of the runs, and the pairs that swap.

    python -m metrics agreement --metric nDCG@10 --metric MRR@10      # two measures
    python -m metrics agreement --metric nDCG@10 --metric nDCG@100    # two K
    python -m metrics agreement --qrels human.txt --qrels judge.txt --run a.run --run b.run ...

With several --metric, every pair of them; without one, every compared measure against the
headline's (nDCG). With two --qrels, each metric's orderings under the first labels and the
second (tau_AP reads the first as the reference).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from metrics.cli.common import read
from metrics.context.judge import label_agreement
from metrics.decide.agreement import measure_agreements
from metrics.inputs.arguments import Parser, UsageError, add_input_arguments, add_metric_argument
from metrics.outputs.documents import write_json
from metrics.outputs.text import format_agreements
from metrics.vocabulary import COMPARED
from metrics.vocabulary.agreement import AGREEMENT_HELP
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.headline import PRIMARY


def agreement_command(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m metrics agreement", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    conflict_handler="resolve")
    add_input_arguments(parser)
    parser.add_argument("--qrels", type=Path, action="append", default=[],
                        help="labels; twice for two label sets (human and judge, two "
                        "assessors), whose orderings of the runs are compared")
    add_metric_argument(parser, "the figures whose orderings are compared")
    args = parser.parse_args(argv)
    if len(args.qrels) > 2:
        raise UsageError("agreement compares two label sets at most: give --qrels once or "
                         "twice")
    labels = list(args.qrels)
    args.qrels = labels[0] if labels else None
    inputs = read(args)
    evaluation = inputs.evaluation()
    # the second label set's report after the first's, both in one --load-report file
    others = [dataclasses.replace(inputs, qrels=labels[1], _read={})] if len(labels) == 2 else []
    inputs.report_load(also=others)
    if len(evaluation.runs) < 2:
        raise UsageError("agreement needs at least two runs to order")
    if others:
        other = others[0].evaluation()
        names = (labels[0].name, labels[1].name)
        found = [label_agreement(evaluation, other, metric, names=names)
                 for metric in (args.metric or COMPARED)]
    elif len(args.metric) == 1:
        raise UsageError("one --metric orders the runs once: give a second --metric, or a "
                         "second --qrels")
    elif args.metric:
        found = measure_agreements(evaluation, args.metric)
    else:
        found = measure_agreements(evaluation, [key for key in COMPARED if key != PRIMARY],
                                   against=PRIMARY)
    if args.format == "json":
        write_json({"k": evaluation.k, "runs": evaluation.run_names,
                    "agreements": [a.as_dict() for a in found]})
    else:
        sys.stdout.write(format_agreements(found))
    return EXIT_OK


__doc__ += f"\n{AGREEMENT_HELP[0].upper()}{AGREEMENT_HELP[1:]}."
