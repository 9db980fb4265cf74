"""python -m metrics compare: each candidate against the baseline, query by query, with the
gates a CI run holds it to (--fail-on-regression, --budget, --max-harm), the headline, the
risk figures, every pair (--all-pairs) and the fragility check (--fragility).

Exit status 3 when a gate fails.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from metrics.cli.common import add_snapshot_key_argument, print_load_report, read, write_json
from metrics.cli.inputs import (
    Parser,
    UsageError,
    add_input_arguments,
    add_metric_argument,
    add_text_arguments,
    confidence,
    positive_int,
)
from metrics.cli.judge import add_lambda_argument, ppi_compare
from metrics.cli.text import format_comparison, format_slice_comparison, table
from metrics.core.evaluate import Evaluation
from metrics.decide.budget import judge_comparison, parse_budgets
from metrics.decide.compare import (
    DEFAULT_PERMUTATIONS,
    Comparison,
    compare_evaluation,
    metric_key,
    metric_label,
    regressions,
)
from metrics.decide.fragility import Fragility, fragility
from metrics.decide.headline import headlines
from metrics.decide.leaderboard import AllPairs, all_pairs
from metrics.decide.risk import harm_gate, parse_harm_limits, risks
from metrics.io import Queries
from metrics.snapshot import Snapshot, compare_with_snapshot, same_run_note, snapshot_key
from metrics.snapshot import load as load_snapshot
from metrics.snapshot.contract import comparison_dict, slice_rows
from metrics.vocabulary import fragility as fragility_words
from metrics.vocabulary import risk as risk_words
from metrics.vocabulary.budget import BUDGET_FLAG, BUDGET_HELP
from metrics.vocabulary.comparisons import ALPHA, CORRECTIONS, DEFAULT_CORRECTION
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.format import figure, signed
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK, gate_failure
from metrics.vocabulary.headline import PRIMARY, PRIMARY_HELP


def compare_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics compare",
        description="Paired comparison: the first --run is the baseline, whatever its name. "
        "Exit status 3 when --fail-on-regression finds a candidate significantly worse.",
    )
    add_input_arguments(parser)
    add_metric_argument(parser, "compare only these; default every measure at K except "
                        "Judged")
    parser.add_argument(
        "--correction",
        choices=list(CORRECTIONS),
        default=DEFAULT_CORRECTION,
        help="multiple-comparison adjustment over every (candidate, metric) pair",
    )
    parser.add_argument("--alpha", type=confidence, default=ALPHA)
    parser.add_argument(
        "--permutations",
        type=positive_int,
        default=DEFAULT_PERMUTATIONS,
        help="sign flips of the randomization test",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="append",
        default=[],
        metavar="METRIC",
        help="exit 3 if a candidate is significantly worse on METRIC (lower mean, "
        "adjusted randomization p < --alpha); repeatable",
    )
    parser.add_argument(
        "--snapshot",
        type=Path,
        metavar="FILE",
        help="baseline: a snapshot's per-query figures (of the same query set, K and "
        "conventions); every --run is then a candidate, and --k defaults to the snapshot's",
    )
    parser.add_argument(
        "--snapshot-run",
        metavar="NAME",
        help="which run of the snapshot is the baseline (default its first)",
    )
    add_snapshot_key_argument(parser, "checks the HMAC of the --snapshot's figures")
    parser.add_argument("--allow-unsigned", action="store_true",
                        help="with a snapshot key set, read a --snapshot that carries no HMAC "
                        "(none, or a plain SHA-256) as unverified, rather than refuse it")
    add_text_arguments(parser)
    add_all_pairs_argument(parser)
    add_budget_argument(parser)
    add_review_arguments(parser)
    parser.add_argument("--primary", default=PRIMARY, metavar="METRIC", help=PRIMARY_HELP)
    add_lambda_argument(parser)
    args = parser.parse_args(argv)
    if args.labels == "ppi":  # the headline and the regression gate, prediction-powered
        return ppi_compare(args)
    if args.by and args.snapshot is not None:
        raise UsageError("--by compares live runs: a snapshot keeps no query texts")
    if args.all_pairs and args.snapshot is not None:
        raise UsageError("--all-pairs compares live runs with each other, not a snapshot")
    if args.fragility and args.snapshot is not None:
        raise UsageError("--fragility scores the runs again: a snapshot keeps only its figures")
    for flag in ("snapshot_run", "snapshot_key_file"):
        if args.snapshot is None and getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} needs --snapshot")
    key = snapshot_key(args.snapshot_key_file) if args.snapshot is not None else None
    snapshot = (load_snapshot(args.snapshot, key=key, allow_unsigned=args.allow_unsigned)
                if args.snapshot is not None else None)
    if snapshot is not None and args.k is None:
        args.k = snapshot.k
    inputs = read(args)
    evaluation = inputs.evaluation()
    if snapshot is None and len(evaluation.runs) < 2:
        raise UsageError("compare needs a baseline and at least one candidate --run")
    # --metric names any figure (its own cutoff too: R@1000); a gate reads its metric at K
    keys = list(args.metric) or None
    k, c = evaluation.k, evaluation.conventions
    gated = [metric_key(label, k, c) for label in args.fail_on_regression]
    try:
        primary = metric_key(args.primary, k, c)
    except ValueError as error:
        raise UsageError(f"--primary: {error}") from None
    if keys is not None:
        keys += [key for key in [primary, *gated, *budget_keys(args, k, c),
                                 *harm_keys(args, k, c)] if key not in keys]
    else:
        harm_keys(args, k, c)  # a bad limit fails before any test runs
    options = dict(
        metrics=keys,
        correction=args.correction,
        alpha=args.alpha,
        confidence_level=evaluation.conventions.confidence_level,
        n_permutations=args.permutations,
        rng=evaluation.conventions.seed,
    )
    if snapshot is None:
        comparison = compare_evaluation(evaluation, **options)
    else:
        comparison = compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **options)
    print_load_report(inputs)
    queries = inputs.queries() if snapshot is None else None
    pieces = (inputs.compared_slices(baseline=comparison.baseline, **options)
              if snapshot is None else [])
    pairs = pairs_from(args, evaluation, options)
    if pairs is not None:  # the first run's tests, adjusted over every pair, gate the build
        comparison = pairs.comparisons[0]
    note = None
    if snapshot is not None:
        print(f"{args.snapshot}: snapshot figures {snapshot.verification}", file=sys.stderr)
        note = same_run_note(snapshot, evaluation, run=args.snapshot_run,
                             candidates=comparison.candidates)
        if note is not None:
            print(f"note: {note}", file=sys.stderr)
    gates = regression_gates(comparison, [metric_label(label, k, c)
                                          for label in args.fail_on_regression])
    primary_label = metric_label(args.primary, k, c)
    alone = options | {"metrics": [primary]}  # the headline's family: the primary metric
    said = headlines(compare_evaluation(evaluation, **alone) if snapshot is None else
                     compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **alone),
                     primary_label)
    data = comparison_dict(evaluation, comparison) | {
        "primary": primary_label, "headline": " ".join(said), "headlines": said}
    if pairs is not None:
        data |= all_pairs_json(pairs)
    gates += budget_gates(args, comparison, k, c, data)
    gates += harm_gates(args, comparison, k, c)
    add_risk(data, comparison, args.harm_delta, queries)
    found = fragility(evaluation, comparison, reread=inputs.rereader()) if args.fragility else None
    if found is not None:
        data |= fragility_json(found)
    if args.format == "json":
        data["gates"] = gates
        if snapshot is not None:
            data["snapshot"] = snapshot_source(snapshot, args.snapshot, args.snapshot_run, note)
        if args.by:
            data["by"] = args.by
            data["comparisons"] += slice_rows(args.by, pieces)
        write_json(data)
    else:
        sys.stdout.write("".join(f"{sentence}\n" for sentence in said) + "\n")
        sys.stdout.write(format_comparison(evaluation, comparison) if pairs is None
                         else format_all_pairs(evaluation, pairs))
        if args.by:
            sys.stdout.write("\n" + format_slice_comparison(args.by, pieces))
        for kind, title in (("budget", "Budgets"), ("harm", "Harm limits")):
            if any(gate["gate"] == kind for gate in gates):
                sys.stdout.write(f"\n{title}:\n" + "".join(
                    f"  {gate['candidate']} {gate['metric']}: {gate['sentence']}\n"
                    for gate in gates if gate["gate"] == kind))
        sys.stdout.write(format_review(comparison, args.harm_delta, found))
    failed = [gate for gate in gates if not gate["passed"]]
    for gate in failed:
        print(gate_failure(gate["gate"], gate["candidate"], gate["metric"],
                           comparison.baseline, gate.get("sentence", "")), file=sys.stderr)
    return EXIT_GATE if failed else EXIT_OK


def regression_gates(comparison: Comparison, metrics: list[str]) -> list[dict[str, Any]]:
    """--fail-on-regression: one gate per (metric, candidate), each naming what it checked
    and whether it passed (the JSON's "gates")."""
    gates = []
    for metric in metrics:
        worse = set(regressions(comparison, metric))
        gates += [{"gate": "regression", "metric": metric, "candidate": candidate,
                   "passed": candidate not in worse} for candidate in comparison.candidates]
    return gates


def snapshot_source(snapshot: Snapshot, path: Path, run_name: str | None,
                    note: str | None = None) -> dict[str, Any]:
    """What the baseline of a comparison against a snapshot was, how its figures were
    verified, and the same-run note if any (for the JSON output)."""
    header = snapshot.header
    run = snapshot.run(run_name)
    return {
        "file": str(path),
        "created": header.created,
        "label": header.label,
        "tool_version": header.tool_version,
        "run": run.name,
        "run_fingerprint": run.fingerprint,
        "query_set_fingerprint": snapshot.query_set_fingerprint,
        "figures_fingerprint": header.figures_fingerprint,
        "verification": snapshot.verification,
        "verified": snapshot.verified,
        "same_run": note,
    }


# --------------------------------------------------------------------------- every pair


def add_all_pairs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all-pairs", action="store_true",
                        help="compare every pair of runs, not only each with the first; the "
                        "correction covers every pair and metric; adds significance letters")


