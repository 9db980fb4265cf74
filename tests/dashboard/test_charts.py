"""Chart functions checked on chart.to_dict(): titles and axes name the metric and K, every
run keeps its colour whichever runs are shown, the heatmap carries the query selection."""

from __future__ import annotations

import json

import pytest

from dashboard import charts, frames
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
        sample.summary(), charts.run_scale(ALL_RUNS), k=5, confidence_level=0.95, n_queries=9
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
    scale = charts.run_scale(ALL_RUNS)
    summary = sample.summary()
    every = charts.interval_bars(summary, scale, k=5, confidence_level=0.95, n_queries=9)
    some = charts.interval_bars(summary[summary["run"] == "bm25"], scale, k=5,
                                confidence_level=0.95, n_queries=9)
    for spec in (every.to_dict(), some.to_dict()):
        for colour in run_colour_scales(spec):
            assert colour["domain"] == ALL_RUNS
            assert colour["range"] == list(charts.RUN_PALETTE[:3])


def test_run_scale_is_fixed_and_cycles_past_the_palette():
    names = [f"run{i}" for i in range(12)]
    scale = charts.run_scale(names).to_dict()
    assert scale["domain"] == names
    assert scale["range"][10] == scale["range"][0] == charts.RUN_PALETTE[0]


@pytest.mark.parametrize("bands", [False, True])
def test_sweep_marks_k_and_shares_the_unit_scale(sample, bands):
    sweep = frames.sweep_long(sample)
    if bands:
        sweep = sweep.merge(frames.sweep_intervals(sample), on=["run", "k", "metric"])
    labels = [m.label("K") for m in SUMMARY_MEASURES]
    spec = charts.sweep_lines(sweep, charts.run_scale(ALL_RUNS), k=5, labels=labels,
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
