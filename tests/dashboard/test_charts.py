"""Chart functions checked on chart.to_dict(): titles and axes name the metric and K, every
run keeps its colour (a colour-blind-safe one) whichever runs are shown, the heatmap carries
the query selection, and every chart fits the page's column with every run name whole."""

from __future__ import annotations

import json

import pytest

from dashboard import chart_base, charts, comparison_charts, frames
from metrics import QUERY_CLASSES, SUMMARY_MEASURES

ALL_RUNS = ["baseline", "reranked", "bm25"]


def walk(spec):
    """Every dict inside a Vega-Lite spec."""
    if isinstance(spec, dict):
        yield spec
        for value in spec.values():
            yield from walk(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from walk(value)


def encodings(spec, channel: str) -> list[dict]:
    return [d["encoding"][channel] for d in walk(spec)
            if isinstance(d.get("encoding"), dict) and channel in d["encoding"]]


def title_text(spec) -> str:
    title = spec["title"]
    return json.dumps(title)


def run_colour_scales(spec) -> list[dict]:
    return [c["scale"] for c in encodings(spec, "color") if c.get("field") == "run"]


@pytest.fixture(scope="module")
def intervals(sample):
    return charts.interval_bars(
        sample.summary(), chart_base.run_scale(ALL_RUNS), k=5, confidence_level=0.95, n_queries=9
    ).to_dict()


def test_interval_bars_name_k_level_and_metrics(intervals, sample):
    assert "K = 5" in title_text(intervals) and "95%" in title_text(intervals)
    x_titles = [x["axis"]["title"] for x in encodings(intervals, "x") if "axis" in x]
    assert x_titles == ["Score at K = 5 (mean and 95% interval)"]
    y_sorts = {json.dumps(y["sort"]) for y in encodings(intervals, "y")}
    assert y_sorts == {json.dumps([m.label(5) for m in SUMMARY_MEASURES])}
    assert all(x.get("scale", {}).get("domain", [0, 1]) == [0, 1]
               for x in encodings(intervals, "x"))


def test_interval_bars_tooltips_have_three_decimals(intervals):
    formats = {t.get("format") for e in encodings(intervals, "tooltip") for t in e
               if t["field"] in ("mean", "low", "high")}
    assert formats == {".3f"}


def test_a_run_keeps_its_colour_whichever_runs_are_shown(sample):
    scale = chart_base.run_scale(ALL_RUNS)
    summary = sample.summary()
    every = charts.interval_bars(summary, scale, k=5, confidence_level=0.95, n_queries=9)
    some = charts.interval_bars(summary[summary["run"] == "bm25"], scale, k=5,
                                confidence_level=0.95, n_queries=9)
    for spec in (every.to_dict(), some.to_dict()):
        for colour in run_colour_scales(spec):
            assert colour["domain"] == ALL_RUNS
            assert colour["range"] == list(chart_base.RUN_PALETTE[:3])


def test_run_scale_is_fixed_and_cycles_past_the_palette():
    names = [f"run{i}" for i in range(12)]
    scale = chart_base.run_scale(names).to_dict()
    assert scale["domain"] == names
    cycle = len(chart_base.RUN_PALETTE)
    assert scale["range"][cycle] == scale["range"][0] == chart_base.RUN_PALETTE[0]


# Okabe & Ito (2008), "Color universal design": the eight colours told apart with any common
# colour-vision deficiency; black, unreadable on the dark theme, is left out (grey instead)
OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}


