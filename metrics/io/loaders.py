"""load_qrels and load_run: a source read in its format, checked, and reported on."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io.arrow import from_numbers, index_in, numbers, strings
from metrics.io.codes import encode, encode_blocks, repeated_pairs
from metrics.io.detect import detect, layout_of
from metrics.io.errors import LoadError, check_choice, show
from metrics.io.jsonl import jsonl_qrels, jsonl_run
from metrics.io.names import cleaned_name
from metrics.io.parquet import (
    TABLE_NAME,
    Columnar,
    floats,
    ids,
    integers,
    is_parquet,
    is_table,
    read_columnar,
)
from metrics.io.parsed import Rows
from metrics.io.reader import Table
from metrics.io.report import LoadReport, ReportLine
from metrics.io.rows import Qrels, Run
from metrics.io.sources import Source, open_source, source_name
from metrics.io.streams import MAX_INPUT_BYTES, MAX_INPUT_FLAG, check_max_bytes
from metrics.io.tables import read_table
from metrics.io.values import to_float, to_int
from metrics.vocabulary.identifiers import NORMALIZE_IDS, NORMALIZED_NOTE
from metrics.vocabulary.numeric import MAX_GRADE, MIN_GRADE, grade_problem

QRELS_FORMATS = ("trec", "beir", "csv", "jsonl", "parquet")
RUN_FORMATS = ("trec", "csv", "jsonl", "parquet")
RUN_ORDERS = ("score", "rank")
# How scores compare when a run is ordered by them: as doubles (trec_eval 10.0), or rounded
# to 32-bit floats first (trec_eval 9 and pytrec_eval), which ties scores that differ less.
SCORE_PRECISIONS = ("double", "float32")

# Extensions stripped from a file name to name its run (`baseline.run.gz` -> `baseline`).
_RUN_EXTENSIONS = {
    ".gz", ".run", ".txt", ".trec", ".res", ".out", ".tsv", ".csv", ".jsonl", ".ndjson", ".json",
    ".parquet", ".pq", ".parq",
}
# What a loader reads: a path, an upload's bytes, or a table handed over from Python.
Input = str | os.PathLike | bytes | object


def _report(src: Source | Columnar, kind: str, fmt: str, rows: Rows,
            repeats: list) -> LoadReport:
    return LoadReport(
        source=src.name, kind=kind, format=fmt, lines_read=rows.lines_read,
        lines_used=rows.lines_read - len(rows.dropped),
        dropped=tuple(sorted(rows.dropped, key=lambda r: r.line)),
        repeats=tuple(repeats), notes=tuple(rows.notes),
        comments=rows.comments, wide_lines=rows.wide_lines, unit=src.unit,
    )


def _columnar(source: Input, file_name: str | None, fmt: str) -> bool:
    """Read as columns (Parquet, or a table from Python) rather than as text."""
    return fmt == "parquet" or (fmt == "auto" and (is_table(source)
                                                   or is_parquet(source, file_name)))


def _columnar_rows(src: Columnar, columns: dict[str, pa.Array], lines: np.ndarray) -> Rows:
    if not len(lines):
        raise src.fail(None, "no data rows")
    return Rows(ids(src, columns["query"], lines, "query"),
                ids(src, columns["doc"], lines, "doc"), lines, len(lines))



# --- qrels -----------------------------------------------------------------------------


def load_qrels(
    source: Input, *, file_name: str | None = None, format: str = "auto",
    max_bytes: int = MAX_INPUT_BYTES, normalize_ids: str = "none",
) -> tuple[Qrels, LoadReport]:
    """Read relevance judgments: TREC (`qid iter docid grade`, or `qid docid grade` when the
    first data line has three columns), BEIR TSV (`query-id corpus-id score`), CSV/TSV with a
    `query_id,doc_id,grade` header, JSONL (`{"query_id": ..., "relevant": [ids] |
    {id: grade}}`, a list meaning grade 1), or Parquet (a file, or a directory of files read
    as one) with the CSV header's columns. `source` is a path (`-` for standard input; a FIFO
    or a pipe is read as a stream), the raw bytes of an upload named `file_name`, or a table
    handed over from Python (an Arrow table, a pandas DataFrame); gzip is
    read by extension or content. In TREC files a line whose first non-blank character is
    '#' is a comment, skipped and counted, as trec_eval 10.0 does. Parquet rows and table
    rows are numbered from 1 ("row N" in messages and in the report).

    An identical duplicate line is dropped and reported; one (query, doc) pair with two
    grades is an error, as is a grade that is not an integer ('2.0' included).
    `max_bytes` bounds the input after decompression: a larger one is refused as soon as it
    passes the bound (see `metrics.io.streams`). `normalize_ids="nfc"` reads every query and
    doc id in Unicode NFC (`metrics.vocabulary.identifiers.NORMALIZE_IDS`; "none", as written, by
    default); the report says so.
    """
    check_choice("format", format, ("auto", *QRELS_FORMATS))
    check_choice("normalize_ids", normalize_ids, NORMALIZE_IDS)
    check_max_bytes(max_bytes)
    with _within_memory(source, file_name):
        if _columnar(source, file_name, format):
            src = read_columnar(source, file_name, "qrels", max_bytes)
            return columnar_qrels(src, src.columns, src.lines, normalize_ids)
        src = open_source(source, file_name, max_bytes)
        fmt = detect(src, "qrels", format)
        if fmt == "jsonl":
            rows = _normalized(jsonl_qrels(src), normalize_ids)
        else:
            table, rows = _table_rows(src, "qrels", fmt, normalize_ids)
            rows.grade = to_int(src, table.columns["grade"], table.lines, "grade")
        return _finish_qrels(src, fmt, rows)


def columnar_qrels(src: Columnar, columns: dict[str, pa.Array], lines: np.ndarray,
                   normalize_ids: str = "none") -> tuple[Qrels, LoadReport]:
    """Qrels from Parquet or table columns by role (all its rows, or the rows of some
    queries, numbered `lines`), checked as ``load_qrels`` checks a CSV file's."""
    rows = _normalized(_columnar_rows(src, columns, lines), normalize_ids)
    rows.grade = integers(src, columns["grade"], rows.line, "grade")
    return _finish_qrels(src, src.format, rows)


