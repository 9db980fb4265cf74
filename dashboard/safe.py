"""Untrusted text made safe, in one place: every id, run name, file name, query or chunk text
and URL value that reaches something which renders Markdown or HTML, or a CSV a spreadsheet
opens, goes through these functions (and only once: a table cell, which renders no markup,
gets the text as it is).

- `md`: for st.markdown, st.caption, st.error and the like, and every widget label (labels
  render Markdown too). Every ASCII punctuation character is backslash-escaped, which
  CommonMark allows for all of them: no emphasis, link, image, heading, table, HTML, KaTeX
  (`$`) or Streamlit directive (`:red[...]`, `:material/...:`) can form. Escapes do not stop
  GFM's autolinks, which are found in each text node after parsing (`http://`, `www.`,
  `a@b.c`), and neither do HTML entities (decoded into the same text). So the start of each
  (a scheme before `:`, `www` before `.`, an e-mail's `@`) is put in a text node of its own:
  `:color[http]`, the one Streamlit directive that draws a bare <span> (no colour is
  given). The reader sees, and copies, exactly the characters; no invisible character is
  added. Line breaks become spaces, so a value cannot start a block of its own.
- `html`: for the HTML report (quotes included).
- `csv_cells`: OWASP's CSV-injection rule: a text cell that starts with `=`, `+`, `-`, `@`,
  a tab or a carriage return is prefixed with `'`, so no spreadsheet reads it as a formula;
  numbers stay numbers.
"""

from __future__ import annotations

import html as _html
import re
import string

import pandas as pd

from metrics import FORMULA_STARTS, csv_cell  # noqa: F401  (FORMULA_STARTS: re-exported)

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c]+")
# where GFM's autolink literal would start: a URL scheme before ':', 'www' before '.', the
# '@' of an address (remark-gfm's patterns: https?://, www., and [-.\w+]+@[-\w]+)
_AUTOLINK_STARTS = re.compile(
    r"(?i)(\b(?:https?|ftp|mailto|xmpp)(?=:)|\bwww(?=\.)|(?<=[-.\w+])@)"
)
# a text node of its own: Streamlit draws `:color[...]` without a colour as a plain <span>
APART = ":color[{}]"


def md(text: object) -> str:
    """`text` as literal characters in Markdown: 'a*b' shows as a*b, never as emphasis, and
    'http://x' as text, never as a link."""
    text = _LINE_BREAKS.sub(" ", str(text))
    pieces, start = [], 0
    for match in _AUTOLINK_STARTS.finditer(text):
        pieces.append(_escaped(text[start:match.start()]))
        pieces.append(APART.format(_escaped(match.group(0))))
        start = match.end()
    pieces.append(_escaped(text[start:]))
    return "".join(pieces)


def _escaped(text: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", text)


def html(text: object) -> str:
    """`text` as literal characters in HTML (attribute values included)."""
    return _html.escape(str(text), quote=True)


def csv_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell neutralised (numeric columns untouched)."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(csv_cell)
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


def csv_text(frame: pd.DataFrame) -> str:
    """The frame as CSV text, safe to open in a spreadsheet."""
    # RFC 4180 line ends, so that a cell holding a carriage return is quoted
    return csv_cells(frame).to_csv(index=False, lineterminator="\r\n")
