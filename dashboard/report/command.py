"""python -m dashboard report: the dashboard's report from the command line.

Takes the same inputs as ``python -m metrics`` (--qrels, --run [NAME=]FILE, --k and the
conventions; a JSONL run carrying both fields may stand alone; without inputs, the bundled
sample). With two runs or more, the first is the baseline of the comparison tables.

The HTML report also takes the text inputs of ``python -m metrics``: --queries and --corpus
(the examples show the question and each chunk's first words; with both, the leakage check),
--by FACET (nDCG per slice, and each slice's paired difference), --tokens-per-chunk and
--price-per-mtok (what K costs). On the sample, its queries and corpus are read. --test tukey
reads the leaderboard and every pair on --primary by the randomized Tukey HSD (letters, every
pair's p, effect sizes, the ANOVA), as the dashboard's test of every pair does; --min-effect
is the verdicts' minimum effect.

  python -m dashboard report --qrels qrels.txt --run base.run --run new.run --k 10 --out r.html
  python -m dashboard report --queries queries.csv --corpus corpus.jsonl --by intent ...
  python -m dashboard report --test tukey --min-effect 0.01 ...  # letters, every pair, ANOVA
  python -m dashboard report --format markdown          # the pull request's comment
  python -m dashboard slides --qrels q.txt --run a.run --run b.run --out slides/  # PNG + PDF

Errors exit non-zero with one line, like ``python -m metrics``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import metrics
from dashboard.report import exports

Command = Callable[[Sequence[str]], int]
UsageError = metrics.UsageError
TEXT_FLAGS = ("queries", "corpus", "by", "tokens_per_chunk", "price_per_mtok", "timings")
MARKDOWN_FLAGS = ("queries",)  # of TEXT_FLAGS, what the Markdown summary reads: the questions


def parser() -> argparse.ArgumentParser:
    """The command's flags: python -m metrics's for the inputs, the conventions, the texts
    and --metric (metrics.command_parser, below both front ends), then the report's own."""
    flags = metrics.command_parser(
        "python -m dashboard report",
        "Write the self-contained HTML report (or print the Markdown summary).",
        texts=True, cost=True, metric="report these figures too, beside the default ones",
        pairs="tukey: the leaderboard's letters and every pair on --primary",
        conflict_handler="resolve",  # --format below replaces the scoring commands' table/json
    )
    flags.add_argument(
        "--format",
        choices=["html", "markdown"],
        default="html",
        help="html: the full report (needs --out); markdown: the pull request's comment (as "
        "python -m metrics compare --format markdown writes it), to standard output unless "
        "--out is given",
    )
    flags.add_argument("--out", type=metrics.output_file, metavar="FILE",
                       help="where to write the report")
    flags.add_argument("--title", default=None, help="the report's title")
    flags.add_argument(
        "--no-comparison",
        action="store_true",
        help="leave out the comparison of each run with the first",
    )
    flags.add_argument("--primary", default=metrics.PRIMARY, metavar="METRIC",
                       help=metrics.vocabulary.headline.PRIMARY_HELP)
    flags.add_argument(metrics.vocabulary.timings.TIMINGS_FLAG, dest="timings", type=Path,
                       metavar="FILE", help=metrics.vocabulary.timings.TIMINGS_HELP)
    return flags


