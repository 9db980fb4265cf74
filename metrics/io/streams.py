"""Bytes from a source, read as a bounded stream: a path (a regular file, a FIFO, a pipe
such as `<(zcat x.gz)`, standard input as `-` or /dev/stdin) or the bytes of an upload.

Gzip is expanded incrementally, a block at a time, and every source stops with a one-line
`LoadError` as soon as its expanded size passes `max_bytes`, so a decompression bomb or an
endless pipe costs at most the bound (plus one block) in memory. The first block is checked
for binary or non-UTF-8 data before the rest is read. Directories and devices (/dev/zero)
are refused by their type; only a regular file's size is taken from the file system.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import select
import stat
import zlib
from collections.abc import Callable

from metrics.io.errors import LoadError
from metrics.vocabulary.format import shortened
from metrics.vocabulary.numeric import is_number

# 512 MiB of expanded input: about 15 million TREC run lines (a 1,000-deep run over 15,000
# queries). Loading a file holds it about four times over (bytes, text, columns), and
# refusing one holds up to the bound, so the default keeps a refused bomb under 1 GB.
MAX_INPUT_BYTES = 512 << 20
MAX_INPUT_FLAG = "--max-input-mb"  # the command line's name for the bound, in messages
STDIN = "-"  # a path meaning standard input
STDIN_NAME = "<stdin>"
FIRST_BLOCK = 1 << 16  # checked for binary data before anything else is read
_CHUNK = 1 << 24  # the most read or expanded in one step
_RAW_CHUNK = 1 << 20  # compressed bytes fed to zlib in one step
FIFO_WAIT_SECONDS = 10.0  # how long a FIFO nobody has opened for writing is waited on
# A stream read for its lines rather than held (a corpus) is bounded by the work it costs:
# its gzip may expand at most MAX_EXPANSION-fold once past EXPANSION_FLOOR bytes (text
# compresses 3 to 10-fold; a bomb of repeated lines hundreds of times), so a bomb stops
# after about EXPANSION_FLOOR bytes of work, whatever it would expand to.
MAX_EXPANSION = 100
EXPANSION_FLOOR = 64 << 20

# Control bytes no text file holds; \x01 also serves the line reader as its no-delimiter.
_BINARY_BYTES = (b"\x00", b"\x01")
_GZIP_MAGIC = b"\x1f\x8b"


def check_max_bytes(max_bytes: object, name: str = "max_bytes") -> None:
    """A bound in bytes: a positive integer (a bool is not)."""
    if not is_number(max_bytes, integer=True) or max_bytes < 1:
        raise ValueError(f"{name} must be a positive integer, got {max_bytes!r}")


def read_bounded(source: str | bytes, name: str, max_bytes: int) -> bytes:
    """The bytes of a path or an upload, gunzipped, at most `max_bytes` of them."""
    if not isinstance(source, str):  # an upload: its bytes are at hand
        data = bytes(source)
        if gzipped(name, data):
            return _gunzip(b"", io.BytesIO(data).read, name, max_bytes)
        check_head(data[:FIRST_BLOCK], name)
        if len(data) > max_bytes:
            raise too_large(name, max_bytes, "is larger than")
        return data
    fd = open_stream(source, name)
    with open(fd, "rb") as handle:
        status = os.fstat(fd)
        regular = stat.S_ISREG(status.st_mode)
        read = handle.read if regular else waiting_for_writer(handle, fd, name)
        head = read(FIRST_BLOCK)
        if gzipped(name, head):
            return _gunzip(head, read, name, max_bytes)
        check_head(head, name)
        if not regular:  # a FIFO or a pipe: read until it ends, never sized
            return _collect(read, name, max_bytes, "is larger than", head)
        if status.st_size > max_bytes:
            raise too_large(name, max_bytes, "is larger than")
        handle.seek(0)  # a regular file is read in one piece: no parts to join
        data = read(status.st_size + 1)  # one byte more tells a file that grew (or /proc)
        if len(data) <= status.st_size:
            return data
        return _collect(read, name, max_bytes, "is larger than", data)


def gzipped(name: str, head: bytes) -> bool:
    return name.lower().endswith(".gz") or head.startswith(_GZIP_MAGIC)


def _gunzip(head: bytes, read_raw: Callable[[int], bytes], name: str, limit: int) -> bytes:
    expanded = Gunzip(head, read_raw, name, limit).read
    return _collect(expanded, name, limit, "expands beyond")


def _collect(
    read: Callable[[int], bytes], name: str, limit: int, verb: str, head: bytes | None = None
) -> bytes:
    """`head` (already checked), then the rest of `read` until it ends; refused as soon as
    more than `limit` bytes came."""
    if head is None:
        head = read(FIRST_BLOCK)
        check_head(head, name)
    parts, total = [head], len(head)
    while total <= limit:
        chunk = read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return parts[0] if len(parts) == 1 else b"".join(parts)
        parts.append(chunk)
        total += len(chunk)
    parts.clear()
    raise too_large(name, limit, verb)


def too_large(name: str, limit: int, verb: str, flag: str = MAX_INPUT_FLAG) -> LoadError:
    """The one-line refusal of an input past its bound: 'expands beyond the 512 MB limit
    (--max-input-mb)'."""
    return LoadError(name, None, f"{verb} the {describe_bytes(limit)} limit ({flag})",
                     limit=flag)


def describe_bytes(count: int) -> str:
    """A byte count as the limit messages give it: whole MB (2^20 bytes) when it is one."""
    return f"{count >> 20:,} MB" if count % (1 << 20) == 0 else f"{count:,} bytes"


