"""OWASP's CSV-injection rule, for every CSV the engine or the dashboard writes: a text cell
that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`, so no
spreadsheet reads it as a formula; numbers stay numbers."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A text cell a spreadsheet would read as a formula gets a leading `'`."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
