"""Chart functions checked on chart.to_dict(): titles and axes name the metric and K, every
run keeps its colour (a colour-blind-safe one) whichever runs are shown, the heatmap carries
the query selection, and every chart fits the page's column with every run name whole."""

from __future__ import annotations

import json

import pytest

from dashboard.views import chart_base, charts, comparison_charts, frames, vega_spec
from metrics import QUERY_CLASSES, SUMMARY_MEASURES, Conventions, label_of

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
    assert y_sorts == {json.dumps([label_of(m, 5, Conventions()) for m in SUMMARY_MEASURES])}
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
                               labels=[label_of(m, "K", Conventions())
                                       for m in SUMMARY_MEASURES]).to_dict()
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
    labels = [label_of(m, "K", Conventions()) for m in SUMMARY_MEASURES]
    spec = vega_spec.shown_spec(charts.sweep_lines(
        sweep, chart_base.run_scale(ALL_RUNS), k=5, labels=labels, bands=bands))
    # the chosen K is data the title and the rule read, so that a new K redraws in place
    title = spec["title"]["text"]["expr"]  # rendered, it says "chosen K = 5" (test_html)
    assert f'data("{charts.CHOSEN_K}")' in title and "5" not in title

    assert spec["datasets"][charts.CHOSEN_K].to_dict("records") == [{"k": 5}]
    assert spec["facet"]["sort"] == labels
    layers = spec["spec"]["layer"]
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in layers]
    assert marks == (["area"] if bands else []) + ["line", "point", "rule"]  # points: tooltips
    assert layers[-1]["data"] == {"name": charts.CHOSEN_K}
    assert layers[-1]["encoding"]["x"]["field"] == "k"
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
    labels = [label_of(m, 5, Conventions(), summary=False) for m in SUMMARY_MEASURES]
    cells = frames.query_cells(sample, keys)
    spec = charts.query_heatmap(cells, order=sample.scored_ids, runs=ALL_RUNS, labels=labels,
                                k=5).to_dict()
    assert f"{len(labels)} metrics per query and run at K = 5" in title_text(spec)
    assert spec["hconcat"][1]["facet"]["column"]["sort"] == labels
    assert not encodings(spec, "text")  # too many cells for figures inside them


# --------------------------------------------------------------------------- comparison


@pytest.fixture(scope="module")
def comparison(sample):
    from metrics.core.compare import compare_evaluation

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
    # the cells are counted in Python: each row a cell, its bounds and its count
    assert cells["encoding"]["x"]["bin"] == cells["encoding"]["y"]["bin"] == "binned"
    assert [cells["encoding"][c]["field"] for c in ("x2", "y2")] == ["before_end", "after_end"]
    assert spec["resolve"] == {"axis": {"x": "independent"}}  # no axis under an empty slot
    assert cells["encoding"]["color"]["field"] == "queries"
    assert all(row["before_end"] - row["before"] == pytest.approx(
        comparison_charts.DENSITY_STEP) for row in rows_of(spec))
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
    labels = [label_of(m, 5, Conventions()) for m in SUMMARY_MEASURES]
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
    labels = [label_of(m, "K", Conventions()) for m in SUMMARY_MEASURES]
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
                                labels=[label_of(m, 5, Conventions(), summary=False)
                                        for m in SUMMARY_MEASURES],
                                k=5).to_dict()
    strip, scores = heat["hconcat"]
    used = strip["spec"]["width"] + len(keys) * (scores["spec"]["width"] + 20)
    assert used <= chart_base.PAGE_WIDTH
    for x in encodings(heat, "x"):
        assert x["axis"]["labelLimit"] == 0 and x["axis"]["labelAngle"] == -90  # long names


# --------------------------------------------------------------------------- many queries


def many_candidates(n_queries: int, runs=("reranked", "bm25", "dense_e5_large", "hybrid_rrf")):
    """nDCG-like paired scores: many ties at 0 and at 1, some on a cell's edge (0.15, 0.3,
    0.95), the rest spread; each candidate moves about half of the queries."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(11)

    def scores(n):
        pick, edge = rng.random(n), rng.choice([0.05, 0.15, 0.3, 0.35, 0.5, 0.7, 0.95], n)
        return np.select([pick < 0.25, pick < 0.4, pick < 0.5], [0.0, 1.0, edge],
                         rng.beta(2, 2, n))

    before, ids, parts = scores(n_queries), [f"q{i + 1}" for i in range(n_queries)], []
    for run in runs:
        after, moved = before.copy(), rng.random(n_queries) < 0.5
        after[moved] = scores(int(moved.sum()))
        parts.append(pd.DataFrame({"run": run, "query_id": ids, "before": before,
                                   "after": after, "difference": after - before}))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def large():
    """4 candidates × 5,000 queries and both charts' specs."""
    paired = many_candidates(5000)
    scale = chart_base.run_scale(["baseline", *dict.fromkeys(paired["run"])])
    return paired, {name: chart(paired, scale, metric="nDCG@10", baseline="baseline").to_dict()
                    for name, chart in (("scatter", comparison_charts.paired_scatter),
                                        ("differences", comparison_charts.difference_bars))}


