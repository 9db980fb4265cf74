"""python -m dashboard report: the dashboard's report from the command line.

Takes the same inputs as ``python -m metrics`` (--qrels, --run [NAME=]FILE, --k and the
conventions; a JSONL run carrying both fields may stand alone; without inputs, the bundled
sample). With two runs or more, the first is the baseline of the comparison tables.

The HTML report also takes the text inputs of ``python -m metrics``: --queries and --corpus
(the examples show the question and each chunk's first words; with both, the leakage check),
--by FACET (nDCG per slice, and each slice's paired difference), --tokens-per-chunk and
--price-per-mtok (what K costs). On the sample, its queries and corpus are read.

  python -m dashboard report --qrels qrels.txt --run base.run --run new.run --k 10 --out r.html
  python -m dashboard report --queries queries.csv --corpus corpus.jsonl --by intent ...
  python -m dashboard report --format markdown          # the summary table, for a pull request

Errors exit non-zero with one line, like ``python -m metrics``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import metrics
from dashboard.report import exports
from metrics import (
    Comparison,
    Inputs,
    compare_slices,
    find_leaks,
    retrieved_or_judged,
    slice_evaluation,
)

Command = Callable[[Sequence[str]], int]
UsageError = Inputs.UsageError
TEXT_FLAGS = ("queries", "corpus", "by", "tokens_per_chunk", "price_per_mtok")


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def report_command(argv: Sequence[str]) -> int:
    parser = Inputs.parser(
        "python -m dashboard report",
        "Write the self-contained HTML report (or print the Markdown summary).",
        conflict_handler="resolve",  # --format below replaces the scoring commands' table/json
    )
    parser.add_argument(
        "--format",
        choices=["html", "markdown"],
        default="html",
        help="html: the full report (needs --out); markdown: the summary table, to standard "
        "output unless --out is given",
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="where to write the report")
    parser.add_argument("--title", default=None, help="the report's title")
    parser.add_argument(
        "--no-comparison",
        action="store_true",
        help="leave out the comparison of each run with the first",
    )
    Inputs.add_text_arguments(parser, cost=True)
    Inputs.add_metric_argument(parser, "report these figures too, beside the default ones")
    parser.add_argument("--primary", default=metrics.PRIMARY, metavar="METRIC",
                        help=metrics.vocabulary.headline.PRIMARY_HELP)
    args = parser.parse_args(argv)
    if args.format == "html" and args.out is None:
        raise UsageError("the HTML report needs --out FILE")
    given = [f"--{flag.replace('_', '-')}" for flag in TEXT_FLAGS
             if getattr(args, flag) is not None]
    if args.format == "markdown" and given:
        raise UsageError(f"{', '.join(given)}: for the HTML report; the Markdown summary "
                         "holds the summary table only")
    inputs = Inputs.from_arguments(args, report=_to_stderr)
    if args.by and args.queries is None and not inputs.on_sample:
        raise UsageError("--by needs --queries")

    # imported here so that a usage error costs no Altair / vl-convert import
    from dashboard.report import html as report

    evaluation = inputs.evaluation()
    inputs.report_load()
    comparison = None if args.no_comparison else report.default_comparison(evaluation)
    if args.format == "markdown":
        text = exports.summary_markdown(evaluation, comparison)
    else:
        text = report.build_html(evaluation, comparison, title=args.title or report.DEFAULT_TITLE,
                                 **text_inputs(inputs, comparison),
                                 **decision_inputs(args, inputs, comparison))
    if args.out is None:
        sys.stdout.write(text)
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.format} report written to {args.out}", file=sys.stderr)
    return 0


def text_inputs(inputs: Inputs, comparison: Comparison | None) -> dict:
    """build_html's text keywords from --queries, --corpus, --by and the cost flags (the
    sample's queries and corpus on the sample); each file is read once."""
    from dashboard.report.texts import PRIMARY  # the measure the examples are read on

    evaluation = inputs.evaluation()
    queries = inputs.queries()
    corpus = inputs.corpus()
    facet = inputs.facet()  # UsageError: --by without queries
    slices = slice_pieces = leakage = None
    if facet is not None:
        slices = slice_evaluation(evaluation, facet)
        if comparison is not None:
            slice_pieces = compare_slices(
                evaluation, facet, baseline=comparison.baseline, metrics=[PRIMARY],
                confidence_level=evaluation.conventions.confidence_level,
                rng=evaluation.conventions.seed)
    if queries is not None and corpus is not None:
        candidates = retrieved_or_judged(evaluation.qrels, [run.run for run in evaluation.runs])
        leakage = find_leaks(queries, corpus, candidates=candidates)
    tokens = inputs.tokens()  # what K costs, when a token figure, a price or --corpus asks
    costs = None if tokens is None else metrics.costs(evaluation, tokens)
    return dict(queries=queries, corpus=corpus, slices=slices, slice_pieces=slice_pieces,
                leakage=leakage, costs=costs)


def decision_inputs(args: argparse.Namespace, inputs: Inputs,
                    comparison: Comparison | None) -> dict:
    """build_html's opening: the headline on --primary (its own family) and the leaderboard;
    with a comparison, its harm, its fragility and what to label next."""
    evaluation = inputs.evaluation()
    try:
        primary = metrics.metric_key(args.primary, evaluation.k, evaluation.conventions)
    except ValueError as error:
        raise UsageError(f"--primary: {error}") from None
    headline = None
    if comparison is not None:
        alone = metrics.headline_comparison(
            evaluation, primary, confidence_level=evaluation.conventions.confidence_level,
            rng=evaluation.conventions.seed)
        headline = metrics.headlines(alone, metrics.label_of(primary, evaluation.k,
                                                             evaluation.conventions))
    marks = metrics.best_marks(evaluation) if len(evaluation.runs) > 1 else None
    review = {}
    if comparison is not None:
        review = dict(risks=metrics.risks(comparison), to_label=metrics.to_label(evaluation),
                      fragility=metrics.fragility(evaluation, comparison,
                                                  reread=inputs.rereader()))
    judge = None
    if inputs.judge_qrels is not None:  # --judge-qrels: the judge's section
        judge = metrics.judge_report(*inputs.judged())
    return dict(headline=headline, board=metrics.leaderboard(evaluation), primary=primary,
                marks=marks, judge=judge, **review)


COMMANDS: dict[str, Command] = {"report": report_command}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not argv or argv[0] not in COMMANDS:
        given = f"unknown command {argv[0]!r}" if argv else "no command given"
        return Inputs.run_guarded(_usage_error(f"{given}; expected: {', '.join(COMMANDS)}"), [])
    return Inputs.run_guarded(COMMANDS[argv[0]], argv[1:])


def _usage_error(message: str) -> Command:
    """A command that only fails: an unknown command exits like a bad flag."""

    def fail(_argv: Sequence[str]) -> int:
        raise UsageError(message)

    return fail


if __name__ == "__main__":
    sys.exit(main())
