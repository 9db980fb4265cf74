"""Chunk texts as HTML: every character of the input comes back as text, only whole query
words are marked, and no input can open a tag."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboard.views.highlight import (
    PREVIEW_CHARS,
    chunk_html,
    chunks_html,
    marked,
    preview,
    query_words,
)

ALLOWED = {"div", "b", "code", "mark", "details", "summary", "i", "span", "style"}


class Read(HTMLParser):
    """The tags and the text a browser would build from the HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.marks, self._in_mark = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        self._in_mark = tag == "mark"

    def handle_endtag(self, tag):
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_mark:
            self.marks.append(data)


def read(html: str) -> Read:
    parser = Read()
    parser.feed(html)
    parser.close()
    return parser


HOSTILE = ('<script>alert(1)</script> <img src=x onerror="alert(2)"> &amp; &lt;b&gt; '
           "**bold** [x](javascript:alert(3)) {{7*7}} ${x} <!-- c --> </div></details>")


def test_a_hostile_text_comes_back_as_its_own_characters():
    words = query_words("alert script img amp lt div")
    found = read(marked(HOSTILE, words))
    assert "".join(found.text) == HOSTILE
    assert {tag for tag, _ in found.tags} <= {"mark"}
    assert all(attrs == [] for _, attrs in found.tags)
    assert found.marks == ["script", "alert", "script", "img", "alert", "amp", "lt", "alert",
                           "div"]


def test_only_whole_words_are_marked_whatever_their_case():
    found = read(marked("Rotating the API key; rotate keys. ROTATE!", query_words("rotate key")))
    assert found.marks == ["key", "rotate", "ROTATE"]  # not "Rotating", not "keys"


def test_function_words_and_single_letters_are_not_marked():
    assert query_words("how do I rotate an API key without downtime") == {
        "rotate", "api", "key", "downtime"}
    assert query_words(None) == frozenset() and query_words("") == frozenset()


@given(text=st.text(max_size=300), query=st.text(max_size=40))
def test_any_text_and_query_give_back_the_text_and_no_other_tag(text, query):
    found = read(marked(text, query_words(query)))
    assert "".join(found.text) == text
    assert {tag for tag, _ in found.tags} <= {"mark"}


def test_a_long_text_is_cut_at_a_word_with_the_rest_behind_more():
    text = " ".join(f"word{i}" for i in range(200))
    shown, rest = preview(text)
    assert len(shown) <= PREVIEW_CHARS and shown + rest == text and rest.startswith(" ")
    html = chunk_html(3, "d<1>", "A & B", text, query_words("word7"))
    found = read(html)
    assert "".join(found.text).startswith("3. d<1> · A & B")
    assert "details" in {tag for tag, _ in found.tags}
    assert found.marks == ["word7"]


def test_a_missing_text_says_so_and_the_note_is_escaped():
    found = read(chunks_html([(None, "d9", None, None, "<b>judged</b>")], "query"))
    text = "".join(found.text)
    assert "not in the corpus file" in text and "<b>judged</b>" in text
    assert {tag for tag, _ in found.tags} <= ALLOWED


@pytest.mark.parametrize("doc_id", ["<svg onload=alert(1)>", '" onmouseover="x', "d1"])
def test_ids_and_titles_cannot_open_a_tag(doc_id):
    found = read(chunk_html(1, doc_id, doc_id, doc_id, frozenset()))
    assert {tag for tag, _ in found.tags} <= ALLOWED
    assert all(attrs in ([], [("class", "chunk")], [("class", "chunk-note")])
               for _, attrs in found.tags)
