"""The stakeholder report and the exports: self-contained, the engine's figures, escaped ids."""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pandas as pd
import pytest

import metrics
from dashboard import safe
from dashboard.__main__ import main
from dashboard.report import exports
from dashboard.report import html as report
from metrics import RunSource, evaluate_files, load_qrels
from metrics.core.sample import SAMPLE_DIR, load_sample, sample_qrels
from metrics.snapshot import fingerprint_qrels
from tests.marks import THOROUGH

HOSTILE = "<script>alert(1)</script>"
ATTRIBUTE = 'x"onmouseover="alert(1)'
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# an external reference in an attribute: a scheme with // (http:, https:, ftp:, ...) or a
# protocol-relative //host
EXTERNAL = re.compile(
    r"""(?:src|href|action|srcset|xlink:href)\s*=\s*["']?\s*(?:[a-z]+:)?//""", re.I
)


class Page(HTMLParser):
    """Every start tag with its attributes, every script body, and the page's text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self.text: list[str] = []
        self._script: dict | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "script":
            self._script = attributes

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self.scripts.append((self._script, data))
        else:
            self.text.append(data)

    def plain(self) -> str:
        return " ".join(" ".join(self.text).split())


def assert_self_contained(page: Page, text: str):
    assert not EXTERNAL.search(text)
    for tag, attributes in page.tags:
        assert tag not in ("link", "iframe", "object", "embed", "base"), tag
        for name in ("src", "href"):
            if name in attributes:
                assert attributes[name].startswith(("data:", "#")), (tag, attributes[name][:40])
        assert not any(name.startswith("on") for name in attributes), (tag, attributes)
    for attributes, _ in page.scripts:
        assert attributes == {"type": "application/json", "id": "snapshot"}


@pytest.fixture(scope="module")
def sample():
    return load_sample()


@pytest.fixture(scope="module")
def sample_comparison(sample):
    return metrics.baseline_comparison(sample)


@pytest.fixture(scope="module")
def sample_html(sample, sample_comparison):
    return report.build_html(sample, sample_comparison, generated_on="2024-05-01")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A tiny collection whose run name, query ids and title are hostile."""
    folder = tmp_path_factory.mktemp("hostile")
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n"
        f"{HOSTILE} 0 d4 0\n"  # no relevant id: excluded, listed by id
        f"{ATTRIBUTE} 0 d5 1\n"  # no run answers it: missing, listed by id
    )
    first = folder / "first.run"
    first.write_text(
        f"q1 Q0 d1 1 3 t\nq1 Q0 d9 2 2 t\nq2 Q0 d8 1 3 t\nq3 Q0 d3 1 3 t\n{HOSTILE} Q0 d4 1 3 t\n"
    )
    second = folder / "second.run"
    second.write_text("q1 Q0 d9 1 3 t\nq2 Q0 d2 1 3 t\nq3 Q0 d3 1 3 t\n")
    evaluation = evaluate_files(
        qrels, [RunSource(first, name=HOSTILE), RunSource(second, name=ATTRIBUTE)], 2
    )
    comparison = metrics.baseline_comparison(evaluation)
    text = report.build_html(evaluation, comparison, title=f"Report {HOSTILE}")
    return evaluation, comparison, text


# --------------------------------------------------------------------------- the HTML report


def test_report_parses_and_is_self_contained(sample_html):
    assert sample_html.startswith("<!DOCTYPE html>")
    page = Page(sample_html)
    tags = [tag for tag, _ in page.tags]
    assert tags.count("html") == tags.count("body") == 1
    assert tags.count("img") == 2 and tags.count("table") >= 5
    assert_self_contained(page, sample_html)