@contextmanager
def _within_memory(source: Input, file_name: str | None) -> Iterator[None]:
    """A MemoryError while reading or parsing becomes a one-line LoadError."""
    try:
        yield
    except MemoryError:
        raise LoadError(
            file_name or TABLE_NAME if is_table(source) else source_name(source, file_name),
            None,
            f"too large to load in memory (a lower max_bytes, {MAX_INPUT_FLAG}, refuses it "
            "before reading it all)",
        ) from None


def _table_rows(src: Source, kind: str, fmt: str, normalize_ids: str) -> tuple[Table, Rows]:
    """A TREC or delimited file read as a table, and its rows (comments and wide lines
    counted), its ids in NFC if asked (before a run's ties are ordered by doc id)."""
    table = read_table(src, layout_of(src, kind, fmt))
    if normalize_ids == "nfc":
        for role in ("query", "doc"):
            table.columns[role] = pc.utf8_normalize(table.columns[role], form="NFC")
    rows = Rows(table.columns["query"], table.columns["doc"], table.lines, len(table.lines),
                comments=table.comments, wide_lines=table.wide_lines)
    if normalize_ids == "nfc":
        rows.notes.append(NORMALIZED_NOTE)
    return table, rows


def _normalized(rows: Rows, normalize_ids: str) -> Rows:
    """A JSONL file's rows with their ids in NFC, if asked."""
    if normalize_ids != "nfc":
        return rows
    for name in ("query", "doc", "query_ids"):
        values = getattr(rows, name)
        if values is None:
            continue
        if isinstance(values, pa.Array):
            setattr(rows, name, pc.utf8_normalize(values.cast(pa.string()), form="NFC"))
        else:
            normal = [unicodedata.normalize("NFC", str(v)) for v in values]
            setattr(rows, name, np.array(normal, dtype=object)
                    if isinstance(values, np.ndarray) else normal)
    rows.notes.append(NORMALIZED_NOTE)
    return rows


