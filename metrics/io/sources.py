"""Sources: a path or the bytes of an upload, read bounded (`streams`), decoded, lines numbered.

A comment line (its first non-blank character is '#') is skipped by the TREC readers, as
trec_eval 10.0 skips it; finding where the data starts and whether a file holds comment
lines is the source's job, so that detection and every reader agree.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from metrics.io.errors import LoadError
from metrics.io.streams import (
    MAX_INPUT_BYTES,
    STDIN,
    STDIN_NAME,
    check_text,
    normalize,
    read_bounded,
)

UPLOAD_NAME = "<upload>"

_BLANK = " \t\r\f\v"  # ASCII whitespace other than the newline: what a blank line may hold
SPLIT_WS = re.compile(r"[ \t\r\f\v]+")
_NON_BLANK = re.compile(rb"[^ \t\r\f\v\n]")
# Two patterns, not one with (?:\A|\n): the alternation makes the scan ten times slower.
_LEADING_BLANK_LINE = re.compile(rb"[ \t\r\f\v]*\n")
_INNER_BLANK_LINE = re.compile(rb"\n[ \t\r\f\v]*\n")
_LEADING_COMMENT = re.compile(rb"[ \t\r\f\v]*#")
_INNER_COMMENT = re.compile(rb"\n[ \t\r\f\v]*#")
COMMENT = "#"


@dataclass(frozen=True, eq=False)
class Source:
    name: str
    raw: bytes  # decompressed; no BOM, no CR, no trailing blank lines; checked as UTF-8
    unit = "line"  # what the load report's line numbers count

    @cached_property
    def text(self) -> str:
        """The file as text, made when a reader asks for it (a JSONL file): the table
        readers read the bytes, and a 35 MB run need not be a 35 MB str too."""
        return self.raw.decode("utf-8")

    def fail(self, line: int | None, problem: str) -> LoadError:
        return LoadError(self.name, line, problem)

    @cached_property
    def first_line(self) -> tuple[int, str]:
        """(line number, text) of the first non-blank line: a CSV/TSV or BEIR header."""
        return self._line_at(_NON_BLANK.search(self.raw).start())

    @cached_property
    def first_data_line(self) -> tuple[int, str]:
        """(line number, text) of the first line neither blank nor a comment, which decides
        the format (and a TREC file's layout)."""
        if not self.has_comment_lines:
            return self.first_line
        found = _NON_BLANK.search(self.raw)
        while found is not None and self.raw[found.start()] == ord(COMMENT):
            end = self.raw.find(b"\n", found.start())
            found = None if end < 0 else _NON_BLANK.search(self.raw, end)
        if found is None:
            raise self.fail(None, "no data lines (only comment lines)")
        return self._line_at(found.start())

    def _line_at(self, start: int) -> tuple[int, str]:
        """(line number, text) of the line holding byte `start`."""
        begin = self.raw.rfind(b"\n", 0, start) + 1
        end = self.raw.find(b"\n", start)
        line = self.raw[begin : end if end >= 0 else len(self.raw)].decode("utf-8")
        return self.raw.count(b"\n", 0, begin) + 1, line.strip(_BLANK)

    @cached_property
    def has_blank_lines(self) -> bool:
        return bool(_LEADING_BLANK_LINE.match(self.raw) or _INNER_BLANK_LINE.search(self.raw))

    @cached_property
    def has_comment_lines(self) -> bool:
        # memchr first: most files hold no '#' at all, and then no regex scans them
        return b"#" in self.raw and bool(
            _LEADING_COMMENT.match(self.raw) or _INNER_COMMENT.search(self.raw)
        )

    def numbered_lines(self) -> Iterable[tuple[int, str]]:
        """Non-blank lines with their 1-based numbers (JSONL: one record a line)."""
        for number, line in enumerate(self.text.split("\n"), 1):
            if line.strip(_BLANK):
                yield number, line


def source_name(source: str | os.PathLike | bytes, name: str | None) -> str:
    """The name messages give a source: `name`, else the path's file name."""
    if name:
        return name
    if isinstance(source, bytes | bytearray | memoryview):
        return UPLOAD_NAME
    path = os.fspath(source)
    return STDIN_NAME if path == STDIN else os.path.basename(path) or path


def open_source(
    source: str | os.PathLike | bytes, name: str | None, max_bytes: int = MAX_INPUT_BYTES
) -> Source:
    """A path (`-` for standard input) or the bytes of an upload, read as a bounded stream
    (see `streams`), gunzipped, decoded as UTF-8."""
    name = source_name(source, name)
    if not isinstance(source, bytes | bytearray | memoryview):
        source = os.fspath(source)
    raw = _trim_trailing_blank_lines(normalize(read_bounded(source, name, max_bytes)))
    check_text(raw, name)
    if not _NON_BLANK.search(raw):
        raise LoadError(name, None, "empty file (no data lines)")
    return Source(name, raw)


def _trim_trailing_blank_lines(raw: bytes) -> bytes:
    # Trailing blank lines shift no line number; dropping them keeps the fast path open.
    end = len(raw)
    while end and raw[end - 1] in b" \t\n\f\v":  # a short walk back, no copy of the file
        end -= 1
    cut = raw.find(b"\n", end) + 1  # keep the newline that ends the last line
    return raw if cut in (0, len(raw)) else raw[:cut]
