"""The thorough tests: slow variants of checks the default run already makes (more seeds,
more levels, the report command end to end, the hostile and width checks in the browser,
the browser checks that upload whole collections, Spark).
`python -m pytest` leaves them out (pyproject's `-m "not thorough"`, to stay under three
minutes on two cores); `python -m pytest -m thorough` runs them, and .ci/run runs both."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings

THOROUGH = pytest.mark.thorough


def thorough_after(values: Iterable, keep: int) -> list:
    """Parameters for `parametrize`: the first `keep` run by default, the rest only under
    `-m thorough`."""
    return [value if i < keep else pytest.param(*(value if isinstance(value, tuple)
                                                  else (value,)), marks=THOROUGH)
            for i, value in enumerate(values)]


def examples(default: int, thorough: int, *strategies, **named_strategies) -> Callable:
    """`@given(*strategies, **named_strategies)` for a slow property test, with `default`
    examples in the run before each commit and `thorough` under -m thorough: one test
    parametrized twice (a run selects tests by marker, not settings)."""
    def budgeted(test: Callable) -> Callable:
        def run(examples: int, **fixtures):
            given_test = given(*strategies, **named_strategies)(test)
            settings(max_examples=examples, deadline=None)(given_test)(**fixtures)
        run.__name__, run.__qualname__, run.__doc__ = test.__name__, test.__qualname__, test.__doc__
        run.__module__ = test.__module__
        left = inspect.signature(given(*strategies, **named_strategies)(test)).parameters
        run.__signature__ = inspect.Signature(
            [inspect.Parameter("examples", inspect.Parameter.POSITIONAL_OR_KEYWORD),
             *left.values()])
        return pytest.mark.parametrize("examples", thorough_after([default, thorough], keep=1),
                                       ids=lambda n: f"{n}_examples")(run)
    return budgeted
