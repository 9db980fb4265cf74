"""How different the runs are, and what combining them gives (issue 17): the `overlap`
command (Jaccard, RBO, the relevant ids only one run finds, the hybrid ceiling) and the `fuse`
command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.context.overlap import check_persistence, overlap
from metrics.vocabulary.format import figure
from metrics.vocabulary.overlap import (
    DEFAULT_PERSISTENCE,
    OVERLAP_KEYS,
    OVERLAP_RULES,
    PERSISTENCE_MEANING,
    label,
    persistence_sentence,
)


def _persistence(text: str) -> float:
    try:
        return check_persistence(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must lie strictly between 0 and 1, got {text!r}") from None


def overlap_command(argv: Sequence[str]) -> int:
    """Every pair of runs at K: how alike their top K are and what a fusion could reach."""
    from metrics.cli.args import add_input_arguments
    from metrics.cli.commands import Parser, evaluation_from, print_load_report, write_json
    from metrics.cli.text import table

    parser = Parser(prog="python -m metrics overlap",
                    description="How different the runs are: for every pair at K, Jaccard, "
                    "rank-biased overlap, the relevant ids only one finds and the recall a "
                    "perfect fusion of the two could reach, each mean with its interval.")
    add_input_arguments(parser)
    parser.add_argument("--p", type=_persistence, default=DEFAULT_PERSISTENCE,
                        metavar="P", help=PERSISTENCE_MEANING)
    args = parser.parse_args(argv)
    evaluation = evaluation_from(args)
    print_load_report(evaluation)
    if len(evaluation.runs) < 2:
        from metrics.cli.args import UsageError

        raise UsageError("overlap needs at least two --run")
    found = overlap(evaluation, p=args.p)
    if args.format == "json":
        write_json(found.as_dict())
        return 0
    k = found.k
    header = ["A", "B", *(label(key, k) for key in OVERLAP_KEYS)]
    rows = [[row["a"], row["b"], *(f"{figure(row[key])} [{figure(row[key + '_low'])}, "
                                   f"{figure(row[key + '_high'])}]" for key in OVERLAP_KEYS)]
            for row in found.rows()]
    sys.stdout.write("\n".join(table(header, rows)) + "\n\n")
    sys.stdout.write(f"{persistence_sentence(found.p, k)} {OVERLAP_RULES['top_k']} "
                     f"{OVERLAP_RULES['denominator']}\n")
    return 0


# --------------------------------------------------------------------------- fuse


def _weights(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers such as 0.3,0.7, got {text!r}") from None


def fuse_command(argv: Sequence[str]) -> int:
    """Fuse two or more runs into one TREC run; --tune-weight chooses a two-run weight by
    2-fold cross-fitting on the labels."""
    import dataclasses
    from pathlib import Path

    import numpy as np

    from metrics.cli.args import UsageError, add_input_arguments, conventions_from
    from metrics.cli.commands import Parser, write_json
    from metrics.context.fusion import cross_fitted_weights, fuse, write_trec
    from metrics.core.files import load_runs, read_qrels
    from metrics.stats.intervals import bootstrap
    from metrics.vocabulary import fusion as words

    parser = Parser(prog="python -m metrics fuse", description=words.FUSE_HELP + ". "
                    + words.TIE_RULE)
    add_input_arguments(parser)
    parser.add_argument(words.METHOD_FLAG, choices=list(words.METHODS),
                        default=words.DEFAULT_METHOD, help=words.METHOD_HELP)
    parser.add_argument(words.NORM_FLAG, choices=list(words.NORMS), default=words.DEFAULT_NORM,
                        help=words.NORM_HELP)
    parser.add_argument(words.RRF_K_FLAG, dest="rrf_k", type=float, default=words.RRF_K,
                        help=words.RRF_K_HELP)
    parser.add_argument(words.WEIGHTS_FLAG, dest="weights", type=_weights,
                        help=words.WEIGHTS_HELP)
    parser.add_argument(words.TUNE_FLAG, dest="tune", action="store_true",
                        help=words.TUNE_HELP + "; needs --qrels. The fused run is written at "
                        "the weight tuned on every query, and its cross-fitted figure says "
                        "what to expect of it on new queries")
    parser.add_argument(words.NAME_FLAG, dest="name", help=words.NAME_HELP)
    parser.add_argument(words.TAG_FLAG, dest="tag", help=words.TAG_HELP)
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="where to write the fused TREC run (default standard output)")
    args = parser.parse_args(argv)
    if len(args.run) < 2:
        raise UsageError("fuse needs at least two --run")
    if args.tune and (args.qrels is None or len(args.run) != 2 or args.weights is not None):
        raise UsageError(f"{words.TUNE_FLAG} needs --qrels and exactly two --run, and no "
                         f"{words.WEIGHTS_FLAG}")
    conventions = conventions_from(args)
    max_bytes = args.max_input_mb << 20
    runs, _ = load_runs([dataclasses.replace(r, format=args.run_format) for r in args.run],
                        conventions, max_bytes=max_bytes)
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
    print(recipe.sentence, file=sys.stderr)
    data: dict = {"recipe": recipe.as_dict(), "out": None if args.out is None else str(args.out)}
    if tuned is not None:
        interval = bootstrap(tuned.per_query, confidence_level=conventions.confidence_level,
                             n_resamples=conventions.n_resamples,
                             rng=np.random.default_rng(conventions.seed),
                             method=conventions.interval_method)[0]
        print(f"{tuned.sentence} Interval of the cross-fitted mean: "
              f"[{figure(interval.low)}, {figure(interval.high)}].", file=sys.stderr)
        data["cross_fit"] = {"metric": f"{tuned.metric}@{tuned.k}", "chosen": list(tuned.chosen),
                             "mean": tuned.mean, "low": interval.low, "high": interval.high,
                             "in_sample_weight": tuned.in_sample_weight,
                             "in_sample_mean": tuned.in_sample_mean,
                             "sentence": tuned.sentence}
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        print(f"{fused.name}: {len(fused.line):,} lines written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.format == "json" and args.out is not None:
        write_json(data)
    return 0
