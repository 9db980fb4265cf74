"""The GitHub Action without GitHub: action.yml and the example workflow valid against the
public schemas (check-jsonschema's vendored copies), and the action's steps run as a runner
runs a composite action's: each `run:` with `bash --noprofile --norc -eo pipefail`, its
`${{ inputs.* }}` and `${{ steps.*.outputs.* }}` expressions put in, the GITHUB_* variables
and files of a runner in a temporary directory, a fresh $GITHUB_OUTPUT per step read back in
its heredoc form. The install step is skipped by the `python` input (this environment, which
has the package on PYTHONPATH); the summary, the outputs and the exit status are checked for a
candidate that passes, one that is worse, and inputs the gate refuses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from metrics.cli.ci_step import INPUTS
from metrics.outputs.github import step_outputs
from tests.metrics.outputs.gated import KEPT, QUERIES, write_gated

ROOT = Path(__file__).resolve().parents[3]
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / "docs" / "ci").glob("*.yml"))
CHECK = Path(sys.executable).with_name("check-jsonschema")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def read_yaml(path: Path) -> dict:
    return YAML(typ="safe").load(path.read_text())


# --------------------------------------------------------------------------- the schemas


needs_check = pytest.mark.skipif(not CHECK.exists(), reason="check-jsonschema not installed")


def check(schema: str, *paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CHECK), "--builtin-schema", schema, *map(str, paths)],
                          capture_output=True, text=True, timeout=120)


@needs_check
def test_the_action_and_the_example_workflows_are_valid(tmp_path):
    assert check("vendor.github-actions", ACTION).returncode == 0
    assert WORKFLOWS, "docs/ci/ holds the example workflows"
    done = check("vendor.github-workflows", *WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr
    # the check can fail: an action without its description, a job without runs-on
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text().replace("\ndescription:", "\nsummary:", 1))
    assert check("vendor.github-actions", broken).returncode == 1
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(WORKFLOWS[0].read_text().replace("runs-on:", "runs-upon:"))
    assert check("vendor.github-workflows", workflow).returncode == 1


def test_the_action_passes_every_input_to_the_step_by_the_environment():
    action = read_yaml(ACTION)
    assert set(action["inputs"]) == set(INPUTS) | {"python"}
    gate = next(step for step in action["runs"]["steps"] if step.get("id") == "gate")
    assert {f"INPUT_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}"
            for name in INPUTS}.items() <= gate["env"].items()
    for step in action["runs"]["steps"]:  # no expression inside a shell line: no injection
        assert "${{" not in step["run"]
    assert set(action["outputs"]) == {"verdict", "headline", "exit-code", "junit", "comment",
                                      "json", "python"}


def test_the_docs_show_the_example_workflows_as_they_are():
    text = (ROOT / "docs" / "ci.md").read_text()
    for workflow in WORKFLOWS:
        assert workflow.read_text().strip() in text, workflow.name


# --------------------------------------------------------------------------- a runner


def read_outputs(path: Path) -> dict[str, str]:
    """A step's $GITHUB_OUTPUT as the runner reads it: name=value, or name<<DELIMITER."""
    outputs, lines = {}, path.read_text().split("\n") if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index)
            outputs[name] = "\n".join(lines[index:end])
            index = end + 1
        else:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def run_action(workspace: Path, given: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """The action's steps, as a runner runs them: its exit status (the failing step's), the
    action's outputs, and the job's summary."""
    action = read_yaml(ACTION)
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs |= given
    temp = workspace.parent / "runner"
    temp.mkdir(exist_ok=True)
    summary = temp / "step_summary.md"
    steps: dict[str, dict[str, str]] = {}

    def value(expression: str) -> str:
        kind, _, rest = expression.partition(".")
        if kind == "inputs":
            return inputs[rest]
        if kind == "steps":
            step, _, output = rest.partition(".outputs.")
            return steps.get(step, {}).get(output, "")
        raise AssertionError(f"an expression this runner does not know: {expression}")

    def put(text: str) -> str:
        return EXPRESSION.sub(lambda m: value(m.group(1)), text)

    status = 0
    for number, step in enumerate(action["runs"]["steps"]):
        outputs = temp / f"output_{number}"
        outputs.write_text("")
        env = {"PATH": os.environ["PATH"], "HOME": str(temp), "PYTHONPATH": str(ROOT),
               "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(ROOT),
               "GITHUB_WORKSPACE": str(workspace), "GITHUB_OUTPUT": str(outputs),
               "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(temp)}
        env |= {name: put(str(text)) for name, text in (step.get("env") or {}).items()}
        script = temp / f"step_{number}.sh"
        script.write_text(put(step["run"]))
        assert step["shell"] == "bash"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                              cwd=workspace, env=env, capture_output=True, text=True,
                              timeout=300)
        steps[step.get("id", str(number))] = read_outputs(outputs)
        if done.returncode:
            status = done.returncode
            break
    action_outputs = {name: put(spec["value"]) for name, spec in action["outputs"].items()}
    return status, action_outputs, summary.read_text() if summary.exists() else ""


@pytest.fixture
def workspace(tmp_path):
    """A checkout: the gated collection's files, named as a repository would hold them."""
    folder = tmp_path / "workspace"
    files = write_gated(folder / "eval")
    return folder, {name: str(path.relative_to(folder)) for name, path in files.items()}


def gate_inputs(files: dict[str, str], candidate: str) -> dict[str, str]:
    return {"python": sys.executable, "qrels": files["qrels"],
            "baseline": f"base={files['base']}", "candidates": f"{candidate}={files[candidate]}",
            "k": "2", "queries": files["queries"], "fail-on-regression": "nDCG@2",
            "budgets": "nDCG@2=0.05\n", "max-harm": "nDCG@2=0.2",
            "junit": "reports/gate.xml", "comment": "reports/comment.md",
            "args": "--permutations 500"}


def test_a_candidate_that_holds_passes_the_step(workspace):
    folder, files = workspace
    status, outputs, summary = run_action(folder, gate_inputs(files, "same"))
    assert status == 0
    assert outputs["verdict"] == "passed" and outputs["exit-code"] == "0"
    assert outputs["python"] == sys.executable
    assert outputs["headline"].startswith("same scores as base does on nDCG@2")
    assert summary.startswith("## ✅ Retrieval gate passed: all 3 gates held against base")
    assert (folder / "reports" / "gate.xml").exists()
    assert (folder / outputs["comment"]).read_text() + "\n" == summary


def test_a_worse_candidate_fails_the_step_with_the_gates_status(workspace):
    folder, files = workspace
    status, outputs, summary = run_action(folder, gate_inputs(files, "worse"))
    assert status == 3
    assert outputs["verdict"] == "failed" and outputs["exit-code"] == "3"
    assert outputs["junit"] == "reports/gate.xml" and outputs["json"] == "retrieval-compare.json"
    assert "worse is worse than base on nDCG@2" in outputs["headline"]
    assert summary.startswith("## ❌ Retrieval gate failed: 3 of 3 gates failed against base")
    assert f"{QUERIES - KEPT} queries of {QUERIES} score lower than base" in summary
    assert f"| q{KEPT} | what is q{KEPT}\\? | 1.000 | 0.000 | -1.000 |" in summary
    junit = (folder / "reports" / "gate.xml").read_text()
    assert junit.count("<failure ") == 3


def test_a_snapshot_baseline_is_read_as_one(workspace):
    folder, files = workspace
    subprocess.run([sys.executable, "-m", "metrics", "snapshot", "--qrels", files["qrels"],
                    "--run", f"base={files['base']}", "--k", "2", "--out", "eval/base.json"],
                   cwd=folder, env=os.environ | {"PYTHONPATH": str(ROOT)}, check=True,
                   capture_output=True)
    given = gate_inputs(files, "worse") | {"baseline": "eval/base.json", "k": "",
                                            "queries": ""}
    status, outputs, summary = run_action(folder, given)
    assert status == 3 and outputs["verdict"] == "failed"
    assert "failed against base" in summary


@pytest.mark.parametrize("broken, status", [({"qrels": "eval/missing.txt"}, 1),
                                            ({"k": "zero"}, 2), ({"candidates": ""}, 2)])
def test_a_gate_that_cannot_run_fails_the_step_and_says_why(workspace, broken, status):
    folder, files = workspace
    found, outputs, summary = run_action(folder, gate_inputs(files, "worse") | broken)
    assert found == status and outputs["exit-code"] == str(status)
    assert outputs["verdict"] == "error" and outputs["headline"] == ""
    assert summary.startswith("## ❌ Retrieval gate could not run")
    assert "error" in summary and (folder / "reports" / "comment.md").exists()


def test_an_output_cannot_end_its_own_block(tmp_path):
    """A value holding a line break, a heredoc of its own and another output's line is read
    back as itself, and sets nothing else."""
    path = tmp_path / "out"
    value = "a\nheadline<<EOF\nverdict=passed\nEOF\nghadelimiter_x"
    path.write_text(step_outputs({"headline": value, "verdict": "failed"}))
    assert read_outputs(path) == {"headline": value, "verdict": "failed"}
    with pytest.raises(ValueError):
        step_outputs({"bad name": "x"})


def test_the_install_step_installs_into_a_venv_of_its_own():
    """Read, not run (it downloads the package's dependencies): python -m venv under
    RUNNER_TEMP, pip install of the action's own folder, the venv's python as its output."""
    install = read_yaml(ACTION)["runs"]["steps"][0]["run"]
    assert "python3 -m venv" in install and '"$GITHUB_ACTION_PATH"' in install
    assert 'echo "python=$venv/bin/python" >> "$GITHUB_OUTPUT"' in install
    assert shutil.which("bash")