def test_run_colours_are_the_colour_blind_safe_palette(sample):
    names = [f"run{i}" for i in range(8)]
    assert chart_base.run_scale(names).to_dict()["range"] == list(chart_base.RUN_PALETTE)
    assert set(chart_base.RUN_PALETTE) == OKABE_ITO | {"#999999"}
    assert len(set(chart_base.RUN_PALETTE)) == len(chart_base.RUN_PALETTE)
    # on a chart: the run scale's range is the palette, in order, from its first colour
    spec = charts.interval_bars(sample.summary(), chart_base.run_scale(ALL_RUNS), k=5,
                                confidence_level=0.95, n_queries=9).to_dict()
    assert {json.dumps(s["range"]) for s in run_colour_scales(spec)} == {
        json.dumps(list(chart_base.OKABE_ITO[:3]))}
    # the classes and the labels take Okabe-Ito hues too, no two alike
    for colours in (chart_base.CLASS_COLOURS, comparison_charts.JUDGED_COLOURS):
        assert set(colours.values()) <= OKABE_ITO | {"#999999"}
        assert len(set(colours.values())) == len(colours)


def test_secondary_text_follows_the_theme(intervals):
    """No light-only grey: the subtitle's colour is read from the chart's background."""
    colour = intervals["title"]["subtitleColor"]
    assert "background" in colour["expr"]
    assert "#5c6270" in colour["expr"] and "#a3a8b3" in colour["expr"]


def test_run_legends_name_every_run_whole(sample, intervals):
    sweep = charts.sweep_lines(frames.sweep_long(sample), chart_base.run_scale(ALL_RUNS), k=5,
                               labels=[m.label("K") for m in SUMMARY_MEASURES]).to_dict()
    for spec in (intervals, sweep):
        legends = [c["legend"] for c in encodings(spec, "color")
                   if c.get("field") == "run" and c.get("legend")]
        assert legends and all(legend["labelLimit"] == 0 for legend in legends)


def test_charts_are_drawn_as_svg(intervals):
    """Streamlit draws a chart of many rows on a canvas unless told; SVG keeps text readable."""
    assert intervals["usermeta"] == {"embedOptions": {"renderer": "svg"}}


@pytest.mark.parametrize("bands", [False, True])
def test_sweep_marks_k_and_shares_the_unit_scale(sample, bands):
    sweep = frames.sweep_long(sample)
    if bands:
        sweep = sweep.merge(frames.sweep_intervals(sample), on=["run", "k", "metric"])
    labels = [m.label("K") for m in SUMMARY_MEASURES]
    spec = charts.sweep_lines(sweep, chart_base.run_scale(ALL_RUNS), k=5, labels=labels,
                              bands=bands).to_dict()
    assert "chosen K = 5" in title_text(spec)
    assert spec["facet"]["sort"] == labels
    layers = spec["spec"]["layer"]
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in layers]
    assert marks == (["area"] if bands else []) + ["line", "rule"]
    assert layers[-1]["encoding"]["x"] == {"datum": 5}
    x_titles = {x["title"] for x in encodings(spec, "x") if "title" in x}
    assert x_titles == {"K (cutoff)"}
    y = [e for e in encodings(spec, "y") if e.get("field") == "mean"][0]
    assert y["axis"]["title"] == "Mean at K" and y["scale"]["domain"] == [0, 1]
    assert all(s["domain"] == ALL_RUNS for s in run_colour_scales(spec))


def test_heatmap_names_metric_and_k_and_selects_queries(sample):
    cells = frames.query_cells(sample, ["nDCG"])
    order = frames.query_order(sample, "nDCG", "id")
    spec = charts.query_heatmap(cells, order=order, runs=ALL_RUNS, labels=["nDCG@5"],
                                k=5).to_dict()
    assert "nDCG@5 per query and run at K = 5" in title_text(spec)
    assert [p["name"] for p in spec["params"]] == ["query"]
    assert spec["params"][0]["select"]["fields"] == ["query_id"]
    class_scale = [c["scale"] for c in encodings(spec, "color") if c.get("field") == "class"]
    assert class_scale[0]["domain"] == list(QUERY_CLASSES)
    score = [c for c in encodings(spec, "color") if c.get("field") == "value"][0]
    assert score["scale"]["domain"] == [0, 1]
    assert score["legend"]["title"] == "Score at K = 5"
    assert {json.dumps(y["sort"]) for y in encodings(spec, "y")} == {json.dumps(order)}
    texts = [t for t in encodings(spec, "text")]
    assert texts and texts[0]["format"] == ".3f"


