"""The K sweep on long lists: lines at every K, points (the tooltips) at a few cutoffs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dashboard.views import chart_base, charts, frames
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
    spec = charts.sweep_lines(long, chart_base.run_scale(sample.run_names), k=50,
                              labels=labels).to_dict()
    points = [layer for layer in spec["spec"]["layer"] if layer["mark"]["type"] == "point"][0]
    marked = points["transform"][0]["filter"]["oneOf"]
    assert marked == marked_cutoffs(10, int(long["k"].max()), 50)
    subtitle = " ".join(spec["title"]["subtitle"])
    assert f"Points (tooltips) at {len(marked)} of the" in subtitle
    assert points["encoding"]["tooltip"]
