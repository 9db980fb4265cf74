"""What breaks a new user's trust in the first hour, each checked in the real browser as they
meet it: a drill-down link that opens another query than it names, a leakage warning on
keyword queries, a run cut before K or one that meets no query read as if nothing were wrong,
two baselines on one page, a file in the wrong box reported below the fold, an invisible
character in a copied headline, and a shared link that forgets the queries and corpus files.
"""

from __future__ import annotations

import json
import re

from tests.e2e.conftest import NO_BROWSER, SAMPLE, check, choose, location, settle, upload
from tests.marks import THOROUGH

# whole sessions in the browser, about two minutes of them: CI runs them (`-m thorough`),
# the run before each commit leaves them to it
pytestmark = [NO_BROWSER, THOROUGH]


def main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def caption(page) -> str:
    """The page's header line: K, the query set, the baseline, the conventions."""
    return page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]',
                        has_text="K = ").first.inner_text()


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", exact=True, name=title).click()
    settle(page)


def test_open_in_the_drilldown_opens_the_query_it_names(server, page, shots):
    """A query selected earlier (q01) does not win over the one the link names (q05, the
    query reranked hurts most on the sample)."""
    page.goto(f"{server}/drilldown?query=q01")
    settle(page)
    page.get_by_role("heading", name="q01").first.wait_for(state="visible")
    go(page, "Compare")
    link = page.get_by_role("link", name="Open q05 in the drill-down")
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_function("() => location.pathname.endsWith('/drilldown')")
    check(page, shots, "trust_open_named_query", "nDCG@5 = DCG@5 / IDCG@5")
    page.get_by_role("heading", name="q05").first.wait_for(state="visible")
    assert re.search(r"[?&]query=q05\b", location(page))
    assert "open=" not in location(page)  # the request is consumed, not kept in the link


def keyword_collection(folder):
    """Keyword queries written from chunk titles (which a retriever rightly matches), one
    natural-language question copied into a chunk (a leak), the runs retrieving both."""
    titles = ["API: Jira reminder downgrade", "Billing FAQ", "SAML setup with Okta",
              "Webhook retries and timeouts", "Export reports as CSV", "Audit log retention"]
    queries = [{"query_id": f"k{i}", "text": " ".join(re.findall(r"\w+", t.lower())[:3]),
                "kind": "keyword"} for i, t in enumerate(titles)]
    queries.append({"query_id": "nl", "text": "How do I rotate an API key without downtime?",
                    "kind": "question"})
    corpus = [{"_id": f"t{i}", "title": t, "text": f"All about {t.lower()}, step by step."}
              for i, t in enumerate(titles)]
    corpus.append({"_id": "faq", "title": "Keys", "text": "How do I rotate an API key "
                   "without downtime? Create a second key first, then revoke the old one."})
    qrels = [f"k{i} 0 t{i} 2" for i in range(len(titles))] + ["nl 0 faq 1"]
    run = [f"k{i} Q0 t{i} 1 9.0 bm25" for i in range(len(titles))] + ["nl Q0 faq 1 9.0 bm25"]
    paths = {}
    for name, lines in (("qrels.txt", qrels), ("bm25.run", run)):
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n")
    for name, rows in (("queries.jsonl", queries), ("corpus.jsonl", corpus)):
        paths[name] = folder / name
        paths[name].write_text("".join(json.dumps(row) + "\n" for row in rows))
    return {name: str(path) for name, path in paths.items()}


def test_leakage_warns_on_a_copied_question_not_on_keyword_queries(server, page, shots,
                                                                    tmp_path):
    files = keyword_collection(tmp_path)
    upload(page, server, files["qrels.txt"], [files["bm25.run"]], files["queries.jsonl"],
           files["corpus.jsonl"])
    check(page, shots, "trust_leakage_keywords", "Summary at K = 10", "Leakage.")
    warning = page.locator('[data-testid="stAlert"]', has_text="Leakage.").first.inner_text()
    assert "1 of 1 checked query (100.0%) appears in a chunk" in warning
    assert "6 keyword or navigational queries were not checked" in warning
    assert "Leaked queries scored here: nl" in warning
    # the rule, stated one click away (issue 47: the warning shorter, open to its detail)
    page.get_by_role("button", name="How leaks are found").click()
    page.get_by_text("reads as a sentence", exact=False).first.wait_for(state="visible")
    # the bundled sample keeps its q05, copied into the FAQ chunk d41
    page.goto(server)
    settle(page)
    warning = page.locator('[data-testid="stAlert"]', has_text="Leakage.").first.inner_text()
    assert "q05" in warning


