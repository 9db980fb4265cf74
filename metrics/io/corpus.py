"""A corpus file: the texts of the documents the runs retrieved, read as a stream.

Corpora are large (MS MARCO's 8.8 million passages are about 3 GB), so `read_corpus` keeps
only the documents whose ids it is asked for: the file is read a block at a time and line by
line, and memory grows with the ids wanted, not with the file. Unlike the qrels and run
readers it never holds the whole file (no `read_bounded`, whose bound is for those); each line
is bounded instead (MAX_LINE_BYTES), and so are the texts kept (`max_text_bytes`). The work is
bounded too: the bytes read, after gzip expansion (`max_bytes`, MAX_CORPUS_BYTES by default),
and a gzip's expansion ratio (`streams.MAX_EXPANSION`), so a small bomb of unwanted lines is
refused after a second of work, not read for minutes.

Formats, told apart by the first non-blank line (`format="auto"`); gzip, known by the name
or its magic bytes, is expanded as it is read:
- `beir`: BEIR's corpus.jsonl, `{"_id": ..., "title": ..., "text": ...}`;
- `jsonl`: `{"doc_id": ..., "text": ..., "title": ...}`.
  In both, "title" may be absent or null (then ""), other keys are ignored, and an id may be
  a JSON integer, as in the qrels and run readers.
- `tsv`: `doc_id<TAB>text`, as MS MARCO's collection.tsv: no header, no title. The text is
  everything after the first tab, so a tab inside it (or a third column) is kept, never cut
  off; the report counts such lines. Ids are stripped of surrounding blanks.

A line ends at "\\n" (a "\\r" before it is dropped; a lone "\\r" is part of the text), and
blank lines are skipped. The first block is checked for binary data; every line is checked
for its id (a JSON line must open a record with the id key, or parse as a record; a TSV line
must hold a tab; no id may be empty); a line whose id is wanted is parsed and checked in full
(UTF-8, valid JSON, an object, a string text). A line whose id is not wanted is not parsed
past its id: that is what makes a 3 GB file quick to read. The first malformed line stops the
read with a `LoadError`, `FILE, line N: problem`.

An id on several lines keeps its first text; the repeats are counted, among the wanted ids
only (counting them among all would hold every id of the corpus).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

from metrics.io.errors import LoadError, check_choice, show
from metrics.io.jsonl import DuplicateKey, encodes, json_type, json_value, unique_keys
from metrics.io.reader import MAX_LINE_BYTES
from metrics.io.report import ReportLine
from metrics.io.sources import source_name
from metrics.io.streams import (
    FIRST_BLOCK,
    Gunzip,
    check_head,
    check_max_bytes,
    decode,
    describe_bytes,
    gzipped,
    open_stream,
    too_large,
    waiting_for_writer,
)

CORPUS_FORMATS = ("beir", "jsonl", "tsv")
# The texts kept, in bytes of the lines that hold them. MS MARCO passages average about 350
# bytes, so 256 MiB holds some 700,000 of them: the distinct ids of 5 runs x 5,000 queries x
# 100 ids, which overlap. Held as Python strings, they stay well under 1 GB.
MAX_CORPUS_TEXT_BYTES = 256 << 20
# The bytes a corpus may hold, or its gzip expand to: MS MARCO's collection.tsv is 2.9 GB
MAX_CORPUS_BYTES = 8 << 30
MAX_CORPUS_FLAG = "--max-corpus-mb"  # the command line's name for the bound, in messages
SHOWN = 10  # missing ids and repeated lines listed in the report
# Bytes read (or expanded) in one step, whose lines are split at once: larger blocks are no
# faster, and each costs about three times its size in memory while it is split.
_READ = 1 << 18
_UNBOUNDED = sys.maxsize  # compressed bytes: a corpus is as long as it is, only lines are bounded
_ID_KEYS = {"beir": "_id", "jsonl": "doc_id"}


@dataclass(frozen=True, eq=False)
class Corpus:
    """The documents found among the ids wanted, in the order they were wanted."""

    source: str
    doc_ids: tuple[str, ...]
    titles: tuple[str, ...]  # "" when the file gives none (TSV, or no "title")
    texts: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not len(self.doc_ids) == len(self.titles) == len(self.texts):
            raise ValueError(
                f"doc_ids, titles and texts differ in length ({len(self.doc_ids)}, "
                f"{len(self.titles)}, {len(self.texts)})"
            )
        index = {doc: i for i, doc in enumerate(self.doc_ids)}
        if len(index) < len(self.doc_ids):
            raise ValueError("doc_ids repeat an id")
        object.__setattr__(self, "_index", index)

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._index

    def text(self, doc_id: str) -> str | None:
        """The text of `doc_id`, None when the corpus does not hold it."""
        i = self._index.get(doc_id)
        return None if i is None else self.texts[i]

    def title(self, doc_id: str) -> str | None:
        """The title of `doc_id` ("" when it has none), None when the corpus does not hold it."""
        i = self._index.get(doc_id)
        return None if i is None else self.titles[i]

    @cached_property
    def words_per_chunk(self) -> float:
        """Mean whitespace-separated words of the texts (titles not counted); 0.0 when empty.
        A token cost is about 1.3 tokens a word."""
        if not self.texts:
            return 0.0
        return sum(len(text.split()) for text in self.texts) / len(self.texts)


@dataclass(frozen=True)
class CorpusReport:
    """What a corpus read found. Invariant: lines_read == found + skipped + repeats."""

    source: str
    format: str  # one of CORPUS_FORMATS
    lines_read: int  # non-blank lines
    wanted: int  # distinct ids asked for
    found: int  # of them, in the corpus
    missing: int  # of them, not in the corpus
    missing_ids: tuple[str, ...]  # the first SHOWN of those, in the order wanted
    skipped: int  # lines whose id was not wanted
    repeats: int  # lines of a wanted id already kept: the first line's text is the one kept
    repeat_lines: tuple[ReportLine, ...]  # the first SHOWN of those
    wide_lines: int = 0  # TSV lines kept whose text holds a tab (a third column, perhaps)

    def summary(self) -> str:
        parts = [
            _count(self.lines_read, "line") + " read",
            f"{self.found:,} of {_count(self.wanted, 'wanted id')} found",
            _count(self.skipped, "line") + " of other ids skipped",
        ]
        if self.missing:
            shown = ", ".join(show(doc) for doc in self.missing_ids)
            more = ", ..." if self.missing > len(self.missing_ids) else ""
            parts.append(f"{self.missing:,} not in the corpus ({shown}{more})")
        if self.repeats:
            parts.append(_count(self.repeats, "repeated id") + " (the first text kept)")
        if self.wide_lines:
            parts.append(_count(self.wide_lines, "text") + " holding a tab (kept in the text)")
        return f"{self.source}: " + ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def read_corpus(
    source: str | os.PathLike | bytes,
    wanted: Iterable[str],
    *,
    file_name: str | None = None,
    format: str = "auto",
    max_text_bytes: int = MAX_CORPUS_TEXT_BYTES,
    max_bytes: int = MAX_CORPUS_BYTES,
) -> tuple[Corpus, CorpusReport]:
    """The texts of the `wanted` ids (repeats among them are taken once) from a corpus file:
    a path (`-` for standard input), or the bytes of an upload named `file_name`. Read as a
    stream (see the module's docstring); a `LoadError` for a malformed line, an empty or
    binary file, a line over MAX_LINE_BYTES, kept texts over `max_text_bytes`, more than
    `max_bytes` read (after gzip expansion), or a gzip that expands like a bomb."""
    check_choice("format", format, ("auto", *CORPUS_FORMATS))
    check_max_bytes(max_bytes)
    check_max_bytes(max_text_bytes, "max_text_bytes")
    want = _wanted(wanted)
    name = source_name(source, file_name)
    try:
        with _stream(source, name, max_bytes) as read:
            fmt, lines = _format_and_lines(read, name, format)
            found = _Found(name, fmt, want, max_text_bytes)
            found.read(lines)
    except MemoryError:
        raise LoadError(name, None, "too large to hold in memory: ask for fewer ids") from None
    return found.results()


def iter_documents(
    source: str | os.PathLike | bytes,
    *,
    file_name: str | None = None,
    format: str = "auto",
    max_bytes: int = MAX_CORPUS_BYTES,
) -> Iterator[tuple[str, str, str]]:
    """Every document of a corpus file as (doc_id, title, text), in file order: for a check
    that must read the whole corpus (the leakage check's corpus scope) without holding it.

    The same stream, formats and errors as `read_corpus` (a `LoadError`, `FILE, line N:
    problem`, for an empty or binary file, a line over MAX_LINE_BYTES or a malformed line),
    but every line is parsed and checked in full, and nothing is kept from one line to the
    next: memory stays that of one block, and a repeated id is yielded again (telling repeats
    apart would hold every id). The arguments are checked at once; the file is opened when
    the first document is asked for."""
    check_choice("format", format, ("auto", *CORPUS_FORMATS))
    check_max_bytes(max_bytes)
    return _documents(source, source_name(source, file_name), format, max_bytes)


def _documents(
    source: str | os.PathLike | bytes, name: str, format: str, max_bytes: int
) -> Iterator[tuple[str, str, str]]:
    with _stream(source, name, max_bytes) as read:
        fmt, lines = _format_and_lines(read, name, format)
        parse = _tsv_doc if fmt == "tsv" else _json_doc(fmt)
        for number, line in lines:
            if line.strip():
                yield parse(line, number, name)


def _format_and_lines(read: Callable[[int], bytes], name: str,
                      format: str) -> tuple[str, Iterator[tuple[int, bytes]]]:
    """The format (told from the first non-blank line when "auto") and the numbered lines
    from that one on; a LoadError for a file without a data line."""
    lines = _numbered_lines(read, name)
    first = next(((n, line) for n, line in lines if line.strip()), None)
    if first is None:
        raise LoadError(name, None, "empty file (no data lines)")
    fmt = _detect(*first, name) if format == "auto" else format
    return fmt, itertools.chain([first], lines)


def _wanted(wanted: Iterable[str]) -> dict[str, None]:
    if isinstance(wanted, str | bytes):
        raise ValueError(f"wanted must be an iterable of ids, not one {type(wanted).__name__}")
    want = dict.fromkeys(wanted)  # ordered, each id once
    odd = next((doc for doc in want if not isinstance(doc, str)), None)
    if odd is not None:
        raise ValueError(f"wanted ids must be strings, got {type(odd).__name__} {show(odd)}")
    return want


# --- the stream ----------------------------------------------------------------------------


@contextmanager
def _stream(source: str | os.PathLike | bytes, name: str,
            max_bytes: int) -> Iterator[Callable[[int], bytes]]:
    """read(n) of the source's bytes, gunzipped as they come, at most `max_bytes` of them."""
    if isinstance(source, bytes | bytearray | memoryview):
        yield _expanded(io.BytesIO(source).read, name, max_bytes)
        return
    fd = open_stream(os.fspath(source), name)  # refuses directories and devices; `-` is stdin
    with open(fd, "rb") as handle:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        read = handle.read if regular else waiting_for_writer(handle, fd, name)
        yield _expanded(read, name, max_bytes)


def _expanded(read: Callable[[int], bytes], name: str, max_bytes: int) -> Callable[[int], bytes]:
    head = read(FIRST_BLOCK)
    if gzipped(name, head):
        return Gunzip(head, read, name, _UNBOUNDED, expanded=(max_bytes, MAX_CORPUS_FLAG)).read
    pending, total = [head], len(head)

    def read_on(n: int) -> bytes:
        nonlocal total
        if pending:
            return pending.pop()
        chunk = read(n)
        total += len(chunk)
        if total > max_bytes:
            raise too_large(name, max_bytes, "is larger than", MAX_CORPUS_FLAG)
        return chunk

    return read_on


def _numbered_lines(read: Callable[[int], bytes], name: str) -> Iterator[tuple[int, bytes]]:
    """Each line (blank ones too) with its 1-based number, its "\\n" or "\\r\\n" cut off. A block
    is split at once; only the line cut by the block's end is carried over, and a line that
    passes MAX_LINE_BYTES stops the read."""
    number, carry, first = 0, b"", True
    while chunk := read(_READ):
        if first:
            check_head(chunk[:FIRST_BLOCK], name)
            chunk, first = chunk.removeprefix(b"\xef\xbb\xbf"), False
        data = carry + chunk
        if b"\r" in data:  # a "\r\n" cut by a block's end is whole again here
            data = data.replace(b"\r\n", b"\n")
        lines = data.split(b"\n")
        carry = lines.pop()
        if lines and len(lines[0]) > MAX_LINE_BYTES:  # the others lie inside one block
            raise _too_long(name, number + 1)
        for line in lines:
            number += 1
            yield number, line
        if len(carry) > MAX_LINE_BYTES:
            raise _too_long(name, number + 1)
    if carry:
        yield number + 1, carry.removesuffix(b"\r")


def _too_long(name: str, number: int) -> LoadError:
    return LoadError(name, number, f"line longer than {describe_bytes(MAX_LINE_BYTES)}")


# --- formats -------------------------------------------------------------------------------


def _detect(number: int, line: bytes, name: str) -> str:
    """The format of the first non-blank line."""
    if line.lstrip().startswith(b"{"):
        record = _json_record(line, number, name)
        for fmt, key in _ID_KEYS.items():
            if key in record:
                return fmt
        raise LoadError(
            name, number, "a JSON record with neither '_id' (BEIR corpus.jsonl) nor 'doc_id'"
        )
    if b"\t" in line:
        return "tsv"
    raise LoadError(
        name, number, "not a corpus line: expected a JSON record {\"_id\": ..., \"text\": ...} "
        f"or doc_id<TAB>text, got {show(_decoded(line, number, name))}"
    )


# A record that opens with its id key and a string id without escapes: the id's bytes are
# the UTF-8 of the id, read without parsing the line. Anything else (an escape, an integer
# id, another key first) is parsed in full.
_FAST_ID = {
    fmt: re.compile(rb'[ \t]*\{[ \t]*"' + key.encode() + rb'"[ \t]*:[ \t]*"([^"\\]*)"')
    for fmt, key in _ID_KEYS.items()
}


def _json_fast_id(fmt: str) -> Callable[[bytes], bytes | None]:
    match = _FAST_ID[fmt].match

    def fast_id(line: bytes) -> bytes | None:
        found = match(line)
        # a record cut short would still match: its closing brace is checked too
        return found[1] if found and line.rstrip().endswith(b"}") else None

    return fast_id


def _tsv_fast_id(line: bytes) -> bytes | None:
    tab = line.find(b"\t")
    return None if tab < 0 else line[:tab].strip()


def _json_doc(fmt: str) -> Callable[[bytes, int, str], tuple[str, str, str]]:
    key = _ID_KEYS[fmt]

    def doc(line: bytes, number: int, name: str) -> tuple[str, str, str]:
        """(id, title, text) of a JSON line, checked."""
        record = _json_record(line, number, name)
        if key not in record:
            raise LoadError(name, number, f"JSON record has no {key!r}")
        doc_id = record[key]
        if isinstance(doc_id, int) and not isinstance(doc_id, bool):
            doc_id = str(doc_id)
        elif not isinstance(doc_id, str):
            raise LoadError(name, number, f"{key} must be a string id, got {json_value(doc_id)}")
        if not doc_id:
            raise LoadError(name, number, "empty doc id")
        if "text" not in record:
            raise LoadError(name, number, "JSON record has no 'text'")
        text, title = record["text"], record.get("title")
        title = "" if title is None else title
        for what, value in (("text", text), ("title", title)):
            if not isinstance(value, str):
                raise LoadError(name, number, f"{what!r} must be a string, got {json_type(value)}")
        if b"\\u" in line:  # half a surrogate pair ("\ud800") is not text
            _check_surrogates(name, number, {key: doc_id, "title": title, "text": text})
        return doc_id, title, text

    return doc


def _check_surrogates(name: str, number: int, values: dict[str, str]) -> None:
    for what, value in values.items():
        if not encodes(value):
            raise LoadError(
                name, number, f"{what} {show(value)} is not valid UTF-8 (a lone surrogate escape)"
            )


def _tsv_doc(line: bytes, number: int, name: str) -> tuple[str, str, str]:
    doc_id, tab, text = _decoded(line, number, name).partition("\t")
    if not tab:
        raise LoadError(name, number, "no tab: expected doc_id<TAB>text")
    doc_id = doc_id.strip()
    if not doc_id:
        raise LoadError(name, number, "empty doc id")
    return doc_id, "", text


def _json_record(line: bytes, number: int, name: str) -> dict:
    try:
        record = json.loads(_decoded(line, number, name), object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise LoadError(
            name, number, f"not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    except DuplicateKey as exc:
        raise LoadError(name, number, f"JSON object repeats the key {show(str(exc))}") from None
    except RecursionError:
        raise LoadError(name, number, "JSON nested too deeply") from None
    except ValueError as exc:  # Python's limit on the digits of an integer
        raise LoadError(name, number, f"not valid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise LoadError(name, number, f"expected a JSON object, got {json_type(record)}")
    return record


def _decoded(line: bytes, number: int, name: str) -> str:
    try:
        return decode(line, name)
    except LoadError as exc:  # decode numbers the lines of what it is given: one line here
        raise LoadError(name, number, exc.problem) from None


# --- the documents kept ----------------------------------------------------------------------


class _Found:
    """The documents kept from the lines read, and the counts the report gives."""

    def __init__(self, name: str, fmt: str, want: dict[str, None], max_text_bytes: int):
        self.name, self.fmt, self.want, self.max_text_bytes = name, fmt, want, max_text_bytes
        self.kept: dict[str, tuple[str, str, int]] = {}  # id -> (title, text, line)
        self.lines_read = self.skipped = self.repeats = self.wide_lines = 0
        self.repeat_lines: list[ReportLine] = []

    def read(self, lines: Iterable[tuple[int, bytes]]) -> None:
        # the loop every line of a large file goes through: locals, and a dict lookup on the
        # id's bytes; only the lines kept are decoded and parsed
        fast_id = _tsv_fast_id if self.fmt == "tsv" else _json_fast_id(self.fmt)
        parse = _tsv_doc if self.fmt == "tsv" else _json_doc(self.fmt)
        by_bytes = {doc.encode("utf-8", "surrogatepass"): doc for doc in self.want}
        want, kept, name, used, read, skipped = self.want, self.kept, self.name, 0, 0, 0
        for number, line in lines:
            key = fast_id(line)
            if key is None:  # not read by its bytes: blank, or parsed in full
                if not line.strip():
                    continue
                doc_id, title, text = parse(line, number, name)
                if doc_id not in want:
                    read, skipped = read + 1, skipped + 1
                    continue
            else:
                doc_id = by_bytes.get(key)
                if doc_id is None:
                    if not key:
                        raise LoadError(name, number, "empty doc id")
                    read, skipped = read + 1, skipped + 1
                    continue
                doc_id, title, text = parse(line, number, name)
            read += 1
            if doc_id in kept:
                self._repeat(doc_id, number)
                continue
            used += len(line)
            if used > self.max_text_bytes:
                raise LoadError(
                    name, number, f"the texts of the wanted ids pass the "
                    f"{describe_bytes(self.max_text_bytes)} limit (max_text_bytes): ask for "
                    "fewer ids"
                )
            kept[doc_id] = (title, text, number)
            if self.fmt == "tsv" and "\t" in text:
                self.wide_lines += 1
        self.lines_read, self.skipped = read, skipped

    def _repeat(self, doc_id: str, number: int) -> None:
        self.repeats += 1
        if len(self.repeat_lines) < SHOWN:
            first = self.kept[doc_id][2]
            self.repeat_lines.append(
                ReportLine(number, f"repeats the id {show(doc_id)} of line {first}; not used")
            )

    def results(self) -> tuple[Corpus, CorpusReport]:
        kept = self.kept
        doc_ids = tuple(doc for doc in self.want if doc in kept)
        corpus = Corpus(
            self.name, doc_ids, tuple(kept[doc][0] for doc in doc_ids),
            tuple(kept[doc][1] for doc in doc_ids),
        )
        missing = tuple(itertools.islice((doc for doc in self.want if doc not in kept), SHOWN))
        report = CorpusReport(
            source=self.name, format=self.fmt, lines_read=self.lines_read,
            wanted=len(self.want), found=len(kept), missing=len(self.want) - len(kept),
            missing_ids=missing, skipped=self.skipped, repeats=self.repeats,
            repeat_lines=tuple(self.repeat_lines), wide_lines=self.wide_lines,
        )
        return corpus, report
