"""The report's text sections: examples with the question and the top chunks'
first words, figures by kind of query, the leakage warning, what K costs; every text from a
file escaped once; `python -m dashboard report --queries --corpus --by`."""

from __future__ import annotations

import csv
import html
import json
from html.parser import HTMLParser

import pytest

import metrics
from dashboard import safe
from dashboard.__main__ import main
from dashboard.report import exports
from dashboard.report import html as report
from dashboard.report import texts as report_texts
from metrics import (
    find_leaks,
    load_queries,
    mentioned_doc_ids,
    read_corpus,
    retrieved_or_judged,
)
from metrics.core.sample import SAMPLE_DIR, load_sample

STUB_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'
# the report's own markup: any other element or attribute came from a file
OWN_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p",
    "section", "dl", "dt", "dd", "code", "br", "span", "table", "thead", "tbody", "tr", "th",
    "td", "ul", "ol", "li", "b", "i", "figure", "img", "figcaption", "div", "script",
}
OWN_ATTRIBUTES = {"lang", "charset", "name", "content", "id", "class", "alt", "src", "role",
                  "type"}
SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(1)>"
QUOTE = '" onmouseover="alert(1)'
LINK = "[x](javascript:alert(1))"
RUN = '<b>new</b>" onmouseover'  # a run name: no "=", which would end NAME in --run NAME=FILE


