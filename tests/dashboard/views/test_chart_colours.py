"""What a chart's colours say, checked on its spec: a legend draws the colours its marks are
drawn in (the spec compiled to Vega, as the browser compiles it, shows which scale and which
opacity a legend takes), the heatmap names its runs above its rows, and its query classes
are told apart by every reader, colour-blind readers too."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
import vl_convert as vlc

from dashboard.report import exports
from dashboard.views import chart_base, charts, comparison_charts, frames, vega_spec
from metrics import QUERY_CLASSES, STANDARD_RECALL, SUMMARY_MEASURES, Conventions, label_of
from tests.dashboard.views.test_charts import walk  # every dict inside a spec

ALL_RUNS = ["baseline", "reranked", "bm25"]


def compiled(chart) -> dict:
    """The Vega spec the browser draws from the chart's Vega-Lite spec."""
    return vlc.vegalite_to_vega(vega_spec.exported_spec(chart), vl_version=exports.VL_VERSION)




def legends(vega: dict) -> list[dict]:
    return [legend for d in walk(vega) for legend in d.get("legends", [])]


def marks(vega: dict, kind: str) -> list[dict]:
    return [d for d in walk(vega) if d.get("type") == kind and "encode" in d]


def legend_opacity(legend: dict) -> float:
    """The opacity a legend's symbols are drawn with: its encoding's, else its own setting,
    else 1."""
    symbols = legend.get("encode", {}).get("symbols", {}).get("update", {})
    return symbols.get("opacity", {}).get("value", legend.get("symbolOpacity", 1))


# --------------------------------------------------------------------------- the K sweep


def sweep_chart(sample, bands: bool):
    sweep = frames.sweep_long(sample)
    if bands:
        sweep = sweep.merge(frames.sweep_intervals(sample), on=["run", "k", "metric"])
    return charts.sweep_lines(sweep, chart_base.run_scale(ALL_RUNS), k=5, bands=bands,
                              labels=[label_of(m, "K", Conventions()) for m in SUMMARY_MEASURES])


@pytest.mark.parametrize("bands", [False, True])
def test_the_sweep_legend_shows_the_lines_full_colours(sample, bands):
    """The shaded bands are drawn faint; the legend names the runs in their lines' colours,
    bands or not (it took the bands' opacity, 0.15, and faded when they were on)."""
    vega = compiled(sweep_chart(sample, bands))
    (legend,) = legends(vega)
    assert legend["values"] == ALL_RUNS and legend_opacity(legend) == 1
    # the lines themselves are drawn at full opacity, in the legend's scale
    lines = marks(vega, "line")
    assert lines and all(line["encode"]["update"]["stroke"]["scale"] == legend["stroke"]
                         for line in lines)
    assert all(line["encode"]["update"].get("opacity", {}).get("value", 1) == 1
               for line in lines)


@pytest.mark.parametrize("bands", [False, True])
def test_the_precision_recall_legend_shows_the_lines_full_colours(sample, bands):
    levels = tuple(f"IPrec@{level:g}" for level in STANDARD_RECALL)
    curve = frames.pr_curve(sample.with_measures(levels))
    vega = compiled(charts.pr_curve(curve, chart_base.run_scale(ALL_RUNS), bands=bands))
    (legend,) = legends(vega)
    assert legend["values"] == ALL_RUNS and legend_opacity(legend) == 1


# --------------------------------------------------------------------------- the density


def many_pairs(n: int = 1200) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    before = rng.random(n)
    paired = pd.concat([pd.DataFrame({"run": run, "query_id": [f"q{i}" for i in range(n)],
                                      "before": before, "after": rng.random(n)})
                        for run in ("reranked", "bm25")], ignore_index=True)
    return paired.assign(difference=paired["after"] - paired["before"])


def test_the_density_legend_draws_the_cells_colours():
    """The legend of "Queries in a cell" is drawn from the scale that colours the cells, so
    what it shows is what the cells show (it was a grey key beside orange and blue cells)."""
    chart = comparison_charts.paired_scatter(many_pairs(), chart_base.run_scale(ALL_RUNS),
                                             metric="nDCG@5", baseline="baseline")
    assert chart.to_dict()["facet"]["field"] == "run"  # the density, not the scatter
    vega = compiled(chart)
    (legend,) = legends(vega)
    cells = [m for m in marks(vega, "rect") if "fill" in m["encode"]["update"]]
    assert cells
    fills = {json.dumps(m["encode"]["update"]["fill"]) for m in cells}
    assert len(fills) == 1
    (fill,) = [m["encode"]["update"]["fill"] for m in cells[:1]]
    # the legend is the cells' fill scale, drawn as it is (a gradient of that continuous
    # scale: no colour of its own, no opacity)
    assert legend.get("fill") == fill["scale"] and legend.get("type", "gradient") == "gradient"
    (scale,) = [s for s in vega["scales"] if s["name"] == fill["scale"]]
    assert scale["type"] == "log" and scale["domain"]["field"] == "queries"
    assert not any(key in json.dumps(legend) for key in ("symbolFillColor", '"opacity"'))
    assert all("opacity" not in m["encode"]["update"] for m in cells)
    assert legend["title"] == "Queries in a cell"


