"""python -m metrics leakage: queries of the evaluation set copied into the corpus they are
scored against. Exit status 4 when more queries leak than --max-leaks allows."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from metrics.cli.common import print_load_report, read
from metrics.context.leakage import Leakage, find_leaks, retrieved_or_judged
from metrics.inputs.arguments import (
    Parser,
    UsageError,
    add_input_arguments,
    add_text_arguments,
    positive_int,
    to_stderr,
)
from metrics.inputs.reading import Inputs
from metrics.io import Queries, iter_documents
from metrics.outputs.documents import write_json
from metrics.outputs.text import format_leaks
from metrics.vocabulary.format import count
from metrics.vocabulary.gates import EXIT_LEAK, EXIT_OK
from metrics.vocabulary.leakage import (
    CORPUS,
    DEFAULT_SCOPE,
    EVERY_QUERY_FLAG,
    EVERY_QUERY_HELP,
    LEAKAGE_RULE,
    NGRAM_THRESHOLD,
    SCOPE_FLAG,
    SCOPE_HELP,
    SCOPES,
    THRESHOLD_FLAG,
    THRESHOLD_HELP,
)


def leakage_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics leakage",
        description="Queries of the evaluation set copied into the corpus: every retriever "
        f"scores well on them, so the figures overstate. Exit status {EXIT_LEAK} when more "
        "queries leak than --max-leaks allows.",
    )
    add_input_arguments(parser)
    add_text_arguments(parser, by=False)
    add_leakage_arguments(parser)
    args = parser.parse_args(argv)
    inputs = read(args)
    if not inputs.on_sample and (args.queries is None or args.corpus is None):
        raise UsageError("leakage needs --queries and --corpus (or neither, on the sample)")
    print_load_report(inputs)
    queries = inputs.queries()
    leakage = leaks(inputs, queries, scope=args.scope, threshold=args.threshold,
                    every_query=args.every_query)
    if args.format == "json":
        to_stderr(leakage.sentence)
        write_json(leakage.as_dict() | {"max_leaks": args.max_leaks, "rule": LEAKAGE_RULE,
                                        "queries_checked": leakage.queries_checked,
                                        "chunks_checked": leakage.chunks_checked})
    else:
        sys.stdout.write(format_leaks(leakage, queries))
    if len(leakage.leaks) > args.max_leaks:
        to_stderr(f"leakage: {count(len(leakage.leaks), 'leak')} found, more than --max-leaks "
                  f"{args.max_leaks}")
        return EXIT_LEAK
    return EXIT_OK


def add_leakage_arguments(parser: argparse.ArgumentParser) -> None:
    """The leakage command's scope, threshold and gate, worded in the vocabulary."""
    parser.add_argument(SCOPE_FLAG, choices=list(SCOPES), default=DEFAULT_SCOPE, help=SCOPE_HELP)
    parser.add_argument(THRESHOLD_FLAG, type=share, default=NGRAM_THRESHOLD, metavar="SHARE",
                        help=THRESHOLD_HELP)
    parser.add_argument(EVERY_QUERY_FLAG, action="store_true", help=EVERY_QUERY_HELP)
    parser.add_argument("--max-leaks", type=leak_count, default=0, metavar="N",
                        help=f"exit {EXIT_LEAK} when more than N (query, chunk) leaks are found "
                        "(default 0)")


def leaks(inputs: Inputs, queries: Queries, *, scope: str, threshold: float,
          every_query: bool = False) -> Leakage:
    """The check in the scope asked: the chunks retrieved or judged, or the whole corpus."""
    if scope == CORPUS:
        documents = iter_documents(inputs.corpus_path, max_bytes=inputs.max_corpus_bytes)
        return find_leaks(queries, documents, threshold=threshold, every_query=every_query)
    evaluation = inputs.evaluation()
    candidates = retrieved_or_judged(evaluation.qrels, [run.run for run in evaluation.runs])
    return find_leaks(queries, inputs.corpus(), threshold=threshold, candidates=candidates,
                      every_query=every_query)


def share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {text!r}")
    return value


def leak_count(text: str) -> int:
    if text == "0":
        return 0
    return positive_int(text)