class Gunzip:
    """read(n) of gzip data (one member or several, NUL padding after them allowed, as the
    gzip module reads it), expanded at most n bytes at a time. `limit` bounds the compressed
    bytes; `expanded`, when given, the expanded ones (with its flag's name, for the message),
    and then the expansion ratio too (MAX_EXPANSION)."""

    def __init__(self, head: bytes, read_raw: Callable[[int], bytes], name: str, limit: int,
                 expanded: tuple[int, str] | None = None):
        self._pending, self._read_raw, self._name, self._limit = head, read_raw, name, limit
        self._compressed = len(head)
        self._expanded, self._expanded_limit = 0, expanded
        self._inflate = None  # a zlib decompressor; None between members

    def read(self, n: int) -> bytes:
        while True:
            if not self._pending and not self._refill():
                if self._inflate is not None:
                    raise self._corrupt("it ends before the end of the stream")
                return b""
            if self._inflate is None:
                self._pending = self._pending.lstrip(b"\x00")
                if not self._pending:
                    continue
                self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                out = self._inflate.decompress(self._pending, n)
            except zlib.error as exc:
                raise self._corrupt(str(exc)) from None
            if self._inflate.eof:
                self._pending, self._inflate = self._inflate.unused_data, None
            else:
                self._pending = self._inflate.unconsumed_tail
            if out:
                if self._expanded_limit is not None:
                    self._count(len(out))
                return out

    def _count(self, size: int) -> None:
        self._expanded += size
        limit, flag = self._expanded_limit
        if self._expanded > limit:
            raise too_large(self._name, limit, "expands beyond", flag)
        if self._expanded > max(EXPANSION_FLOOR, MAX_EXPANSION * self._compressed):
            raise LoadError(self._name, None, f"expands more than {MAX_EXPANSION}-fold "
                            f"({self._expanded / 2**20:,.0f} MB from "
                            f"{self._compressed / 2**20:,.1f} MB of gzip): refused as a "
                            "decompression bomb")

    def _refill(self) -> bool:
        self._pending = self._read_raw(_RAW_CHUNK)
        self._compressed += len(self._pending)
        if self._compressed > self._limit:
            raise too_large(self._name, self._limit, "is larger than")
        return bool(self._pending)

    def _corrupt(self, problem: str) -> LoadError:
        return LoadError(self._name, None, f"corrupt gzip data ({problem})")


# --- paths -------------------------------------------------------------------------------


def open_stream(path: str, name: str) -> int:
    """A descriptor open for reading; a FIFO is opened without waiting for a writer."""
    if path == STDIN:
        _refuse_kind(os.fstat(0).st_mode, STDIN_NAME)
        return os.dup(0)
    try:
        _refuse_kind(os.stat(path).st_mode, path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise LoadError(shortened(path, 200), None, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise LoadError(shortened(name, 60), None, f"cannot read the file: its name, "
                            f"{len(name):,} characters, is longer than the file system "
                            "allows") from None
        raise LoadError(name, None, f"cannot read the file ({exc.strerror})") from None
    try:
        _refuse_kind(os.fstat(fd).st_mode, path)  # it may have changed since the stat
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refuse_kind(mode: int, path: str) -> None:
    if stat.S_ISDIR(mode):
        raise LoadError(path, None, "is a directory, not a file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise LoadError(path, None, "is a device, not a file")


def waiting_for_writer(handle: io.BufferedReader, fd: int, name: str) -> Callable[[int], bytes]:
    """read(n) of a FIFO or pipe: when nothing has opened it for writing yet, its first read
    ends at once; wait FIFO_WAIT_SECONDS for a writer before taking it as empty."""
    first = True

    def read(n: int) -> bytes:
        nonlocal first
        data = handle.read(n)
        if first and not data:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if not poller.poll(FIFO_WAIT_SECONDS * 1000):
                raise LoadError(
                    name, None, f"nothing opened this FIFO for writing in {FIFO_WAIT_SECONDS:g} s"
                )
            data = handle.read(n)
        first = False
        return data

    return read


# --- text ----------------------------------------------------------------------------------


def normalize(raw: bytes) -> bytes:
    """Without a UTF-8 byte order mark, and with universal newlines: CRLF and a lone CR each
    end one line."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return raw


def check_head(head: bytes, name: str) -> None:
    """The first block of a file, checked as text before the rest is read."""
    decode(normalize(head), name, final=False)


def decode(raw: bytes, name: str, *, final: bool = True) -> str:
    """UTF-8 text; the first binary or non-UTF-8 byte is named with its line and column.
    `final=False`: a character cut at the end of `raw` is not an error (a first block)."""
    offsets = [offset for offset in map(raw.find, _BINARY_BYTES) if offset >= 0]
    text = ""
    try:
        text = raw.decode("utf-8") if final else codecs.utf_8_decode(raw, "strict", False)[0]
    except UnicodeDecodeError as exc:
        offsets.append(exc.start)
    if offsets:  # name the first bad byte, whichever check found it
        offset = min(offsets)
        line, column = _position(raw, offset)
        raise LoadError(
            name, line, f"binary or non-UTF-8 data (byte 0x{raw[offset]:02x} at column {column})"
        )
    return text


def check_text(raw: bytes, name: str) -> None:
    """decode's checks, without making the text of a file whose bytes are all ASCII (the
    usual run: 13 ms and a str as large as the file saved)."""
    if not raw.isascii() or any(byte in raw for byte in _BINARY_BYTES):
        decode(raw, name)


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    return raw.count(b"\n", 0, offset) + 1, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
