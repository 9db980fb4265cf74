"""The K sweep on long lists: lines at every K, points (the tooltips) at a few cutoffs."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from dashboard.report import exports
from dashboard.views import chart_base, charts, frames, vega_spec
from dashboard.views.charts import MARKED_CUTOFFS, marked_cutoffs

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("lo, hi, k", [(1, 10, 5), (1, 25, 25), (1, 100, 37), (1, 1000, 1),
                                       (5, 400, 400), (1, 26, 13)])
def test_a_long_sweep_marks_a_few_cutoffs_the_ends_and_the_chosen_k(lo, hi, k):
    marked = marked_cutoffs(lo, hi, k)
    assert marked == sorted(set(marked)) and {lo, hi, k} <= set(marked)
    if hi - lo + 1 <= MARKED_CUTOFFS:
        assert marked == list(range(lo, hi + 1))
    else:
        assert len(marked) <= MARKED_CUTOFFS
        assert np.diff(marked).max() <= math.ceil((hi - lo) / (MARKED_CUTOFFS - 2))


def test_the_points_are_the_marked_cutoffs_and_the_subtitle_says_so(sample):
    sweep = frames.sweep_long(sample)
    long = sweep.assign(k=sweep["k"] * 10)  # as if the lists were ten times as long
    labels = list(dict.fromkeys(sweep["label"]))
    chart = charts.sweep_lines(long, chart_base.run_scale(sample.run_names), k=50, labels=labels)
    spec = vega_spec.shown_spec(chart)
    hi = int(long["k"].max())
    cutoffs = marked_cutoffs(10, hi, 50)
    spread = len(marked_cutoffs(10, hi, 10))  # without the chosen K: 50 is not among them
    assert 50 in cutoffs and spread == len(cutoffs) - 1
    subtitle = " ".join(spec["title"]["subtitle"])
    assert f"Points (tooltips) at {spread} cutoffs spread from 10 to {hi} and at the chosen K" \
        in subtitle
    points = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "point"][0]
    assert points["encoding"]["tooltip"]
    # drawn: a point at each marked cutoff the sweep holds, 50 (read from the chosen K's
    # dataset) among them, for every run in every panel
    root = ET.fromstring(exports.chart_svg(chart))
    symbols = [path for group in root.iter(f"{SVG}g")
               if "mark-symbol role-mark" in group.get("class", "")  # not the legend's
               for path in group.iter(f"{SVG}path")]
    shown = set(cutoffs) & set(long["k"])
    assert 50 in shown
    assert len(symbols) == len(shown) * len(sample.run_names) * len(labels)
    # the sweep's own rows do not depend on K: only the chosen K's dataset does
    other = vega_spec.shown_spec(charts.sweep_lines(
        long, chart_base.run_scale(sample.run_names), k=60, labels=labels))
    main = spec["data"]["name"]
    assert spec["datasets"][main].equals(other["datasets"][main])
    assert json.dumps(spec["spec"]) == json.dumps(other["spec"])