def cut_and_prefixed(folder):
    """The sample's bm25 run cut to its top 3, and the baseline with its query ids
    prefixed (a run that meets no query of the qrels)."""
    lines = (SAMPLE / "bm25.run").read_text().splitlines()
    cut = folder / "bm25_top3.run"
    cut.write_text("".join(line + "\n" for line in lines if int(line.split()[3]) <= 3))
    prefixed = folder / "prefixed.run"
    prefixed.write_text("".join(f"query_{line}\n" for line in
                                (SAMPLE / "baseline.run").read_text().splitlines()))
    return str(cut), str(prefixed)


def test_a_run_cut_before_k_is_said_on_every_page_and_in_its_reading(server, page, shots,
                                                                      tmp_path):
    cut, _ = cut_and_prefixed(tmp_path)
    upload(page, server, str(SAMPLE / "qrels.txt"), [str(SAMPLE / "baseline.run"), cut])
    said = "bm25_top3's lists stop at rank 3 (its longest list), before K = 10"
    check(page, shots, "trust_cut_overview", "Summary at K = 10", said)
    card = page.locator('[data-testid="stColumn"]', has_text="Its lists stop at rank 3").first
    card.wait_for(state="visible")
    assert "well chosen" not in card.inner_text() and "lower k" not in card.inner_text()
    for title in ("K sweep", "Drill-down", "Compare"):
        go(page, title)
        page.get_by_text(said).first.wait_for(state="visible")


def test_a_run_that_meets_no_query_gets_no_k_advice(server, page, shots, tmp_path):
    _, prefixed = cut_and_prefixed(tmp_path)
    upload(page, server, str(SAMPLE / "qrels.txt"), [str(SAMPLE / "baseline.run"), prefixed])
    check(page, shots, "trust_no_query", "shares no query id with the qrels")
    card = page.locator('[data-testid="stColumn"]', has_text="prefixed").last
    text = card.inner_text()
    assert "No k to suggest" in text
    for wrong in ("Suggested K", "lower k", "rank none"):
        assert wrong not in text, wrong


def test_one_baseline_a_page(server, page, shots):
    """Choosing another baseline on Compare makes it every page's baseline (the first run
    in the sidebar), and Compare says it once, at its control."""
    page.goto(f"{server}/compare")
    settle(page)
    choose(page, page.get_by_role("combobox", name=re.compile("Baseline")), "bm25")
    settle(page)
    header = caption(page)
    assert "baseline baseline" not in header and "baseline bm25" not in header
    chips = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"] '
                         '[data-tag] [title]')
    assert chips.first.get_attribute("title") == "bm25"
    for title in ("Drill-down", "Overview"):
        go(page, title)
        header = caption(page)
        assert "baseline bm25" in header and "baseline baseline" not in header, header
    check(page, shots, "trust_one_baseline", "Summary at K = 5")


def test_a_file_in_the_wrong_box_is_said_in_the_main_area(server, page, shots, tmp_path):
    beir = tmp_path / "qrels.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, _, d, g in (line.split() for line in
                                              (SAMPLE / "qrels.txt").read_text().splitlines())))
    upload(page, server, None, [str(beir)])
    check(page, shots, "trust_wrong_box", "No run could be read")
    text = main_text(page)
    assert "Nothing to show yet" not in text
    assert "qrels.tsv looks like a qrels file" in text and "Qrels (the labels)" in text
    assert "\\t" not in text and "query-id, corpus-id, score" in text
    # a run in the qrels box's place: nothing but runs, one of them TREC
    upload(page, server, None, [str(SAMPLE / "bm25.run")])
    page.get_by_text("No qrels file yet: upload the labels").first.wait_for(state="visible")
    assert "give it as a run" not in main_text(page)


