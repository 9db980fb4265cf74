"""Fixtures for the engine's tests."""

from __future__ import annotations

import pytest

from metrics.snapshot import KEY_VARIABLE


@pytest.fixture(autouse=True)
def no_snapshot_key(monkeypatch):
    """A snapshot key in the environment would sign every snapshot a test writes."""
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
