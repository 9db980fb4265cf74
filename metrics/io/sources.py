"""Sources: a path or the bytes of an upload, gunzipped, decoded as UTF-8, lines numbered.

A comment line (its first non-blank character is '#') is skipped by the TREC readers, as
trec_eval 10.0 skips it; finding where the data starts and whether a file holds comment
lines is the source's job, so that detection and every reader agree.
"""

from __future__ import annotations

import codecs
import gzip
import os
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from metrics.io.errors import LoadError

UPLOAD_NAME = "<upload>"

# Control bytes no text file holds; \x01 also serves the line reader as its no-delimiter.
_BINARY_BYTES = (b"\x00", b"\x01")
_BLANK = " \t\r\f\v"  # ASCII whitespace other than the newline: what a blank line may hold
SPLIT_WS = re.compile(r"[ \t\r\f\v]+")
_NON_BLANK = re.compile(r"[^ \t\r\f\v\n]")
# Two patterns, not one with (?:\A|\n): the alternation makes the scan ten times slower.
_LEADING_BLANK_LINE = re.compile(rb"[ \t\r\f\v]*\n")
_INNER_BLANK_LINE = re.compile(rb"\n[ \t\r\f\v]*\n")
_LEADING_COMMENT = re.compile(rb"[ \t\r\f\v]*#")
_INNER_COMMENT = re.compile(rb"\n[ \t\r\f\v]*#")
COMMENT = "#"


@dataclass(frozen=True, eq=False)
class Source:
    name: str
    raw: bytes  # decompressed; no BOM, no CR, no trailing blank lines
    text: str

    def fail(self, line: int | None, problem: str) -> LoadError:
        return LoadError(self.name, line, problem)

    @cached_property
    def first_line(self) -> tuple[int, str]:
        """(line number, text) of the first non-blank line: a CSV/TSV or BEIR header."""
        return self._line_at(_NON_BLANK.search(self.text).start())

    @cached_property
    def first_data_line(self) -> tuple[int, str]:
        """(line number, text) of the first line neither blank nor a comment, which decides
        the format (and a TREC file's layout)."""
        if not self.has_comment_lines:
            return self.first_line
        found = _NON_BLANK.search(self.text)
        while found is not None and self.text[found.start()] == COMMENT:
            end = self.text.find("\n", found.start())
            found = None if end < 0 else _NON_BLANK.search(self.text, end)
        if found is None:
            raise self.fail(None, "no data lines (only comment lines)")
        return self._line_at(found.start())

    def _line_at(self, start: int) -> tuple[int, str]:
        begin = self.text.rfind("\n", 0, start) + 1
        end = self.text.find("\n", start)
        line = self.text[begin : end if end >= 0 else len(self.text)]
        return self.text.count("\n", 0, begin) + 1, line.strip(_BLANK)

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


def open_source(source: str | os.PathLike | bytes, name: str | None) -> Source:
    if isinstance(source, bytes | bytearray | memoryview):
        name = name or UPLOAD_NAME
        raw = bytes(source)
    else:
        path = os.fspath(source)
        name = name or os.path.basename(path) or path
        raw = _read_path(path, name)
    raw = _gunzip(raw, name)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    if b"\r" in raw:  # universal newlines: CRLF and a lone CR each end one line
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    raw = _trim_trailing_blank_lines(raw)
    text = _decode(raw, name)
    if not _NON_BLANK.search(text):
        raise LoadError(name, None, "empty file (no data lines)")
    return Source(name, raw, text)


def _read_path(path: str, name: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise LoadError(path, None, "no such file") from None
    except IsADirectoryError:
        raise LoadError(path, None, "is a directory, not a file") from None
    except OSError as exc:
        raise LoadError(name, None, f"cannot read the file ({exc.strerror})") from None


def _gunzip(raw: bytes, name: str) -> bytes:
    if not (name.lower().endswith(".gz") or raw.startswith(b"\x1f\x8b")):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise LoadError(name, None, f"corrupt gzip data ({exc})") from None


def _trim_trailing_blank_lines(raw: bytes) -> bytes:
    # Trailing blank lines shift no line number; dropping them keeps the fast path open.
    end = len(raw)
    while end and raw[end - 1] in b" \t\n\f\v":  # a short walk back, no copy of the file
        end -= 1
    cut = raw.find(b"\n", end) + 1  # keep the newline that ends the last line
    return raw if cut in (0, len(raw)) else raw[:cut]


def _decode(raw: bytes, name: str) -> str:
    offsets = [offset for offset in map(raw.find, _BINARY_BYTES) if offset >= 0]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        offsets.append(exc.start)
    if offsets:  # name the first bad byte, whichever check found it
        offset = min(offsets)
        line, column = _position(raw, offset)
        raise LoadError(
            name, line, f"binary or non-UTF-8 data (byte 0x{raw[offset]:02x} at column {column})"
        )
    return text


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    return raw.count(b"\n", 0, offset) + 1, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
