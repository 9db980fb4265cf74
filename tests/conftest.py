"""Fixtures shared by the engine's and the dashboard's tests."""

from __future__ import annotations

import pytest

from metrics import load_sample


@pytest.fixture(scope="session")
def sample():
    """The bundled sample as the engine scores it at its K."""
    return load_sample()