def test_heatmap_with_every_metric_has_one_panel_each(sample):
    keys = [m.key for m in SUMMARY_MEASURES]
    labels = [m.label(5, summary=False) for m in SUMMARY_MEASURES]
    cells = frames.query_cells(sample, keys)
    spec = charts.query_heatmap(cells, order=sample.scored_ids, runs=ALL_RUNS, labels=labels,
                                k=5).to_dict()
    assert f"{len(labels)} metrics per query and run at K = 5" in title_text(spec)
    assert spec["hconcat"][1]["facet"]["column"]["sort"] == labels
    assert not encodings(spec, "text")  # too many cells for figures inside them


# --------------------------------------------------------------------------- comparison


@pytest.fixture(scope="module")
def comparison(sample):
    from metrics.compare import compare_evaluation

    return compare_evaluation(sample, metrics=["nDCG", "RR"], n_permutations=200)


def marks(spec) -> list[str]:
    return [d["mark"]["type"] if isinstance(d["mark"], dict) else d["mark"]
            for d in walk(spec) if "mark" in d]


def rows_of(spec) -> list[dict]:
    return [row for rows in spec.get("datasets", {}).values() for row in rows]


def diagonal_of(layers: list[dict]) -> dict:
    rule = [layer for layer in layers if layer["mark"].get("type") == "rule"][0]
    return {channel: rule["encoding"][channel] for channel in ("x", "y", "x2", "y2")}


def test_paired_scatter_has_the_diagonal_and_one_colour_per_candidate(comparison):
    paired = frames.paired_scores(comparison, "nDCG@5")
    spec = comparison_charts.paired_scatter(paired, chart_base.run_scale(ALL_RUNS), metric="nDCG@5",
                                 baseline="baseline").to_dict()
    assert "nDCG@5 per query" in title_text(spec)
    assert spec["autosize"] == {"type": "pad"}
    assert diagonal_of(spec["layer"]) == {"x": {"datum": 0}, "y": {"datum": 0},
                                          "x2": {"datum": 1}, "y2": {"datum": 1}}
    points = [layer for layer in spec["layer"] if layer["mark"].get("type") == "circle"][0]
    assert points["encoding"]["x"]["field"] == "before"
    assert points["encoding"]["y"]["field"] == "after"
    assert "nDCG@5 of baseline" in points["encoding"]["x"]["axis"]["title"]
    # a point at 0 or 1 is drawn whole: the scale reaches past the ticks, which stop at 0 and 1
    for channel in ("x", "y"):
        low, high = points["encoding"][channel]["scale"]["domain"]
        assert low < 0 and high > 1
        assert points["encoding"][channel]["axis"]["values"] == [0, 0.2, 0.4, 0.6, 0.8, 1]
    assert points["encoding"]["color"]["scale"]["domain"] == ALL_RUNS
    assert points["encoding"]["color"]["legend"]["labelLimit"] == 0
    assert points["encoding"]["color"]["legend"]["values"] == ["reranked", "bm25"]
    tooltip = {t["field"]: t for t in points["encoding"]["tooltip"]}
    assert tooltip["query_id"]["title"] == "Query" and tooltip["after"]["format"] == ".3f"
    assert len(rows_of(spec)) >= 2 * len(comparison.query_ids)


