"""A file's size as the upload box writes it (MB of 10^6 bytes)."""

from __future__ import annotations

from dashboard.data.progress import size_of


def test_sizes_are_written_as_the_upload_box_writes_them(tmp_path):
    assert size_of(b"x" * 196_700_000) == "196.7 MB"
    assert size_of(b"x" * 2_500) == "2 KB"
    path = tmp_path / "run.parquet"
    path.write_bytes(b"x" * 3_000_000)
    assert size_of(path) == "3.0 MB"
    assert size_of(tmp_path / "gone.parquet") == "size unknown"


def test_small_files_read_and_scored_show_no_status_box():
    """The sample's files read in milliseconds: no "Read bm25.run (2 KB) in 0.1 s" box is
    left at the top of a page (Compare reads the runs again under the other TREC order)."""
    from dashboard.data import cache
    from tests.dashboard.conftest import open_app

    cache.store().clear()
    for page in ("overview", "compare"):
        cache.store().clear()  # read and scored on this page's own first run
        app = open_app(page)
        labels = [status.label for status in app.get("status")]
        assert not labels, labels
    cache.store().clear()
