"""Load qrels and runs (TREC, BEIR TSV, CSV/TSV, JSONL; optionally gzipped) with a load report.

A malformed file is rejected as a whole: `LoadError` (a `ValueError`) with the one-line
message `FILE, line N: problem`. Valid lines that are not used are listed in the report.

Every source is read as a bounded stream (`streams`): at most `max_bytes` after gzip
expansion (MAX_INPUT_BYTES by default), its first block checked for binary data before the
rest is read; directories and devices are refused, FIFOs and pipes read until they end.

The modules, each with one job: `streams` (bounded reading, gzip, the first block),
`sources` (names, UTF-8, blank and comment lines), `detect` (format and column layout),
`reader` (pyarrow's CSV reader), `trec` and `delimited` (the two kinds of table), `tables`
(either, checked), `values` (numbers from text), `jsonl`, `codes` (integer codes, repeated
pairs), `rows` (Qrels, Run), `report`, and `loaders` (load_qrels, load_run). Optional texts:
`queries` (load_queries: a query's text and facets, read whole like the qrels) and `corpus`
(read_corpus: only the chunks asked for, streamed, so memory follows the ids used).
"""

from metrics.io.codes import repeated_ids, repeated_pairs
from metrics.io.corpus import (
    CORPUS_FORMATS,
    MAX_CORPUS_BYTES,
    MAX_CORPUS_FLAG,
    Corpus,
    CorpusReport,
    iter_documents,
    read_corpus,
)
from metrics.io.errors import LoadError
from metrics.io.examples import FORMAT_EXAMPLES, FormatExample
from metrics.io.loaders import (
    QRELS_FORMATS,
    RUN_FORMATS,
    RUN_ORDERS,
    SCORE_PRECISIONS,
    load_qrels,
    load_run,
)
from metrics.io.queries import QUERIES_FORMATS, Queries, QueriesReport, load_queries, queries_report
from metrics.io.reader import MAX_LINE_BYTES
from metrics.io.report import LoadReport, ReportLine
from metrics.io.rows import Qrels, Run, mentioned_doc_ids
from metrics.io.sources import UPLOAD_NAME
from metrics.io.streams import MAX_INPUT_BYTES

__all__ = [
    "CORPUS_FORMATS", "MAX_CORPUS_BYTES", "MAX_CORPUS_FLAG", "Corpus", "CorpusReport",
    "QUERIES_FORMATS", "Queries", "QueriesReport",
    "iter_documents", "load_queries", "mentioned_doc_ids", "queries_report", "read_corpus",
    "FORMAT_EXAMPLES", "FormatExample", "MAX_INPUT_BYTES", "MAX_LINE_BYTES", "LoadError",
    "LoadReport", "Qrels", "QRELS_FORMATS",
    "ReportLine", "Run", "RUN_FORMATS", "RUN_ORDERS", "SCORE_PRECISIONS", "UPLOAD_NAME",
    "load_qrels", "load_run", "repeated_ids", "repeated_pairs",
]