def test_many_points_are_shown_as_density_one_panel_per_candidate():
    """Thousands of (query, candidate) points would print over one another: beyond
    MANY_POINTS the scatter counts the queries in each cell, a panel per candidate."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 1946
    before = rng.random(n)
    paired = pd.concat([pd.DataFrame({"run": run, "query_id": [f"q{i}" for i in range(n)],
                                      "before": before, "after": rng.random(n)})
                        for run in ("reranked", "bm25")], ignore_index=True)
    paired["difference"] = paired["after"] - paired["before"]
    spec = comparison_charts.paired_scatter(paired, chart_base.run_scale(ALL_RUNS), metric="nDCG@5",
                                 baseline="baseline").to_dict()
    assert spec["facet"]["field"] == "run" and spec["facet"]["sort"] == ["reranked", "bm25"]
    assert spec["facet"]["header"]["labelLimit"] == 0
    cells = spec["spec"]["layer"][0]
    assert cells["mark"]["type"] == "rect" and "circle" not in marks(spec)
    assert cells["encoding"]["x"]["bin"] == cells["encoding"]["y"]["bin"] == {
        "step": comparison_charts.DENSITY_STEP, "extent": [0, 1]}
    assert cells["encoding"]["opacity"]["aggregate"] == "count"
    assert cells["encoding"]["color"]["scale"]["domain"] == ALL_RUNS
    assert diagonal_of(spec["spec"]["layer"])["x2"] == {"datum": 1}
    # the panels fit the page's column
    columns = spec["columns"]
    assert columns * spec["spec"]["width"] + chart_base.Y_AXIS <= chart_base.PAGE_WIDTH


def test_difference_bars_sort_each_candidate_by_its_difference(comparison):
    paired = frames.paired_scores(comparison, "MRR@5")
    spec = comparison_charts.difference_bars(paired, chart_base.run_scale(ALL_RUNS), metric="MRR@5",
                                  baseline="baseline").to_dict()
    assert "Per-query difference in MRR@5, sorted" in title_text(spec)
    assert spec["facet"]["row"]["field"] == "run"
    assert spec["resolve"]["scale"]["x"] == "independent"
    bars, zero = spec["spec"]["layer"]
    assert bars["encoding"]["x"]["sort"] == {"field": "difference", "order": "descending"}
    assert bars["encoding"]["y"]["scale"]["domain"] == [-1, 1]
    assert zero["encoding"]["y"] == {"datum": 0}
    assert bars["encoding"]["x"]["axis"].get("labels", True) is True  # nine queries: named


def test_difference_bars_hide_query_names_when_there_are_many(comparison):
    import pandas as pd

    many = pd.DataFrame({"run": "reranked", "query_id": [f"q{i}" for i in range(100)],
                         "before": 0.5, "after": 0.5, "difference": 0.0})
    spec = comparison_charts.difference_bars(many, chart_base.run_scale(ALL_RUNS), metric="nDCG@5",
                                  baseline="baseline").to_dict()
    assert spec["spec"]["layer"][0]["encoding"]["x"]["axis"]["labels"] is False
    assert "100 queries" in spec["spec"]["layer"][0]["encoding"]["x"]["title"]


def test_rank_slope_reverses_ranks_and_marks_k(sample):
    import metrics

    movement = metrics.rank_movement(sample, "baseline", "reranked", "q03", 10)
    spec = comparison_charts.rank_slope(movement, k=5, depth=10, baseline="baseline",
                                        candidate="reranked", query_id="q03").to_dict()
    assert "q03: rank of each id" in title_text(spec) and "top K = 5" in title_text(spec)
    y = [e for e in encodings(spec, "y") if e.get("field") == "rank"][0]
    assert y["scale"]["reverse"] is True and y["scale"]["domain"] == [0.5, 10.5]
    x = [e for e in encodings(spec, "x") if e.get("field") == "side"][0]
    assert x["sort"] == ["baseline (before)", "reranked (after)"]
    colour = [c for c in encodings(spec, "color") if c.get("field") == "judged"][0]
    assert colour["scale"]["domain"] == list(comparison_charts.JUDGED_COLOURS)
    assert {"k": 5.5} in rows_of(spec)  # the dashed line under the top K
    lifted = [r for r in rows_of(spec) if r.get("doc_id") == "d21"]
    assert sorted(r["rank"] for r in lifted) == [1.0, 6.0]
    assert "line" in marks(spec) and "text" in marks(spec)


def test_rank_slope_gives_each_id_below_the_depth_a_row_of_its_own(sample):
    """Ids a list has below the depth, or not at all, would share one row and print their
    labels over each other: each takes a row under the top ranks, furthest last."""
    import metrics

    movement = metrics.rank_movement(sample, "baseline", "reranked", "q03", 3)
    spec = comparison_charts.rank_slope(movement, k=2, depth=3, baseline="baseline",
                                        candidate="reranked", query_id="q03").to_dict()
    rows = [r for r in rows_of(spec) if "side" in r]
    for side in ("baseline (before)", "reranked (after)"):
        ranks = [r["rank"] for r in rows if r["side"] == side]
        assert len(ranks) == len(set(ranks)) == len(movement)  # a row each, none shared
        below = [r for r in rows if r["side"] == side and r["rank"] > 3]
        assert below, "q03 has ids below rank 3"
        assert all(r["text"].endswith(("not returned", f"rank {r['shown rank']}"))
                   for r in below)
    y = [e for e in encodings(spec, "y") if e.get("field") == "rank"][0]
    last = max(r["rank"] for r in rows)
    assert y["scale"]["domain"] == [0.5, last + 0.5]
    assert "not in top 3" in y["axis"]["labelExpr"]
    assert {"depth": 3.5} in rows_of(spec)  # the dotted line above them


def test_drift_lines_follow_the_snapshot_order(sample):
    from metrics.snapshot import drift_rows, to_snapshot

    snapshot = to_snapshot(sample, label="old", created="2024-01-01T00:00:00+00:00")
    points = ["2024-01-01 00:00 · old", "live (now)"]
    drift = frames.drift_frame(drift_rows([snapshot, to_snapshot(sample)]), points)
    labels = [m.label(5) for m in SUMMARY_MEASURES]
    spec = comparison_charts.drift_lines(drift, chart_base.run_scale(ALL_RUNS), k=5, labels=labels,
                              points=points).to_dict()
    assert "Every metric at K = 5 over the snapshots" in title_text(spec)
    assert spec["facet"]["sort"] == labels
    assert {json.dumps(x["sort"]) for x in encodings(spec, "x")} == {json.dumps(points)}
    rules = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "rule"]
    assert rules[0]["encoding"]["y2"]["field"] == "high"
    assert all(s["domain"] == ALL_RUNS for s in run_colour_scales(spec))


def test_faceted_charts_fit_the_page_column(sample):
    """At 1280 px with the sidebar open the main column is 818 px: the panels, their spacing
    and the axis beside them take no more than PAGE_WIDTH; legends sit above or below."""
    labels = [m.label("K") for m in SUMMARY_MEASURES]
    sweep = charts.sweep_lines(frames.sweep_long(sample), chart_base.run_scale(ALL_RUNS), k=5,
                               labels=labels).to_dict()
    columns, panel = sweep["columns"], sweep["spec"]["width"]
    assert columns == 3
    assert columns * panel + (columns - 1) * chart_base.FACET_SPACING + chart_base.Y_AXIS \
        <= chart_base.PAGE_WIDTH
    assert [c["legend"]["orient"] for c in encodings(sweep, "color") if c.get("legend")] \
        == ["top"] * len([c for c in encodings(sweep, "color") if c.get("legend")])
    # the heatmap: the class strip and the score panels share the width, every metric shown
    keys = [m.key for m in SUMMARY_MEASURES]
    names = ["bm25_baseline_v2026x", "dense_e5_large_rerank", "hybrid_rrf_k60_final"]
    cells = frames.query_cells(sample, keys).replace({"run": dict(zip(ALL_RUNS, names,
                                                                      strict=True))})
    heat = charts.query_heatmap(cells, order=sample.scored_ids, runs=names,
                                labels=[m.label(5, summary=False) for m in SUMMARY_MEASURES],
                                k=5).to_dict()
    strip, scores = heat["hconcat"]
    used = strip["spec"]["width"] + len(keys) * (scores["spec"]["width"] + 20)
    assert used <= chart_base.PAGE_WIDTH
    for x in encodings(heat, "x"):
        assert x["axis"]["labelLimit"] == 0 and x["axis"]["labelAngle"] == -90  # long names
