"""Charts as the browser gets them: datasets named by position, so that new data under the
same spec is drawn in place, and words read from the data rendered as written."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import pytest

from dashboard.report import exports
from dashboard.views import overlap_charts, vega_spec


def bars(frame: pd.DataFrame) -> alt.Chart:
    return alt.Chart(frame).mark_bar().encode(x="run:N", y="mean:Q")


def without_data(spec: dict) -> str:
    return json.dumps({key: value for key, value in spec.items() if key != "datasets"})


def test_new_data_leaves_the_spec_as_it_was():
    before = vega_spec.shown_spec(bars(pd.DataFrame({"run": ["a", "b"], "mean": [0.1, 0.2]})))
    after = vega_spec.shown_spec(bars(pd.DataFrame({"run": ["a", "b"], "mean": [0.3, 0.4]})))
    assert before["data"] == {"name": "data-0"} and list(before["datasets"]) == ["data-0"]
    assert without_data(before) == without_data(after)
    assert after["datasets"]["data-0"]["mean"].tolist() == [0.3, 0.4]
    # Altair's own names are hashes of the content: the spec changed with the data
    assert bars(pd.DataFrame({"run": ["a"], "mean": [0.1]})).to_dict()["data"] != \
        bars(pd.DataFrame({"run": ["a"], "mean": [0.2]})).to_dict()["data"]


def test_a_named_frame_keeps_its_name_and_a_title_reads_it():
    words = vega_spec.named(pd.DataFrame({"k": [7]}), "chosen")
    chart = alt.layer(
        bars(pd.DataFrame({"run": ["a"], "mean": [0.5]})),
        alt.Chart(words).mark_rule().encode(y="k:Q"),
    ).properties(title=alt.Title(vega_spec.text_from("Mean at K = ", "chosen", "k", "!")))
    spec = vega_spec.shown_spec(chart)
    assert set(spec["datasets"]) == {"data-0", "chosen"}
    assert "7" not in without_data(spec)
    exported = vega_spec.exported_spec(chart)
    assert exported["datasets"]["chosen"] == [{"k": 7}]
    assert "Mean at K = 7!" in exports.chart_svg(chart)


def test_words_from_an_empty_dataset_are_empty_not_an_error():
    empty = vega_spec.named(pd.DataFrame({"title": pd.Series([], dtype=str)}), "words")
    chart = alt.Chart(empty).mark_text().encode(text="title:N").properties(
        title=alt.Title(vega_spec.text_from("Figure: ", "words", "title")))
    assert "Title text 'Figure: '" in exports.chart_svg(chart)


def test_the_overlap_matrix_title_is_its_data():
    frame = pd.DataFrame({"row": ["a", "a", "b", "b"], "column": ["a", "b", "a", "b"],
                          "mean": [1.0, 0.4, 0.4, 1.0], "low": [1.0, 0.3, 0.3, 1.0],
                          "high": [1.0, 0.5, 0.5, 1.0]})
    chart = overlap_charts.overlap_matrix(frame, ["a", "b"], title="Jaccard@10, every pair",
                                          subtitle="Mean over 4 scored queries.")
    spec = vega_spec.shown_spec(chart)
    assert "Jaccard@10" not in without_data(spec)  # a new K changes the data alone
    assert "Jaccard@10, every pair" in exports.chart_svg(chart)


def test_two_frames_under_one_name_are_refused():
    first = vega_spec.named(pd.DataFrame({"run": ["a"], "mean": [0.1]}), "words")
    second = first.assign(mean=0.2)  # pandas carries the name (attrs) over to the copy
    with pytest.raises(ValueError, match="two datasets of one chart are named 'words'"):
        vega_spec.shown_spec(alt.layer(bars(first), bars(second)))
