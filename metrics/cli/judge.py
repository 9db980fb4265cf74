"""python -m metrics judge: labels from a model judge beside human ones. What each label set
covers; how far the judge agrees with the humans (confusion matrix, kappa, its false relevant
and false non-relevant rates); its bias on every figure; every figure's human-only,
judge-only and prediction-powered (PPI++) mean and interval, and the same for each run
against the first; whether the two label sets order the runs alike; and whether the
human-labelled queries look like a random sample.

    python -m metrics judge --qrels human.txt --judge-qrels llm.txt --run a.run --run b.run
    python -m metrics judge ... --ppi-lambda 1        # plain PPI instead of PPI++'s weight
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.cli.common import read
from metrics.context.judge import (
    GradeAgreement,
    JudgeReport,
    UnderJudge,
    judge_report,
    ppi_headlines,
    ppi_regressions,
)
from metrics.core.compare import metric_key
from metrics.inputs.arguments import Parser, UsageError, add_input_arguments, to_stderr
from metrics.outputs.documents import write_json
from metrics.outputs.text import table
from metrics.stats.ppi import MeanEstimate
from metrics.vocabulary import format as fmt
from metrics.vocabulary.agreement import NO_SWAP, tau_text
from metrics.vocabulary.conventions import CONVENTION_BY_FIELD
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK, gate_failure
from metrics.vocabulary.headline import PRIMARY
from metrics.vocabulary.judge import (
    EVERY_QUERY_COUNTS,
    HUMAN_NOT_JUDGED,
    LAMBDA_FLAG,
    LAMBDA_HELP,
    NO_UNLABELLED,
    PPI_REFUSED,
    TERMS,
    TUNED,
    UNGRADED_RELEVANT,
    coverage_sentence,
    ratio,
)


def ppi_lambda(text: str) -> float | None:
    """'tuned' (None: PPI++'s weight) or a number in [0, 1]."""
    if text == TUNED:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected '{TUNED}' or a number from 0 to 1, got "
                                         f"{text!r}")
    return value


def add_lambda_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(LAMBDA_FLAG, dest="ppi_lambda", type=ppi_lambda, default=None,
                        metavar="tuned|X", help=LAMBDA_HELP)


