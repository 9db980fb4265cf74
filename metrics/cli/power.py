"""python -m metrics power: is the query set big enough? The smallest difference it detects,
and the queries a named difference needs; with --delta, the queries a future set needs by
Sakai's topic-set-size design (paired t-test, one-way ANOVA over the runs, --ci-width)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.core.compare import compare_evaluation
from metrics.decide.power import power_report, power_table, topic_set_sizes
from metrics.inputs.arguments import Parser, UsageError, add_input_arguments, add_metric_argument
from metrics.outputs.documents import topic_set_json, write_json
from metrics.outputs.text import format_power
from metrics.vocabulary.gates import EXIT_OK
from metrics.vocabulary.power import ALPHA, POWER, POWER_METHOD, TOPIC_SET_FLAGS
from metrics.vocabulary.power import FLAGS as POWER_FLAGS


def power_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics power",
        description="Is the query set big enough? For each candidate against the first run "
        "and each metric: the smallest difference this set detects, and with --delta the "
        f"queries a difference needs. {POWER_METHOD}",
    )
    add_input_arguments(parser)
    add_metric_argument(parser, "these metrics; default every compared measure")
    for name, reader in (("delta", float), ("power", float), ("alpha", float)):
        flag, text = POWER_FLAGS[name]
        parser.add_argument(flag, dest=name, type=reader, help=text.replace("%", "%%"),
                            default={"power": POWER, "alpha": ALPHA}.get(name))
    for name, reader in (("ci_width", float), ("anova_runs", int)):
        flag, text = TOPIC_SET_FLAGS[name]
        parser.add_argument(flag, dest=name, type=reader, help=text.replace("%", "%%"))
    args = parser.parse_args(argv)
    for name in TOPIC_SET_FLAGS:
        if getattr(args, name) is not None and args.delta is None:
            raise UsageError(f"{TOPIC_SET_FLAGS[name][0]} sizes a future query set for a "
                             "difference: give --delta")
    inputs = read(args)
    evaluation = inputs.evaluation()
    print_load_report(inputs)
    if len(evaluation.runs) < 2:
        raise UsageError("power needs a baseline and at least one candidate --run")
    keys = list(args.metric) or None
    # the tests' verdicts choose each sentence (underpowered, or what the set detects)
    comparison = compare_evaluation(evaluation, metrics=keys, alpha=args.alpha,
                                    rng=evaluation.conventions.seed)
    try:
        report = power_report(comparison, alpha=args.alpha, power=args.power, delta=args.delta)
        sizes = None if args.delta is None else topic_set_sizes(
            evaluation, keys, min_difference=args.delta, alpha=args.alpha, power=args.power,
            ci_width=args.ci_width, runs=args.anova_runs)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.format == "json":
        write_json(report | (topic_set_json(sizes) if sizes is not None else {}))
    else:
        figures = power_table(comparison, alpha=args.alpha, power=args.power, delta=args.delta)
        sys.stdout.write(format_power(report, figures, sizes))
    return EXIT_OK

