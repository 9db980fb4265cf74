"""AppTest: the sidebar saves and loads snapshots, the Drift page sets them beside the live
figures, refuses one scored at another K (with the engine's message and what to change), and
reports a file that is not a snapshot next to it."""

from __future__ import annotations

import json

from dashboard.report import exports
from metrics import SUMMARY_MEASURES, Conventions, label_of, load_sample
from metrics.vocabulary.format import interval as format_interval
from tests.dashboard.conftest import open_app, shown, texts


def load(app, *files: tuple[str, str]):
    app.file_uploader(key="snapshots.files").set_value(
        [(name, text.encode(), "application/json") for name, text in files]).run()
    return app


def test_without_snapshots_the_page_says_how_to_get_some():
    app = open_app("drift")
    assert any("No snapshot loaded" in i.value and "Save snapshot" in i.value for i in app.info)
    assert not app.error


def test_a_snapshot_of_the_same_evaluation_is_drawn_beside_the_live_figures(sample):
    app = load(open_app("drift"), ("week1.json", exports.snapshot_json(sample, "week 1")))
    assert not app.error and not app.exception
    assert app.get("vega_lite_chart"), "no drift chart"
    table = app.dataframe[0].value
    assert list(table["Snapshot"].unique())[-1] == "live (now)"
    assert table["Snapshot"].iloc[0].endswith("· week 1")
    for run in sample.runs:
        rows = table[table["Run"] == run.name]
        assert len(rows) == 2  # the snapshot and the live figures
        for m in SUMMARY_MEASURES:
            s = run.summary[m.key]
            label = label_of(m, 5, Conventions())
            assert set(rows[label]) == {format_interval(s.mean, s.low, s.high)}
    assert "1 snapshot of this query set at K = 5" in texts(app)


def test_a_snapshot_at_another_k_is_refused_with_what_to_change(sample):
    app = load(open_app("drift"), ("k3.json", exports.snapshot_json(load_sample(3), "k3")),
               ("same.json", exports.snapshot_json(sample)))
    errors = " ".join(shown(e.value) for e in app.error)
    assert "k3.json" in errors and "K differs: 3 in the snapshot, 5 in this evaluation" in errors
    assert "--k" not in errors  # command-line flags are no advice on a page set by its sidebar
    assert "Set the sidebar as the snapshot was scored: K: 3 in the snapshot, 5 now" in texts(app)
    assert len(app.dataframe[0].value["Snapshot"].unique()) == 2  # the other one is drawn
    # one click scores the live runs like the refused snapshot; then it is the other one
    app.button(key=[b.key for b in app.button if b.key.startswith("drift.apply.")][0]) \
        .click().run()
    assert app.number_input(key="settings.k").value == 3
    errors = " ".join(shown(e.value) for e in app.error)
    assert "same.json" in errors and "K differs: 5 in the snapshot, 3 in this evaluation" in errors


def test_a_file_that_is_not_a_snapshot_is_reported_next_to_it():
    app = load(open_app("drift"), ("notes.json", '{"hello": 1}'))
    sidebar_errors = [shown(e.value) for e in app.sidebar.error]
    assert sidebar_errors == ['notes.json: not a snapshot: no "snapshot" header with format '
                              '"retrieval-compare snapshot"']
    assert any("No snapshot loaded" in i.value for i in app.info)


def test_save_snapshot_is_in_the_sidebar():
    labels = [b.proto.label for b in open_app().sidebar.get("download_button")]
    assert labels == ["Save snapshot"]


def test_a_snapshot_from_before_score_precision_reads_as_float32(sample):
    old = json.loads(exports.snapshot_json(sample, "old"))
    for field in ("score_precision", "empty_queries"):
        del old["conventions"][field]
    del old["snapshot"]["figures_fingerprint"]  # an old file has none
    app = load(open_app("drift"), ("old.json", json.dumps(old)))
    errors = " ".join(shown(e.value) for e in app.error)
    assert "old.json" in errors
    assert "convention score_precision differs: 'float32' in the snapshot, 'double'" in errors
    assert "--score-precision" not in errors
    app.button(key=[b.key for b in app.button if b.key.startswith("drift.apply.")][0]) \
        .click().run()
    assert app.session_state["settings.score_precision"] == "float32"
    assert not app.error and app.dataframe, "scored as float32, the old snapshot is drawn"


def test_with_a_key_set_an_unsigned_snapshot_is_refused_as_the_engine_words_it(
        sample, monkeypatch):
    from metrics.snapshot import KEY_VARIABLE, NOT_SIGNED

    unsigned = exports.snapshot_json(sample, "unsigned")  # no key in the environment yet
    assert json.loads(unsigned)["snapshot"]["figures_fingerprint"].startswith("sha256:")
    monkeypatch.setenv(KEY_VARIABLE, "the team's key")
    app = load(open_app("drift"), ("forged.json", unsigned))
    assert not app.exception
    errors = " ".join(shown(e.value) for e in app.error)
    assert f"forged.json: {NOT_SIGNED}" in errors
    assert "figures verified" not in texts(app)