def judge_command(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m metrics judge", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    add_input_arguments(parser)
    add_lambda_argument(parser)
    args = parser.parse_args(argv)
    if args.judge_qrels is None or args.qrels is None or not args.run:
        raise UsageError("judge needs --qrels (the human labels), --judge-qrels (the judge's) "
                         "and at least one --run")
    inputs = read(args)
    human, judge = inputs.judged()
    inputs.report_judged()
    report = judge_report(human, judge, lam=args.ppi_lambda, primary=PRIMARY)
    if args.format == "json":
        write_json(report.as_dict() | {
            "runs": human.run_names,
            "sentences": {"labels": CONVENTION_BY_FIELD["labels"].choice("ppi").sentence,
                          "every_query": EVERY_QUERY_COUNTS},
            "terms": TERMS})
    else:
        sys.stdout.write(format_judge(report))
    return EXIT_OK


def _estimate(e: MeanEstimate) -> str:
    return fmt.interval(e.mean, e.low, e.high)


def _difference(e: MeanEstimate) -> str:
    return fmt.difference(e.mean, e.low, e.high)


def format_grades(grades: GradeAgreement) -> list[str]:
    """The confusion matrix (human grades down, the judge's across), kappa and the rates."""
    header = ["human \\ judge", *(str(g) for g in grades.grades)]
    rows = [[str(g), *(f"{n:,}" for n in row)]
            for g, row in zip(grades.grades, grades.confusion.tolist(), strict=True)]
    lines = [f"Pairs both label: {grades.pairs:,}", *table(header, rows), ""]
    kappas = [("Cohen's kappa (grades)", grades.kappa),
              (f"Cohen's kappa (relevant from grade {grades.relevance_level})",
               grades.binary_kappa)]
    if grades.weighted_kappa is not None:
        kappas.insert(1, ("weighted kappa (linear)", grades.weighted_kappa))
    lines += [f"{name}: {fmt.interval(k.kappa, k.low, k.high, why=k.undefined)}"
              for name, k in kappas]
    for name, rate in (("false relevant rate", grades.false_relevant),
                       ("false non-relevant rate", grades.false_nonrelevant)):
        written = fmt.interval(rate.mean, rate.low, rate.high, why=rate.undefined)
        lines.append(f"{name}: {written}" + ("" if rate.undefined else f", {rate.basis}"))
    if grades.relevant_ungraded:
        lines.append(UNGRADED_RELEVANT.format(ids=fmt.count(grades.relevant_ungraded, "id")))
    return lines


def _figure_rows(found: Sequence[UnderJudge], paired: bool) -> list[list[str]]:
    write = _difference if paired else _estimate
    return [[*([f.run] if not paired else [f"{f.run} − {f.baseline}"]), f.label,
             write(f.human), write(f.judge), write(f.ppi), ratio(f.ppi.lam, f.lambda_undefined),
             ratio(f.width_ratio, f.width_undefined), _difference(f.bias)] for f in found]


def format_judge(report: JudgeReport) -> str:
    c = report.coverage
    level = fmt.confidence(report.confidence_level)
    lines = [coverage_sentence(c.human_queries, c.judge_queries, c.both_queries,
                               c.human_pairs, c.judge_pairs, c.both_pairs)]
    if c.human_not_judged:
        lines.append(HUMAN_NOT_JUDGED.format(
            queries=fmt.count(len(c.human_not_judged), "query", "queries"),
            ids=fmt.listing(c.human_not_judged, limit=10)))
    if not report.n_unlabelled:
        lines.append(NO_UNLABELLED)
    lines += ["", *format_grades(report.grades), ""]
    header = ["run", "metric", f"human only ({level})", "judge only", "prediction-powered",
              "lambda", "width ppi/human", "bias (judge − human)"]
    lines += [f"At K = {report.k}: {fmt.count(report.n_labelled, 'human-labelled query')}, "
              f"{fmt.count(report.n_unlabelled, 'query', 'queries')} with the judge's labels "
              "only", *table(header, _figure_rows(report.figures, paired=False))]
    if report.comparisons:
        lines += ["", "Each run against the first (run minus baseline):",
                  *table(["difference", *header[1:]],
                         _figure_rows(report.comparisons, paired=True))]
    if report.agreements:
        rows = [[a.first, a.second, tau_text(a.tau, a.tau_undefined),
                 tau_text(a.tau_ap, a.tau_ap_undefined),
                 "; ".join(f"{x} > {y}" for x, y in a.swapped) or NO_SWAP]
                for a in report.agreements]
        lines += ["", "Do the label sets order the runs alike (the queries both label)?",
                  *table(["human", "judge", "tau", "tau_AP", "swapped (as humans order them)"],
                         rows)]
    lines += ["", *sample_lines(report)]
    lines += ["", f"  - {EVERY_QUERY_COUNTS}",
              *(f"  - {TERMS[key]}" for key in ("human", "judge", "ppi", "lambda", "bias",
                                                 "kappa", "false_relevant",
                                                 "false_nonrelevant"))]
    return "\n".join(lines) + "\n"


def sample_lines(report: JudgeReport) -> list[str]:
    """The sample check: a warning naming the runs that tell the two groups apart."""
    sentence = report.sample_sentence
    if not sentence:
        return []
    return [f"warning: {sentence}" if report.sample_flagged else sentence]


# flags of compare that read the paired tests of one label set, with the value that means unset
_ONE_LABEL_SET = {"snapshot": None, "by": None, "all_pairs": False, "fragility": False,
                  "budget": [], "max_harm": [], "metric": [], "min_effect": None}


def ppi_compare(args: argparse.Namespace) -> int:
    """compare --labels ppi: each candidate's headline on the primary metric and the
    --fail-on-regression gates, read from prediction-powered intervals of the per-query
    differences (exit 3 when a gate fails); the paired comparison table follows."""
    given = [f"--{name.replace('_', '-')}" for name, unset in _ONE_LABEL_SET.items()
             if getattr(args, name, unset) != unset]
    if given:
        raise UsageError(PPI_REFUSED.format(flags=", ".join(given)))
    if args.judge_qrels is None or args.qrels is None or len(args.run) < 2:
        raise UsageError("compare --labels ppi needs --qrels (the human labels), "
                         "--judge-qrels (the judge's), a baseline and a candidate --run")
    inputs = read(args)
    human, judge = inputs.judged()
    inputs.report_judged()
    report = judge_report(human, judge, lam=args.ppi_lambda)
    try:
        primary = metric_key(args.primary, human.k, human.conventions)
        gated = [metric_key(label, human.k, human.conventions)
                 for label in args.fail_on_regression]
    except ValueError as error:
        raise UsageError(str(error)) from None
    said = ppi_headlines(report, primary)
    gates = []
    for key in gated:
        worse = set(ppi_regressions(report, key))
        gates += [{"gate": "regression", "metric": human.label(key), "candidate": run,
                   "passed": run not in worse, "method": "ppi"}
                  for run in human.run_names[1:]]
    if args.format == "json":
        write_json({"labels": "ppi", "primary": human.label(primary),
                    "headline": " ".join(said), "headlines": said, "gates": gates,
                    "comparisons": [c.as_dict() for c in report.comparisons],
                    "lambda": "tuned" if report.lam is None else report.lam})
    else:
        header = ["difference", "metric", "human only", "judge only", "prediction-powered",
                  "lambda", "width ppi/human", "bias (judge − human)"]
        sys.stdout.write("".join(f"{sentence}\n" for sentence in said) + "\n" + "\n".join(
            table(header, _figure_rows(report.comparisons, paired=True))) + "\n")
        sys.stdout.write("".join(f"{line}\n" for line in ["", *sample_lines(report)]))
    for gate in gates:
        if not gate["passed"]:
            to_stderr(gate_failure("regression", gate["candidate"], gate["metric"],
                                   human.run_names[0]) + " (prediction-powered interval below 0)")
    return EXIT_GATE if any(not gate["passed"] for gate in gates) else EXIT_OK
