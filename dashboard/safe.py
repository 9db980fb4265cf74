"""Untrusted text made safe, in one place: every id, run name, file name, query or chunk text
and URL value that reaches something which renders Markdown or HTML, or a CSV a spreadsheet
opens, goes through these functions (and only once: a table cell, which renders no markup,
gets the text as it is).

- `md`: for st.markdown, st.caption, st.error and the like, and every label Streamlit only
  renders (a tab, an expander, a metric, a button, a link): Streamlit's Markdown only, never
  Markdown that GitHub renders (GitHub shows its `:color[...]` as written, and makes a
  mention of '@org'). Every ASCII punctuation
  character is backslash-escaped, which
  CommonMark allows for all of them: no emphasis, link, image, heading, table, HTML, KaTeX
  (`$`) or Streamlit directive (`:red[...]`, `:material/...:`) can form. Escapes do not stop
  GFM's autolinks, which are found in each text node after parsing (`http://`, `www.`,
  `a@b.c`), and neither do HTML entities (decoded into the same text). So the start of each
  (a scheme before `:`, `www` before `.`, an e-mail's `@`) is put in a text node of its own:
  `:color[http]`, the one Streamlit directive that draws a bare <span> (no colour is
  given). The reader sees, and copies, exactly the characters; no invisible character is
  added. Line breaks become spaces, so a value cannot start a block of its own.
- `label`: for the label of an input widget (a text or number input, a slider, a
  multiselect, a checkbox or toggle, a segmented control or pills). Its label is Markdown
  (inline only: Streamlit escapes block syntax in labels itself) and is also handed, as
  written, to the widget's aria-label, which a screen reader reads out: `md`'s escapes
  would be read as 'Grade of uuid\\.uuid1'. So only the characters that can open an inline
  construct there are escaped (emphasis, code, strikethrough, a link or an image, an entity,
  a formula, a directive or an emoji code after a colon, raw HTML, a backslash), and an
  autolink's start is set apart as `md` does: 'uuid.uuid1' and 'os.path.join' stay as they
  are.
- `github`: for Markdown that GitHub renders (the pull request's summary, a job summary):
  the engine's escape (`metrics.format.markdown_text`), which the one writer of that
  Markdown (`metrics.summary_markdown`) calls. Every ASCII punctuation character is
  backslash-escaped; cmark-gfm, which finds its autolinks while it parses or in each text
  node, meets an escaped ':' or '.' as a node of its own, so 'http\\://x' is no link; a
  word joiner (U+2060, invisible) follows '@' and '#', so no mention and no issue link is
  made. Nothing is wrapped: GitHub shows the text as written.
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
from metrics import format as _format

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c]+")
# where GFM's autolink literal would start: a URL scheme before ':', 'www' before '.', the
# '@' of an address (remark-gfm's patterns: https?://, www., and [-.\w+]+@[-\w]+)
_AUTOLINK_STARTS = re.compile(
    r"(?i)(\b(?:https?|ftp|mailto|xmpp)(?=:)|\bwww(?=\.)|(?<=[-.\w+])@)"
)
# a text node of its own: Streamlit draws `:color[...]` without a colour as a plain <span>
APART = ":color[{}]"
# what opens an inline construct in a widget label: emphasis (* _), strikethrough (~), code
# (`), a link or an image ([ ]), raw HTML or an autolink in brackets (< >), a formula ($), a
# table cell (|), an escape (\\), an entity (&name; &#1;), and a colon that a directive,
# an icon or an emoji code could follow (:red[, :material/x:, :smile:), or one that ends a
# piece before an autolink's span
_LABEL_ACTIVE = re.compile(r"[*_~`\[\]<>$|\\]|&(?=#?\w+;)|:(?=[^\s:]*[:\[]|$)")
# a label that opens as a block would (a heading, a quote, a list item, a rule): Streamlit
# shows the common ones as text; the marker is escaped all the same, as it costs nothing
_BLOCK_START = re.compile(r"^(\s*)(?:([#>+=-])|(\d+)([.)]))")


def md(text: object) -> str:
    """`text` as literal characters in Markdown: 'a*b' shows as a*b, never as emphasis, and
    'http://x' as text, never as a link."""
    return _apart(text, _escaped)


def label(text: object) -> str:
    """`text` for an input widget's label: literal characters in its Markdown, with no escape
    a screen reader would read out where none is needed ('uuid.uuid1' as it is; 'a*b' as
    'a\\*b')."""
    return _BLOCK_START.sub(lambda m: m.group(1) + (
        "\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)),
        _apart(text, _label_escaped))


def _apart(text: object, escape) -> str:
    """One line of `text` escaped by `escape`, each autolink's start in a span of its own."""
    text = _LINE_BREAKS.sub(" ", str(text))
    pieces, start = [], 0
    for match in _AUTOLINK_STARTS.finditer(text):
        pieces.append(escape(text[start:match.start()]))
        pieces.append(APART.format(escape(match.group(0))))
        start = match.end()
    pieces.append(escape(text[start:]))
    return "".join(pieces)


def _escaped(text: str) -> str:
    return _PUNCTUATION.sub(r"\\\1", text)


def _label_escaped(text: str) -> str:
    return _LABEL_ACTIVE.sub(lambda match: "\\" + match.group(0), text)


def github(text: object) -> str:
    """`text` as literal characters in GitHub's Markdown, on one line: '<b>' shows as
    written, 'http://x' and '[x](y)' make no link, '@org' no mention (no wrapping that
    GitHub would show)."""
    return _format.markdown_text(text)


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
