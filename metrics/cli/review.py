"""`compare`'s risk-sensitive review and the `unjudged` command: the risk figures every JSON
row carries, the --max-harm gate, --fragility, and what to label next."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from typing import Any

from metrics.context.labelling import summary as to_label_summary
from metrics.context.labelling import to_csv, to_label, to_qrels_template, trec_unwritable
from metrics.core.evaluate import Evaluation
from metrics.core.files import rereader
from metrics.core.sample import sample_runs
from metrics.decide.compare import Comparison, metric_key
from metrics.decide.fragility import Fragility, fragility
from metrics.decide.risk import harm_gate, parse_harm_limits, risks
from metrics.io import Queries
from metrics.vocabulary import fragility as fragility_words
from metrics.vocabulary import risk as risk_words
from metrics.vocabulary.format import figure, signed
from metrics.vocabulary.labelling import QRELS_TEMPLATE
from metrics.vocabulary.labelling import UNJUDGED as UNJUDGED_MEANING

from .args import UsageError

TABLE_ROWS = 50  # the ids a table shows; --as csv writes them all


def _delta(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--harm-delta", type=_delta, default=risk_words.HARM_DELTA, metavar="DELTA",
        help=f"a query is harmed when it loses more than DELTA (default "
        f"{risk_words.HARM_DELTA}): the risk figures' threshold")
    parser.add_argument(risk_words.HARM_FLAG, dest="max_harm", action="append", default=[],
                        metavar=risk_words.HARM_METAVAR,
                        help=risk_words.HARM_HELP.replace("%", "%%"))
    parser.add_argument("--fragility", action="store_true",
                        help=fragility_words.FRAGILITY_FLAG_HELP)


def harm_keys(args: argparse.Namespace, k: int) -> list[str]:
    """The measure keys --max-harm names, so that compare tests them."""
    try:
        return [metric_key(limit.metric_label, k) for limit in parse_harm_limits(args.max_harm, k)]
    except ValueError as error:
        raise UsageError(str(error)) from None


def add_risk(data: dict[str, Any], comparison: Comparison, delta: float,
             queries: Queries | None = None) -> None:
    """Each row of the comparison's own tests gains "risk" (slices' rows keep theirs out);
    with a queries file, each of the worst losses carries its query's text."""
    found = {(r.candidate, r.metric): r.as_dict() for r in risks(comparison, delta=delta)}
    if queries is not None:
        for risk in found.values():
            for loss in risk["worst"]:
                loss["text"] = queries.text(loss["query_id"])
    for row in data.get("comparisons", []):
        if row["baseline"] == comparison.baseline and "slice" not in row:
            row["risk"] = found.get((row["candidate"], row["metric"]))


def harm_gates(args: argparse.Namespace, comparison: Comparison, k: int) -> list[dict[str, Any]]:
    """--max-harm: one gate per (metric, candidate)."""
    if not args.max_harm:
        return []
    verdicts = harm_gate(comparison, parse_harm_limits(args.max_harm, k))
    return [{"gate": "harm", **verdict.as_dict(), "sentence": verdict.sentence}
            for verdict in verdicts]


def fragility_of(args: argparse.Namespace, evaluation: Evaluation,
                 comparison: Comparison) -> Fragility:
    """--fragility: the comparison's verdicts under each other convention; the runs are read
    again in the other TREC order when they are TREC files."""
    runs = ([dataclasses.replace(run, format=args.run_format) for run in args.run] if args.run
            else sample_runs())
    reread = rereader(runs, evaluation, max_bytes=args.max_input_mb << 20)
    return fragility(evaluation, comparison, reread=reread)


def fragility_json(found: Fragility) -> dict[str, Any]:
    return {"fragility": found.rows(), "fragility_summary": found.summary,
            "fragility_tried": [{"convention": c, "choice": v} for c, v in found.tried],
            "fragility_skipped": [{"convention": c, "why": why} for c, why in found.skipped]}


def format_review(comparison: Comparison, delta: float, found: Fragility | None) -> str:
    """The risk table (every candidate and metric) and, when asked, the fragility check."""
    from metrics.cli.text import table

    rows = []
    for risk in risks(comparison, delta=delta):
        rows.append([risk.candidate, risk.metric,
                     f"{risk_words.share(risk.harm_share)} [{risk_words.share(risk.harm_low)}, "
                     f"{risk_words.share(risk.harm_high)}]",
                     figure(risk.mean_loss),  # — when no query loses (nan)
                     *(signed(value) for pair in zip(risk.urisk, risk.trisk, strict=True)
                       for value in pair)])
    alphas = [risk_words.alpha_key(a) for a in risk_words.RISK_ALPHAS]
    header = ["candidate", "metric", f"harmed (> {risk_words.delta_words(delta)})", "mean loss",
              *(f"{name} α={a}" for a in alphas for name in ("URisk", "TRisk"))]
    out = [f"\nRisk against {comparison.baseline} (TRisk beyond ±"
           f"{risk_words.TRISK_THRESHOLD:g}: reliably safer or riskier):\n",
           "\n".join(table(header, rows)) + "\n"]
    if found is not None:
        out.append(f"\nFragility: {found.summary}\n")
        out += [f"  {flip.sentence}\n" for flip in found.flips]
        out += [f"  not tried: {convention} ({why})\n" for convention, why in found.skipped]
    return "".join(out)


# --------------------------------------------------------------------------- unjudged


def unjudged_command(argv: Sequence[str]) -> int:
    """What to label next: the unjudged ids in the top K of any run, most wanted first."""
    from metrics.cli.args import add_input_arguments
    from metrics.cli.commands import Parser, evaluation_from, print_load_report, write_json

    parser = Parser(prog="python -m metrics unjudged",
                    description="What to label next: " + UNJUDGED_MEANING)
    add_input_arguments(parser)
    parser.add_argument("--as", dest="shape", choices=["csv", "qrels"], default=None,
                        help=f"write the list as CSV, or as a TREC qrels template "
                        f"({QRELS_TEMPLATE}); default a table, or JSON with --format json")
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    found = to_label(evaluation)
    print(to_label_summary(found), file=sys.stderr)
    if args.shape == "csv":
        sys.stdout.write(to_csv(found))
    elif args.shape == "qrels":
        unwritable = trec_unwritable(found)
        if unwritable:
            raise ValueError(f"a TREC line cannot hold {unwritable[0][1]!r} "
                             f"({len(unwritable):,} ids): use --as csv")
        sys.stdout.write(to_qrels_template(found))
    elif args.format == "json":
        columns = found.columns()
        write_json({"k": found.k, "runs": list(found.run_names),
                    "summary": to_label_summary(found),
                    "to_label": [dict(zip(columns, row, strict=True))
                                 for row in zip(*columns.values(), strict=True)]})
    else:
        from metrics.cli.text import table

        columns = found.columns()
        rows = [[str(cell) for cell in row] for row in zip(*columns.values(), strict=True)]
        sys.stdout.write("\n".join(table(list(columns), rows[:TABLE_ROWS])) + "\n")
        if len(rows) > TABLE_ROWS:
            sys.stdout.write(f"… {len(rows) - TABLE_ROWS:,} more: --as csv writes them all\n")
    return 0
