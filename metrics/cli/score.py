"""python -m metrics: the dashboard's numbers from the command line, as a table or as JSON.

Without --qrels and --run it scores the bundled sample (K = 5 unless --k says otherwise).
Standard output holds the result alone; the load report and warnings go to standard error.
Errors exit non-zero with one line naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read, write_json
from metrics.cli.inputs import Parser, add_input_arguments, add_text_arguments
from metrics.cli.text import format_costs, format_slices, format_table
from metrics.context.cost import costs
from metrics.decide.best import best_marks
from metrics.snapshot.contract import to_dict
from metrics.vocabulary.gates import EXIT_OK


def score_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_input_arguments(parser)
    add_text_arguments(parser, cost=True)
    parser.add_argument("--mark-best", action="store_true",
                        help="mark each metric's best run, and the runs not significantly "
                        "worse than it (every run against the best: paired randomization "
                        "tests, Holm over all of them); in the JSON, 'marks'")
    args = parser.parse_args(argv)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    marks = best_marks(evaluation) if args.mark_best and len(evaluation.runs) > 1 else None
    slices = inputs.slices()
    tokens = inputs.tokens()
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