def test_report_holds_the_engine_figures(sample, sample_html, sample_comparison):
    text = Page(sample_html).plain()
    assert "Generated on 2024-05-01" in text and "K = 5" in text
    assert "Hit@5" in text and "0.778 [0.453, 0.937]" in text
    for run in sample.runs:
        for interval in run.summary.values():
            assert f"{interval.mean:.3f} [{interval.low:.3f}, {interval.high:.3f}]" in text
    qrels, _ = load_qrels(sample_qrels())
    assert fingerprint_qrels(qrels) in text
    assert "10 queries from qrels.txt: 9 scored, 1 excluded" in text and "(q08)" in text
    for sentence in sample.conventions.sentences().values():
        assert sentence in text
    test = sample_comparison.test("reranked", "nDCG@5")
    assert "reranked against baseline" in text and sample_comparison.verdict(test) in text
    assert f"{test.difference:+.3f} [{test.low:+.3f}, {test.high:+.3f}]" in text
    assert f"Holm correction over the {sample_comparison.n_comparisons} comparisons" in text
    suggestion = sample.run("baseline").suggestion
    assert f"k = {suggestion.k} reaches mean recall {suggestion.recall:.3f}" in text
    assert sample.run("baseline").diagnosis[0].sentence in text
    assert "Honest limits" in text and "Every figure trusts the relevance labels" in text
    assert "Wilson, E. B. (1927)" in text and "Smucker, M. D., Allan, J." in text


def test_report_charts_are_embedded_images(sample_html):
    sources = [a["src"] for tag, a in Page(sample_html).tags if tag == "img"]
    for source in sources:
        prefix = "data:image/svg+xml;base64,"
        assert source.startswith(prefix)
        svg = base64.b64decode(source[len(prefix) :]).decode("utf-8")
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and len(svg) > 5_000
        assert "K = 5" in svg


def test_report_embeds_its_snapshot(sample, sample_html):
    ((attributes, body),) = Page(sample_html).scripts
    data = json.loads(body)
    assert data["k"] == 5 and data["runs"][0]["summary"]["Hit@5"]["mean"] == 7 / 9
    assert dt.datetime.fromisoformat(data["snapshot"]["created"]).tzinfo is not None
    assert data["query_set"]["fingerprint"] == fingerprint_qrels(load_qrels(sample_qrels())[0])
    assert [run["name"] for run in data["runs"]] == sample.run_names


def test_report_without_comparison_or_data(sample):
    text = report.build_html(sample, title="Plain", embed_data=False)
    page = Page(text)
    assert 'id="comparison"' not in text and not page.scripts
    assert "<title>Plain</title>" in text


def test_hostile_ids_are_escaped_everywhere(hostile):
    evaluation, comparison, text = hostile
    assert comparison is not None and HOSTILE in evaluation.excluded_ids
    assert HOSTILE not in text and ATTRIBUTE not in text
    assert "<script>" not in text.replace('<script type="application/json" id="snapshot">', "")
    page = Page(text)
    assert_self_contained(page, text)
    plain = page.plain()
    assert f"Report {HOSTILE}" in plain  # the title, shown as text
    assert f"excluded because they list no relevant id ({HOSTILE})" in plain
    assert f"{HOSTILE} against {ATTRIBUTE}" in plain or f"{ATTRIBUTE} against {HOSTILE}" in plain
    assert f"no list for 1 queries, which score 0: {ATTRIBUTE}" in plain
    assert html.escape(HOSTILE) in text
    # the inline JSON carries the ids intact, with <, > and & as unicode escapes
    ((_, body),) = page.scripts
    assert "<" not in body and ">" not in body
    data = json.loads(body)
    assert [run["name"] for run in data["runs"]] == [HOSTILE, ATTRIBUTE]
    assert data["query_set"]["excluded"] == [HOSTILE]


