"""compare --format markdown, the pull request's comment: the gates' verdicts, the worst
queries with their question and the figure before and after, every metric, a link-free note
of the conventions; under GitHub's 65,536 characters with a count of what was left out, even
with thousands of long hostile names; every user string literal once rendered (markdown-it-py,
CommonMark with GitHub's tables, raw HTML allowed so that an unescaped tag would show)."""

from __future__ import annotations

import json
import re
import string

import pytest
from markdown_it import MarkdownIt

from metrics.cli import main
from metrics.outputs.markdown import CELL_CHARS, comment_markdown, error_comment, size
from metrics.vocabulary.format import WORD_JOINER, markdown_text, shortened, terminal
from metrics.vocabulary.gates import EXIT_GATE, EXIT_USAGE
from metrics.vocabulary.limits import COMMENT_LIMIT
from tests.metrics.outputs.gated import KEPT, write_gated

RENDER = MarkdownIt("commonmark", {"html": True}).enable("table")
SHOWN_TAGS = {"h2", "h3", "p", "strong", "em", "ul", "li", "table", "thead", "tbody", "tr",
              "th", "td"}


def rendered(text: str) -> str:
    return RENDER.render(text)


def tags(html: str) -> set[str]:
    return set(re.findall(r"</?([a-zA-Z][\w-]*)", html))