def report_command(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    if args.format == "html" and args.out is None:
        raise UsageError("the HTML report needs --out FILE")
    given = [f"--{flag.replace('_', '-')}" for flag in TEXT_FLAGS
             if getattr(args, flag) is not None and flag not in MARKDOWN_FLAGS]
    given += ["--test tukey"] if args.test == "tukey" else []
    if args.format == "markdown" and given:
        raise UsageError(f"{', '.join(given)}: for the HTML report; the Markdown summary "
                         "(the pull request's comment) reads only --queries of the texts")
    inputs = metrics.Inputs.from_arguments(args, report=metrics.to_stderr)
    if args.by and args.queries is None and not inputs.on_sample:
        raise UsageError("--by needs --queries")

    # imported here so that a usage error costs no Altair / vl-convert import
    from dashboard.report import html as report

    evaluation = inputs.evaluation()
    inputs.report_load()
    comparison = compared(args, evaluation)
    if args.format == "markdown":
        text = exports.summary_markdown(evaluation, comparison,
                                        primary=primary_key(args, evaluation),
                                        queries=inputs.queries())
    else:
        text = report.build_report(contents(args, inputs, comparison),
                                   title=args.title or report.DEFAULT_TITLE)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    metrics.write_text(args.out, text, flag="--out")
    metrics.to_stderr(f"{args.format} report written to {args.out}")
    return 0


def compared(args: argparse.Namespace,
             evaluation: metrics.Evaluation) -> metrics.Comparison | None:
    """Each run against the first, as python -m metrics compare and the LaTeX table compare
    them (metrics.baseline_comparison), its verdicts under --min-effect; none with
    --no-comparison."""
    return None if args.no_comparison else metrics.baseline_comparison(
        evaluation, min_effect=args.min_effect)


def primary_key(args: argparse.Namespace, evaluation: metrics.Evaluation) -> str:
    """--primary as a measure key; a name the engine cannot read is a usage error."""
    try:
        return metrics.metric_key(args.primary, evaluation.k, evaluation.conventions)
    except ValueError as error:
        raise UsageError(f"--primary: {error}") from None


def contents(args: argparse.Namespace, inputs: metrics.Inputs,
             comparison: metrics.Comparison | None) -> metrics.ReportContents:
    """The report's contents (metrics.report_contents, as the Export page's) from what the
    command line names: --primary, the texts (--queries, --corpus, the sample's on the sample),
    --by, the token cost and --judge-qrels; with --test tukey every pair on --primary by the
    randomized Tukey HSD (under --min-effect); the harm threshold and the fragility check at
    their defaults. Each file is read once."""
    evaluation = inputs.evaluation()
    primary = primary_key(args, evaluation)
    queries, corpus = inputs.queries(), inputs.corpus()
    return metrics.report_contents(
        evaluation, comparison, primary=primary,
        reread=inputs.rereader() if comparison is not None else None,
        queries=queries, corpus=corpus,
        facet=inputs.facet(),  # UsageError: --by without queries
        tokens=inputs.tokens(),  # what K costs, when a token figure, a price or --corpus asks
        judge=(metrics.judge_report(*inputs.judged())
               if inputs.judge_qrels is not None else None),
        pairs=(metrics.all_pairs(evaluation, [primary], test=args.test,
                                 min_effect=args.min_effect)
               if args.test == "tukey" and len(evaluation.runs) > 1 else None),
        timed=inputs.timed())  # --timings, or the runs' own latency columns


def slides_parser() -> argparse.ArgumentParser:
    """The slides' flags: python -m metrics's inputs, conventions and texts (the questions,
    the corpus for the leakage check and the token estimate, the token figure and price),
    then the folder to write to and the headline's figure."""
    flags = metrics.command_parser(
        "python -m dashboard slides",
        "Write the presentation's slides: one 1920 x 1080 PNG a slide and slides.pdf, a "
        "16:9 page a slide (the presentation mode's slides, the first run the baseline).",
        texts=True, by=False, cost=True)
    flags.add_argument("--out", required=True, metavar="DIR",
                       help="the folder the PNGs and slides.pdf are written to (made if "
                       "missing; files of the same names are replaced)")
    flags.add_argument("--primary", default=metrics.PRIMARY, metavar="METRIC",
                       help=metrics.vocabulary.headline.PRIMARY_HELP)
    return flags


def slides_command(argv: Sequence[str]) -> int:
    """python -m dashboard slides --out DIR: the slides the presentation mode shows, for a
    projector (dashboard/report/slides.py), each run against the first as the report
    compares them, without the fragility check (the slides do not show it)."""
    args = slides_parser().parse_args(argv)
    inputs = metrics.Inputs.from_arguments(args, report=metrics.to_stderr)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: not a folder")
    # imported here so that a usage error costs no Altair / vl-convert import
    from dashboard.report import slides as files
    from dashboard.views import slides as built

    evaluation = inputs.evaluation()
    inputs.report_load()
    try:
        primary = metrics.metric_key(args.primary, evaluation.k, evaluation.conventions)
    except ValueError as error:
        raise UsageError(f"--primary: {error}") from None
    comparison = (metrics.baseline_comparison(evaluation) if len(evaluation.runs) > 1
                  else None)
    contents = metrics.report_contents(
        evaluation, comparison, primary=primary, check_fragility=False,
        queries=inputs.queries(), corpus=inputs.corpus(), tokens=inputs.tokens())
    deck = built.build(contents)
    baseline = comparison.baseline if comparison is not None else evaluation.run_names[0]
    try:
        written = files.write(deck, out, built.footer(evaluation, baseline))
    except OSError as error:
        raise UsageError(f"--out {args.out}: {error.strerror or error}") from None
    metrics.to_stderr(f"{len(deck)} slides written to {out}: "
                      f"{', '.join(p.name for p in written)}")
    return 0


COMMANDS: dict[str, Command] = {"report": report_command, "slides": slides_command}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not argv or argv[0] not in COMMANDS:
        given = f"unknown command {argv[0]!r}" if argv else "no command given"
        return metrics.run_guarded(_usage_error(f"{given}; expected: {', '.join(COMMANDS)}"), [])
    return metrics.run_guarded(COMMANDS[argv[0]], argv[1:])


def _usage_error(message: str) -> Command:
    """A command that only fails: an unknown command exits like a bad flag."""

    def fail(_argv: Sequence[str]) -> int:
        raise UsageError(message)

    return fail


if __name__ == "__main__":
    sys.exit(main())
