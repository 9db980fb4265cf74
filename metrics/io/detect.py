"""Format detection and column layouts: which columns of a line hold the query, the doc,
the grade, the rank and the score, as TREC fixes them or as a CSV/TSV/BEIR header names them."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from metrics.io.errors import LoadError, show
from metrics.io.sources import SPLIT_WS, Source
from metrics.io.values import INTEGER


@dataclass(frozen=True)
class _Column:
    role: str  # query, doc, grade, rank or score
    header: str  # the column's name in a CSV/TSV/BEIR header
    required: bool = True
    aliases: tuple[str, ...] = ()  # other names common exports give it (pandas, ir tools)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.header, *self.aliases)

    def describe(self) -> str:
        return " or ".join(self.names)


@dataclass(frozen=True)
class Layout:
    delimiter: str | None  # None: runs of whitespace (TREC)
    ncols: int
    columns: dict[str, int]  # role -> column index
    header_line: int  # 0 when the format has no header
    expected: str  # what the columns are, for messages
    extra_fields: bool = False  # a line may carry more than ncols fields; the rest are ignored

    def ragged(self, src: Source, line: int, got: int) -> LoadError:
        """The error for a line of `got` columns, saying so when the file looks like the
        other kind (a run given as the qrels, or the qrels as a run)."""
        hint = _LOOKS_LIKE.get((self.expected, got), "") if line == src.first_data_line[0] else ""
        error = src.fail(line, f"expected {self.ncols} columns ({self.expected}), got {got}{hint}")
        error.belongs = ("run" if "a run file" in hint else "qrels") if hint else None
        return error


_TREC = {
    "qrels": Layout(None, 4, {"query": 0, "doc": 2, "grade": 3}, 0, "qid iter docid grade"),
    # trec_eval reads a run line's first six fields and ignores the rest
    "run": Layout(
        None, 6, {"query": 0, "doc": 2, "rank": 3, "score": 4}, 0, "qid Q0 docid rank score tag",
        extra_fields=True,
    ),
}
# qrels without the iteration column, as some collections ship them (told by the first line)
_TREC_QRELS_3 = Layout(None, 3, {"query": 0, "doc": 1, "grade": 2}, 0, "qid docid grade")
# (what a layout expected, the columns a first line had) -> the likely mix-up
_LOOKS_LIKE = {
    ("qid iter docid grade", 6): ": it looks like a run file (qid Q0 docid rank score tag); "
    "give it as a run, not as the qrels",
    ("qid docid grade", 6): ": it looks like a run file (qid Q0 docid rank score tag); "
    "give it as a run, not as the qrels",
    ("qid Q0 docid rank score tag", 4): ": it looks like a qrels file (qid iter docid "
    "grade); give it as the qrels, not as a run",
}
_QUERY = _Column("query", "query_id", aliases=("qid",))
_DOC = _Column("doc", "doc_id", aliases=("docid", "pid"))
_HEADERS = {
    ("qrels", "csv"): (_QUERY, _DOC, _Column("grade", "grade", aliases=("relevance", "label"))),
    ("qrels", "beir"): (_Column("query", "query-id"), _Column("doc", "corpus-id"),
                        _Column("grade", "score")),
    ("run", "csv"): (_QUERY, _DOC, _Column("rank", "rank", required=False),
                     _Column("score", "score", required=False)),
}
# A CSV run is ordered by its rank column, or by its scores when it has no rank column.
_ORDER_ROLES = ("rank", "score")
_HEADER_NAMES = {name for spec in _HEADERS.values() for c in spec for name in c.names} - {"score"}
_FORMAT_LABEL = {"csv": "CSV/TSV", "beir": "BEIR"}


def detect(src: Source, kind: str, fmt: str) -> str:
    """The format named, or the one the first line that is neither blank nor a comment shows."""
    if fmt != "auto":
        return fmt
    number, line = src.first_data_line
    if line.startswith(("{", "[")):  # "[" too: a JSON array gets a JSONL error, not a TREC one
        return "jsonl"
    names = set(_header_fields(line)[1])
    for (spec_kind, spec_fmt), spec in _HEADERS.items():
        if spec_kind == kind and names & {n for c in spec if c.required for n in c.names}:
            return spec_fmt
    if names & _HEADER_NAMES:
        fields = _header_fields(line)[1]
        error = src.fail(number, _not_a_header(kind, fields))
        error.belongs = _other_kind(kind, fields)
        raise error
    if len(SPLIT_WS.split(line)) > 1:
        return "trec"
    raise src.fail(
        number,
        f"cannot detect the format from {show(line)}: expected TREC columns, "
        "a CSV/TSV or BEIR header, or a JSON object per line",
    )


_GIVE_IT = {"qrels": "give it as the qrels, not as a run",
            "run": "give it as a run, not as the qrels"}


def _other_format(kind: str, fields: list[str]) -> str | None:
    """The format of the other kind's header these fields make (None when they make none)."""
    other = "run" if kind == "qrels" else "qrels"
    for (spec_kind, spec_fmt), spec in _HEADERS.items():
        required = [c for c in spec if c.required]
        if spec_kind == other and all(set(c.names) & set(fields) for c in required):
            return spec_fmt
    return None