@pytest.mark.parametrize("chart", ["scatter", "differences"])
def test_large_comparisons_send_a_bounded_spec(large, chart):
    """Aggregated in Python: a few hundred rows a candidate whatever the number of queries,
    not a row per (query, candidate) for the browser to aggregate."""
    paired, specs = large
    cells = round(1 / comparison_charts.DENSITY_STEP) ** 2
    most = 4 * (cells if chart == "scatter" else comparison_charts.MOST_BARS)
    rows = rows_of(specs[chart])
    assert 4 <= len(rows) <= most < len(paired) / 10
    assert not any("query_id" in row for row in rows)
    assert {r["run"] for r in rows} == set(paired["run"])  # every panel drawn
    assert len(json.dumps(specs[chart])) < 200_000


def test_density_cells_count_every_pair_once_as_vega_would(large):
    """The counts sum to the number of (candidate, query) pairs and are np.histogram2d's on
    edges k × DENSITY_STEP: a cell holds its lower edge (0.15, 0.3 as written), 1 falls in
    the last cell; only non-empty cells are sent, each once. The tooltip reads as before."""
    import numpy as np

    paired, specs = large
    step = comparison_charts.DENSITY_STEP
    n = round(1 / step)
    edges = np.round(np.arange(n + 1) * step, 12)
    rows = rows_of(specs["scatter"])
    assert sum(r["queries"] for r in rows) == len(paired) and min(r["queries"] for r in rows)
    for run, mine in paired.groupby("run", sort=False):
        expected = np.histogram2d(mine["before"], mine["after"], bins=[edges, edges])[0]
        shown = np.zeros((n, n))
        for r in (r for r in rows if r["run"] == run):
            i, j = round(r["before"] / step), round(r["after"] / step)
            assert (r["before"], r["before_end"], r["after"], r["after_end"]) == (
                edges[i], edges[i + 1], edges[j], edges[j + 1])
            assert shown[i, j] == 0
            shown[i, j] = r["queries"]
        np.testing.assert_array_equal(shown, expected)
    cells = specs["scatter"]["spec"]["layer"][0]
    assert [(t["field"], t["title"]) for t in cells["encoding"]["tooltip"]] == [
        ("run", "Candidate"), ("before range", "nDCG@10 of baseline"),
        ("after range", "nDCG@10 of the candidate"), ("queries", "Queries")]
    assert {t["as"]: t["calculate"] for t in cells["transform"]}["before range"] == \
        "format(datum.before, '') + ' – ' + format(datum.before_end, '')"
    assert cells["encoding"]["color"]["scale"]["type"] == "log"


def test_difference_columns_cover_every_query_once_in_sorted_order(large):
    """Each candidate's columns cover positions 1..n once, in order, MOST_BARS of them, one
    query apart in size at most; each column's lowest and highest difference are those of
    its queries, sorted independently (difference descending, then q2 before q10); the
    subtitle says what a column is."""
    from metrics import format as fmt

    paired, specs = large
    rows = rows_of(specs["differences"])
    for run, mine in paired.groupby("run", sort=False):
        ids, difference = list(mine["query_id"]), mine["difference"].to_numpy()
        order = sorted(range(len(ids)), key=lambda i: (-difference[i], fmt.natural_key(ids[i])))
        columns = [r for r in rows if r["run"] == run]
        assert len(columns) == comparison_charts.MOST_BARS
        assert columns[0]["first"] == 1 and columns[-1]["last"] == len(ids)
        pairs = list(zip(columns[:-1], columns[1:], strict=True))
        assert all(b["first"] == a["last"] + 1 for a, b in pairs)
        assert {c["last"] - c["first"] + 1 for c in columns} == {12, 13}
        for c in columns:
            part = difference[order][c["first"] - 1:c["last"]]
            assert (c["low"], c["high"]) == (part.min(), part.max())
        assert all(a["low"] >= b["high"] for a, b in pairs)  # largest gain first
    layer = specs["differences"]["spec"]["layer"][0]
    assert [layer["encoding"][c]["field"] for c in ("x", "x2", "y", "y2")] == [
        "start", "last", "top", "bottom"]
    assert layer["encoding"]["x"]["title"] == "5,000 queries, largest gain first"
    assert [t["calculate"] for t in layer["transform"] if t["as"] in ("top", "bottom")] == [
        "max(datum.high, 0)", "min(datum.low, 0)"]
    assert [t["title"] for t in layer["encoding"]["tooltip"]] == [
        "Candidate", "Queries (largest gain first)", "Queries in the column", "Difference"]
    assert "5,000 queries are too many for a bar each: a column gathers up to 13 queries in " \
        "a row" in " ".join(specs["differences"]["title"]["subtitle"])


def test_difference_bars_up_to_the_limit_keep_a_bar_per_query():
    """At MOST_BARS queries a panel still draws a bar per query, sorted in the chart, and
    the tooltip names the query; one more and it draws columns."""
    most, runs = comparison_charts.MOST_BARS, ("reranked", "bm25")
    scale = chart_base.run_scale(["baseline", *runs])
    spec, one_more = (comparison_charts.difference_bars(
        many_candidates(n, runs), scale, metric="nDCG@10", baseline="baseline").to_dict()
        for n in (most, most + 1))
    bars = spec["spec"]["layer"][0]
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["x"]["field"] == "query_id"
    assert bars["encoding"]["x"]["sort"] == {"field": "difference", "order": "descending"}
    assert bars["encoding"]["x"]["title"] == f"{most} queries, largest gain first"
    assert {t["field"] for t in bars["encoding"]["tooltip"]} >= {"query_id", "difference"}
    assert "a bar up is a query the candidate improved" in title_text(spec)
    assert len(rows_of(spec)) == len(rows_of(one_more)) == 2 * most
    assert one_more["spec"]["layer"][0]["encoding"]["x"]["field"] == "start"
