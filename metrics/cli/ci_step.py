"""python -m metrics ci-step: the GitHub Action's step (action.yml at the repository's root).

Reads the action's inputs from the environment (INPUT_QRELS, INPUT_BASELINE, ... as the
action's step sets them, never spliced into a shell line), turns them into one `compare`
(the baseline first, a run file or a snapshot, then each candidate, K, the metrics, the gates)
that writes the JSON document, the JUnit report and the pull request's comment at once; then
adds the comment to the job's summary ($GITHUB_STEP_SUMMARY), writes the step's outputs
($GITHUB_OUTPUT: verdict, headline, exit-code and the three files' paths) and exits with
compare's status, so the step fails when a gate fails (3) or the gate cannot run (1, 2).
When it cannot run, the comment says why, so a workflow that posts it posts the reason.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from metrics.cli.compare import compare_command
from metrics.inputs.arguments import Parser, UsageError, run_guarded, to_stderr
from metrics.io.writing import append_text
from metrics.outputs.github import step_outputs, verdict
from metrics.outputs.markdown import error_comment
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK, EXIT_USAGE

# the action's inputs: name -> what it holds (action.yml declares the same names; a test
# checks they agree). Lists are one item a line.
INPUTS = {
    "qrels": "the labels (TREC, BEIR TSV, CSV, JSONL or Parquet)",
    "baseline": "the baseline: a run file ([NAME=]FILE) or a snapshot (python -m metrics "
    "snapshot --out)",
    "baseline-kind": "auto (a snapshot when the file is one), run or snapshot",
    "candidates": "the candidate runs, one [NAME=]FILE a line",
    "k": "the cutoff K (default 10; a snapshot's own K when the baseline is one)",
    "metrics": "the metrics compared, one a line (default every measure at K)",
    "primary": "the headline's metric, and whose worst queries the comment shows (default "
    "nDCG@K)",
    "fail-on-regression": "metrics on which a significantly worse candidate fails, one a line",
    "budgets": "METRIC=AMOUNT a line: a candidate fails unless its paired interval stays "
    "above minus AMOUNT",
    "max-harm": "METRIC=SHARE[:DELTA] a line: a candidate fails when more than SHARE of the "
    "queries lose more than DELTA",
    "queries": "the query texts (the comment shows each worst query's question)",
    "junit": "where to write the JUnit report",
    "comment": "where to write the pull request's comment (Markdown)",
    "json": "where to write compare's JSON document",
    "args": "more flags of python -m metrics compare, split as a shell splits words",
}
DEFAULTS = {"baseline-kind": "auto", "junit": "retrieval-compare.junit.xml",
            "comment": "retrieval-compare.md", "json": "retrieval-compare.json"}
SNAPSHOT_MARK = b'"retrieval-compare snapshot"'  # in a snapshot's first line (its header)


def ci_step_command(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m metrics ci-step",
        description="The GitHub Action's step: compare from the INPUT_* variables, the "
        "comment into $GITHUB_STEP_SUMMARY, the verdict, headline and exit code into "
        "$GITHUB_OUTPUT, and compare's exit status. Inputs: " + "; ".join(
            f"INPUT_{name.upper().replace('-', '_')}: {what}" for name, what in INPUTS.items()),
    )
    parser.parse_args(argv)
    given = inputs_from(os.environ)
    paths = {name: Path(given[name]) for name in ("junit", "comment", "json")}
    errors = _Tee(sys.stderr)
    with contextlib.redirect_stderr(errors):
        try:
            arguments = compare_arguments(given, paths)
        except UsageError as error:
            to_stderr(f"error: {error}")
            status = EXIT_USAGE
        else:
            print("python -m metrics compare " + shlex.join(arguments), flush=True)
            for path in paths.values():
                path.parent.mkdir(parents=True, exist_ok=True)
            status = run_guarded(compare_command, arguments)
    ran = status in (EXIT_OK, EXIT_GATE)
    if ran:
        comment = paths["comment"].read_text(encoding="utf-8")
    else:
        comment = error_comment(status, errors.lines())
        with contextlib.suppress(OSError):
            paths["comment"].parent.mkdir(parents=True, exist_ok=True)
            paths["comment"].write_text(comment, encoding="utf-8")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        append_text(summary, comment + "\n", name="GITHUB_STEP_SUMMARY")
    outputs = os.environ.get("GITHUB_OUTPUT")
    if outputs:
        append_text(outputs, step_outputs({
            "verdict": verdict(status), "exit-code": status,
            "headline": _headline(paths["json"]) if ran else "",
            "junit": paths["junit"] if ran else "", "comment": paths["comment"],
            "json": paths["json"] if ran else ""}), name="GITHUB_OUTPUT")
    return status


def inputs_from(environment: Mapping[str, str]) -> dict[str, str]:
    """Each input's value (INPUT_NAME, - as _), stripped, its default when empty."""
    return {name: environment.get(f"INPUT_{name.upper().replace('-', '_')}", "").strip()
            or DEFAULTS.get(name, "") for name in INPUTS}


def _items(text: str) -> list[str]:
    """A list input's items: one a line, blank lines and # comments skipped."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def compare_arguments(given: Mapping[str, str], paths: Mapping[str, Path]) -> list[str]:
    """The compare command line the inputs name; a UsageError naming the input that is
    missing or wrong."""
    for name in ("qrels", "baseline", "candidates"):
        if not given[name]:
            raise UsageError(f"the input {name!r} is required ({INPUTS[name]})")
    kind = given["baseline-kind"]
    if kind not in ("auto", "run", "snapshot"):
        raise UsageError(f"the input 'baseline-kind' is auto, run or snapshot, got {kind!r}")
    if kind == "auto":
        kind = "snapshot" if _is_snapshot(given["baseline"]) else "run"
    arguments = ["--qrels", given["qrels"]]
    arguments += (["--snapshot", given["baseline"]] if kind == "snapshot"
                  else ["--run", given["baseline"]])
    for candidate in _items(given["candidates"]):
        arguments += ["--run", candidate]
    if given["k"]:
        arguments += ["--k", given["k"]]
    for name, flag in (("metrics", "--metric"), ("fail-on-regression", "--fail-on-regression"),
                       ("budgets", "--budget"), ("max-harm", "--max-harm")):
        for item in _items(given[name]):
            arguments += [flag, item]
    if given["primary"]:
        arguments += ["--primary", given["primary"]]
    if given["queries"]:
        arguments += ["--queries", given["queries"]]
    try:
        arguments += shlex.split(given["args"])
    except ValueError as error:
        raise UsageError(f"the input 'args': {error}") from None
    arguments += ["--write", f"json={paths['json']}", "--write", f"junit={paths['junit']}",
                  "--write", f"markdown={paths['comment']}"]
    return arguments


def _is_snapshot(baseline: str) -> bool:
    """Whether the baseline's file is a snapshot (its header opens it); a NAME= before the
    file names a run."""
    try:
        with open(baseline, "rb") as handle:
            return SNAPSHOT_MARK in handle.read(4096)
    except OSError:
        return False  # compare names the file it cannot read


def _headline(path: Path) -> str:
    """The headline of the JSON document compare wrote."""
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("headline", ""))
    except (OSError, ValueError, AttributeError):
        return ""


class _Tee(io.TextIOBase):
    """Standard error as it is, keeping what was written (the error a comment repeats)."""

    def __init__(self, stream) -> None:
        self._stream, self._written = stream, []

    def write(self, text: str) -> int:
        self._written.append(text)
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def lines(self) -> list[str]:
        return "".join(self._written).splitlines()
