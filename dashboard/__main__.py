"""python -m dashboard report: the dashboard's report from the command line.

Takes the same inputs as ``python -m metrics`` (--qrels, --run [NAME=]FILE, --k and the
conventions; a JSONL run carrying both fields may stand alone; without inputs, the bundled
sample). With two runs or more, the first is the baseline of the comparison tables.

  python -m dashboard report --qrels qrels.txt --run base.run --run new.run --k 10 --out r.html
  python -m dashboard report --format markdown          # the summary table, for a pull request

Errors exit non-zero with one line, like ``python -m metrics``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from dashboard import exports
from metrics import (
    Parser,
    UsageError,
    add_input_arguments,
    evaluation_from,
    print_load_report,
    run_guarded,
)

Command = Callable[[Sequence[str]], int]


def report_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m dashboard report",
        description="Write the self-contained HTML report (or print the Markdown summary).",
        conflict_handler="resolve",  # --format below replaces the scoring commands' table/json
    )
    add_input_arguments(parser)
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
    args = parser.parse_args(argv)
    if args.format == "html" and args.out is None:
        raise UsageError("the HTML report needs --out FILE")

    # imported here so that a usage error costs no Altair / vl-convert import
    from dashboard import report

    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    comparison = None if args.no_comparison else report.default_comparison(evaluation)
    if args.format == "markdown":
        text = exports.summary_markdown(evaluation, comparison)
    else:
        text = report.build_html(evaluation, comparison, title=args.title or report.DEFAULT_TITLE)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.format} report written to {args.out}", file=sys.stderr)
    return 0


COMMANDS: dict[str, Command] = {"report": report_command}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not argv or argv[0] not in COMMANDS:
        given = f"unknown command {argv[0]!r}" if argv else "no command given"
        return run_guarded(_usage_error(f"{given}; expected: {', '.join(COMMANDS)}"), [])
    return run_guarded(COMMANDS[argv[0]], argv[1:])


def _usage_error(message: str) -> Command:
    """A command that only fails: an unknown command exits like a bad flag."""

    def fail(_argv: Sequence[str]) -> int:
        raise UsageError(message)

    return fail


if __name__ == "__main__":
    sys.exit(main())
