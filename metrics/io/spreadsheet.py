"""Every text cell of every CSV the engine or the dashboard writes: its characters no output
writes as they are (a line break, a tab, ESC, a bidirectional override) as their escapes
(`format.terminal`), so that an id adds no row and drives no terminal; then OWASP's
CSV-injection rule: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
is prefixed with `'`, so no spreadsheet reads it as a formula; numbers stay numbers."""

from __future__ import annotations

from metrics.vocabulary.format import terminal

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A text cell escaped (`format.terminal`); one a spreadsheet would read as a formula
    gets a leading `'`."""
    if not isinstance(value, str):
        return value
    value = terminal(value)
    return "'" + value if value.startswith(FORMULA_STARTS) else value
