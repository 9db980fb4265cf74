"""python -m metrics unjudged: what to label next, the unjudged ids in the top K of any run,
most wanted first; as a table, JSON, CSV or a TREC qrels template."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.context.labelling import summary as to_label_summary
from metrics.context.labelling import to_csv, to_label, to_qrels_template
from metrics.inputs.arguments import Parser, add_input_arguments, to_stderr
from metrics.outputs.documents import write_json
from metrics.outputs.text import table
from metrics.vocabulary.labelling import QRELS_TEMPLATE
from metrics.vocabulary.labelling import UNJUDGED as UNJUDGED_MEANING

TABLE_ROWS = 50  # the ids a table shows; --as csv writes them all


def unjudged_command(argv: Sequence[str]) -> int:
    """What to label next: the unjudged ids in the top K of any run, most wanted first."""
    parser = Parser(prog="python -m metrics unjudged",
                    description="What to label next: " + UNJUDGED_MEANING)
    add_input_arguments(parser)
    parser.add_argument("--as", dest="shape", choices=["csv", "qrels"], default=None,
                        help=f"write the list as CSV, or as a TREC qrels template "
                        f"({QRELS_TEMPLATE}); default a table, or JSON with --format json")
    args = parser.parse_args(argv)
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    found = to_label(evaluation)
    to_stderr(to_label_summary(found))
    if args.shape == "csv":
        sys.stdout.write(to_csv(found))
    elif args.shape == "qrels":
        sys.stdout.write(to_qrels_template(found, evaluation))
    elif args.format == "json":
        columns = found.columns()
        write_json({"k": found.k, "runs": list(found.run_names),
                    "summary": to_label_summary(found),
                    "to_label": [dict(zip(columns, row, strict=True))
                                 for row in zip(*columns.values(), strict=True)]})
    else:
        columns = found.columns()
        rows = [[str(cell) for cell in row] for row in zip(*columns.values(), strict=True)]
        sys.stdout.write("\n".join(table(list(columns), rows[:TABLE_ROWS])) + "\n")
        if len(rows) > TABLE_ROWS:
            sys.stdout.write(f"… {len(rows) - TABLE_ROWS:,} more: --as csv writes them all\n")
    return 0
