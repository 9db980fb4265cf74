"""The K sweep on long lists: lines at every K, points (the tooltips) at a few cutoffs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dashboard.views import chart_base, charts, frames, vega_spec
from dashboard.views.charts import MARKED_CUTOFFS, marked_cutoffs


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
    spec = vega_spec.shown_spec(charts.sweep_lines(long, chart_base.run_scale(sample.run_names),
                                                   k=50, labels=labels))
    points = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "point"][0]
    assert points["transform"] == [{"filter": {"field": "marked", "equal": True}}] or \
        points["transform"] == [{"filter": "datum.marked"}]
    data = spec["datasets"][spec["data"]["name"]]
    hi = int(long["k"].max())
    cutoffs = marked_cutoffs(10, hi, 50)
    assert set(data.loc[data["marked"], "k"]) == set(cutoffs) & set(long["k"])
    subtitle = " ".join(spec["title"]["subtitle"])
    spread = len(marked_cutoffs(10, hi, 10))  # without the chosen K: 50 is not among them
    assert 50 in cutoffs and spread == len(cutoffs) - 1
    assert f"Points (tooltips) at {spread} cutoffs spread from 10 to {hi} and at the chosen K" \
        in subtitle
    assert points["encoding"]["tooltip"]