def pairs_from(args: argparse.Namespace, evaluation: Evaluation,
               options: dict[str, Any]) -> AllPairs | None:
    """compare --all-pairs: every pair under compare's options, adjusted as one family; None
    without the flag. Every pair starts from the conventions' seed, as compare's does."""
    if not getattr(args, "all_pairs", False):
        return None
    chosen = {key: value for key, value in options.items() if key not in ("metrics", "rng")}
    return all_pairs(evaluation, options.get("metrics"), **chosen)


def all_pairs_json(pairs: AllPairs) -> dict[str, Any]:
    """What --all-pairs puts in the compare JSON: every pair's rows, and the matrices and
    letters per metric."""
    return {"comparisons": [row for c in pairs.comparisons for row in c.rows()],
            "n_comparisons": pairs.n_comparisons, "all_pairs": pairs.as_dict()}


def format_all_pairs(evaluation: Evaluation, pairs: AllPairs) -> str:
    """Every baseline's table of tests, then each metric's letters, best first."""
    parts = [format_comparison(evaluation, comparison) for comparison in pairs.comparisons]
    rows = [[label, *(f"{run} {letter}" for run, letter in pairs.letters(label).items())]
            for label in pairs.metrics]
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    parts.append("\n".join(["Significance letters (best first)", pairs.sentence(),
                            *table(["metric", *(["run letters"] + [""] * (width - 2))], rows)])
                 + "\n")
    return "\n".join(parts)


