"""The snapshot key file read with a bound, in a child process with capped memory: /dev/zero
and a FIFO nobody writes to are refused at once, in one line."""

from __future__ import annotations

import os
import time

import pytest

from tests.metrics.capped import run_capped


@pytest.mark.parametrize("kind", ["device", "fifo", "large"])
def test_a_key_file_that_is_no_key_is_refused_at_once(tmp_path, kind):
    if kind == "device":
        key, problem = "/dev/zero", "the snapshot key file is not a regular file"
    elif kind == "fifo":
        key, problem = str(tmp_path / "key"), "the snapshot key file is not a regular file"
        os.mkfifo(key)
    else:
        key, problem = str(tmp_path / "key"), "the snapshot key file holds more than 4,096 bytes"
        with open(key, "wb") as handle:
            handle.truncate(64 << 20)
    started = time.monotonic()
    done = run_capped(["snapshot", "--out", str(tmp_path / "s.json"), "--snapshot-key-file",
                       key], cap_mb=1024, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 1
    assert done.stderr.decode().strip().splitlines()[-1].startswith(f"error: {key}: {problem}")
    assert not (tmp_path / "s.json").exists()