def _finish_qrels(src: Source | Columnar, fmt: str, rows: Rows) -> tuple[Qrels, LoadReport]:
    grade, lines = rows.grade, rows.line
    outside = np.flatnonzero((grade < MIN_GRADE) | (grade > MAX_GRADE))
    if len(outside):  # the first line holding one, whatever the format's row order
        row = outside[np.argmin(lines[outside])]
        raise src.fail(int(lines[row]), grade_problem(int(grade[row])))
    query_codes, query_names = encode_blocks(rows.query)
    doc_codes, doc_names = encode(rows.doc)
    repeats, first = repeated_pairs(query_codes, doc_codes)
    conflict = np.flatnonzero(grade[repeats] != grade[first])
    if len(conflict):
        row, earlier = repeats[conflict[0]], first[conflict[0]]
        query, doc = query_names[query_codes[row]].as_py(), doc_names[doc_codes[row]].as_py()
        raise src.fail(
            int(lines[row]),
            f"query {show(query)} doc {show(doc)} "
            f"has grade {grade[row]} here but grade {grade[earlier]} on line {lines[earlier]}",
        )
    rows.dropped += [
        ReportLine(int(lines[row]), f"identical duplicate of line {lines[earlier]}")
        for row, earlier in zip(repeats, first, strict=True)
    ]
    keep = np.ones(len(lines), dtype=bool)
    keep[repeats] = False
    query_ids = strings(query_names)
    if rows.query_ids is not None:  # JSONL: queries with an empty list belong to the set too
        query_codes = index_in(query_ids, rows.query_ids)[query_codes]
        query_ids = np.asarray(rows.query_ids, dtype=object)
    qrels = Qrels(
        source=src.name,
        query_ids=query_ids,
        query_code=query_codes[keep],
        doc_code=doc_codes[keep],
        doc_names=doc_names,
        grade=grade[keep],
        line=lines[keep],
    )
    return qrels, _report(src, "qrels", fmt, rows, [])


# --- runs ------------------------------------------------------------------------------


def load_run(
    source: Input, *, file_name: str | None = None, format: str = "auto",
    order: str = "score", score_precision: str = "double", run_name: str | None = None,
    labels: Qrels | Callable[[], Qrels] | None = None, max_bytes: int = MAX_INPUT_BYTES,
    normalize_ids: str = "none",
) -> tuple[Run, LoadReport]:
    """Read a run: TREC (`qid Q0 docid rank score tag`), CSV/TSV with a
    `query_id,doc_id,rank[,score]` header, JSONL (`{"query_id": ..., "retrieved": [ids]}`),
    or Parquet or a table from Python with the CSV header's columns (a directory of Parquet
    files is one run).

    A TREC run is ordered like trec_eval when `order="score"`: score descending, ties by doc
    id descending as a string; with `order="rank"` by the rank column, ties in line order.
    Scores compare as doubles (`score_precision="double"`, as trec_eval 10.0 stores them) or
    rounded to 32-bit floats first (`"float32"`, as trec_eval 9 and pytrec_eval do), which
    ties scores closer than float32 can tell apart. CSV, Parquet and table runs follow their
    rank column, or without one their scores as TREC runs do; JSONL lists keep their own
    order; `order` does not apply to them. As trec_eval 10.0 does, a TREC run line may carry
    more than six fields (the rest are ignored) and a line whose first non-blank character
    is '#' is a comment; the report counts both.

    `file_name` names the file in messages and, for bytes, gives it a name. The run is named
    `run_name`, by default the file name without its extensions (`baseline.run.gz` ->
    `baseline`).
    Given `labels`, its ids are matched to the labels' doc ids while loading (see
    `Run.labelled_by`), so that aligning the run to those labels does no string work;
    `labels` may be a function that gives them, called once the run's rows are read, so that
    the labels can still be loading meanwhile (the command line reads them in a second
    thread).
    `source`, `file_name` and `max_bytes` are read as `load_qrels` reads them. A rank column
    that orders a run may not hold a negative rank; a rank given twice in one query is noted,
    its rows kept in line order. `normalize_ids` is read as `load_qrels` reads it.
    """
    check_choice("format", format, ("auto", *RUN_FORMATS))
    check_choice("order", order, RUN_ORDERS)
    check_choice("score_precision", score_precision, SCORE_PRECISIONS)
    check_choice("normalize_ids", normalize_ids, NORMALIZE_IDS)
    check_max_bytes(max_bytes)
    with _within_memory(source, file_name):
        if _columnar(source, file_name, format):
            src = read_columnar(source, file_name, "run", max_bytes)
            return columnar_run(src, src.columns, src.lines, run_name or _run_name(src.name),
                                score_precision, normalize_ids, labels)
        src = open_source(source, file_name, max_bytes)
        fmt = detect(src, "run", format)
        if fmt == "jsonl":
            rows = _normalized(jsonl_run(src), normalize_ids)
        else:
            table, rows = _table_rows(src, "run", fmt, normalize_ids)
            rows.score, rows.sort_keys = _run_sort_keys(src, fmt, order, score_precision, table)
        return _finish_run(src, fmt, rows, run_name or _run_name(src.name), labels)


