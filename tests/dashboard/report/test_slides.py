"""The presentation's files (issue 47): `python -m dashboard slides --out DIR` writes one
1920 x 1080 PNG a slide and a PDF of as many 16:9 pages; every text is 24 px (18 pt at 1920 x
1080) or more, nothing lies outside the slide, the runs wear the Okabe-Ito palette. The
slides' figures are checked against the engine's own, recomputed here from its arrays."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from pypdf import PdfReader

import metrics
from dashboard.__main__ import main
from dashboard.report import slides as files
from dashboard.report.command import slides_parser
from dashboard.views import slides as built
from dashboard.views.chart_base import OKABE_ITO
from metrics.core.sample import SAMPLE_DIR

EDGE = 16  # pixels at each edge of a slide where nothing may be drawn


def _sample_contents(**texts) -> metrics.ReportContents:
    args = slides_parser().parse_args(["--out", "unused", *sum(
        ([f"--{k.replace('_', '-')}", str(v)] for k, v in texts.items()), [])])
    inputs = metrics.Inputs.from_arguments(args, report=lambda _line: None)
    evaluation = inputs.evaluation()
    return metrics.report_contents(
        evaluation, metrics.baseline_comparison(evaluation), check_fragility=False,
        queries=inputs.queries(), corpus=inputs.corpus(), tokens=inputs.tokens())


@pytest.fixture(scope="module")
def contents():
    return _sample_contents(queries=SAMPLE_DIR / "queries.csv", corpus=SAMPLE_DIR /
                            "corpus.jsonl", tokens_per_chunk=300, price_per_mtok=3)


@pytest.fixture(scope="module")
def deck(contents):
    return built.build(contents)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The command on the sample (its texts read, as the report command reads them)."""
    out = tmp_path_factory.mktemp("slides")
    assert main(["slides", "--out", str(out), "--tokens-per-chunk", "300"]) == 0
    return out


@pytest.fixture(scope="module")
def specs(deck):
    return files.specs(deck, "footer")


def test_the_command_writes_a_png_a_slide_and_a_pdf_of_as_many_pages(written):
    pngs = sorted(written.glob("slide-*.png"))
    pages = PdfReader(written / "slides.pdf").pages
    assert len(pngs) >= 6 and len(pages) == len(pngs)
    for path in pngs:
        with Image.open(path) as image:
            assert image.size == (files.WIDTH, files.HEIGHT), path.name
    for page in pages:  # 16:9, whatever unit the page is in
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        assert width / height == pytest.approx(16 / 9, rel=1e-3)


def test_the_command_refuses_a_file_as_its_folder(tmp_path, capsys):
    path = tmp_path / "slides.pdf"
    path.write_text("x")
    assert main(["slides", "--out", str(path)]) != 0
    assert "not a folder" in capsys.readouterr().err


def test_every_text_is_18_pt_or_more_at_1920_by_1080(deck, specs):
    for slide, vega in zip(deck, specs, strict=True):
        texts = list(files.texts(vega))
        assert any(t["mark"] == "slide_title" for t in texts)
        small = [(t["text"], t["size"]) for t in texts if (t["size"] or 0) < built.MIN_TEXT_PX]
        assert not small, (slide.key, small)
        assert built.MIN_TEXT_PX * 0.75 >= 18  # a pixel is 0.75 pt


def test_nothing_lies_outside_the_slide(deck, specs):
    """The content as Vega measured it (its labels and legends included) lies inside the
    margins, and the rendered PNG has nothing at all in a band along each edge."""
    for slide, vega in zip(deck, specs, strict=True):
        x1, y1, x2, y2 = vega["usermeta"]["content"]
        assert 0 <= x1 and 0 <= y1 and x2 <= files.WIDTH - files.MARGIN_X
        assert y2 <= files.HEIGHT - files.MARGIN_BOTTOM, slide.key
        for text in files.texts(vega):  # every text on the canvas, at its size's width
            reach = 0.45 * text["size"] * len(str(text["text"])) if text["angle"] == 0 else 0
            low, high = {"left": (0, reach), "right": (-reach, 0)}.get(
                text["align"], (-reach / 2, reach / 2))
            assert 0 <= text["x"] + low and text["x"] + high <= files.WIDTH, (slide.key, text)
            assert 0 <= text["y"] <= files.HEIGHT, (slide.key, text)
        pixels = np.asarray(Image.open(io.BytesIO(files.png(vega))).convert("RGB"))
        for band in (pixels[:EDGE], pixels[-EDGE:], pixels[:, :EDGE], pixels[:, -EDGE:]):
            assert (band == 255).all(), f"{slide.key}: something drawn at the slide's edge"


def test_a_chart_too_wide_for_the_slide_is_refused_not_cut():
    wide = built.Slide("x", "A title", ("a line",), built.alt.Chart(
        built.pd.DataFrame({"a": ["x" * 300], "b": [1]})).mark_bar().encode(
        y="a:N", x="b:Q").properties(width=400))  # a label of 300 characters, never cut
    with pytest.raises(files.DoesNotFit, match="needs"):
        files.spec(wide, 1, 1)


