"""The dashboard over saved figures (--per-query-out): every page opens on an uploaded
evaluation or one named on the command line, the Overview's tables are those the sample's
own evaluation shows, digit for digit, the pages say what needs the runs, and the drill-down
reads one query's lists from the files given beside the figures."""

from __future__ import annotations

import io
import sys

import pytest

import metrics
from dashboard.state import opening
from metrics.core.per_query import write_long
from metrics.core.sample import SAMPLE_DIR
from metrics.core.saved import about
from tests.dashboard.conftest import PAGES, open_app, texts

WORDS = metrics.vocabulary.saved


def said(app) -> str:
    """Every text the page shows, its success boxes too."""
    return texts(app) + "\n" + "\n".join(e.value for e in app.success)


def sample_evaluation():
    runs = [metrics.RunSource(str(spec.source)) for spec in metrics.sample_runs()]
    return metrics.evaluate_files(SAMPLE_DIR / "qrels.txt", runs, 5)


def figures(recorded: bool = True) -> bytes:
    evaluation = sample_evaluation()
    out = io.BytesIO()
    write_long(out, evaluation.per_query_tables(), about(evaluation, "memory") if recorded
               else None)
    return out.getvalue()


def opened(data: bytes, page: str = "overview", name: str = "figures.parquet"):
    app = open_app()
    app.radio(key="load.source").set_value("upload").run()
    app.file_uploader(key=opening.FIGURES_KEY).set_value(
        (name, data, "application/octet-stream")).run()
    if PAGES[page]:
        app.switch_page(PAGES[page]).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_opens_on_saved_figures_and_says_so(page):
    app = opened(figures(), page)
    shown = texts(app)
    if page != "method_notes":
        assert "Saved figures from figures.parquet" in shown
    if page in ("overlap", "drift", "export"):
        assert "which the saved figures do not hold" in shown


def test_the_overview_shows_the_samples_own_figures():
    live = open_app()  # the bundled sample, scored from its files at K = 5
    saved = opened(figures())
    for i in range(3):  # the summary, against the baseline, the leaderboard
        assert saved.dataframe[i].value.equals(live.dataframe[i].value), i
    assert "What was scored" in texts(saved)


def test_a_file_without_its_k_and_conventions_says_so_and_the_sweep_is_absent():
    app = opened(figures(recorded=False))
    assert "does not record the K and conventions" in texts(app)
    app.switch_page(PAGES["sweep"]).run()
    assert not app.exception
    assert "no sweep over K" in texts(app)
    assert not app.dataframe  # nothing drawn without words


def test_the_drilldown_reads_one_querys_lists_from_the_files_given():
    app = opened(figures(), "drilldown")
    assert WORDS.DRILLDOWN_NEEDS[:60] in texts(app)
    app.file_uploader(key="load.qrels").set_value(
        ("qrels.txt", (SAMPLE_DIR / "qrels.txt").read_bytes(), "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [(spec.source.name, spec.source.read_bytes(), "text/plain")
         for spec in metrics.sample_runs()]).run()
    assert not app.exception, [e.value for e in app.exception]
    assert "Every figure they give is the saved one" in said(app)
    assert "Each run, rank by rank" in texts(app)
    # another run's file under baseline's name: its figures are not the saved ones
    bm25 = next(s.source for s in metrics.sample_runs() if s.source.name.startswith("bm25"))
    app.file_uploader(key="load.runs").set_value(
        [("baseline.run", bm25.read_bytes(), "text/plain")]).run()
    shown = texts(app)
    assert "are not the files the figures were computed from" in shown
    assert "No run file named reranked was given" in shown


def test_a_file_that_is_not_saved_figures_is_refused_in_words():
    run = next(iter(metrics.sample_runs())).source
    app = opened(run.read_bytes(), name="baseline.parquet")
    assert "baseline.parquet: not a Parquet file of saved figures" in texts(app)


def test_the_command_line_opens_saved_figures_with_the_run_files(tmp_path, monkeypatch):
    path = tmp_path / "figures.parquet"
    path.write_bytes(figures())
    runs = [f"--run={spec.source.stem}={spec.source}" for spec in metrics.sample_runs()]
    monkeypatch.setattr(sys, "argv", ["app.py", "--figures", str(path), "--qrels",
                                      str(SAMPLE_DIR / "qrels.txt"), *runs])
    opening.command_line.cache_clear()
    try:
        app = open_app("drilldown")
        shown = said(app)
        assert "Saved figures from figures.parquet" in shown
        assert "Every figure they give is the saved one" in shown
    finally:
        opening.command_line.cache_clear()


def test_export_over_saved_figures_offers_the_tables_the_figures_make():
    """The report needs the lists; the LaTeX table and the CSVs are the figures', and the
    LaTeX table from saved figures is the live evaluation's, digit for digit."""
    app = opened(figures(), "export")
    labels = [b.proto.label for b in app.get("download_button")]
    assert {"Download table (LaTeX)", "Summary", "Per query", "Comparison"} <= set(labels)
    assert "Download report (HTML)" not in labels
    assert WORDS.EXPORTS_FROM_FIGURES in texts(app)
    live = open_app("export")
    latex = [c.value for c in app.code if c.language == "latex"]
    assert latex and latex == [c.value for c in live.code if c.language == "latex"]


def hostile(edit) -> bytes:
    """The sample's saved figures with their metadata edited by `edit` (in place)."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(figures()))
    metadata = json.loads(table.schema.metadata[WORDS.METADATA_KEY])
    edit(metadata)
    out = io.BytesIO()
    pq.write_table(table.replace_schema_metadata(
        {WORDS.METADATA_KEY: json.dumps(metadata).encode()}), out)
    return out.getvalue()


@pytest.mark.parametrize("page", list(PAGES))
def test_metadata_out_of_what_can_exist_is_one_line_on_every_page(page):
    """A null among a run's sweep means (a traceback on every page before): refused in words,
    naming the file and the field."""
    app = opened(hostile(lambda m: m["runs"]["baseline"]["sweep"]["P"].__setitem__(0, None)),
                 page)
    assert ("figures.parquet: its metadata's runs.'baseline'.sweep.'P' must be a list of 10 "
            "numbers") in texts(app)


def test_a_symlink_loop_on_the_command_line_is_named(tmp_path, monkeypatch):
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    monkeypatch.setattr(sys, "argv", ["app.py", "--figures", str(tmp_path / "loop1")])
    opening.command_line.cache_clear()
    try:
        app = open_app()
        assert "loop1: cannot be opened (Too many levels of symbolic links)" in texts(app)
    finally:
        opening.command_line.cache_clear()


def test_saved_figures_are_read_by_the_randomized_tukey_hsd_as_the_live_ones():
    """The Tukey HSD reads the per-query figures only: over saved figures the Overview's
    letters and the Export page's LaTeX table are the live evaluation's."""
    app = opened(figures())
    app.radio(key="compare.pairs_test").set_value("tukey").run()
    live = open_app(pairs_test="tukey")
    assert not app.exception, [e.value for e in app.exception]

    def board(page):
        return next(d.value for d in page.dataframe if "Group" in d.value.columns)

    assert board(app)[["Run", "Group"]].equals(board(live)[["Run", "Group"]])
    app.switch_page("app_pages/export.py").run()
    live.switch_page("app_pages/export.py").run()
    latex = [c.value for c in app.code if c.language == "latex"]
    assert latex == [c.value for c in live.code if c.language == "latex"]
    assert "randomized Tukey HSD" in latex[0]
