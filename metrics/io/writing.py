"""The one way a file is written: every file the command line and the report command write
(--out, --per-query-out, --load-report, a snapshot) goes through `replacing`, so that nothing
at the path is lost or left half-written when a write fails; the files of a CI runner (its
job summary, its step outputs) are added to, in one write (`append_text`).

The new contents go to a temporary file beside the target (same directory, so the same file
system), are flushed to disk, and only then renamed over the target, which is atomic: the
target holds either its old contents or the new ones, never a part. A write that fails (a
full disk, a quota, `ulimit -f`) leaves the old file as it was and removes the temporary one,
and is one line naming the path and the reason, and the flag when a command names it
(`CannotWrite`). A symbolic link is followed, so the link keeps pointing at the new contents;
a file kept is replaced with its permissions. A target that is not a regular file (/dev/null,
a FIFO) cannot be renamed over and is written in place, and so is a name under /dev or /proc
(/dev/stderr redirected to a log resolves to the log, which a rename would detach).

Standard output cannot be replaced so; a write to it that fails (a full disk behind a
redirection, a closed pipe) is one line too, naming it (`standard_output_named`).

`paths_meet` says whether writing one path would write over another (one file, or a file
inside a directory): what the command line compares each output with every input and with
the other outputs, so that no flag writes over what another reads or writes.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from metrics.vocabulary.format import shortened, terminal

PathLike = str | os.PathLike
STANDARD_OUTPUT = "standard output"  # how a failed write to it names it


class CannotWrite(OSError):
    """A file that could not be written, in one line: '--out r.html: cannot write (No space
    left on device)'; an OSError, as the failed write was."""

    def __init__(self, path: PathLike, reason: str, flag: str | None = None) -> None:
        super().__init__(reason)
        self.path, self.reason, self.flag = os.fspath(path), reason, flag

    def __str__(self) -> str:
        named = terminal(shortened(self.path, 200))
        return f"{self.flag + ' ' if self.flag else ''}{named}: cannot write ({self.reason})"

    def naming(self, flag: str) -> CannotWrite:
        """The same failure, naming the flag that gave the path."""
        return CannotWrite(self.path, self.reason, flag)


@contextmanager
def for_flag(flag: str | None) -> Iterator[None]:
    """A CannotWrite raised inside names `flag` too, when given (the writers below the
    command line take a path, not the flag that named it)."""
    try:
        yield
    except CannotWrite as error:
        if flag is None:
            raise
        raise error.naming(flag) from None


@contextmanager
def replacing(path: PathLike) -> Iterator[Path]:
    """The path to write `path`'s new contents to, renamed over `path` once the block ends
    without an error (see the module's docstring); on any error the temporary file is
    removed, `path` is left as it was, and an OSError becomes a CannotWrite naming `path`."""
    try:
        kept = os.stat(path)
    except FileNotFoundError:
        kept = None
    except (OSError, ValueError) as error:
        raise CannotWrite(path, _reason(error)) from None
    if kept is not None and stat.S_ISDIR(kept.st_mode):
        raise CannotWrite(path, "it is a directory")
    if kept is not None and _in_place(path, kept):
        try:
            yield Path(path)
        except OSError as error:
            raise CannotWrite(path, _reason(error)) from None
        return
    target = Path(os.path.realpath(path))  # a link is followed: it keeps pointing here
    temporary = _create_beside(target, path, None if kept is None else kept.st_mode)
    try:
        yield temporary
        _flush_to_disk(temporary)
        os.replace(temporary, target)
    except OSError as error:
        _remove(temporary)
        raise CannotWrite(path, _reason(error)) from None
    except BaseException:
        _remove(temporary)
        raise


