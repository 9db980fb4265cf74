"""The loaders' error, and how its one-line messages show values read from a file."""

from __future__ import annotations

import reprlib
from collections.abc import Sequence


class LoadError(ValueError):
    """A file that cannot be loaded; the message is one line, `FILE, line N: problem` (`row N`
    for a Parquet file or a table, whose rows are not lines). `belongs` names the kind of
    file it looks like ("qrels" or "run") when it was given as the other kind, so that a
    program can say where to put it; `limit` names the flag of the size bound that refused
    it, so that a program can say what else reads it."""

    def __init__(self, source: str, line: int | None, problem: str, unit: str = "line", *,
                 belongs: str | None = None, limit: str | None = None) -> None:
        self.source, self.line, self.problem, self.belongs = source, line, problem, belongs
        self.limit = limit
        where = source if line is None else f"{source}, {unit} {line}"
        super().__init__(f"{where}: {problem}")


_NESTED = reprlib.Repr()  # a container's repr, a few levels deep (JSON may nest deeply)
_NESTED.maxlevel = 3


def show(value: object, limit: int = 40) -> str:
    """A value for a one-line message: repr, shortened."""
    if isinstance(value, list | dict | tuple | set):
        text = _NESTED.repr(value)
    else:  # a long string is cut before its repr is made
        text = repr(value[: limit + 1] if isinstance(value, str) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_choice(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
