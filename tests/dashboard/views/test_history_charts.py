"""The history's trend chart, checked on chart.to_dict(): a band, a line and dots a run, a panel
a metric, and the marks only where a change is more than noise, coloured by direction."""

from __future__ import annotations

import metrics
from dashboard.views import chart_base
from dashboard.views.history_charts import MARK_COLOURS, trend_frame, trend_lines
from metrics.snapshot import Snapshot
from tests.metrics.snapshot.test_history import ALMOST, GOOD, WORSE, _qrels, _run


def _store(tmp_path):
    from metrics.core.evaluate import evaluate

    root = tmp_path / "store"
    for day, depth in enumerate((GOOD, WORSE, WORSE, ALMOST), start=1):
        snapshot = Snapshot.from_evaluation(evaluate(_qrels(), [_run(depth)], 5), key=None)
        metrics.history_append(root, snapshot, time=f"2026-12-0{day}T02:00:00Z",
                               commit=f"c{day}", label=f"night {day}", key=None)
    return metrics.history_trend(metrics.HistoryStore.at(root), metrics=["nDCG", "P"],
                                 key=None)


def test_the_trend_chart_draws_bands_lines_and_only_the_marked_changes(tmp_path):
    trend = _store(tmp_path)
    frame = trend_frame(metrics.trend_rows(trend))
    assert list(frame["tested"][:2]) == ["first point", "paired"]
    chart = trend_lines(frame, chart_base.run_scale(["system"]), k=5, labels=["P@5", "nDCG@5"])
    spec = chart.to_dict()
    assert spec["facet"]["field"] == "figure" and spec["facet"]["sort"] == ["P@5", "nDCG@5"]
    assert "K = 5" in spec["title"]["text"]
    layers = spec["spec"]["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["area", "line", "point", "text",
                                                           "text"]
    band = layers[0]["encoding"]
    assert band["y"]["field"] == "low" and band["y2"]["field"] == "high"
    assert layers[1]["encoding"]["x"] == {**layers[1]["encoding"]["x"], "field": "time",
                                          "type": "temporal"}
    for text, (mark, colour) in zip(layers[3:], MARK_COLOURS.items(), strict=True):
        assert text["transform"] == [{"filter": f"datum.mark == '{mark}'"}]
        assert text["encoding"]["text"]["field"] == "mark"
        assert text["mark"]["color"] == colour
    # a tick at each entry, and no legend but the runs'
    assert layers[1]["encoding"]["x"]["axis"]["values"] == [
        f"2026-12-0{d}T02:00:00+00:00" for d in range(1, 5)]
    assert [layer["encoding"]["color"]["field"] for layer in layers[:3]] == ["run"] * 3
    # the data holds a mark exactly where the engine marked a change
    data = next(iter(spec["datasets"].values()))
    marks = {(row["figure"], row["entry"]): row["mark"] for row in data}
    expected = {(p.label_at_k, p.entry): (trend.change_to(p).mark if trend.change_to(p) else "")
                for p in trend.points}
    assert marks == expected
    assert marks[("nDCG@5", 2)] == "▼" and marks[("nDCG@5", 3)] == ""
    assert marks[("nDCG@5", 4)] == "▲"
