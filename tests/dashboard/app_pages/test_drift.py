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


def _history_store(tmp_path):
    from metrics.core.evaluate import evaluate
    from metrics.snapshot import Snapshot
    from metrics.snapshot.history import append
    from tests.metrics.snapshot.test_history import GOOD, WORSE, _qrels, _run

    root = tmp_path / "store"
    for day, depth in enumerate((GOOD, WORSE, GOOD), start=1):
        snapshot = Snapshot.from_evaluation(evaluate(_qrels(), [_run(depth)], 5), key=None)
        append(root, snapshot, time=f"2026-12-0{day}T02:00:00Z", commit=f"c{day}",
               label=f"night {day}", key=None)
    return root


def _upload_store(app, root, *, leave_out: str | None = None):
    files = [("index.jsonl", (root / "index.jsonl").read_bytes(), "application/json")]
    files += [(p.name, p.read_bytes(), "application/json")
              for p in sorted((root / "snapshots").iterdir()) if p.name != leave_out]
    app.file_uploader(key="history.files").set_value(files).run()
    return app


def test_a_history_store_uploaded_is_drawn_as_its_trend(tmp_path):
    app = _upload_store(open_app("drift"), _history_store(tmp_path))
    assert not app.exception and not app.error
    assert "History" in [s.value for s in app.subheader]
    page = texts(app)
    assert "3 entries of the uploaded store" in page
    assert "Holm correction over the 18 changes shown" in page
    import pyarrow as pa

    charts = [c for c in app.get("vega_lite_chart")
              if json.loads(c.proto.spec).get("facet", {}).get("field") == "figure"]
    assert charts, "no trend chart"
    rows = [row for dataset in charts[0].proto.datasets
            for row in pa.ipc.open_stream(dataset.data.data).read_all().to_pylist()]
    ndcg = {row["entry"]: row["mark"] for row in rows if row["figure"] == "nDCG@5"}
    assert ndcg == {1: "", 2: "▼", 3: "▲"}
    assert any("No snapshot loaded" in i.value for i in app.info)  # the snapshots part stays


def test_a_history_store_missing_a_file_or_changed_is_refused_naming_it(tmp_path):
    root = _history_store(tmp_path)
    app = _upload_store(open_app("drift"), root, leave_out="000002.json")
    errors = " ".join(shown(e.value) for e in app.error)
    assert "the uploaded store/index.jsonl: entry 2" in errors
    assert "its snapshot 000002.json was not given" in errors
    assert not app.exception


def test_a_history_store_given_on_the_command_line_is_drawn(tmp_path, monkeypatch):
    import sys

    from dashboard.state import opening

    root = _history_store(tmp_path)
    monkeypatch.setattr(sys, "argv", ["app.py", "--history", str(root)])
    opening.command_line.cache_clear()
    try:
        app = open_app("drift")
        assert not app.exception and not app.error
        assert f"3 entries of {root}" in texts(app)
        assert app.get("vega_lite_chart"), "no trend chart"
    finally:
        opening.command_line.cache_clear()