def test_a_copied_headline_carries_no_invisible_character(server, page):
    page.goto(server)
    settle(page)
    headline = page.locator('[data-testid="stMain"] [data-testid="stMarkdownContainer"]',
                            has_text="nDCG@5").first
    headline.wait_for(state="visible")
    copied = page.evaluate("""(el) => {
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.selectAllChildren(el);
        return selection.toString();
    }""", headline.element_handle())
    assert "nDCG@5" in copied
    assert not re.search("[\u2060\u200b-\u200d\ufeff\u00ad]", copied), repr(copied)
    assert headline.locator("a").count() == 0


def test_a_shared_link_asks_for_the_queries_and_corpus_files_too(server, page, shots):
    upload(page, server, str(SAMPLE / "qrels.txt"),
           [str(SAMPLE / "baseline.run"), str(SAMPLE / "reranked.run")],
           str(SAMPLE / "queries.csv"), str(SAMPLE / "corpus.jsonl"))
    page.get_by_text("By kind of query").first.wait_for(state="visible")
    link = location(page)
    assert "queries_file=queries.csv" in link and "corpus_file=corpus.jsonl" in link
    page.goto(link)
    check(page, shots, "trust_link_texts", "upload them again")
    text = main_text(page)
    assert "queries.csv" in text and "corpus.jsonl" in text
    # the qrels and runs again, the texts not yet: the page still asks for them
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files(str(SAMPLE / "qrels.txt"))
    settle(page)
    inputs.nth(1).set_input_files([str(SAMPLE / "baseline.run"), str(SAMPLE / "reranked.run")])
    settle(page)
    page.get_by_text("The link was made with").first.wait_for(state="visible")
    text = main_text(page)
    assert "Queries: queries.csv" in text and "Corpus: corpus.jsonl" in text


def set_k(page, k: int) -> None:
    field = page.get_by_role("spinbutton", name="K (cutoff)")
    field.fill(str(k))
    field.press("Enter")
    settle(page)


def shown_choice(page, label: str) -> str:
    """What the first selectbox named `label` shows as chosen."""
    return page.get_by_role("combobox", name=label, exact=True).first.input_value()


def test_a_choice_labelled_with_k_shows_the_k_of_the_page(server, page, shots):
    """A metric picker's labels carry K ("nDCG@7"); Streamlit's browser side keeps the label
    it showed as the value, so after a change of K it went on showing the old K beside
    figures of the new one. Each such picker, drawn at one K, then at another."""
    pickers = {"/compare": "Headline metric", "/heatmap": "Metric", "/overlap": "Tuned on"}
    for path, label in pickers.items():
        page.goto(f"{server}{path}?k=4")
        settle(page)
        shown = shown_choice(page, label)
        assert shown.split()[0].endswith("@4"), (path, shown)
        set_k(page, 7)
        shown = shown_choice(page, label)
        assert shown.split()[0].endswith("@7"), (path, shown)
    check(page, shots, "trust_choice_follows_k", "K = 7")


def test_a_section_its_own_switch_redraws_shows_its_result(server, page, shots):
    """The best-run marks, every pair and the weight search are fragments: their switch
    reruns that section alone, which reads the names the page's last whole run left behind
    (one reused further down Compare once made every pair fail on its own rerun)."""
    sections = [("/", "Mark each metric's best run", "not significantly worse than it"),
                ("/compare", "Compare every pair of runs", "Adjusted p, each pair on"),
                ("/overlap", "Search the weight of a weighted CombSUM", "Cross-fitted")]
    for path, switch, result in sections:
        page.goto(f"{server}{path}")
        settle(page)
        assert result not in main_text(page), path
        page.locator('[data-testid="stMain"] [data-testid="stCheckbox"]').filter(
            has_text=switch).locator("label").click()
        settle(page)
        assert page.get_by_test_id("stException").count() == 0, path
        assert result in main_text(page), path
    check(page, shots, "trust_fragment_switches", "Cross-fitted")
