"""The command line, one module a command (`score`, `compare`, `snapshot`, `history`,
`leakage`, `leaderboard`, `power`, `unjudged`, `overlap`, `fuse`, `agreement`, `judge`,
`run-retriever`, `sample-for-labelling`, `ci-step`), each parsing its arguments and importing
only what it runs; `help` lists them (and `help COMMAND` prints one's options). Installed, the
command is also `retrieval-compare` (pyproject's [project.scripts]), the same as
`python -m metrics`.

Argument parsing only: the flags every command that reads runs shares, and the reading of what
they name (`Inputs`), are `metrics.inputs` (the dashboard's report command parses and reads
with them too); what a command writes (the text tables, JSON, trec_eval's three columns, a
paper's table) is `metrics.outputs`; `common` prints what every command prints the same way
(load reports on standard error). The JSON contract is `metrics.snapshot.contract`.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from metrics.inputs.arguments import Command, run_guarded
from metrics.vocabulary.gates import EXIT_USAGE

# the first argument names the command; without one, `score`. One line each, for `help`
# and the end of --help
COMMANDS = {
    "score": "every metric of each run at K with its interval, the sweep, the readings "
    "(the default: no command given)",
    "compare": "each run against the first (the baseline): paired tests, corrections, the "
    "headline, harm, fragility, gates",
    "snapshot": "freeze an evaluation as a JSON snapshot to compare with later (drift)",
    "history": "a store of snapshots over time: append an evaluation with its time, commit "
    "and label; show each figure's trend with the changes more than noise",
    "leakage": "queries copied into the corpus they are scored against (exit 4 on a leak)",
    "leaderboard": "each run's rank per metric, its rank interval and P(best); --test: every "
    "pair tested (paired or randomized Tukey HSD) and letters",
    "power": "what the query set can detect, and the queries a difference would need (and a "
    "future set, by topic-set-size design)",
    "unjudged": "what to label next: the unjudged ids in the top K, most wanted first",
    "overlap": "how alike each pair of runs' top K are: Jaccard, RBO, unique relevant ids",
    "fuse": "fuse runs (RRF, CombSUM, CombMNZ, a cross-fitted weight) into a new TREC run",
    "agreement": "whether two measures, two K or two label sets order the runs alike: "
    "Kendall's tau and tau_AP, and the pairs that swap",
    "judge": "labels from a model judge beside human ones: agreement, bias, and every "
    "figure's prediction-powered interval beside the human-only and judge-only ones",
    "run-retriever": "call a retriever (MODULE:FUNCTION) live on every query, timing each "
    "call: its TREC run and timings written, its figures when --qrels is given",
    "sample-for-labelling": "draw the queries to label by hand (seeded, stratified by a "
    "facet) and write their labelling template",
    "ci-step": "the GitHub Action's step: compare from its INPUT_* variables, the comment in "
    "the job summary, the verdict in the step's outputs, compare's exit status",
}
DEFAULT_COMMAND = "score"
HELP = ("help", "-h", "--help")


def listing() -> str:
    """Every command with its line, for `help` and the end of `--help`."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name:<{width}}  {line}" for name, line in COMMANDS.items()]
    lines.append(f"  {'help':<{width}}  this list; help COMMAND: that command's options")
    return ("commands (python -m metrics, or retrieval-compare, then COMMAND --help for its "
            "options):\n" + "\n".join(lines) + "\n")


def command(name: str) -> Command:
    """The named command's function, its module imported on first use: `--help` of one
    command and a run of another load only what they need."""
    module = name.replace("-", "_")  # sample-for-labelling lives in sample_for_labelling
    return getattr(importlib.import_module(f"{__name__}.{module}"), f"{module}_command")


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a command (the first argument), scoring when none is named; `help` lists
    the commands, `help COMMAND` prints that command's options, and --help without a command
    prints the default command's options then the list."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "help":
        if len(argv) > 1 and argv[1] in COMMANDS:
            return run_guarded(command(argv[1]), ["--help"])
        if len(argv) > 1:
            print(f"error: unknown command {argv[1]!r}; expected one of {', '.join(COMMANDS)}",
                  file=sys.stderr)
            sys.stdout.write(listing())
            return EXIT_USAGE
        sys.stdout.write(listing())
        return 0
    if argv and argv[0] in COMMANDS:
        return run_guarded(command(argv[0]), argv[1:])
    if argv and argv[0] in HELP[1:]:
        try:  # argparse prints the default command's options and exits
            run_guarded(command(DEFAULT_COMMAND), ["--help"])
        except SystemExit:
            pass
        sys.stdout.write("\n" + listing())
        raise SystemExit(0)  # as argparse's --help does
    return run_guarded(command(DEFAULT_COMMAND), argv)


def run() -> None:
    """`python -m metrics` and the installed command: main's exit code, leaving without the
    interpreter's teardown. pyarrow's reader threads can outlive the work and abort the
    process during teardown after a correct run ("terminate called without an active
    exception", apache/arrow#34314), which a CI script would read as a failure; every file
    this tool writes is closed by then, so only the standard streams need flushing."""
    _system_allocator()
    _without_huge_pages()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe (`| head`): nothing more can be said
        code = code or 1
    os._exit(code)


def _system_allocator() -> None:
    """Arrow's buffers from the C library's malloc rather than its bundled allocator, unless
    ARROW_DEFAULT_MEMORY_POOL names one. Measured on this tool's own commands (10,000 queries
    in memory; 300,000 block by block) it was 6 % and 15 % faster, with less time in the
    kernel and the same or a lower peak: a short-lived process that frees its large buffers
    at once has no use for an allocator that keeps them for reuse. Set once, before any
    buffer exists; a library caller's process keeps its own choice."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def _without_huge_pages() -> None:
    """numpy's large arrays in ordinary pages, unless NUMPY_MADVISE_HUGEPAGE says otherwise.
    numpy asks the kernel for transparent huge pages for every array of 4 MB or more; where
    memory is fragmented (a machine up for hours, shared) the kernel first compacts memory to
    find one, inside the page fault. Touching an 80 MB array (the bootstrap's resample table
    at 10,000 queries) took 0.01 to 0.57 s that way and a steady 0.04 s without; the command
    on benchmarks/bench_engine.py's 10,000 queries x 100 ids went from a median 1.73 s to
    1.27 s wall and 0.91 s to 0.49 s in the kernel (6 alternating pairs, /usr/bin/time). Set
    before the first large array."""
    if os.environ.get("NUMPY_MADVISE_HUGEPAGE") is not None:
        return
    from numpy._core import multiarray  # numpy's own switch for the variable above

    multiarray._set_madvise_hugepage(False)


__all__ = ["COMMANDS", "command", "main", "run"]
