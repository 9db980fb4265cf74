"""python -m metrics fuse: two or more runs merged into one TREC run (RRF, CombSUM, CombMNZ,
weighted CombSUM), and a two-run weight chosen by 2-fold cross-fitting (--tune-weight)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from metrics.context.fusion import (
    check_rrf_k,
    check_weight_values,
    cross_fitted_weights,
    fuse,
    trec_unwritable_row,
    write_trec,
)
from metrics.core.files import load_runs, read_qrels
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    conventions_from,
    output_file,
    to_stderr,
)
from metrics.io.errors import LoadError
from metrics.io.writing import write_text
from metrics.outputs.documents import write_json
from metrics.stats.intervals import bootstrap
from metrics.vocabulary import fusion as words
from metrics.vocabulary.format import figure


def _weights(text: str) -> tuple[float, ...]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers such as 0.3,0.7, got {text!r}") from None
    try:
        return check_weight_values(values, given=text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _rrf_k(text: str) -> int | float:
    try:
        return check_rrf_k(float(text), "k", given=text)
    except ValueError as error:
        message = str(error) if "must be" in str(error) else f"expected a number, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None


def fuse_command(argv: Sequence[str]) -> int:
    """Fuse two or more runs into one TREC run; --tune-weight chooses a two-run weight by
    2-fold cross-fitting on the labels."""
    parser = Parser(prog="python -m metrics fuse", description=words.FUSE_HELP + ". "
                    + words.TIE_RULE)
    add_input_arguments(parser)
    parser.add_argument(words.METHOD_FLAG, choices=list(words.METHODS),
                        default=words.DEFAULT_METHOD, help=words.METHOD_HELP)
    parser.add_argument(words.NORM_FLAG, choices=list(words.NORMS), default=words.DEFAULT_NORM,
                        help=words.NORM_HELP)
    parser.add_argument(words.RRF_K_FLAG, dest="rrf_k", type=_rrf_k, default=words.RRF_K,
                        help=words.RRF_K_HELP)
    parser.add_argument(words.WEIGHTS_FLAG, dest="weights", type=_weights,
                        help=words.WEIGHTS_HELP)
    parser.add_argument(words.TUNE_FLAG, dest="tune", action="store_true",
                        help=words.TUNE_HELP + "; needs --qrels. The fused run is written at "
                        "the weight tuned on every query, and its cross-fitted figure says "
                        "what to expect of it on new queries")
    parser.add_argument(words.NAME_FLAG, dest="name", help=words.NAME_HELP)
    parser.add_argument(words.TAG_FLAG, dest="tag", help=words.TAG_HELP)
    parser.add_argument("--out", type=output_file, metavar="FILE",
                        help="where to write the fused TREC run (default standard output)")
    args = parser.parse_args(argv)
    if len(args.run) < 2:
        raise UsageError("fuse needs at least two --run")
    if args.tune and (args.qrels is None or len(args.run) != 2 or args.weights is not None):
        raise UsageError(f"{words.TUNE_FLAG} needs --qrels and exactly two --run, and no "
                         f"{words.WEIGHTS_FLAG}")
    conventions = conventions_from(args)
    max_bytes = args.max_input_mb << 20
    runs, reports = load_runs([dataclasses.replace(r, format=args.run_format)
                               for r in args.run], conventions, max_bytes=max_bytes)
    for run in runs:  # every id of every run is one of the fused run's: named where it is read
        found = trec_unwritable_row(run)
        if found is not None:
            row, what, why = found
            raise LoadError(run.source, int(run.line[row]), f"{what} {why}: the fused run, a "
                            "TREC file, cannot hold it", reports[run.name].unit)
    tuned = None
    weights = args.weights
    if args.tune:
        qrels, _ = read_qrels(args.qrels, format=args.qrels_format, max_bytes=max_bytes)
        tuned = cross_fitted_weights(qrels, runs, k=args.k or words.TUNE_K, norm=args.norm,
                                     conventions=conventions)
        weights = (tuned.in_sample_weight, round(1 - tuned.in_sample_weight, 12))
    method = words.COMBSUM if weights is not None else args.method
    fused, recipe = fuse(runs, method=method, norm=args.norm, rrf_k=args.rrf_k,
                         weights=weights, name=args.name)
    text = write_trec(fused, args.tag)
    to_stderr(recipe.sentence)
    data: dict = {"recipe": recipe.as_dict(), "out": None if args.out is None else str(args.out)}
    if tuned is not None:
        interval = bootstrap(tuned.per_query, confidence_level=conventions.confidence_level,
                             n_resamples=conventions.n_resamples,
                             rng=conventions.seed,
                             method=conventions.interval_method)[0]
        to_stderr(f"{tuned.sentence} Interval of the cross-fitted mean: "
                  f"[{figure(interval.low)}, {figure(interval.high)}].")
        data["cross_fit"] = {"metric": tuned.label, "chosen": list(tuned.chosen),
                             "mean": tuned.mean, "low": interval.low, "high": interval.high,
                             "in_sample_weight": tuned.in_sample_weight,
                             "in_sample_mean": tuned.in_sample_mean,
                             "sentence": tuned.sentence}
    if args.out is not None:
        write_text(args.out, text, flag="--out")
        to_stderr(f"{fused.name}: {len(fused.line):,} lines written to {args.out}")
    else:
        sys.stdout.write(text)
    if args.format == "json" and args.out is not None:
        write_json(data)
    return 0