def _run_sort_keys(
    src: Source, fmt: str, order: str, precision: str, table: Table
) -> tuple[np.ndarray | None, list[tuple[str, object, str]]]:
    """The scores as read (None without a score column) and the sort keys after the query:
    (name, values, direction). Scores are checked and kept either way; a float32 order rounds
    only its sort key, the kept scores stay doubles."""
    columns, lines = table.columns, table.lines
    score = to_float(src, columns["score"], lines, "score") if "score" in columns else None
    rank = None
    if "rank" in columns and (fmt == "csv" or order == "rank"):
        rank = to_int(src, columns["rank"], lines, "rank")
    return score, _sort_keys(src, lines, score, rank, columns["doc"], precision)


def columnar_run(src: Columnar, columns: dict[str, pa.Array], lines: np.ndarray, name: str,
                 score_precision: str = "double", normalize_ids: str = "none",
                 labels: Qrels | Callable[[], Qrels] | None = None) -> tuple[Run, LoadReport]:
    """A run from Parquet or table columns by role (all its rows, or the rows of some
    queries, numbered `lines`), checked, ordered and labelled as ``load_run`` does a CSV
    run."""
    rows = _normalized(_columnar_rows(src, columns, lines), normalize_ids)
    rows.score, rows.sort_keys = columnar_sort_keys(src, columns, lines, rows.doc,
                                                    score_precision)
    return _finish_run(src, src.format, rows, name, labels)


def run_name_of(file_name: str) -> str:
    """A run's default name: its file's (or directory's) name without its extensions."""
    return _run_name(file_name)


def columnar_sort_keys(
    src: Columnar, columns: dict[str, pa.Array], lines: np.ndarray, doc: pa.Array,
    precision: str,
) -> tuple[np.ndarray | None, list[tuple[str, object, str]]]:
    """``_run_sort_keys`` of Parquet or table columns (typed; `doc` the ids as strings): the
    rank column when there is one, as a CSV run is ordered, else the scores."""
    score = floats(src, columns["score"], lines, "score") if "score" in columns else None
    rank = integers(src, columns["rank"], lines, "rank") if "rank" in columns else None
    return score, _sort_keys(src, lines, score, rank, doc, precision)


def _sort_keys(
    src: Source | Columnar, lines: np.ndarray, score: np.ndarray | None,
    rank: np.ndarray | None, doc: pa.Array, precision: str,
) -> list[tuple[str, object, str]]:
    if rank is not None:
        negative = np.flatnonzero(rank < 0)
        if len(negative):
            row = negative[0]
            raise src.fail(int(lines[row]), f"rank must not be negative, got {rank[row]}")
        return [("rank", rank, "ascending")]
    key = score
    if precision == "float32":
        with np.errstate(over="ignore"):  # beyond float32 a score ties at infinity (trec_eval 9)
            key = score.astype(np.float32)
    return [("score", key, "descending"), ("doc", doc, "descending")]