class Page(HTMLParser):
    """Every start tag with its attributes, and the text outside scripts."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if not self._in_script:
            self.text.append(data)

    def plain(self) -> str:
        return " ".join(" ".join(self.text).split())


def section(text: str, name: str) -> str:
    start = text.index(f'<section id="{name}">')
    return text[start:text.index("</section>", start)]


@pytest.fixture(scope="module")
def fast_charts():
    """The charts as a stub SVG: vl-convert is tested with the report itself."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exports, "chart_svg", lambda chart: STUB_SVG)
        yield


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory, fast_charts):
    """`python -m dashboard report --by intent` on the bundled sample, written once."""
    out = tmp_path_factory.mktemp("sample") / "r.html"
    assert main(["report", "--by", "intent", "--tokens-per-chunk", "300", "--out", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def sample_texts():
    evaluation = load_sample()
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    runs = [run.run for run in evaluation.runs]
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl", mentioned_doc_ids(evaluation.qrels, runs))
    return evaluation, queries, corpus


# --------------------------------------------------------------------------- the sample


def test_the_sample_report_shows_the_questions_and_the_chunks(sample_report, sample_texts):
    evaluation, queries, corpus = sample_texts
    examples = section(sample_report, "examples")
    assert "biggest gains and losses in nDCG@5" in examples
    assert "<h4>Gains</h4>" in examples and "<h4>Losses</h4>" in examples
    assert safe.html(queries.text("q05")) in sample_report
    shown = [chunk.split("</code>")[0] for chunk in examples.split("<code>")[1:]]
    assert shown, "no chunk in the examples"
    for doc in shown:
        words = report_texts.first_words(corpus.text(html.unescape(doc)))
        assert safe.html(words) in examples, doc
        assert len(words.split()) <= report_texts.FIRST_WORDS


def test_the_sample_report_warns_of_the_planted_leak(sample_report, sample_texts):
    evaluation, queries, corpus = sample_texts
    leakage = find_leaks(queries, corpus, candidates=retrieved_or_judged(
        evaluation.qrels, [run.run for run in evaluation.runs]))
    assert leakage.leaked_queries == ("q05",)
    box = section(sample_report, "leakage")
    assert f'<div class="warning" role="note"><b>Leakage.</b> {safe.html(leakage.sentence)}' in box
    assert "<td>q05</td>" in box and "d41 (verbatim, 100%)" in box
    assert safe.html(queries.text("q05")) in box
    # the warning comes first: a leaked query inflates every figure below it
    assert sample_report.index('id="leakage"') < sample_report.index('id="basis"')


def test_the_sample_report_has_the_slices_by_intent(sample_report):
    slices = section(sample_report, "slices")
    assert "<h2>By kind of query: intent</h2>" in slices and "nDCG@5, mean [low, high]" in slices
    for value in ("how-to", "lookup", "troubleshooting", "comparison"):
        assert f"<td>{value}</td>" in slices
    assert "too few to read" in slices
    assert "against each candidate, slice by slice" in slices and "p adjusted" in slices
    assert "Holm correction over 6 comparisons" in slices  # 2 candidates x 1 metric x 3 slices


def test_the_sample_report_says_what_k_costs(sample_report):
    cost = section(sample_report, "cost")
    assert "300 tokens per chunk, given." in cost
    assert cost.count("<li>") == 3 and "1,500 tokens per query" in cost


def test_the_report_without_texts_has_none_of_their_sections(fast_charts):
    evaluation = load_sample()
    text = report.build_html(evaluation, metrics.baseline_comparison(evaluation),
                             generated_on="2024-05-01", embed_data=False)
    for name in ("examples", "slices", "leakage", "cost"):
        assert f'id="{name}"' not in text
    assert ".warning" not in text  # the texts' style only comes with them


def test_examples_leave_out_a_source_not_given_and_mark_a_missing_value(sample_texts):
    evaluation, queries, corpus = sample_texts
    comparison = metrics.baseline_comparison(evaluation)
    ids_only = report_texts.examples_section(evaluation, comparison)
    assert "<th>Question</th>" not in ids_only and "chunk-words" not in ids_only
    assert "<code>" in ids_only and "Give --queries and --corpus" in ids_only
    no_texts = type(queries)(queries.source, queries.format, (), (), {}, ())
    missing = report_texts.examples_section(evaluation, comparison, no_texts)
    assert "<th>Question</th>" in missing and f"<td>{report_texts.MISSING}</td>" in missing


# --------------------------------------------------------------------------- hostile texts


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory, fast_charts):
    """Queries, chunks, ids, a facet and a run name that try to become markup."""
    folder = tmp_path_factory.mktemp("hostile")
    ids = ["q1", SCRIPT, "q3", "q4"]
    (folder / "qrels.txt").write_text("".join(f"{q} 0 d{i} 1\n" for i, q in enumerate(ids)))
    # the candidate puts the relevant chunk first for two queries and last for the others
    base = "".join(f"{q} Q0 dx{i} 1 3 t\n{q} Q0 d{i} 2 2 t\n{q} Q0 {IMAGE.split()[0]} 3 1 t\n"
                   for i, q in enumerate(ids))
    new = "".join(
        f"{q} Q0 d{i} 1 3 t\n{q} Q0 dx{i} 2 2 t\n" if i < 2 else
        f"{q} Q0 dx{i} 1 3 t\n{q} Q0 {IMAGE.split()[0]} 2 2 t\n{q} Q0 d{i} 3 1 t\n"
        for i, q in enumerate(ids))
    (folder / "base.run").write_text(base)
    (folder / "new.run").write_text(new)
    texts = [f"{SCRIPT} refund for opened items", f"why {IMAGE} charged twice",
             f"how do I {QUOTE} rotate keys", f"what is {LINK} single sign on"]
    with open(folder / "queries.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["query_id", "text", "kind"])
        for i, (q, text) in enumerate(zip(ids, texts, strict=True)):
            writer.writerow([q, text, SCRIPT if i % 2 else QUOTE])
    chunks = [{"_id": f"d{i}", "title": f"{IMAGE} {QUOTE}", "text": f"{LINK} {SCRIPT} " * 8}
              for i in range(len(ids))]
    chunks += [{"_id": f"dx{i}", "title": LINK, "text": f"copied: {texts[0]} {QUOTE}"}
               for i in range(len(ids))]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chunks))
    out = folder / "r.html"
    code = main(["report", "--qrels", str(folder / "qrels.txt"),
                 "--run", f"base={folder / 'base.run'}", "--run", f"{RUN}={folder / 'new.run'}",
                 "--queries", str(folder / "queries.csv"), "--corpus", str(folder / "corpus.jsonl"),
                 "--by", "kind", "--k", "3", "--out", str(out)])
    assert code == 0
    return out.read_text(encoding="utf-8"), texts


def test_hostile_texts_make_no_markup(hostile_report):
    text, _ = hostile_report
    page = Page(text)
    for tag, attributes in page.tags:
        assert tag in OWN_TAGS, tag
        assert set(attributes) <= OWN_ATTRIBUTES, (tag, attributes)
        if tag == "script":
            assert attributes == {"type": "application/json", "id": "snapshot"}
        if tag == "img":
            assert attributes["src"].startswith("data:image/svg+xml;base64,")
    assert [tag for tag, _ in page.tags].count("script") == 1
    assert "javascript:" not in "".join(str(a) for _, a in page.tags)


