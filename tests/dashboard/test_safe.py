"""The one escaping module: Markdown that shows untrusted text as its characters, and CSV
cells no spreadsheet reads as a formula."""

from __future__ import annotations

import csv
import io
import re
import unicodedata

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard import safe
from dashboard.report import exports
from metrics import Conventions, evaluate, load_qrels, load_run
from tests.dashboard.conftest import shown


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_escaped_markdown_shows_exactly_the_characters(text):
    flat = safe._LINE_BREAKS.sub(" ", text)
    assert shown(safe.md(text)) == flat
    escaped = safe.md(text)
    # no unescaped punctuation is left to form markup
    # no unescaped punctuation is left to form markup, but the spans md makes itself
    apart = re.sub(r":color\[(?:\\.|[^\\\]])*\]", "", escaped)
    unescaped = [c for i, c in enumerate(apart)
                 if c in "*_[]()!<>`$:|#~" and (i == 0 or apart[i - 1] != "\\")]
    assert not unescaped


@pytest.mark.parametrize(("text", "markdown"), [
    ("http://evil.example/x", r":color[http]\:\/\/evil\.example\/x"),
    ("HTTPS://a.b", r":color[HTTPS]\:\/\/a\.b"),
    ("www.evil.example", r":color[www]\.evil\.example"),
    ("me@evil.example", r"me:color[\@]evil\.example"),
    ("http://www.evil.example", r":color[http]\:\/\/:color[www]\.evil\.example"),
])
def test_autolinks_start_in_a_span_of_their_own_without_an_invisible_character(text, markdown):
    escaped = safe.md(text)
    assert escaped == markdown
    assert not any(unicodedata.category(c) in ("Cf", "Zs") and c != " " for c in escaped)
    assert shown(escaped) == text


def test_formula_cells_are_neutralised_and_numbers_stay_numbers():
    frame = pd.DataFrame({
        "query_id": ["=cmd|'/c calc'!A1", "@SUM(1)", "+1+1", "-2", "\tx", "\rx", "q1", "a=b"],
        "score": [0.5, -1.0, 1, 2, 3, 4, 5, 6],
    })
    rows = list(csv.DictReader(io.StringIO(safe.csv_text(frame), newline="")))
    # a tab or a carriage return is written as its escape, which starts no formula
    assert [r["query_id"] for r in rows] == [
        "'=cmd|'/c calc'!A1", "'@SUM(1)", "'+1+1", "'-2", "\\tx", "\\rx", "q1", "a=b"]
    assert [r["score"] for r in rows][:2] == ["0.5", "-1.0"]  # numbers untouched


def test_every_csv_export_neutralises_hostile_ids():
    quoted = '"=HYPERLINK(""http://evil"")"'  # one CSV cell: =HYPERLINK("http://evil")
    qrels, _ = load_qrels(f"query_id,doc_id,grade\n{quoted},d1,1\n".encode(),
                          file_name="q.csv")
    run, _ = load_run(f"query_id,doc_id,rank\n{quoted},d1,1\n".encode(),
                      file_name="@run.csv", run_name="@run")
    evaluation = evaluate(qrels, [run], 1, Conventions())
    for text in (exports.summary_csv(evaluation), exports.per_query_csv(evaluation)):
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert not any(cell.startswith(safe.FORMULA_STARTS) for cell in cells), cells
        assert "'@run" in cells


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab1 .:/@#>-+=()[]!*_~`$|\\&;<>w\n", "http", "www",
                                  "&amp;", "&#42;", ":red[", ":smile:", "1.", "__"]),
                max_size=12).map("".join) | st.text())
def test_a_widget_label_shows_exactly_the_characters_and_forms_no_markup(text):
    """An input widget's label is Markdown (inline) and, as written, its aria-label: it is
    escaped only where a construct could open, so a reader sees the characters and a screen
    reader hears no needless backslash."""
    flat = safe._LINE_BREAKS.sub(" ", text)
    written = safe.label(text)
    assert shown(written) == flat
    # an autolink's start stands in a span of its own, which ends the text around it: a code
    # cannot run across it (":a" + span + ":red[" forms no ":a:")
    apart = re.sub(r":color\[(?:\\.|[^\\\]])*\]", " ", written)
    unescaped = [c for i, c in enumerate(apart)
                 if c in "*_[]<>`$|~" and (i == 0 or apart[i - 1] != "\\")]
    assert not unescaped
    assert not re.search(r"(?<!\\)&#?\w+;", apart)  # no entity decoded into other characters
    assert not re.search(r"(?<!\\):[^\s:]*[:\[]", apart)  # no directive, icon or emoji code


@pytest.mark.parametrize("text", ["uuid.uuid1", "os.path.join", "q.tsv (v2)", "a:b c",
                                  "run-2 / dense, k=10", "a & b"])
def test_a_label_without_markup_is_written_as_it_is(text):
    """'Grade of uuid\\.uuid1' was read out by screen readers: md escapes every punctuation
    character, which a widget's aria-label (the label as written) keeps."""
    assert safe.label(text) == text
