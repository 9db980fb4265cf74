"""Names that cannot be spoofed in the dashboard: a link cannot swap what two runs are shown
under with invisible characters, two uploads whose names look alike get distinct columns, and
a rename holding a right-to-left override is refused and said."""

from __future__ import annotations

from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import open_app, texts, upload

ZWSP, RLO = "\u200b", "\u202e"


def test_a_link_cannot_swap_two_runs_names_with_zero_width_spaces(sample):
    app = open_app(names=[f"baseline=bm25{ZWSP}", f"bm25=baseline{ZWSP}"])
    table = app.dataframe[0].value.set_index("Metric")
    assert list(table.columns[:3]) == ["baseline", "reranked", "bm25"]
    nDCG = sample.run("baseline").summary["nDCG"]
    assert table.loc["nDCG@5", "baseline"].startswith(f"{nDCG.mean:.3f}")  # its own figures
    said = texts(app)
    assert said.count("keeps its name: the new name holds invisible or bidirectional control "
                      "characters (U+200B)") == 2


def test_a_rename_that_looks_like_another_run_is_refused():
    app = open_app(names=["baseline=ｂｍ２５"])
    assert "baseline keeps its name: 'ｂｍ２５' looks like the name of the run bm25" in texts(app)
    assert "ｂｍ２５" not in app.dataframe[0].value.columns


def test_a_right_to_left_override_is_refused_in_a_rename():
    app = open_app()
    app.text_input(key="runs.name.bm25").input(f"{RLO}52mb").run()
    assert "bm25 keeps its name: the new name holds invisible or bidirectional control " \
           "characters (U+202E)" in texts(app)
    assert all(RLO not in column for column in app.dataframe[0].value.columns)


def test_two_uploads_whose_names_look_alike_show_two_distinct_columns():
    run = (SAMPLE_DIR / "baseline.run").read_bytes()
    other = (SAMPLE_DIR / "bm25.run").read_bytes()
    app = upload(open_app(), [("baseline.run", run), (f"baseline{ZWSP}.run", other)],
                 (SAMPLE_DIR / "qrels.txt").read_bytes())
    columns = list(app.dataframe[0].value.columns)
    assert columns[1:3] == ["baseline", "baseline (2)"]
    assert all(ZWSP not in column for column in columns)