def cells(html: str) -> list[list[str]]:
    """Every table row's cells as text (entities read)."""
    import html as entities

    return [[entities.unescape(re.sub(r"<[^>]+>", "", cell)).replace("\u2060", "")
             for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    """compare's JSON document of the gated collection: base, worse and same, every gate."""
    folder = tmp_path_factory.mktemp("comment")
    files = write_gated(folder)
    out = folder / "compare.json"
    status = main(["compare", "--qrels", str(files["qrels"]), "--run", f"base={files['base']}",
                   "--run", f"worse={files['worse']}", "--run", f"same={files['same']}",
                   "--queries", str(files["queries"]), "--k", "2", "--permutations", "500",
                   "--fail-on-regression", "nDCG@2", "--budget", "nDCG@2=0.05",
                   "--max-harm", "nDCG@2=0.2", "--format", "json", "--out", str(out)])
    assert status == EXIT_GATE
    return json.loads(out.read_text())


def test_the_comment_names_the_gates_the_worst_queries_and_the_conventions(document):
    text = comment_markdown(document, version="0.1.0")
    html = rendered(text)
    assert tags(html) <= SHOWN_TAGS  # no link, no image, no raw HTML
    assert text.startswith("## ❌ Retrieval gate failed: 3 of 6 gates failed against base")
    rows = cells(html)
    gates = [row for row in rows if row and row[0] in ("❌ failed", "✅ held")]
    assert len(gates) == 6
    assert ["❌ failed", "regression", "worse", "nDCG@2"] == gates[0][:4]
    # the worst queries of the candidate on the primary metric: id, question, before, after
    worst = [row for row in rows if len(row) == 5 and row[0].startswith("q")]
    assert worst[0] == ["q10", "what is q10?", "1.000", "0.000", "-1.000"]
    assert [row[0] for row in worst] == [f"q{i}" for i in range(KEPT, KEPT + 10)]
    assert f"{40 - KEPT} queries of 40 score lower than base" in text
    assert "### How to read this" in text and "Exit status: 0 every gate held; 3 a gate" in text
    assert "Holm correction" in text and "http" not in text


def hostile(n: int) -> str:
    """A long name of everything Markdown, HTML or GitHub would read as markup."""
    return (f"|{n}| `x` **b** <img src=x onerror=alert(1)> [l](http://e.com) @org/team #12 "
            "\\| &amp; \n# h\r\x1b[31m\u202e ") + "y" * 400


def many(document: dict, n: int) -> dict:
    """The document with n candidates of long hostile names, each with every row, gate and
    worst query of 'worse' (their query ids hostile too, on the primary metric: the comment
    writes no other's). Rows are new dicts over the shared figures (the writer changes
    nothing it reads), so that building 3,000 candidates costs less than writing them."""
    grown = dict(document)
    rows = [r for r in document["comparisons"] if r["candidate"] == "worse"]
    gates = [g for g in document["gates"] if g["candidate"] == "worse"]
    grown["candidates"], grown["comparisons"], grown["gates"] = [], [], []
    for i in range(n):
        name, text = hostile(i), hostile(-i)
        grown["candidates"].append(name)
        for row in rows:
            row = row | {"candidate": name}
            if row.get("risk") and row["metric"] == document["primary"]:  # the one written
                row["risk"] = row["risk"] | {"worst": [
                    loss | {"query_id": name + loss["query_id"], "text": text}
                    for loss in row["risk"]["worst"]]}
            grown["comparisons"].append(row)
        grown["gates"] += [gate | {"candidate": name} for gate in gates]
    grown["headlines"] = [f"{hostile(i)} is worse than base" for i in range(n)]
    return grown


def test_thousands_of_hostile_names_stay_under_the_limit_and_count_what_was_left(document):
    grown = many(document, 3000)
    text = comment_markdown(grown)
    assert size(text) <= COMMENT_LIMIT
    html = rendered(text)
    assert tags(html) <= SHOWN_TAGS
    assert "<img" not in html and "<a " not in html and "\x1b" not in text
    # no pipe left its cell: each gate row's candidate cell is the name, as it was written
    gates = [row for row in cells(html) if row and row[0] in ("❌ failed", "✅ held")]
    assert gates and all(len(row) == 6 for row in gates)
    for row in gates:  # hostile(i) starts '|i|'
        assert row[2] == terminal(shortened(hostile(int(row[2].split("|")[1])), CELL_CHARS))
    # shown + counted = every one: the gates, the metric rows, the worst queries
    rows = cells(html)

    def left(noun: str) -> int:
        said = re.findall(rf"_… ([\d,]+) more {noun} left out", text)
        whole = re.search(rf"Also left out [^:]*: (?:[^.]*?)([\d,]+) {noun}", text)
        return sum(int(n.replace(",", "")) for n in said) + (
            int(whole.group(1).replace(",", "")) if whole else 0)

    assert len(gates) + left("gates") == len(grown["gates"]) == 9000
    metric_rows = [row for row in rows if len(row) == 9 and row[0] != "Candidate"]
    assert metric_rows and len(metric_rows) + left("metric rows") == len(grown["comparisons"])
    worst = [row for row in rows if len(row) == 5 and row[0] != "Query"]
    assert worst and len(worst) + left("worst queries") == 10 * 3000
    assert left("headline sentences") < 3000
    assert "### How to read this" in text  # the notes always stay


@pytest.mark.parametrize("limit", [3_000, 20_000, COMMENT_LIMIT])
def test_a_comment_fits_any_limit_it_can(document, limit):
    text = comment_markdown(many(document, 50), limit=limit)
    assert size(text) <= limit
    assert "### How to read this" in text


def test_every_punctuation_and_markup_is_literal_once_rendered():
    for text in [string.punctuation, "a|b", "`code`", "<script>alert(1)</script>",
                 "[x](javascript:alert(1))", "![i](http://e.com/i.png)", "http://e.com",
                 "www.e.com", "a@b.com", "@someone", "#1", "&amp;", "*em* _em_ ~~s~~",
                 "| --- |", "\\", "1. item", "- item", "> quote", "    code"]:
        html = rendered(f"| a |\n|---|\n| {markdown_text(text)} |\n")
        assert tags(html) <= SHOWN_TAGS, text
        assert cells(html)[1] == [text.strip() if text.startswith(" ") else text], text
    assert markdown_text("@me") == "\\@" + WORD_JOINER + "me"  # no mention on GitHub


def test_a_comment_when_the_gate_could_not_run_says_why():
    text = error_comment(EXIT_USAGE, ["error: --k: expected <b>a number</b>"])
    assert "could not run: a bad flag or a missing input (exit status 2)" in text
    html = rendered(text)
    assert tags(html) <= SHOWN_TAGS and "&lt;b&gt;a number&lt;/b&gt;" in html
