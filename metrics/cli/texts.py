"""The command line's text inputs: the queries file (texts and facets, for --by), the corpus
(chunk texts, for the leakage check and the token estimate), and the `leakage` command.

On the bundled sample (no --qrels, no --run) the sample's queries.csv and corpus.jsonl are read
unless other files are given, as the dashboard does. Every load report goes to standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from metrics.cli.args import UsageError, positive_int
from metrics.cli.text import table
from metrics.context.cost import ChunkTokens, chunk_tokens
from metrics.context.leakage import Leakage, find_leaks, retrieved_or_judged
from metrics.core.evaluate import Evaluation
from metrics.core.sample import SAMPLE_DIR
from metrics.decide.compare import Comparison
from metrics.explain.facets import Facet, facets
from metrics.explain.slices import Slice, compare_slices, slice_evaluation
from metrics.io import (
    Corpus,
    Queries,
    iter_documents,
    load_queries,
    mentioned_doc_ids,
    queries_report,
    read_corpus,
)
from metrics.vocabulary.cost import FLAGS as COST_FLAGS
from metrics.vocabulary.format import listing
from metrics.vocabulary.gates import EXIT_LEAK
from metrics.vocabulary.leakage import (
    CORPUS,
    DEFAULT_SCOPE,
    NGRAM_THRESHOLD,
    SCOPE_FLAG,
    SCOPE_HELP,
    SCOPES,
    THRESHOLD_FLAG,
    THRESHOLD_HELP,
)
from metrics.vocabulary.slices import LENGTH

SAMPLE_QUERIES = SAMPLE_DIR / "queries.csv"
SAMPLE_CORPUS = SAMPLE_DIR / "corpus.jsonl"


def add_text_arguments(parser: argparse.ArgumentParser, *, by: bool = True,
                       cost: bool = False) -> None:
    """--queries and --corpus; --by (slices by a facet of --queries); the token cost flags."""
    parser.add_argument("--queries", type=Path,
                        help="query texts and facets: TSV, BEIR queries.jsonl, JSONL or CSV/TSV "
                        "with a header (.gz ok); the sample's on the sample")
    parser.add_argument("--corpus", type=Path,
                        help="chunk texts: BEIR corpus.jsonl, JSONL or TSV doc_id<TAB>text (.gz "
                        "ok), read as a stream keeping only the ids used; the sample's on the "
                        "sample")
    if by:
        parser.add_argument("--by", metavar="FACET",
                            help="every figure per slice of this facet of --queries (a column, "
                            f"a metadata key, or '{LENGTH}')")
    if cost:
        flag, text = COST_FLAGS["tokens_per_chunk"]
        parser.add_argument(flag, dest="tokens_per_chunk", type=float, metavar="N", help=text)
        flag, text = COST_FLAGS["price_per_mtok"]
        parser.add_argument(flag, dest="price_per_mtok", type=float, metavar="USD", help=text)


def add_leakage_arguments(parser: argparse.ArgumentParser) -> None:
    """The leakage command's scope, threshold and gate, worded in the vocabulary."""
    parser.add_argument(SCOPE_FLAG, choices=list(SCOPES), default=DEFAULT_SCOPE, help=SCOPE_HELP)
    parser.add_argument(THRESHOLD_FLAG, type=share, default=NGRAM_THRESHOLD, metavar="SHARE",
                        help=THRESHOLD_HELP)
    parser.add_argument("--max-leaks", type=leak_count, default=0, metavar="N",
                        help=f"exit {EXIT_LEAK} when more than N (query, chunk) leaks are found "
                        "(default 0)")


def on_sample(args: argparse.Namespace) -> bool:
    return args.qrels is None and not args.run


def queries_from(args: argparse.Namespace, evaluation: Evaluation) -> Queries | None:
    """--queries (the sample's on the sample), its report against the qrels on stderr."""
    path = args.queries or (SAMPLE_QUERIES if on_sample(args) else None)
    if path is None:
        return None
    queries = load_queries(path, max_bytes=args.max_input_mb << 20)
    print(queries_report(queries, evaluation.qrels).summary(), file=sys.stderr)
    return queries