def _data(chart, layer: int):
    """A layer's rows (Altair keeps the rows its layers share on the layer chart)."""
    own = chart.layer[layer].data
    return chart.data if own is built.alt.Undefined else own


def _colours(node, found):
    for item in node.get("items", []) or []:
        if node.get("marktype") in ("symbol", "rule", "rect", "line", "area") \
                and node.get("role") == "mark":
            for channel in ("fill", "stroke"):
                if isinstance(item.get(channel), str):
                    found.add(item[channel].upper())
        _colours(item, found)
    return found


def test_the_runs_and_the_gains_wear_the_okabe_ito_palette(deck, specs):
    allowed = {c.upper() for c in OKABE_ITO} | {built.INK.upper(), built.SOFT.upper()}
    for slide, vega in zip(deck, specs, strict=True):
        found = _colours(files.vlc.vega_to_scenegraph(vega)["scenegraph"], set())
        assert found <= allowed, (slide.key, found - allowed)
        if slide.key in ("headline", "sweep", "wins"):
            assert found & {c.upper() for c in OKABE_ITO}, slide.key


def test_the_slides_follow_the_room_and_their_figures_are_the_engines(contents, deck):
    evaluation, comparison = contents.evaluation, contents.comparison
    keys = [s.key for s in deck]
    assert keys == ["compared", "headline", "sweep",
                    *["wins"] * len(comparison.candidates), "cost", "caveats"]
    first = deck[0].lines[0]  # runs, queries, K and labels in one line
    assert f"{comparison.baseline} (baseline)" in first and f"K = {evaluation.k}" in first
    assert f"{len(evaluation.scored_ids):,} queries scored" in first and "labels:" in first
    assert sum("Conventions" in line for slide in deck for line in slide.lines) == 1
    # the headline: the engine's sentences, and its chart's rows the summary's figures
    assert deck[1].lines == contents.headline
    label = evaluation.label(contents.primary)
    summary = evaluation.summary()
    summary = summary[summary["label"] == label]
    rows = _data(deck[1].chart, 1)
    assert list(rows["run"]) == list(summary["run"])
    np.testing.assert_array_equal(rows["mean"], summary["mean"])
    # the sweep: each run's figure at the chosen K is the evaluation's mean at K
    for run in evaluation.run_names:
        line = next(line for line in deck[2].lines if line.startswith(f"{run}:"))
        mean = summary.set_index("run").loc[run, "mean"]
        assert f"{metrics.format.figure(mean)} at K = {evaluation.k}" in line


def test_the_wins_are_the_largest_paired_differences(contents, deck):
    """Recomputed from the comparison's per-query arrays with numpy: the five largest gains
    and the five largest losses, in that order."""
    comparison = contents.comparison
    label = contents.evaluation.label(contents.primary)
    for slide, candidate in zip([s for s in deck if s.key == "wins"], comparison.candidates,
                                strict=True):
        test = next(t for t in comparison.tests
                    if t.candidate == candidate and t.metric == label)
        rows = _data(slide.chart, 0)
        gains = np.sort(test.differences[test.differences > 0])[::-1][:built.EXAMPLES]
        losses = np.sort(test.differences[test.differences < 0])[:built.EXAMPLES]
        np.testing.assert_allclose(rows[rows["kind"] == "gain"]["difference"], gains)
        np.testing.assert_allclose(rows[rows["kind"] == "loss"]["difference"], losses)
        ids = list(comparison.query_ids)
        for row in rows.itertuples():
            i = ids.index(row.query_id)
            assert row.difference == test.differences[i]
            text = contents.queries.text(row.query_id)
            if text:  # the question beside its id
                assert row.query.startswith(f"{row.query_id}  {text[:20]}")
        assert f"{test.wins:,}" in slide.lines[0] and f"{test.losses:,} worse" in slide.lines[0]


def test_the_cost_slide_is_the_engines_cost_with_a_place_for_latency(contents, deck):
    cost = next(s for s in deck if s.key == "cost")
    rows = _data(cost.chart, 0)
    assert len(rows) == 2 * len(contents.costs)
    for c in contents.costs:  # each run's tokens and recall at K and at its suggested k
        mine = rows[rows["run"] == c.run]
        np.testing.assert_array_equal(mine["tokens"], [c.current.tokens, c.suggested.tokens])
        np.testing.assert_array_equal(mine["recall"], [c.current.recall, c.suggested.recall])
        assert list(mine["at"]) == [f"K = {c.current.k}", f"suggested k = {c.suggested.k}"]
    assert built.NO_LATENCY in cost.lines
    timed = built.build(contents, latency=["bm25: 12 ms a query"])
    assert "bm25: 12 ms a query" in next(s for s in timed if s.key == "cost").lines


def test_without_texts_or_a_price_the_slides_say_what_is_missing():
    # the sample's files named: on the sample itself its queries and corpus are read
    deck = built.build(_sample_contents(qrels=SAMPLE_DIR / "qrels.txt",
                                        run=SAMPLE_DIR / "bm25.run"))
    lines = {s.key: s.lines for s in deck}
    assert lines["cost"][0] == built.NOT_PRICED
    assert lines["caveats"][0].startswith("Leakage: not checked")
