"""What no page may show: the literal text `None`, `nan` or `none relevant`, in its words or in
a table's cells. A missing cell of a table without a placeholder is drawn as "None" by
st.dataframe, so such a cell counts as one; an undefined figure is shown as undefined, with
why (metrics.format.undefined)."""

from __future__ import annotations

import html
import json
import math
import re

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import shown, texts

FORBIDDEN = re.compile(r"\bNone\b|\bnan\b|\bNaN\b|\bnone relevant\b")
DRAWN_MISSING = "None"  # what st.dataframe draws for a missing cell without a placeholder


def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def cells(element) -> list[str]:
    """Every cell of an st.dataframe as drawn: its shown columns (the column order, less the
    hidden ones), a missing value drawn as the placeholder or "None"."""
    frame = element.value
    config = json.loads(element.proto.columns or "{}")
    order = list(element.proto.column_order) or list(frame.columns)
    drawn = [c for c in order if c in frame.columns and not config.get(c, {}).get("hidden")]
    # an optional field: an empty placeholder given draws an empty cell
    placeholder = (element.proto.placeholder if element.proto.HasField("placeholder")
                   else DRAWN_MISSING)
    return [placeholder if _missing(value) else str(value)
            for column in drawn for value in frame[column].tolist()]


def _html_text(body: str) -> str:
    """What st.html shows: its text, without style blocks, tags and entities."""
    body = re.sub(r"(?s)<style.*?</style>", " ", body)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def page_words(app: AppTest) -> str:
    """The page's words as a reader sees them: its text elements, metrics, tab and expander
    labels, and the text of its HTML blocks (the side-by-side lists, the marked chunks)."""
    extra = [shown(f"{m.label} {m.value}") for m in app.metric]
    extra += [shown(t.label) for t in app.tabs]
    extra += [shown(e.label) for e in app.expander]
    extra += [_html_text(h.proto.body) for h in app.get("html")]
    return "\n".join([texts(app), *extra])


def forbidden(app: AppTest) -> list[str]:
    """Each place the page shows None, nan or 'none relevant', with the text around it."""
    found = []
    words = page_words(app)
    for match in FORBIDDEN.finditer(words):
        found.append(words[max(0, match.start() - 60):match.end() + 60])
    for element in app.dataframe:
        for cell in cells(element):
            if FORBIDDEN.search(cell):
                found.append(f"table ({', '.join(map(str, element.value.columns[:4]))}...): "
                             f"{cell!r}")
    return found