def corpus_path(args: argparse.Namespace) -> Path | None:
    return args.corpus or (SAMPLE_CORPUS if on_sample(args) else None)


def corpus_from(args: argparse.Namespace, evaluation: Evaluation) -> Corpus | None:
    """The texts of every id the qrels or a run mentions, from --corpus; its report on stderr."""
    path = corpus_path(args)
    if path is None:
        return None
    wanted = mentioned_doc_ids(evaluation.qrels, [run.run for run in evaluation.runs])
    corpus, report = read_corpus(path, wanted)
    print(report.summary(), file=sys.stderr)
    return corpus


def facet_from(args: argparse.Namespace, evaluation: Evaluation,
               queries: Queries | None) -> Facet | None:
    """The facet --by names, binned over the scored queries; None without --by."""
    if not getattr(args, "by", None):
        return None
    if queries is None:
        raise UsageError("--by needs --queries")
    found = facets(queries, evaluation.scored_ids)
    if args.by not in found:
        raise UsageError(f"--by {args.by!r}: {queries.source} has no such facet; its facets: "
                         + ", ".join(repr(name) for name in found))
    return found[args.by]


def slices_from(args: argparse.Namespace, evaluation: Evaluation) -> list[Slice]:
    """The slices --by asks for (the queries file's report on stderr first)."""
    facet = facet_from(args, evaluation, queries_from(args, evaluation))
    return [] if facet is None else slice_evaluation(evaluation, facet)


def compared_slices(args: argparse.Namespace, evaluation: Evaluation,
                    queries: Queries | None, **options: Any) -> list[tuple[str, Comparison]]:
    """compare --by: the paired comparison per slice, corrected over every (candidate,
    metric, slice) as one family; `queries` as queries_from read them."""
    if not getattr(args, "by", None):
        return []
    facet = facet_from(args, evaluation, queries)
    return compare_slices(evaluation, facet, **options)


def tokens_from(args: argparse.Namespace, evaluation: Evaluation,
                corpus: Corpus | None = None) -> ChunkTokens | None:
    """--tokens-per-chunk (or the corpus's words x 1.3: `corpus` when already read, else
    --corpus) and --price-per-mtok; None when neither a token figure nor a corpus is given."""
    given = getattr(args, "tokens_per_chunk", None)
    price = getattr(args, "price_per_mtok", None)
    if given is None and price is None and args.corpus is None:
        return None
    if given is None and corpus is None:
        corpus = corpus_from(args, evaluation)
    try:
        return chunk_tokens(tokens_per_chunk=given, price_per_mtok=price,
                            corpus=corpus if given is None else None)
    except ValueError as error:
        raise UsageError(str(error)) from None


# --------------------------------------------------------------------------- leakage


def leaks(args: argparse.Namespace, evaluation: Evaluation, queries: Queries) -> Leakage:
    """The check in the scope asked: the chunks retrieved or judged, or the whole corpus."""
    path = corpus_path(args)
    if args.scope == CORPUS:
        return find_leaks(queries, iter_documents(path), threshold=args.threshold)
    candidates = retrieved_or_judged(evaluation.qrels, [run.run for run in evaluation.runs])
    corpus = corpus_from(args, evaluation)
    return find_leaks(queries, corpus, threshold=args.threshold, candidates=candidates)


def format_leaks(leakage: Leakage, queries: Queries) -> str:
    lines = [leakage.sentence, f"Scope '{leakage.scope}': {SCOPES[leakage.scope]}",
             f"Threshold: {leakage.threshold:g} of a query's word 3-grams in one chunk."]
    if leakage.leaks:
        rows = [[leak.query_id, leak.doc_id, leak.kind, f"{leak.overlap:.2f}",
                 _start(queries.text(leak.query_id) or "")] for leak in leakage.leaks]
        lines += ["", *table(["query", "chunk", "kind", "overlap", "question"], rows)]
        lines += ["", "leaked queries: " + listing(list(leakage.leaked_queries), limit=20)]
    return "\n".join(lines) + "\n"


def _start(text: str, limit: int = 60) -> str:
    words = " ".join(text.split())
    return words if len(words) <= limit else words[:limit - 1] + "…"


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
