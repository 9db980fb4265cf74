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
