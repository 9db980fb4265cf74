"""A chunk's text as HTML, with the query's words marked: for the drill-down and the rank
movement, which show what a retriever put in front of the model; and two runs' lists for one
query side by side, rank by rank, each id with its grade and its rank in the other run.

Ids, titles and texts are untrusted. The text is never escaped and then searched (a query
word such as "amp" or "lt" would match inside "&amp;" or "&lt;" and split an entity): it is cut
into words and the gaps between them, each piece is escaped on its own (`safe.html`), and only
whole words equal to a query word are wrapped in <mark>. No character of the input reaches the
page as markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from dashboard import safe

_NA = pd.NA

WORD = re.compile(r"\w+")
# function words that would mark half of any English chunk; a query's other words are marked
COMMON_WORDS = frozenset(
    "a an and are as at be by can do does for from has have how i in is it its my of on or "
    "the there this to was what when where which who why will with without you your".split()
)
MIN_LETTERS = 2  # a one-letter word ("a", "x") is no evidence of anything
PREVIEW_CHARS = 240  # the text shown before "more": about three lines at 1280 px
# a table cell's text: the column shows what its width allows and the whole cell on hover;
# bounded, so a table of 100 ranks of long chunks stays a small message
CELL_CHARS = 500
MIN_HIDDEN_WORDS = 12  # fewer words left than this: shown, not put behind "more"


def query_words(query: str | None) -> frozenset[str]:
    """The words of a query worth marking in a chunk, lowercased."""
    if not query:
        return frozenset()
    return frozenset(word for word in (w.lower() for w in WORD.findall(query))
                     if len(word) >= MIN_LETTERS and word not in COMMON_WORDS)


def marked(text: str, words: frozenset[str]) -> str:
    """`text` as safe HTML, each whole word in `words` (case-insensitive) inside <mark>."""
    pieces, start = [], 0
    for match in WORD.finditer(text):
        if match.group().lower() in words:
            pieces.append(safe.html(text[start:match.start()]))
            pieces.append(f"<mark>{safe.html(match.group())}</mark>")
            start = match.end()
    pieces.append(safe.html(text[start:]))
    return "".join(pieces)


def preview(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, str]:
    """(shown, rest): the text cut at a word boundary near `limit` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text, ""
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit
    return text[:cut], text[cut:]


def cell(title: str | None, text: str | None) -> str | None:
    """A chunk in one table cell, as plain text (a cell renders no markup): the title, then
    the text's first words; None when the corpus lacks the id."""
    if text is None and not title:
        return None
    line = " · ".join(part for part in (" ".join((title or "").split()), (text or "")) if part)
    shown, rest = preview(line, CELL_CHARS)
    return shown + ("…" if rest else "")


def chunk_html(rank: int | None, doc_id: str, title: str | None, text: str | None,
               words: frozenset[str], *, note: str = "") -> str:
    """One chunk as an HTML block: rank, id and title on the first line, then its text with
    the query's words marked, cut after PREVIEW_CHARS with the rest behind "more"."""
    head = f"<b>{rank}.</b> " if rank is not None else ""
    head += f"<code>{safe.html(doc_id)}</code>"
    if title:
        head += f" · <b>{marked(title, words)}</b>"
    if note:
        head += f" <span class='chunk-note'>{safe.html(note)}</span>"
    if text is None:
        body = "<i>not in the corpus file</i>"
    else:
        shown, rest = preview(text)
        if len(rest.split()) < MIN_HIDDEN_WORDS:
            shown, rest = " ".join(text.split()), ""
        body = marked(shown, words)
        if rest:
            n = len(rest.split())
            body += (f"… <details><summary>more ({n:,} word{'s' if n != 1 else ''})</summary>"
                     f"{marked(rest, words)}</details>")
    return f"<div class='chunk'><div>{head}</div><div>{body}</div></div>"


