"""What a GitHub Actions step writes for its runner (`python -m metrics ci-step`, the action's
step): its outputs in the file $GITHUB_OUTPUT names, and the verdict of a gate in words.

An output is `name=value` on one line, or, when its value may hold a line break, GitHub's
heredoc form (`name<<DELIMITER`, the lines, `DELIMITER`) with a delimiter drawn at random
and checked absent from the value, so that no value can end its own block early and set
another output.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_GATE, EXIT_LEAK, EXIT_OK, EXIT_USAGE

# the action's verdict output, by the gate's exit status
VERDICTS = {EXIT_OK: "passed", EXIT_GATE: "failed", EXIT_LEAK: "failed"}
ERROR = "error"  # any other status: the gate could not run (a bad input, a bad flag)
STATUS_WORDS = {
    EXIT_OK: "every gate held",
    EXIT_GATE: "a gate failed",
    EXIT_BAD_INPUT: "an input was refused (a file the loaders could not read)",
    EXIT_USAGE: "a bad flag or a missing input",
}


def verdict(status: int) -> str:
    return VERDICTS.get(status, ERROR)


def step_outputs(values: Mapping[str, object]) -> str:
    """`values` as the lines a step appends to $GITHUB_OUTPUT: each in the heredoc form, so
    that any value (a headline naming a run, a path) is read back exactly."""
    text = []
    for name, value in values.items():
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"an output's name is letters, digits, - and _, got {name!r}")
        value = str(value)
        delimiter = _delimiter(value)
        text.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(text)


def _delimiter(value: str) -> str:
    while True:  # 128 random bits: a value holding it is a value made to hold it
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        if delimiter not in value:
            return delimiter