# --------------------------------------------------------------------------- the heatmap


def heatmap(sample, keys=("nDCG",)):
    cells = frames.query_cells(sample, list(keys))
    order = frames.query_order(sample, keys[0], "id")
    labels = [label_of(m, 5, Conventions(), summary=False) for m in SUMMARY_MEASURES
              if m.key in keys]
    return charts.query_heatmap(cells, order=order, runs=ALL_RUNS, labels=labels, k=5)


@pytest.mark.parametrize("keys", [("nDCG",), tuple(m.key for m in SUMMARY_MEASURES)])
def test_the_heatmap_names_its_runs_above_the_rows(sample, keys):
    """At 40 rows the heatmap is taller than a screen: the run names head every column (the
    class strip's and each metric's), where a reader starts, not only below the last row."""
    spec = heatmap(sample, keys).to_dict()
    runs = [d["encoding"]["x"] for d in walk(spec)
            if isinstance(d.get("encoding"), dict) and d["encoding"].get("x", {}).get(
                "field") == "run"]
    assert len(runs) >= 2  # the strip and the score panels
    assert all(x["axis"]["orient"] == "top" and x["axis"]["labelLimit"] == 0 for x in runs)
    vega = compiled(heatmap(sample, keys))
    # as drawn: each panel's run axis (its scale "concat_0_x", ...) is at the top
    axes = [a for d in walk(vega) for a in d.get("axes", []) if a["scale"].endswith("_x")]
    assert len(axes) == 2 and all(a["orient"] == "top" for a in axes)


# Machado, Oliveira and Fernandes (2009), "A physiologically-based model for simulation of
# color vision deficiency", severity 1.0: linear RGB -> linear RGB as each reader sees it
VISION = {
    "typical": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
TOLD_APART = 15  # CIE76 difference: well past a just noticeable one (about 2.3)
OTHER_HUE = 30  # degrees of CIELCh hue: two colours further apart are not shades of one hue


def linear_rgb(colour: str) -> np.ndarray:
    srgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def cielab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a linear sRGB colour."""
    xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                    [0.0193339, 0.1191920, 0.9503041]]) @ np.clip(rgb, 0, 1)
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 216 / 24389, np.cbrt(t), (24389 / 27 * t + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def hue(colour: str) -> float:
    _, a, b = cielab(linear_rgb(colour))
    return math.degrees(math.atan2(b, a)) % 360


def test_the_colour_vision_model_reads_as_published():
    """Checks of the model itself: grey stays grey for every reader; red and green, apart for
    a typical reader, come close for a deuteranope; blue and yellow stay apart."""
    def apart(a, b, vision):
        matrix = VISION[vision]
        return np.linalg.norm(cielab(matrix @ linear_rgb(a)) - cielab(matrix @ linear_rgb(b)))

    for matrix in VISION.values():
        np.testing.assert_allclose(matrix @ linear_rgb("#777777"), linear_rgb("#777777"),
                                   atol=2e-3)
    assert apart("#D62728", "#2CA02C", "typical") > 70
    assert apart("#D62728", "#2CA02C", "deuteranopia") < apart("#D62728", "#2CA02C",
                                                              "typical") / 3
    assert apart("#0072B2", "#F0E442", "deuteranopia") > 40


def test_every_query_class_has_a_colour_every_reader_tells_apart(sample):
    """The four classes are four hues (not two shades of blue and two of orange), each pair
    apart for a typical reader and under the three colour-vision deficiencies; declared once,
    for the engine's classes, and drawn as declared."""
    colours = chart_base.CLASS_COLOURS
    assert tuple(colours) == QUERY_CLASSES
    for (a, one), (b, other) in itertools.combinations(colours.items(), 2):
        gap = abs(hue(one) - hue(other)) % 360
        assert min(gap, 360 - gap) >= OTHER_HUE, (a, b)
        for vision, matrix in VISION.items():
            seen = [cielab(matrix @ linear_rgb(c)) for c in (one, other)]
            assert np.linalg.norm(seen[0] - seen[1]) >= TOLD_APART, (a, b, vision)
    spec = heatmap(sample).to_dict()
    scales = [d["encoding"]["color"]["scale"] for d in walk(spec)
              if isinstance(d.get("encoding"), dict)
              and d["encoding"].get("color", {}).get("field") == "class"]
    assert scales == [{"domain": list(QUERY_CLASSES), "range": list(colours.values())}]