STYLE = (
    "<style>.chunk{margin:0 0 .6rem 0;line-height:1.45}"
    ".chunk mark{background:#ffe08a;color:#1a1a1a;padding:0 .1em;border-radius:2px}"
    ".chunk details{display:inline}.chunk summary{display:inline;cursor:pointer;"
    "color:#5c7cfa}.chunk-note{opacity:.7;font-size:.9em}</style>"
)


def chunks_html(rows: list[tuple[int | None, str, str | None, str | None, str]],
                query: str | None) -> str:
    """Several chunks (rank, id, title, text, note) under one style, the query's words
    marked in each."""
    words = query_words(query)
    return STYLE + "".join(chunk_html(rank, doc, title, text, words, note=note)
                           for rank, doc, title, text, note in rows)


SIDE_STYLE = (
    "<style>.sbs{width:100%;border-collapse:collapse;table-layout:fixed}"
    ".sbs th,.sbs td{border-bottom:1px solid rgba(128,128,128,.25);padding:.45rem .5rem;"
    "vertical-align:top;text-align:left;overflow-wrap:anywhere}"
    ".sbs th.rank,.sbs td.rank{width:3.6rem;white-space:nowrap;text-align:right;color:#888}"
    ".sbs .grade{font-size:.85em;padding:0 .35em;border-radius:3px;"
    "background:rgba(128,128,128,.15)}.sbs .relevant{background:#d3f2dc;color:#0b5a2a}"
    ".sbs .where{font-size:.85em;opacity:.75}.sbs .text{font-size:.92em;line-height:1.4}"
    ".sbs mark{background:#ffe08a;color:#1a1a1a;padding:0 .1em;border-radius:2px}"
    ".sbs details{display:inline}.sbs summary{display:inline;cursor:pointer;color:#5c7cfa}"
    "</style>"
)


def side_by_side_html(frame, a: str, b: str, texts, query: str | None,
                      where: Callable[[str, int | None], str],
                      mine: dict[str, int] | None = None) -> str:
    """Two runs' lists for one query, rank by rank (metrics.side_by_side's frame): each id
    with its grade and status, where it sits in the other run, and, given `texts` (doc id ->
    (title, text) or None), its title and first lines with the query's words marked.
    `where(run, rank)` words the other run's rank; `mine` holds the session's grades."""
    words = query_words(query)
    mine = mine or {}

    def cell(doc, label, other_rank, other) -> str:
        if doc is None:
            return "<span class='where'>no id</span>"
        css = "grade relevant" if "relevant" in label and "not relevant" not in label else "grade"
        given = f" · yours: {mine[doc]}" if doc in mine else ""
        rank = None if other_rank is None else int(other_rank)
        head = (f"<code>{safe.html(doc)}</code> <span class='{css}'>{safe.html(label)}"
                f"{safe.html(given)}</span> <span class='where'>"
                f"{safe.html(where(other, rank))}</span>")
        found = texts(doc) if texts is not None else None
        if found is None:
            return head
        title, text = found
        body = f"<div><b>{marked(' '.join(title.split()), words)}</b></div>" if title else ""
        if text is not None:
            shown, rest = preview(text)
            body += f"<div class='text'>{marked(shown, words)}" + (
                f"… <details><summary>more</summary>{marked(rest, words)}</details>"
                if rest else "") + "</div>"
        return head + body

    rows = []
    for row in frame.itertuples(index=False):
        a_rank = None if row.a_in_b is None or row.a_in_b is _NA else row.a_in_b
        b_rank = None if row.b_in_a is None or row.b_in_a is _NA else row.b_in_a
        rows.append(f"<tr><td class='rank'>{row.rank}</td>"
                    f"<td>{cell(row.a_doc, row.a_label, a_rank, b)}</td>"
                    f"<td>{cell(row.b_doc, row.b_label, b_rank, a)}</td></tr>")
    return (SIDE_STYLE + "<table class='sbs'><thead><tr><th class='rank'>Rank</th>"
            f"<th>{safe.html(a)}</th><th>{safe.html(b)}</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")
