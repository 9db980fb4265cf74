"""The command line, one module a command (`score`, `compare`, `snapshot`, `leakage`,
`leaderboard`, `power`, `unjudged`, `overlap`, `fuse`, `agreement`), each importing only what
it runs.
`inputs` declares the arguments every command that reads runs shares and reads what they name
(`Inputs`, public as `metrics.Inputs`: the dashboard's report command parses with it too);
`common` prints what every command prints the same way (load reports, JSON); `text` writes the
plain-text tables, `trec_eval` trec_eval's three columns and `latex` a paper's table. The JSON
contract is `metrics.snapshot.contract`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from metrics.cli.inputs import Command, run_guarded

# the first argument names the command; without one, `score`
COMMANDS = ("score", "compare", "snapshot", "leakage", "leaderboard", "power", "unjudged",
            "overlap", "fuse", "agreement")
DEFAULT_COMMAND = "score"


def command(name: str) -> Command:
    """The named command's function, its module imported on first use: `--help` of one
    command and a run of another load only what they need."""
    return getattr(importlib.import_module(f"{__name__}.{name}"), f"{name}_command")


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a command (the first argument), scoring when none is named."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        return run_guarded(command(argv[0]), argv[1:])
    return run_guarded(command(DEFAULT_COMMAND), argv)


__all__ = ["COMMANDS", "command", "main"]
