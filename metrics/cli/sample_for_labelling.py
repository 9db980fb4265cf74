"""python -m metrics sample-for-labelling: which queries to label by hand. A seeded random
sample of --n queries of the --qrels query set (the judge's labels, or any qrels listing the
queries), stratified by a facet of --queries with --by, written as the labelling template of
the unjudged-ids export: every id in the top K of any run for the queries drawn.

    python -m metrics sample-for-labelling --qrels llm.txt --run a.run --run b.run --n 200 \\
        --seed 7 > to_label.qrels
    python -m metrics sample-for-labelling ... --queries queries.csv --by intent --as csv
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from metrics.cli.common import print_load_report, read
from metrics.context.labelling import to_csv, to_label, to_qrels_template
from metrics.context.sampling import sample_queries
from metrics.core.evaluate import evaluate
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    add_text_arguments,
    positive_int,
    to_stderr,
)
from metrics.io.rows import Qrels
from metrics.outputs.documents import write_json
from metrics.vocabulary.format import terminal
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.judge import SAMPLE_RULE, sample_sentence
from metrics.vocabulary.labelling import QRELS_TEMPLATE


def sample_for_labelling_command(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m metrics sample-for-labelling",
                    description=__doc__ + "\n" + SAMPLE_RULE,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_arguments(parser)
    add_text_arguments(parser)
    parser.add_argument("--n", type=positive_int, required=True,
                        help="how many queries to draw (the seed is --seed)")
    parser.add_argument("--as", dest="shape", choices=["qrels", "csv", "ids"],
                        default="qrels",
                        help=f"the template as TREC qrels ({QRELS_TEMPLATE}; the default), as "
                        "CSV with each id's ranks, or only the query ids drawn, a line each")
    args = parser.parse_args(argv)
    if args.qrels is None or not args.run:
        raise UsageError("sample-for-labelling needs --qrels (the queries to draw from) and "
                         "at least one --run (whose top K makes the template)")
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    population = [str(q) for q in evaluation.query_set.query_ids]
    facet = inputs.facet()  # None without --by; --by needs --queries
    strata = None if facet is None else [facet.label(q) for q in population]
    try:
        drawn = sample_queries(population, args.n,
                               rng=np.random.default_rng(evaluation.conventions.seed),
                               strata=strata)
    except ValueError as error:
        raise UsageError(str(error)) from None
    to_stderr(sample_sentence(len(drawn), len(population), evaluation.conventions.seed,
                              args.by))
    if args.shape == "ids":
        sys.stdout.write("".join(f"{terminal(q)}\n" for q in drawn))
        return EXIT_OK
    found = to_label(unlabelled(evaluation), queries=drawn)
    if args.format == "json":
        columns = found.columns()
        write_json({"k": found.k, "runs": list(found.run_names), "queries": drawn,
                    "seed": evaluation.conventions.seed, "by": args.by,
                    "to_label": [dict(zip(columns, row, strict=True))
                                 for row in zip(*columns.values(), strict=True)]})
    elif args.shape == "csv":
        sys.stdout.write(to_csv(found))
    else:
        sys.stdout.write(to_qrels_template(found, evaluation))
    return EXIT_OK


def unlabelled(evaluation):
    """The same runs over the same queries with no label at all: every id a run returns is
    one to label (the labeller grades it afresh, whatever a judge said)."""
    ids = evaluation.query_set.query_ids
    blank = Qrels.from_rows(evaluation.qrels.source, ids, [], [], np.zeros(0, np.int64),
                            np.zeros(0, np.int64))
    return evaluate(blank, [run.run for run in evaluation.runs], evaluation.k,
                    evaluation.conventions)
