"""python -m metrics compare: each candidate against the baseline, query by query, with the
gates a CI run holds it to (--fail-on-regression, --budget, --max-harm, --max-latency), the
headline, the risk figures, every pair (--all-pairs), the fragility check (--fragility), and
what each run costs per query (--timings, or a run's latency_ms, cost and tokens columns).

Exit status 3 when a gate fails.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from metrics.cli.common import add_snapshot_key_argument, print_load_report, read
from metrics.cli.judge import add_lambda_argument, ppi_compare
from metrics.core.compare import compare_evaluation, comparison_settings, metric_key, metric_label
from metrics.core.evaluate import Evaluation
from metrics.core.geometric import geometric_differences
from metrics.decide.budget import judge_comparison, parse_budgets
from metrics.decide.fragility import fragility
from metrics.decide.headline import headlines
from metrics.decide.latency import Timed, judge_latency, parse_latency_limits
from metrics.decide.leaderboard import AllPairs, all_pairs
from metrics.decide.risk import harm_gate, parse_harm_limits
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    add_metric_argument,
    add_min_effect_argument,
    add_test_argument,
    add_text_arguments,
    confidence,
    formats_written,
    output_file,
    permutations,
    to_stderr,
)
from metrics.io.writing import write_text
from metrics.outputs.documents import (
    add_risk,
    all_pairs_json,
    comparison_dict,
    fragility_json,
    geometric_comparison_document,
    json_text,
    slice_rows,
    snapshot_source,
)
from metrics.outputs.junit import junit_xml
from metrics.outputs.markdown import comment_markdown
from metrics.outputs.text import (
    format_all_pairs,
    format_comparison,
    format_geometric_differences,
    format_review,
    format_slice_comparison,
    format_timings,
)
from metrics.snapshot import compare_with_snapshot, same_run_note, snapshot_key
from metrics.snapshot import load as load_snapshot
from metrics.snapshot.schema import tool_version
from metrics.stats.comparison import DEFAULT_PERMUTATIONS, Comparison, regressions
from metrics.vocabulary import fragility as fragility_words
from metrics.vocabulary import risk as risk_words
from metrics.vocabulary.budget import BUDGET_FLAG, BUDGET_HELP
from metrics.vocabulary.comparisons import ALPHA, CORRECTIONS, DEFAULT_CORRECTION
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK, REGRESSION_FLAG, gate_failure
from metrics.vocabulary.headline import PRIMARY, PRIMARY_HELP
from metrics.vocabulary.measures import split_summaries
from metrics.vocabulary.timings import (
    LATENCY,
    MAX_LATENCY_FLAG,
    MAX_LATENCY_HELP,
    TIMINGS_FLAG,
    TIMINGS_HELP,
)
from metrics.vocabulary.tukey import DEFAULT_ALL_PAIRS_TEST

# what compare writes: --format's choice (to standard output, or --out), and --write's
FORMATS = ("table", "json", "junit", "markdown")


def compare_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics compare",
        description="Paired comparison: the first --run is the baseline, whatever its name. "
        "Exit status 3 when --fail-on-regression finds a candidate significantly worse.",
    )
    add_input_arguments(parser, FORMATS)
    add_metric_argument(parser, "compare only these; default every measure at K except "
                        "Judged (gm_map: each candidate's difference of gm_map from the "
                        "baseline's, with a paired bootstrap interval, beside the tests)",
                        summaries=True)
    parser.add_argument("--out", type=output_file, metavar="FILE",
                        help="write --format's output to FILE rather than standard output")
    parser.add_argument("--write", type=formats_written(FORMATS), action="append", default=[],
                        metavar="FORMAT=FILE",
                        help="also write FORMAT (table, json, junit, markdown) to FILE, from "
                        "the same comparison; repeatable (a CI step writes the JUnit report "
                        "and the pull request's comment at once)")
    parser.add_argument(
        "--correction",
        choices=list(CORRECTIONS),
        default=DEFAULT_CORRECTION,
        help="multiple-comparison adjustment over every (candidate, metric) pair",
    )
    parser.add_argument("--alpha", type=confidence, default=ALPHA)
    parser.add_argument(
        "--permutations",
        type=permutations,
        default=DEFAULT_PERMUTATIONS,
        help="sign flips of the randomization test",
    )
    parser.add_argument(
        REGRESSION_FLAG,
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
    add_test_argument(parser)
    add_min_effect_argument(parser)
    add_budget_argument(parser)
    add_review_arguments(parser)
    add_timing_arguments(parser)
    parser.add_argument("--primary", default=PRIMARY, metavar="METRIC", help=PRIMARY_HELP)
    add_lambda_argument(parser)
    args = parser.parse_args(argv)
    if args.labels == "ppi":  # the headline and the regression gate, prediction-powered
        if args.format not in ("table", "json") or args.out is not None or args.write:
            raise UsageError("--labels ppi writes its table or JSON to standard output: "
                             "--format junit or markdown, --out and --write are for the paired "
                             "comparison")
        return ppi_compare(args)
    if args.by and args.snapshot is not None:
        raise UsageError("--by compares live runs: a snapshot keeps no query texts")
    if args.all_pairs and args.snapshot is not None:
        raise UsageError("--all-pairs compares live runs with each other, not a snapshot")
    if args.test != DEFAULT_ALL_PAIRS_TEST and not args.all_pairs:
        raise UsageError("--test reads every pair of runs: give --all-pairs")
    if args.fragility and args.snapshot is not None:
        raise UsageError("--fragility scores the runs again: a snapshot keeps only its figures")
    for flag in ("snapshot_run", "snapshot_key_file"):
        if args.snapshot is None and getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} needs --snapshot")
    limits = latency_limits(args)
    if limits and args.snapshot is not None and any(x.kind != "absolute" for x in limits):
        raise UsageError(f"{MAX_LATENCY_FLAG} +N% or +Nms reads the baseline's latency: a "
                         "snapshot keeps none; give an absolute limit (p95=150ms) or the "
                         "baseline's run")
    key = snapshot_key(args.snapshot_key_file) if args.snapshot is not None else None
    snapshot = (load_snapshot(args.snapshot, key=key, allow_unsigned=args.allow_unsigned)
                if args.snapshot is not None else None)
    if snapshot is not None and args.k is None:
        args.k = snapshot.k
    # the geometric summaries named (gm_map): a paired bootstrap of their difference, apart
    # from the tests (they are no mean of per-query differences)
    geometric, args.metric = split_summaries(args.metric)
    if geometric and snapshot is not None:
        raise UsageError(f"{geometric[0].key} reads every query's AP of both runs: compare "
                         "live runs, not a snapshot")
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
    # a bad budget or harm limit fails before any test runs
    limited = [*gated_keys(BUDGET_FLAG, parse_budgets, args.budget, k, c),
               *gated_keys(risk_words.HARM_FLAG, parse_harm_limits, args.max_harm, k, c)]
    if keys is not None:
        keys += [key for key in [primary, *gated, *limited] if key not in keys]
    # the family (the figures named, else the compared family) and the conventions' draws,
    # as every output compares (metrics.decide.baseline)
    options = dict(
        metrics=keys,
        correction=args.correction,
        alpha=args.alpha,
        n_permutations=args.permutations,
        min_effect=args.min_effect,
        **comparison_settings(evaluation.conventions),
    )
    if snapshot is None:
        comparison = compare_evaluation(evaluation, **options)
    else:
        comparison = compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **options)
    print_load_report(inputs)
    costs = inputs.timed()
    if limits and costs is None:
        raise UsageError(f"{MAX_LATENCY_FLAG} needs latencies: give {TIMINGS_FLAG} FILE or "
                         f"runs with a {LATENCY} column")
    queries = inputs.queries() if snapshot is None else None
    pieces = (inputs.compared_slices(baseline=comparison.baseline, **options)
              if snapshot is None else [])
    pairs = pairs_from(args, evaluation, options)
    if pairs is not None and pairs.comparisons:
        # the first run's tests, adjusted over every pair, gate the build (read by the Tukey
        # HSD, no paired comparison is made: the baseline's own comparison gates it)
        comparison = pairs.comparisons[0]
    note = None
    if snapshot is not None:
        to_stderr(f"{args.snapshot}: snapshot figures {snapshot.verification}")
        note = same_run_note(snapshot, evaluation, run=args.snapshot_run,
                             candidates=comparison.candidates)
        if note is not None:
            to_stderr(f"note: {note}")
    gates = regression_gates(comparison, [metric_label(label, k, c)
                                          for label in args.fail_on_regression])
    primary_label = metric_label(args.primary, k, c)
    alone = options | {"metrics": [primary]}  # the headline's family: the primary metric
    headline_of = (compare_evaluation(evaluation, **alone) if snapshot is None else
                   compare_with_snapshot(evaluation, snapshot, run=args.snapshot_run, **alone))
    said = with_latency(headlines(headline_of, primary_label), headline_of, costs)
    data = comparison_dict(evaluation, comparison) | {
        "primary": primary_label, "headline": " ".join(said), "headlines": said}
    if costs is not None:
        data["timings"] = costs.as_dict()
    if pairs is not None:
        data |= all_pairs_json(pairs)
    try:
        differences = [difference for g in geometric for difference in geometric_differences(
            evaluation, comparison.baseline, comparison.candidates, g)]
    except ValueError as error:
        raise UsageError(str(error)) from None
    if differences:
        data["geometric"] = geometric_comparison_document(differences)
    gates += budget_gates(args, comparison, k, c, data)
    gates += harm_gates(args, comparison, k, c)
    gates += latency_gates(limits, comparison, costs)
    add_risk(data, comparison, args.harm_delta, queries)
    found = fragility(evaluation, comparison, reread=inputs.rereader()) if args.fragility else None
    if found is not None:
        data |= fragility_json(found)
    data["gates"] = gates
    if snapshot is not None:
        data["snapshot"] = snapshot_source(snapshot, args.snapshot, args.snapshot_run, note)
    if args.by:
        data["by"] = args.by
        data["comparisons"] += slice_rows(args.by, pieces)

    def table() -> str:
        text = "".join(f"{sentence}\n" for sentence in said) + "\n"
        if pairs is None or not pairs.comparisons:  # the baseline's tests gate the build
            text += format_comparison(evaluation, comparison)
        if pairs is not None:  # every pair's tests, or the Tukey HSD's reading after them
            text += ("\n" if not pairs.comparisons else "") + format_all_pairs(evaluation, pairs)
        if args.by:
            text += "\n" + format_slice_comparison(args.by, pieces)
        if costs is not None:
            text += "\n" + format_timings(costs)
        for kind, title in (("budget", "Budgets"), ("harm", "Harm limits"),
                            ("latency", "Latency limits")):
            if any(gate["gate"] == kind for gate in gates):
                text += f"\n{title}:\n" + "".join(
                    f"  {gate['candidate']} {gate['metric']}: {gate['sentence']}\n"
                    for gate in gates if gate["gate"] == kind)
        if differences:
            text += "\n" + format_geometric_differences(differences)
        return text + format_review(comparison, args.harm_delta, found)

    writers = {"table": table, "json": lambda: json_text(data), "junit": lambda: junit_xml(data),
               "markdown": lambda: comment_markdown(data, evaluation=evaluation,
                                                   version=tool_version())}
    for name, path in args.write:
        write_text(path, writers[name](), flag="--write")
    if args.out is None:
        sys.stdout.write(writers[args.format]())
    else:
        write_text(args.out, writers[args.format](), flag="--out")
    failed = [gate for gate in gates if not gate["passed"]]
    for gate in failed:
        to_stderr(gate_failure(gate["gate"], gate["candidate"], gate["metric"],
                               comparison.baseline, gate.get("sentence", "")))
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


# --------------------------------------------------------------------------- every pair


def add_all_pairs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--all-pairs", action="store_true",
                        help="compare every pair of runs, not only each with the first; the "
                        "correction covers every pair and metric; adds significance letters")


def pairs_from(args: argparse.Namespace, evaluation: Evaluation,
               options: dict[str, Any]) -> AllPairs | None:
    """compare --all-pairs: every pair under compare's options (and --test), adjusted as one
    family; None without the flag. Every pair starts from the conventions' seed, as compare's
    does."""
    if not getattr(args, "all_pairs", False):
        return None
    chosen = {key: value for key, value in options.items() if key not in ("metrics", "rng")}
    return all_pairs(evaluation, options.get("metrics"),
                     test=getattr(args, "test", DEFAULT_ALL_PAIRS_TEST), **chosen)


# --------------------------------------------------------------------------- budgets


def add_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(BUDGET_FLAG, dest="budget", action="append", default=[],
                        metavar="METRIC=AMOUNT", help=BUDGET_HELP.replace("%", "%%"))


def gated_keys(flag: str, parse: Callable[[list[str], int, Conventions], list], given: list[str],
               k: int, conventions: Conventions) -> list[str]:
    """The measure keys a limit flag (--budget, --max-harm) names, each parsed limit's
    metric, so that compare tests them; a bad limit is a usage error naming the flag."""
    try:
        return [metric_key(limit.metric_label, k, conventions)
                for limit in parse(given, k, conventions)]
    except ValueError as error:
        raise UsageError(f"{flag}: {error}") from None


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


def harm_gates(args: argparse.Namespace, comparison: Comparison, k: int,
               conventions: Conventions) -> list[dict[str, Any]]:
    """--max-harm: one gate per (metric, candidate)."""
    if not args.max_harm:
        return []
    verdicts = harm_gate(comparison, parse_harm_limits(args.max_harm, k, conventions))
    return [{"gate": "harm", **verdict.as_dict(), "sentence": verdict.sentence}
            for verdict in verdicts]



# --------------------------------------------------------------------------- latency and cost


def add_timing_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(TIMINGS_FLAG, dest="timings", type=Path, metavar="FILE",
                        help=TIMINGS_HELP)
    parser.add_argument(MAX_LATENCY_FLAG, dest="max_latency", action="append", default=[],
                        metavar="STAT=LIMIT", help=MAX_LATENCY_HELP.replace("%", "%%"))


def latency_limits(args: argparse.Namespace) -> tuple:
    """--max-latency, parsed before anything is read; a bad one is a usage error naming the
    flag."""
    try:
        return parse_latency_limits(args.max_latency)
    except ValueError as error:
        raise UsageError(f"{MAX_LATENCY_FLAG}: {error}") from None


def with_latency(said: list[str], comparison: Comparison, costs: Timed | None) -> list[str]:
    """Each candidate's headline followed by its p95 latency against the baseline's (when
    both have latencies): '... ; p95 latency +35 ms [+28, +43] (+42%).'"""
    if costs is None:
        return said
    out = []
    for sentence, candidate in zip(said, comparison.candidates, strict=True):
        pair = costs.pair(candidate)
        if pair is None or pair.baseline != comparison.baseline:
            out.append(sentence)
            continue
        out.append(sentence.rstrip(".") + "; " + pair.headline("p95") + ".")
    return out


def latency_gates(limits: tuple, comparison: Comparison, costs: Timed | None
                  ) -> list[dict[str, Any]]:
    """--max-latency: one gate per (statistic, candidate)."""
    if not limits or costs is None:
        return []
    gates = []
    for limit in limits:
        for candidate in comparison.candidates:
            pair = costs.pair(candidate)
            if pair is not None and pair.baseline != comparison.baseline:
                pair = None
            verdict = judge_latency(limit, candidate=candidate, own=costs.of(candidate),
                                    pair=pair)
            gates.append(verdict.as_dict())
    return gates