def test_hostile_names_in_every_pair_and_the_anova_are_escaped(hostile):
    """The every-pair table and the leaderboard's letters under the randomized Tukey HSD
    name the runs as text, never as markup."""
    evaluation, comparison, _ = hostile
    pairs = metrics.all_pairs(evaluation, ["nDCG"], test="tukey", n_permutations=200)
    contents = metrics.report_contents(evaluation, comparison, primary="nDCG",
                                       check_fragility=False, pairs=pairs)
    text = report.build_report(contents, embed_data=False)
    assert HOSTILE not in text and ATTRIBUTE not in text
    page = Page(text)
    assert_self_contained(page, text)
    plain = page.plain()
    start = plain.index("All runs against all runs")
    assert HOSTILE in plain[start:] and ATTRIBUTE in plain[start:]
    assert metrics.TUKEY_METHOD in plain[start:]


def test_hostile_names_in_markdown_and_charts(hostile):
    evaluation, comparison, _ = hostile
    markdown = exports.summary_markdown(evaluation, comparison)
    assert HOSTILE not in markdown and safe.github(HOSTILE) in markdown
    svg = exports.chart_svg(exports.interval_chart(evaluation))
    ET.fromstring(svg)  # still well-formed XML: the names are escaped inside it
    assert "<script" not in svg


# --------------------------------------------------------------------------- exports


def test_png_and_svg_exports_are_valid_images(sample):
    for chart in (exports.interval_chart(sample), exports.sweep_chart(sample)):
        png = exports.chart_png(chart)
        assert png.startswith(PNG_MAGIC) and len(png) > 20_000
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert width > 400 and height > 300
        svg = exports.chart_svg(chart)
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and len(svg) > 10_000
        assert float(root.get("width")) > 200 and float(root.get("height")) > 150
    assert exports.chart_png(exports.interval_chart(sample), scale=1).startswith(PNG_MAGIC)
    # the sweep's title reads the chosen K from the chart's data: written out in the image too
    assert f"Every metric against K (chosen K = {sample.k})" in exports.chart_svg(
        exports.sweep_chart(sample))
    with pytest.raises(ValueError, match="Altair chart"):
        exports.chart_svg("not a chart")


def test_summary_markdown_is_a_table(sample, sample_comparison):
    text = exports.summary_markdown(sample, sample_comparison)
    lines = text.splitlines()
    assert "| Metric | baseline | reranked | bm25 |" in lines
    assert "|:---|---:|---:|---:|" in lines
    hit = next(line for line in lines if line.startswith("| Hit@5 |"))
    assert hit.startswith("| Hit@5 | 0.778 [0.453, 0.937] |")
    table = [line for line in lines if re.match(r"\| \w+@5 \|", line)]
    assert len(table) == 9
    assert "K = 5" in text and "sha256:" in text
    assert "| reranked | nDCG@5 |" in text and "could be noise" in text
    assert "Against" not in exports.summary_markdown(sample)


