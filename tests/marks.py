"""The thorough tests: slow variants of checks the default run already makes (more seeds,
more levels, the report command end to end, the hostile and width checks in the browser,
the browser checks that upload whole collections, Spark).
`python -m pytest` leaves them out (pyproject's `-m "not thorough"`, to stay under three
minutes on two cores); `python -m pytest -m thorough` runs them, and .ci/run runs both."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

THOROUGH = pytest.mark.thorough


def thorough_after(values: Iterable, keep: int) -> list:
    """Parameters for `parametrize`: the first `keep` run by default, the rest only under
    `-m thorough`."""
    return [value if i < keep else pytest.param(*(value if isinstance(value, tuple)
                                                  else (value,)), marks=THOROUGH)
            for i, value in enumerate(values)]