def _other_kind(kind: str, fields: list[str]) -> str | None:
    """The other kind, when these header fields are its header."""
    if _other_format(kind, fields) is None:
        return None
    return "run" if kind == "qrels" else "qrels"


def _not_a_header(kind: str, fields: list[str]) -> str:
    """Why a header is not one of `kind`, its columns named as words (no tab escapes), and
    which box it belongs in when it is the other kind's header."""
    columns = ", ".join(fields)
    other = "run" if kind == "qrels" else "qrels"
    fmt = _other_format(kind, fields)
    if fmt is not None:
        return (f"the header names the columns {columns}: it looks like a "
                f"{_FORMAT_LABEL[fmt]} {other} file; {_GIVE_IT[other]}")
    wanted = " or ".join(
        ", ".join(c.header for c in spec if c.required)
        for (spec_kind, _), spec in _HEADERS.items() if spec_kind == kind)
    return f"the header names the columns {columns}: a {kind} header names {wanted}"


def _header_fields(line: str) -> tuple[str, list[str]]:
    delimiter = "\t" if "\t" in line else ","
    try:
        fields = next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:  # a field beyond the csv module's size limit: no header holds one
        fields = []
    return delimiter, [f.strip().lower() for f in fields]


def layout_of(src: Source, kind: str, fmt: str) -> Layout:
    if fmt == "trec":
        # three columns ending in a grade; a first line like "judged by me" keeps the
        # four-column layout, so the error points at that line rather than the next
        fields = SPLIT_WS.split(src.first_data_line[1])
        three = kind == "qrels" and len(fields) == 3 and re.match(INTEGER, fields[2])
        return _TREC_QRELS_3 if three else _TREC[kind]
    number, line = src.first_line
    delimiter, names = _header_fields(line)
    spec = _HEADERS[(kind, fmt)]
    _refuse_repeats(src, number, names, spec)
    found = {c.role: next((n for n in c.names if n in names), None) for c in spec}
    missing = [c.describe() for c in spec if c.required and found[c.role] is None]
    if kind == "run" and not any(found.get(role) for role in _ORDER_ROLES):
        missing.append(" or ".join(_ORDER_ROLES))
    if missing:
        other, hint = _other_kind(kind, names), ""
        if other is not None:
            hint = (f"; it looks like a {_FORMAT_LABEL[_other_format(kind, names)]} {other} "
                    f"file; {_GIVE_IT[other]}")
        error = src.fail(
            number,
            f"{_FORMAT_LABEL[fmt]} header lacks column(s) {', '.join(missing)} "
            f"(found {', '.join(names)}){hint}",
        )
        error.belongs = other
        raise error
    columns = {role: names.index(name) for role, name in found.items() if name is not None}
    return Layout(delimiter, len(names), columns, number, f"as in the header on line {number}")


def _refuse_repeats(src: Source, number: int, names: list[str], spec: tuple[_Column, ...]) -> None:
    """A header naming a column twice, or one role by two of its names, is ambiguous."""
    repeated = next((name for i, name in enumerate(names) if name and name in names[:i]), None)
    if repeated is not None:
        raise src.fail(number, f"the header names the column {show(repeated)} twice")
    for column in spec:
        given = [name for name in column.names if name in names]
        if len(given) > 1:
            raise src.fail(
                number,
                f"the header names the {column.role} column twice: "
                + " and ".join(map(show, given)),
            )