def test_markdown_escapes_pipes_in_names(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d1 1 1 t\nq2 Q0 d3 1 1 t\n")
    evaluation = evaluate_files(qrels, [RunSource(run, name="a|b")], 1)
    header = next(
        line for line in exports.summary_markdown(evaluation).splitlines() if "Metric" in line
    )
    assert header == "| Metric | a\\|b |"


def test_csv_exports_round_trip(sample):
    summary = pd.read_csv(io.StringIO(exports.summary_csv(sample)))
    pd.testing.assert_frame_equal(summary, sample.summary(), check_dtype=False)
    per_query = pd.read_csv(io.StringIO(exports.per_query_csv(sample)), dtype={"query_id": str})
    assert len(per_query) == 27 and list(per_query.columns) == list(sample.per_query().columns)
    assert per_query["nDCG"].tolist() == sample.per_query()["nDCG"].tolist()


def test_no_comparison_for_a_single_run():
    evaluation = evaluate_files(sample_qrels(), [RunSource(SAMPLE_DIR / "bm25.run")], 5)
    assert metrics.baseline_comparison(evaluation) is None


def test_report_module_does_not_import_streamlit():
    code = ("import sys, dashboard.report.html, dashboard.__main__; "
            "print('streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- command line


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_the_report(tmp_path, capsys):
    out_file = tmp_path / "report.html"
    code, out, err = run_cli(
        capsys,
        "report",
        "--qrels", str(sample_qrels()),
        "--run", str(SAMPLE_DIR / "baseline.run"),
        "--run", f"new={SAMPLE_DIR / 'reranked.run'}",
        "--k", "5",
        "--title", "Reranker review",
        "--out", str(out_file),
    )  # fmt: skip
    assert code == 0 and out == ""
    assert f"html report written to {out_file}" in err and "reranked.run: 100 lines read" in err
    text = out_file.read_text(encoding="utf-8")
    plain = Page(text).plain()
    assert "Reranker review" in plain and "new against baseline" in plain
    assert "0.778 [0.453, 0.937]" in plain
    assert_self_contained(Page(text), text)


def test_cli_markdown_to_standard_output(capsys):
    code, out, _ = run_cli(capsys, "report", "--format", "markdown", "--no-comparison")
    assert code == 0
    assert out.startswith("## Retrieval scores at K = 5")
    assert "| Hit@5 | 0.778 [0.453, 0.937] |" in out and "Against" not in out


def test_cli_errors_are_one_line(tmp_path, capsys):
    code, _, err = run_cli(capsys, "report")
    assert code == 2 and err == "error: the HTML report needs --out FILE (see --help)\n"
    code, _, err = run_cli(capsys)
    assert code == 2 and err.count("\n") == 1 and "expected: report" in err
    code, _, err = run_cli(capsys, "report", "--format", "pdf")
    assert code == 2 and err.count("\n") == 1 and "pdf" in err
    missing = tmp_path / "nope.txt"
    code, _, err = run_cli(
        capsys, "report", "--qrels", str(missing), "--run", str(missing), "--out", "x.html"
    )
    assert code == 1 and err.count("\n") == 1 and "nope.txt" in err
    assert not (tmp_path / "x.html").exists()


@THOROUGH
def test_python_dash_m_dashboard_report(tmp_path):
    out_file = tmp_path / "r.html"
    done = subprocess.run(
        [sys.executable, "-m", "dashboard", "report", "--out", str(out_file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "0.778 [0.453, 0.937]" in out_file.read_text(encoding="utf-8")


def test_the_dashboards_snapshot_file_is_a_snapshot_the_engine_reads(tmp_path):
    from metrics.snapshot import drift_rows, load, loads, save, to_snapshot

    sample = load_sample()
    text = exports.snapshot_json(sample, "before the rebuild")
    data = loads(text, source="dashboard.json")
    assert data.header.label == "before the rebuild" and data.k == 5
    saved = tmp_path / "engine.json"
    save(data, saved)
    assert saved.read_text(encoding="utf-8") == text  # written as the engine writes it
    assert load(saved) == data
    assert len(drift_rows([data, to_snapshot(sample)])) == 2 * 3 * 9


def test_comparison_csv_keeps_every_test_unrounded():
    sample = load_sample()
    comparison = metrics.baseline_comparison(sample)
    table = pd.read_csv(io.StringIO(exports.comparison_csv(comparison)))
    assert len(table) == len(comparison.tests) == 16
    first = comparison.tests[0]
    assert table.loc[0, "p_randomization"] == first.p_randomization
    assert table.loc[0, "difference"] == pytest.approx(first.difference, abs=1e-15)
    assert set(table["verdict"]) == {comparison.verdict(t) for t in comparison.tests}


def test_the_report_has_the_run_by_metric_table_with_its_test_named(sample):
    from metrics import run_table

    comparison = metrics.baseline_comparison(sample)
    text = report.build_html(sample, comparison, generated_on="2026-01-01")
    section = text[text.index('id="against-baseline"'):]
    section = section[:section.index("</section>")]
    table = run_table(sample, comparison)
    assert table.cell("reranked", "nDCG@5").text in section
    assert "Holm correction over the 16 comparisons" in section
