"""The report opens with the headline and the leaderboard; its basis (the query set and the
fingerprints) closes it."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest

from dashboard.__main__ import main
from dashboard.report.html import TOPIC_SET_REFERENCES, TUKEY_REFERENCES, build_report
from metrics import (
    ANOVA_METHOD,
    DECISIONS,
    TOPIC_SET_METHOD,
    TUKEY_METHOD,
    anova_margin,
    anova_rows,
    headline_comparison,
    headlines,
    leaderboard,
    min_effect_sentence,
    report_contents,
    topic_set_sizes,
)
from metrics import format as fmt
from metrics.vocabulary.tukey import ANOVA_HEADER


def test_the_report_opens_with_the_headline_and_the_leaderboard(sample, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", "--out", str(out), "--primary", "MRR"]) == 0
    html = out.read_text()
    alone = headline_comparison(sample, "RR", rng=sample.conventions.seed)
    for sentence in headlines(alone, "MRR@5"):
        assert sentence.replace("'", "&#x27;") in html
    best = leaderboard(sample).standings("RR")[0]
    order = [html.index(f'id="{part}"') for part in
             ("headline", "leaderboard", "summary", "basis", "limits")]
    assert order == sorted(order), order  # findings first, the reviewer's basis last
    assert f"<td>{best.run}</td>" in html and "Leaderboard on MRR@5" in html
    assert "<b>0.732 [0.499, 0.937] ★</b>" in html  # the best nDCG@5 in the summary, bold


def test_a_bad_primary_metric_is_a_usage_error(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.html"), "--primary", "BLEU"]) == 2
    assert "--primary" in capsys.readouterr()[1]


def test_the_report_says_what_each_change_harms_and_whether_its_verdicts_hold(sample,
                                                                             tmp_path):
    import html as html_lib

    from metrics import baseline_comparison, fragility, risks, to_label, to_label_summary
    from metrics.core.files import rereader
    from metrics.core.sample import sample_runs

    out = tmp_path / "r.html"
    assert main(["report", "--out", str(out)]) == 0
    page = html_lib.unescape(out.read_text())
    comparison = baseline_comparison(sample)
    for risk in risks(comparison):
        if risk.metric == "nDCG@5":
            assert risk.sentence in page
    found = fragility(sample, comparison, reread=rereader(sample_runs(), sample))
    assert found.summary in page and found.flips
    assert all(flip.sentence in page for flip in found.flips)
    assert to_label_summary(to_label(sample)) in page
    order = [page.index(f'id="{part}"') for part in
             ("comparison", "harm", "fragility", "to-label", "basis")]
    assert order == sorted(order), order


# --------------------------------------------------------------------------- every pair


class Tables(HTMLParser):
    """Each table of the page under the id of the section it stands in: its header and its
    rows as the reader sees the cells (entities decoded), and each section's notes."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[list[str]]]] = {}
        self.notes: dict[str, list[str]] = {}
        self._section = self._cell = self._note = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section":
            self._section = attributes.get("id")
        elif tag == "table":
            self.tables.setdefault(self._section, []).append([])
        elif tag == "tr":
            self.tables[self._section][-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "p" and attributes.get("class") == "note":
            self._note = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[self._section][-1][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "p" and self._note is not None:
            self.notes.setdefault(self._section, []).append("".join(self._note))
            self._note = None

    def handle_data(self, data):
        for part in (self._cell, self._note):
            if part is not None:
                part.append(data)


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Four runs over sixty queries, one clearly better (some pairs told apart), their names
    full of characters HTML escapes; every pair of them by the randomized Tukey HSD on
    nDCG@10 with a minimum effect, and the queries a future set needs to detect 0.05."""
    from metrics import RunSource, all_pairs, baseline_comparison, evaluate_files
    from tests.metrics.outputs.collection import write_collection

    qrels, runs = write_collection(tmp_path_factory.mktemp("collection"))
    evaluation = evaluate_files(qrels, [RunSource(path, name=name) for name, path in
                                        (run.split("=", 1) for run in runs)], 10)
    pairs = all_pairs(evaluation, ["nDCG"], test="tukey", min_effect=0.01,
                      n_permutations=2_000)
    sizes = topic_set_sizes(evaluation, ["nDCG", "AP"], min_difference=0.05)
    contents = report_contents(evaluation, baseline_comparison(evaluation), primary="nDCG",
                               check_fragility=False, pairs=pairs, topic_sets=sizes)
    return evaluation, pairs, sizes, build_report(contents, generated_on="2024-05-01")


def test_the_report_reads_every_pair_by_the_randomized_tukey_hsd(collection):
    """Issue 48: the leaderboard's letters and every pair as Compare's view reads them (the
    randomized and the classic p, the effect size, the verdict), the two-way ANOVA's table
    and margin, each method named beside it; the topic-set sizes after the comparison."""
    evaluation, pairs, sizes, page = collection
    found = Tables(page)
    (board,) = found.tables["leaderboard"]
    assert board[0][-1] == "Group"
    letters = {row[0]: row[-1] for row in board[1:]}
    assert letters == pairs.letters("nDCG") and len(set(letters.values())) > 1
    assert any(pairs.sentence() in note for note in found.notes["leaderboard"])
    every, anova = found.tables["every-pair"]
    header, *rows = every
    assert header == ["Baseline", "Candidate", "Difference", "p", "p classic", "Effect size",
                      "p equivalence", "Verdict"]
    engine = pairs.pair_rows()
    assert [row[:2] for row in rows] == [[r["baseline"], r["candidate"]] for r in engine]
    assert [row[3:7] for row in rows] == [
        [fmt.p_value(r["p"]), fmt.p_value(r["p_classic"]), fmt.effect(r["effect_size"]),
         fmt.p_value(r["p_equivalence"])] for r in engine]
    assert [row[7] for row in rows] == [DECISIONS[r["decision"]] for r in engine]
    label = pairs.label("nDCG")
    assert anova[0] == ANOVA_HEADER and anova[1:] == anova_rows(pairs.tukey[label].anova)
    notes = " ".join(found.notes["every-pair"])
    for said in (anova_margin(pairs.tukey[label].anova), ANOVA_METHOD, TUKEY_METHOD,
                 pairs.sentence(), min_effect_sentence(0.01)):
        assert said in notes
    header, *rows = found.tables["topic-set-sizes"][0]
    assert rows == [[label, f"{size.paired_t:,}", f"{size.anova:,}"]
                    for label, size in sizes.items()]
    assert TOPIC_SET_METHOD in " ".join(found.notes["topic-set-sizes"])
    order = [page.index(f'id="{part}"') for part in
             ("leaderboard", "comparison", "topic-set-sizes", "every-pair", "basis")]
    assert order == sorted(order), order
    cited = html.unescape(page[page.index('id="references"'):])
    assert all(r in cited for r in (*TUKEY_REFERENCES, *TOPIC_SET_REFERENCES))


def test_read_by_the_paired_tests_the_report_is_as_before(sample):
    """Without every pair read by the Tukey HSD: no letters, no every-pair table, no ANOVA."""
    page = build_report(report_contents(sample, check_fragility=False))
    found = Tables(page)
    assert "Group" not in found.tables["leaderboard"][0][0]
    assert "every-pair" not in found.tables and "topic-set-sizes" not in found.tables
    assert TUKEY_METHOD not in page
    assert not any(r in html.unescape(page) for r in (*TUKEY_REFERENCES,
                                                       *TOPIC_SET_REFERENCES))


def test_python_m_dashboard_report_reads_every_pair_by_the_tukey_hsd_when_asked(sample,
                                                                                tmp_path,
                                                                                capsys):
    """--test tukey: the command's report holds the engine's letters and every pair on
    --primary; --min-effect reads its verdicts; for the Markdown summary, refused."""
    from metrics import all_pairs

    out = tmp_path / "r.html"
    assert main(["report", "--out", str(out), "--test", "tukey", "--min-effect", "0.05",
                 "--primary", "MRR"]) == 0
    page = out.read_text()
    found = Tables(page)
    pairs = all_pairs(sample, ["RR"], test="tukey", min_effect=0.05)
    (board,) = found.tables["leaderboard"]
    assert {row[0]: row[-1] for row in board[1:]} == pairs.letters("RR")
    header, *rows = found.tables["every-pair"][0]
    assert [row[3] for row in rows] == [fmt.p_value(r["p"]) for r in pairs.pair_rows()]
    assert min_effect_sentence(0.05) in " ".join(found.notes["comparison"])
    assert "every-pair" not in Tables(_report(tmp_path)).tables  # --test paired: as before
    assert main(["report", "--format", "markdown", "--test", "tukey"]) == 2
    assert "--test tukey" in capsys.readouterr()[1]


def _report(tmp_path) -> str:
    out = tmp_path / "plain.html"
    assert main(["report", "--out", str(out)]) == 0
    return out.read_text()