def _finish_run(src: Source | Columnar, fmt: str, rows: Rows, name: str,
                labels: Qrels | Callable[[], Qrels] | None) -> tuple[Run, LoadReport]:
    name, cleaned = cleaned_name(name)  # as it looks: no hidden characters (io/names.py)
    if cleaned:
        rows.notes.append(cleaned)
    doc = rows.doc if isinstance(rows.doc, pa.Array) else pa.array(rows.doc, pa.string())
    if labels is None:
        run, report, _ = _ordered_run(src, fmt, rows, name, doc)
        return run, report
    # The position of every id among the labels' (a hash pass) is found in a second thread
    # while this one orders the rows and finds the repeats (two sorts): arrow releases the
    # GIL for all three, and labels given as a function may still be loading.
    with ThreadPoolExecutor(max_workers=1) as pool:
        coding = pool.submit(_label_codes, doc, labels)
        run, report, order = _ordered_run(src, fmt, rows, name, doc)
        qrels, label_code = coding.result()
    return run.labelled_by(qrels, label_code if order is None else label_code[order]), report


def _ordered_run(src: Source | Columnar, fmt: str, rows: Rows, name: str, doc: pa.Array
                 ) -> tuple[Run, LoadReport, np.ndarray | None]:
    """The rows grouped by query in their sort keys' order, the load report, and that order
    of the lines (None when it is the lines' own)."""
    query_codes, query_names = encode_blocks(rows.query)
    keys = [("query", query_codes, "ascending"), *rows.sort_keys]
    table = pa.table({key: _arrow(values) for key, values, _ in keys})
    order = pc.sort_indices(table, sort_keys=[(key, direction) for key, _, direction in keys])
    order = numbers(order).astype(np.int64)  # a stable sort: equal keys keep their line order
    in_order = bool((order[1:] > order[:-1]).all())  # often so: then no copy of the ids
    run = Run(
        name=name,
        source=src.name,
        query_ids=strings(query_names),
        query_code=query_codes[order],
        doc_ids=doc.cast(pa.string()) if in_order else doc.take(from_numbers(order)),
        line=rows.line[order],
        score=None if rows.score is None else rows.score[order],
    )
    rows.notes += _tied_ranks(rows, query_codes, query_names, order)
    report = _report(src, "run", fmt, rows, _run_repeats(run))
    return run, report, None if in_order else order


def _label_codes(doc: pa.Array, labels: Qrels | Callable[[], Qrels]) -> tuple[Qrels, np.ndarray]:
    """Per row in line order: its id's position among the labels' doc ids, -1 where absent."""
    qrels = labels if isinstance(labels, Qrels) else labels()
    return qrels, index_in(doc.cast(pa.string()), qrels.doc_names)


def _tied_ranks(
    rows: Rows, query_codes: np.ndarray, query_names: pa.Array, order: np.ndarray
) -> list[str]:
    """A note when a query gives one rank twice: such rows are ordered by their lines."""
    key, rank, _ = rows.sort_keys[0] if rows.sort_keys else (None, None, None)
    if key != "rank":
        return []
    query, rank, line = query_codes[order], rank[order], rows.line[order]
    tied = np.flatnonzero((query[1:] == query[:-1]) & (rank[1:] == rank[:-1]))
    if not len(tied):
        return []
    first = int(tied[0])
    more = {1: ""}.get(len(tied), f"; {len(tied) - 1} more lines repeat a rank")
    return [
        f"line {line[first + 1]}: query {show(query_names[query[first]].as_py())} gives rank "
        f"{rank[first]} again (first on line {line[first]}); rows of equal rank keep their "
        f"line order{more}"
    ]


def _arrow(values: np.ndarray | pa.Array) -> pa.Array:
    return values if isinstance(values, pa.Array) else from_numbers(values)


def _run_repeats(run: Run) -> list[ReportLine]:
    query_codes = run.query_code
    rows, first = run.repeats
    if not len(rows):
        return []
    index = np.arange(len(query_codes))
    starts = np.r_[True, query_codes[1:] != query_codes[:-1]]
    rank = index - np.maximum.accumulate(np.where(starts, index, 0)) + 1
    return [
        ReportLine(
            int(run.line[row]),
            f"repeat of {run.doc_ids[int(row)].as_py()} at rank {rank[row]} "
            f"(first at rank {rank[earlier]}): "
            "keeps its rank slot, scores nothing",
        )
        for row, earlier in zip(rows, first, strict=True)
    ]


def _run_name(file_name: str) -> str:
    stem = os.path.basename(file_name) or file_name
    while True:
        root, extension = os.path.splitext(stem)
        if not root or extension.lower() not in _RUN_EXTENSIONS:
            return stem
        stem = root