# --------------------------------------------------------------------------- budgets


def add_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(BUDGET_FLAG, dest="budget", action="append", default=[],
                        metavar="METRIC=AMOUNT", help=BUDGET_HELP.replace("%", "%%"))


def budget_keys(args: argparse.Namespace, k: int, conventions: Conventions) -> list[str]:
    """The measure keys --budget names, so that compare tests them."""
    try:
        return [metric_key(budget.metric_label, k, conventions)
                for budget in parse_budgets(args.budget, k, conventions)]
    except ValueError as error:
        raise UsageError(str(error)) from None


def budget_gates(args: argparse.Namespace, comparison: Comparison, k: int,
                 conventions: Conventions, data: dict[str, Any] | None) -> list[dict[str, Any]]:
    """--budget: each (metric, candidate) judged on its paired interval; the JSON rows of the
    comparison's baseline gain "budget": {"limit", "verdict"}; one gate per verdict."""
    if not args.budget:
        return []
    budgets = parse_budgets(args.budget, k, conventions)
    verdicts = {(t.candidate, t.metric): v
                for t, v in zip(comparison.tests, judge_comparison(comparison, budgets),
                                strict=True) if v is not None}
    for row in (data or {}).get("comparisons", []):
        verdict = verdicts.get((row["candidate"], row["metric"]))
        if row["baseline"] == comparison.baseline and "slice" not in row:
            row["budget"] = None if verdict is None else verdict.as_dict()
    return [{"gate": "budget", "metric": metric, "candidate": candidate,
             "passed": verdict.passed, "verdict": verdict.verdict, "limit": verdict.limit,
             "sentence": verdict.sentence}
            for (candidate, metric), verdict in verdicts.items()]


# ------------------------------------------------------------------ risk, harm and fragility


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


def harm_keys(args: argparse.Namespace, k: int, conventions: Conventions) -> list[str]:
    """The measure keys --max-harm names, so that compare tests them."""
    try:
        return [metric_key(limit.metric_label, k, conventions)
                for limit in parse_harm_limits(args.max_harm, k, conventions)]
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


def harm_gates(args: argparse.Namespace, comparison: Comparison, k: int,
               conventions: Conventions) -> list[dict[str, Any]]:
    """--max-harm: one gate per (metric, candidate)."""
    if not args.max_harm:
        return []
    verdicts = harm_gate(comparison, parse_harm_limits(args.max_harm, k, conventions))
    return [{"gate": "harm", **verdict.as_dict(), "sentence": verdict.sentence}
            for verdict in verdicts]


def fragility_json(found: Fragility) -> dict[str, Any]:
    return {"fragility": found.rows(), "fragility_summary": found.summary,
            "fragility_tried": [{"convention": c, "choice": v} for c, v in found.tried],
            "fragility_skipped": [{"convention": c, "why": why} for c, why in found.skipped]}


def format_review(comparison: Comparison, delta: float, found: Fragility | None) -> str:
    """The risk table (every candidate and metric) and, when asked, the fragility check."""
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