def test_hostile_texts_are_shown_escaped_once(hostile_report):
    text, queries = hostile_report
    for section_name in ("examples", "slices", "leakage"):
        assert f'<section id="{section_name}">' in text
    for query in queries:
        assert safe.html(query) in section(text, "examples")
    assert safe.html(queries[0]) in section(text, "leakage")  # copied into the dx chunks
    assert f"<td>{safe.html(SCRIPT)}</td>" in section(text, "slices")  # a facet value
    assert safe.html(IMAGE) in section(text, "examples")  # a chunk's title
    assert f"<h3>{safe.html(RUN)} against base</h3>" in section(text, "examples")
    # a chunk the corpus lacks: its id, and "—" for its title and words
    assert (f'<code>{safe.html("<img")}</code> <span class="small">(unjudged)</span> '
            f"{report_texts.MISSING}</div>") in section(text, "examples")
    assert "&amp;lt;" not in text and "&amp;quot;" not in text and "&amp;#x27;" not in text
    plain = Page(text).plain()
    for hostile in (SCRIPT, IMAGE, QUOTE, LINK, RUN):
        assert hostile in plain


# --------------------------------------------------------------------------- the command line


def test_markdown_still_works(capsys):
    assert main(["report", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.lstrip().startswith("|") or "| Metric" in out
    assert "nDCG@5" in out


@pytest.mark.parametrize("extra, message", [
    (["--by", "intent"], "--by needs --queries"),
    (["--price-per-mtok", "3", "--out", "r.html"], "needs tokens per chunk"),
])
def test_usage_errors_on_user_files_exit_2(extra, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["report", "--qrels", str(SAMPLE_DIR / "qrels.txt"),
            "--run", str(SAMPLE_DIR / "baseline.run"), "--run", str(SAMPLE_DIR / "bm25.run")]
    if "--out" not in extra:
        argv += ["--out", "r.html"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("error:") == 1
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("argv, message", [
    (["--format", "markdown", "--by", "intent"], "for the HTML report"),
    (["--by", "no such facet", "--out", "r.html"], "has no such facet"),
])
def test_text_flags_that_cannot_apply_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_filtered_report_is_built_and_says_what_it_covers(sample):
    from dashboard.report import html as report
    from metrics import facets, filter_evaluation, load_queries
    from metrics.core.sample import SAMPLE_DIR

    intent = facets(load_queries(SAMPLE_DIR / "queries.csv"), sample.scored_ids)["intent"]
    chosen = filter_evaluation(sample, intent, ["how-to"])
    html = report.build_html(chosen, metrics.baseline_comparison(chosen), generated_on="2026-12-01")
    assert "over 4 of 9 scored queries: intent = how-to" in html
    assert 'id="snapshot"' not in html and "not embedded as a snapshot" in html


def test_every_loss_with_its_question_and_top_chunks():
    from dashboard.report import exports
    from metrics import (
        compare_evaluation,
        load_queries,
        load_sample,
        mentioned_doc_ids,
        read_corpus,
    )
    from metrics.core.sample import SAMPLE_DIR

    evaluation = load_sample()
    comparison = compare_evaluation(evaluation)
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl", mentioned_doc_ids(
        evaluation.qrels, [run.run for run in evaluation.runs]))
    frame = exports.worst_queries(evaluation, comparison, "bm25", "nDCG@5", queries, corpus)
    assert list(frame["query_id"]) == ["q07", "q10", "q04", "q01", "q05"]  # worst first
    assert list(frame["difference"]) == sorted(frame["difference"])
    assert frame.loc[0, "question"] == queries.text("q07")
    top = frame.loc[0, "top 3 of bm25"].split(" | ")
    assert len(top) == 3 and top[0].startswith(
        metrics_top(evaluation, "bm25", "q07")[0] + " · ")
    csv = exports.worst_queries_csv(evaluation, comparison, "bm25", "nDCG@5", queries, corpus)
    assert csv.splitlines()[0].startswith("query_id,question,baseline (nDCG@5)")


def metrics_top(evaluation, run, query):
    from metrics import top_ids

    return top_ids(evaluation, run, query, 3)
