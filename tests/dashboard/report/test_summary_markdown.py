"""The pull request's Markdown has one writer (metrics.summary_markdown): the Export page's
summary (exports.summary_markdown) and `python -m metrics compare --format markdown` (the
Action's comment) write the same text for the same inputs. What a user named (a run, a query
id, a question) shows on GitHub as written: rendered by markdown-it-py's GFM-like preset
(GitHub's tables and strikethrough, bare URLs, www. and e-mail addresses made links by
linkify-it-py, raw HTML on), each one's visible text is the input, and no link, image or tag
comes from it. The Streamlit escape (safe.md) set an autolink's start apart with
`:color[...]`, which GitHub shows as written: the summary no longer uses it."""

from __future__ import annotations

import html as entities
import json
import re

import pytest
from markdown_it import MarkdownIt

import metrics
from dashboard import safe
from dashboard.report import exports
from metrics.cli import main
from tests.metrics.outputs.gated import KEPT, QUERIES, write_gated

GITHUB = MarkdownIt("gfm-like", {"html": True})  # linkify on: a bare URL would be a link
JOINER = "\u2060"  # the invisible word joiner after @ and # (no mention, no issue link)
# hostile query ids (no white space, which a TREC line splits at), among the worst queries
IDS = ["<script>", "[x](http://a)", "**b**", "a|b", "`c`", "http://example.com",
       "www.e.com", "a@b.com", "@org/team", "(#12)"]  # not "#12": a TREC comment
# a hostile run name: tags, a link, emphasis, a pipe, code, bare links, a mention
RUN = "<b>x</b> [l](http://e.com) **b** a|b `c` ~~s~~ www.e.com a@b.com @org #12 :red[r]"


def visible(cell_html: str) -> str:
    return entities.unescape(re.sub(r"<[^>]+>", "", cell_html)).replace(JOINER, "")


def rows(html: str) -> list[list[str]]:
    return [[visible(cell) for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """The gated collection with hostile query ids and a hostile candidate's name, compared
    by the command line (its comment and its JSON), and the same files read as the dashboard
    reads them."""
    folder = tmp_path_factory.mktemp("summary")
    ids = [f"q{i:02d}" for i in range(KEPT)] + IDS
    ids += [f"zz{i:02d}" for i in range(QUERIES - len(ids))]
    files = write_gated(folder, ids)
    comment, document = folder / "comment.md", folder / "compare.json"
    status = main(["compare", "--qrels", str(files["qrels"]), "--run", f"base={files['base']}",
                   "--run", f"{RUN}={files['worse']}", "--run", f"same={files['same']}",
                   "--queries", str(files["queries"]), "--k", "2", "--permutations", "500",
                   "--fail-on-regression", "nDCG@2", "--max-harm", "nDCG@2=0.2",
                   "--format", "markdown", "--out", str(comment),
                   "--write", f"json={document}"])
    assert status == 3
    evaluation = metrics.evaluate_files(files["qrels"], [
        metrics.RunSource(files["base"], name="base"), metrics.RunSource(files["worse"], name=RUN),
        metrics.RunSource(files["same"], name="same")], k=2)
    queries = metrics.load_queries(files["queries"])
    return comment.read_text(), json.loads(document.read_text()), evaluation, queries


def test_the_dashboards_summary_is_the_comment_compare_writes(gated):
    comment, document, evaluation, queries = gated
    comparison = metrics.compare_evaluation(
        evaluation, n_permutations=500, **metrics.comparison_settings(evaluation.conventions))
    summary = exports.summary_markdown(evaluation, comparison, queries=queries,
                                       gates=document["gates"])
    assert summary == comment
    # what both hold: the gates' verdicts, the worst queries with their questions and both
    # figures, every metric with its interval and effect size, every run's figures with
    # their intervals, the conventions and the query set
    assert summary.startswith("## ❌ Retrieval gate failed: 2 of 4 gates failed against base")
    for part in ("### Gates", "### Queries that got worse", "### Every metric against base",
                 "### Scores of every run", "### How to read this", "Effect size",
                 "Conventions: ", "Query set `sha256:", "Exit status: 0 every gate held"):
        assert part in summary, part


def test_what_a_user_named_shows_on_github_as_written(gated):
    comment, document, evaluation, _ = gated
    html = GITHUB.render(comment)
    assert "<a " not in html and "<img" not in html and "<script" not in html
    assert not set(re.findall(r"</?([a-zA-Z][\w-]*)", html)) - {
        "h2", "h3", "p", "strong", "em", "ul", "li", "table", "thead", "tbody", "tr", "th",
        "td", "code"}
    assert re.findall(r"<code>(.*?)</code>", html) == [  # the one code span: the fingerprint
        metrics.evaluation_fingerprints(evaluation)["qrels"]]
    table = rows(html)
    worst = [row for row in table if len(row) == 5 and row[0] != "Query"]
    assert {row[0] for row in worst} >= set(IDS)  # each hostile id among the worst, as written
    assert all(row[1] == f"what is {row[0]}?" for row in worst)  # and its question
    gates = [row for row in table if row and row[0] in ("❌ failed", "✅ held")]
    assert gates and all(len(row) == 6 for row in gates)  # no pipe left its cell
    assert {row[2] for row in gates} == {RUN, "same"}
    assert ["Metric", "base", RUN, "same"] in table  # the scores' header names every run


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>", "[x](http://a)", "![i](http://e.com/i.png)", "**b**",
    "_e_ *e*", "~~s~~", "a|b", "`code`", "``", "http://example.com", "https://e.com/a?b=c",
    "www.example.com", "a@b.com", "@org/team", "#12", ":red[x]", "&amp; &#60;", "\\*",
    "1. item", "# h", "> q", "- item", "$x$"])
def test_safe_github_renders_as_the_text_on_github(text):
    """safe.github, the escape of Markdown GitHub renders (the engine's markdown_text), in a
    table's cell and in a paragraph: the visible text is the input; safe.md, Streamlit's,
    is not (its `:color[...]` shows, and '@org' would mention a team)."""
    for markdown, pick in ((f"| a |\n|---|\n| {safe.github(text)} |\n", lambda h: rows(h)[1][0]),
                           (f"Name: {safe.github(text)}\n", lambda h: visible(h).strip())):
        html = GITHUB.render(markdown)
        assert "<a " not in html and "<img" not in html and "<script" not in html, text
        assert pick(html) == (text if markdown.startswith("|") else f"Name: {text}"), text
    if text.startswith(("http", "www")):  # Streamlit's escape is not GitHub's
        assert ":color[" in visible(GITHUB.render(f"Name: {safe.md(text)}\n"))


def test_a_snapshots_baseline_is_summarised_without_a_second_comparison(sample):
    """Against a snapshot's figures (its baseline no run of the evaluation), on figures that
    leave out the primary one: the summary has no headline to compare again, and still its
    gates-free title, every metric and the worst queries."""
    snapshot = metrics.to_snapshot(sample, label="old")
    comparison = metrics.compare_with_snapshot(sample, snapshot, metrics=["P@5"])
    assert comparison.baseline not in sample.run_names and "nDCG@5" not in comparison.metrics
    text = exports.summary_markdown(sample, comparison)
    assert text.startswith(f"## Retrieval comparison against {safe.github(comparison.baseline)}")
    assert "**Headline.**" not in text and "### Every metric against" in text