class _NamedStream:
    """A text stream whose failed writes and flushes are a CannotWrite naming `name`; the
    rest is the stream's own."""

    def __init__(self, stream, name: str) -> None:
        self._stream, self._name = stream, name

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except CannotWrite:
            raise
        except OSError as error:
            raise CannotWrite(self._name, _reason(error)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise CannotWrite(self._name, _reason(error)) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def standard_output_named() -> Iterator[None]:
    """Inside, a write to standard output that fails (and the flush when the block ends,
    which the last lines of a short output wait for) is a CannotWrite naming it:
    'standard output: cannot write (No space left on device)', not a bare errno."""
    stream = sys.stdout
    named = _NamedStream(stream, STANDARD_OUTPUT)
    sys.stdout = named
    try:
        yield
        named.flush()
    finally:
        if sys.stdout is named:
            sys.stdout = stream


# where a path names a device or another file's descriptor (/dev/stdout, /dev/fd/3,
# /proc/self/fd/1): renaming over what it resolves to would detach it from the process
_DESCRIPTORS = ("/dev/", "/proc/")


def _in_place(path: PathLike, kept: os.stat_result) -> bool:
    """Whether `path` is written where it is rather than replaced: a device or a FIFO, which
    cannot be renamed over, or a name of a descriptor (a redirected /dev/stderr resolves to
    the log file the shell opened)."""
    return not stat.S_ISREG(kept.st_mode) or os.path.abspath(path).startswith(_DESCRIPTORS)


def write_text(path: PathLike, text: str, *, flag: str | None = None) -> None:
    """`text` as UTF-8, replacing whatever `path` held only once it is all written; a
    failure names `flag` when given."""
    with for_flag(flag), replacing(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def append_text(path: PathLike, text: str, *, name: str | None = None) -> None:
    """`text` added at the end of `path` as UTF-8, in one write: the one file this tool adds
    to rather than replaces is a CI runner's (its job summary, its step outputs), which other
    steps wrote before and the runner reads after. A failure names `name` when given (the
    variable that named the file)."""
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    except (OSError, ValueError) as error:
        raise CannotWrite(path, _reason(error), name) from None


def _create_beside(target: Path, path: PathLike, mode: int | None) -> Path:
    """A new empty file in the target's directory, with the target's permissions when it
    exists (else a new file's: 0o666 less the umask, as open() gives)."""
    stem = target.name[:64]  # the file system bounds a name; the random part makes it new
    for _ in range(8):
        temporary = target.with_name(f".{stem}.{secrets.token_hex(6)}.tmp")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as error:
            raise CannotWrite(path, _reason(error)) from None
        try:
            if mode is not None:
                os.fchmod(handle, stat.S_IMODE(mode))
        except OSError:  # not the owner: the new file keeps a new file's permissions
            pass
        finally:
            os.close(handle)
        return temporary
    raise CannotWrite(path, "no temporary name free beside it")


def _flush_to_disk(temporary: Path) -> None:
    """The written bytes on disk before the rename, so a crash cannot leave the new name on
    an empty file (and a full disk that a write let pass is found here)."""
    handle = os.open(temporary, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _remove(temporary: Path) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        pass


def _reason(error: Exception) -> str:
    """What went wrong, without the errno's number or a path (the message names the path):
    'File too large', 'No space left on device', 'Permission denied'."""
    number = getattr(error, "errno", None)
    if isinstance(number, int) and number > 0:  # pyarrow's words for it say less
        return os.strerror(number)
    return str(error) or type(error).__name__


def paths_meet(written: PathLike, given: PathLike) -> bool:
    """Whether writing `written` would write over `given`: the two name one file, as the
    file system resolves them (a link, `./x` and `x`, a hard link), or `written` lies inside
    `given`, a directory. Files that exist and are neither regular files nor directories
    (/dev/null, /dev/stdout, a FIFO) never meet: writing one destroys nothing another reads."""
    a, b = _stat(written), _stat(given)
    if a is not None and b is not None:
        if (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
            return not _special(a)
        if _special(a) or _special(b):
            return False
    try:
        written_at, given_at = os.path.realpath(written), os.path.realpath(given)
    except (OSError, ValueError):
        return False
    inside = b is not None and stat.S_ISDIR(b.st_mode)
    return written_at == given_at or (
        inside and written_at.startswith(given_at.rstrip(os.sep) + os.sep))


def _stat(path: PathLike) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # missing, unreadable, or a name no file can have
        return None


def _special(found: os.stat_result) -> bool:
    return not (stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode))


__all__ = ["STANDARD_OUTPUT", "CannotWrite", "for_flag", "paths_meet", "replacing",
           "standard_output_named", "write_text"]
