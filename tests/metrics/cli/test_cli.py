"""The command line: same numbers as the engine, the JSON contract, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from metrics import Conventions, label_of
from metrics.cli import main
from metrics.core.kernel import MEASURES, SUMMARY_MEASURES
from metrics.core.sample import SAMPLE_DIR, load_sample
from metrics.inputs.arguments import Parser, add_input_arguments
from metrics.inputs.reading import Inputs
from metrics.vocabulary import CONVENTIONS, Convention


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_no_arguments_prints_the_sample_table(capsys):
    code, out, err = run_cli(capsys)
    assert code == 0
    assert "Hit@5" in out and "0.778 [0.453, 0.937]" in out
    assert "R@5" in out and "0.676" in out
    assert "Conventions:" in out and "divide by every relevant id" in out
    assert "baseline.run: 100 lines read" in err


def test_sample_json_contract(capsys):
    code, out, _ = run_cli(capsys, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["k"] == 5
    assert data["query_set"] == {"queries": 10, "scored": 9, "excluded": ["q08"]}
    assert data["conventions"]["recall_denominator"] == "all"
    baseline = data["runs"][0]
    assert baseline["name"] == "baseline" and baseline["repeats"] == 1
    assert set(baseline["summary"]) == {label_of(m, 5, Conventions()) for m in SUMMARY_MEASURES}
    hit = baseline["summary"]["Hit@5"]
    assert hit["interval"] == "wilson" and hit["mean"] == 7 / 9
    assert baseline["summary"]["nDCG@5"]["interval"] == "bootstrap"
    rows = {row["query_id"]: row for row in baseline["queries"]}
    assert len(rows) == 9 and "q08" not in rows
    assert set(rows["q10"]) == {"query_id", "class", "repeats"} | {
        label_of(m, 5, Conventions(), summary=False) for m in MEASURES
    }
    assert rows["q10"]["P@5"] == 0.4 and rows["q10"]["repeats"] == 1
    assert rows["q03"]["class"] == "late_hit"
    assert [row["k"] for row in baseline["sweep"]] == list(range(1, 11))
    assert baseline["sweep"][9]["Hit"] == pytest.approx(8 / 9)
    assert baseline["suggestion"]["k"] >= 1 and baseline["diagnosis"]


def test_json_matches_the_engine_unrounded(capsys):
    _, out, _ = run_cli(capsys, "--format", "json", "--k", "3", "--gain", "exponential")
    data = json.loads(out)
    from metrics.vocabulary.conventions import Conventions

    engine = load_sample(3, Conventions(gain="exponential")).run("reranked")
    assert data["runs"][1]["summary"]["nDCG@3"]["mean"] == engine.summary["nDCG"].mean
    assert data["runs"][1]["summary"]["nDCG@3"]["low"] == engine.summary["nDCG"].low


def test_a_figure_read_over_the_full_list_carries_no_cutoff_in_its_keys(capsys):
    """--rr full --ap full: RR and AP are read over the whole list, so their keys are RR, MRR,
    AP and MAP, as the text table names them; the figures read at K keep their @5."""
    _, out, _ = run_cli(capsys, "--format", "json", "--rr", "full", "--ap", "full")
    data = json.loads(out)
    assert data["conventions"]["rr"] == "full"
    run = data["runs"][0]
    assert {"MRR", "MAP", "P@5", "nDCG@5"} <= set(run["summary"])
    assert not {"MRR@5", "MAP@5"} & set(run["summary"])
    assert {"RR", "AP", "DCG@5"} <= set(run["queries"][0])
    assert not {"RR@5", "AP@5"} & set(run["queries"][0])
    late = next(r for r in run["queries"] if r["query_id"] == "q03")
    assert late["RR"] == pytest.approx(1 / 6)  # its first relevant id at rank 6, past K
    _, text, _ = run_cli(capsys, "--rr", "full", "--ap", "full")
    rows = {line.split()[0] for line in text.splitlines() if line[:1].isalpha()}
    assert {"MRR", "MAP", "P@5"} <= rows and not {"MRR@5", "MAP@5"} & rows
    _, latex, _ = run_cli(capsys, "--format", "latex", "--rr", "full", "--ap", "full")
    header = next(line for line in latex.splitlines() if line.startswith("Run & "))
    assert header.split(" & ")[5:7] == ["MRR", "MAP"]
    _, trec, _ = run_cli(capsys, "--format", "trec_eval", "--rr", "full", "--ap", "full")
    assert {"recip_rank", "map"} <= {line.split()[0] for line in trec.splitlines()}


def test_one_figure_one_name_whichever_way_it_is_asked(capsys):
    """Under --rr full, trec_eval's recip_rank is the default MRR: one figure, one row, one
    key. Without it, recip_rank is another figure than MRR@5 and says how it is read."""
    _, out, _ = run_cli(capsys, "--format", "json", "--rr", "full", "--metric", "recip_rank",
                        "--metric", "RR(read=full)")
    data = json.loads(out)
    assert list(data["runs"][0]["summary"]) == ["MRR"]
    assert list(data["measures"]) == ["MRR"]
    _, out, _ = run_cli(capsys, "--format", "json", "--metric", "recip_rank")
    data = json.loads(out)
    assert list(data["runs"][0]["summary"]) == ["MRR(read=full)"]
    assert data["measures"]["MRR(read=full)"]["note"] == "read over the full list"


def test_a_cutoff_a_name_gives_is_read_at_under_a_full_list_convention(capsys):
    """--rr full --metric MRR@3: RR read at rank 3, beside the default MRR read over the whole
    list; q03's first relevant id sits at rank 6 in the baseline."""
    _, out, _ = run_cli(capsys, "--format", "json", "--rr", "full", "--metric", "MRR@3",
                        "--metric", "MRR")
    data = json.loads(out)
    assert set(data["runs"][0]["summary"]) == {"MRR", "MRR@3"}
    late = next(r for r in data["runs"][0]["queries"] if r["query_id"] == "q03")
    assert late["RR@3"] == 0 and late["RR"] == pytest.approx(1 / 6)
    assert data["measures"]["MRR@3"]["note"] == "read at rank 3"


def test_user_files_default_to_k_10_and_named_runs(capsys):
    code, out, _ = run_cli(
        capsys,
        "--qrels",
        str(SAMPLE_DIR / "qrels.txt"),
        "--run",
        f"first={SAMPLE_DIR / 'baseline.run'}",
        "--run",
        str(SAMPLE_DIR / "bm25.run"),
        "--format",
        "json",
        "--sweep",
        "2:4",
    )
    data = json.loads(out)
    assert code == 0 and data["k"] == 10
    assert [r["name"] for r in data["runs"]] == ["first", "bm25"]
    assert [row["k"] for row in data["runs"][0]["sweep"]] == [2, 3, 4]


def test_a_jsonl_run_with_labels_stands_alone(tmp_path, capsys):
    path = tmp_path / "pasted.jsonl"
    path.write_text(
        '{"query_id": "a", "retrieved": ["x", "y"], "relevant": ["y"]}\n'
        '{"query_id": "b", "retrieved": ["z"], "relevant": {"z": 2}}\n'
    )
    code, out, _ = run_cli(capsys, "--run", str(path), "--k", "2", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["runs"][0]["name"] == "pasted"
    assert data["runs"][0]["summary"]["MRR@2"]["mean"] == pytest.approx(0.75)


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--k", "0"], "--k: expected a positive integer, got '0'"),
        (["--k", "ten"], "--k: expected a positive integer, got 'ten'"),
        (["--gain", "log"], "--gain"),
        (["--sweep", "5:2"], "--sweep"),
        (["--confidence-level", "95"], "--confidence-level"),
        (["--qrels", "missing.txt", "--run", "missing.run"], "missing.txt"),
    ],
)
def test_errors_are_one_line(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv)
    assert code != 0 and out == ""
    assert fragment in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_malformed_run_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q01 Q0 d01 1 2.5 x\nq01 Q0 d02 2 high x\n")
    code, _, err = run_cli(capsys, "--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", str(bad))
    assert code == 1
    assert "bad.run" in err and "line 2" in err and len(err.strip().splitlines()) == 1


def test_stdout_is_json_alone_in_a_real_process():
    result = subprocess.run(
        [sys.executable, "-m", "metrics", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout)["k"] == 5
    assert "lines read" in result.stderr


# Runs the command line in a fresh interpreter, then names the heavy modules it imported.
_IMPORTED_AFTER_MAIN = """
import contextlib, io, sys
from metrics.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(code, *sorted(m for m in ("pandas", "scipy", "streamlit") if m in sys.modules))
"""


@pytest.mark.parametrize("run_text", [
    None,  # the bundled sample: TREC files, the fast path
    "query_id,doc_id,rank\nq01,d01,1\nq02,d03,1\n",
    "q01 Q0 d01 1 2.5 x\n\nq01\tQ0 d02 2 1.5 x\n",  # blank line, mixed separators: line reader
    "query_id,doc_id,rank\nq01,d01,1\n\nq02,d03,1\n",  # CSV with a blank line
])
def test_scoring_imports_neither_pandas_nor_scipy(tmp_path, run_text):
    """pyarrow imports pandas on its first numpy conversion unless the loaders avoid it:
    0.3 s of every command-line run (benchmarks/bench_engine.py --profile)."""
    argv = ["--format", "json"]
    if run_text is not None:
        (tmp_path / "run.csv").write_text(run_text)
        argv = ["--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run", str(tmp_path / "run.csv"),
                *argv]
    result = subprocess.run([sys.executable, "-c", _IMPORTED_AFTER_MAIN, *argv],
                            capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["0"], result.stdout


def test_input_formats_can_be_named(tmp_path, capsys):
    qrels = tmp_path / "labels.data"
    qrels.write_text("query_id,doc_id,grade\nq1,a,2\nq2,b,1\n")
    run = tmp_path / "system.data"
    run.write_text(
        '{"query_id": "q1", "retrieved": ["a", "x"]}\n{"query_id": "q2", "retrieved": ["b"]}\n'
    )
    code, out, _ = run_cli(capsys, "--qrels", str(qrels), "--qrels-format", "csv", "--run",
                           str(run), "--run-format", "jsonl", "--k", "2", "--format", "json")
    assert code == 0 and json.loads(out)["runs"][0]["summary"]["MRR@2"]["mean"] == 1.0
    code, _, err = run_cli(capsys, "--qrels", str(qrels), "--qrels-format", "trec", "--run",
                           str(run))
    assert code == 1 and "labels.data" in err


def test_with_both_files_bad_the_qrels_error_comes_first(tmp_path, capsys):
    """The qrels load in a thread beside the runs; its error must still be the one shown."""
    (tmp_path / "labels.txt").write_text("q1 0 d1 high\n")
    (tmp_path / "system.run").write_text("q1 Q0 d1\n")
    code, _, err = run_cli(capsys, "--qrels", str(tmp_path / "labels.txt"), "--run",
                           str(tmp_path / "system.run"))
    assert code == 1 and "labels.txt, line 1" in err and "system.run" not in err
    (tmp_path / "labels.txt").write_text("q1 0 d1 1\n")
    code, _, err = run_cli(capsys, "--qrels", str(tmp_path / "labels.txt"), "--run",
                           str(tmp_path / "system.run"))
    assert code == 1 and "system.run, line 1" in err


# --------------------------------------------------------------------------- convention flags

FLAGGED = [c for c in CONVENTIONS if c.flag]


def _other_value(convention: Convention) -> object:
    """A valid value of the convention that is not its default."""
    if convention.choices:
        return next(v for v in convention.values if v != convention.default)
    if isinstance(convention.default, int):
        return convention.default + 1
    low, high = convention.bounds
    return low if low != convention.default else high


def test_every_convention_without_a_flag_is_meant_to_have_none():
    assert {c.field for c in CONVENTIONS if not c.flag} == {"n_resamples"}


@pytest.mark.parametrize("convention", FLAGGED, ids=lambda c: c.field)
def test_every_convention_flag_is_in_the_help(capsys, convention):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    assert convention.flag in out
    if convention.choices:
        assert "{" + ",".join(convention.values) + "}" in out


@pytest.mark.parametrize("convention", FLAGGED, ids=lambda c: c.field)
def test_every_convention_flag_reaches_the_evaluation(convention):
    value = _other_value(convention)
    assert value != convention.default
    parser = Parser()
    add_input_arguments(parser)
    # the judge's labels need a file of their own (and files of yours, not the sample)
    files = (["--judge-qrels", str(SAMPLE_DIR / "qrels.txt"), "--qrels",
              str(SAMPLE_DIR / "qrels.txt"), "--run", str(SAMPLE_DIR / "baseline.run")]
             if convention.field == "labels" else [])
    args = parser.parse_args([convention.flag, str(value), *files])
    evaluation = Inputs.from_arguments(args).evaluation()
    assert getattr(evaluation.conventions, convention.field) == value


@pytest.mark.parametrize("convention", FLAGGED, ids=lambda c: c.field)
def test_every_convention_flag_defaults_to_the_vocabulary(convention):
    parser = Parser()
    add_input_arguments(parser)
    assert getattr(parser.parse_args([]), convention.field) == convention.default


@pytest.mark.parametrize("level", ["0", "-1"])
def test_a_relevance_level_below_1_is_a_usage_error(capsys, level):
    code, out, err = run_cli(capsys, "--relevance-level", level)
    assert code == 2 and out == ""
    assert "--relevance-level" in err and f"got '{level}'" in err
    assert len(err.strip().splitlines()) == 1


def test_json_conventions_carry_the_new_fields(capsys):
    code, out, _ = run_cli(capsys, "--format", "json", "--score-precision", "float32",
                           "--empty-queries", "zero")
    conventions = json.loads(out)["conventions"]
    assert code == 0
    assert conventions["score_precision"] == "float32"
    assert conventions["empty_queries"] == "zero"
    code, out, _ = run_cli(capsys, "--format", "json")
    conventions = json.loads(out)["conventions"]
    assert (conventions["score_precision"], conventions["empty_queries"]) == ("double", "exclude")


def test_help_lists_every_command_with_a_line(capsys):
    from metrics.cli import COMMANDS, main

    assert main(["help"]) == 0
    listed = capsys.readouterr().out
    for name in [*COMMANDS, "help"]:
        assert f"\n  {name} " in listed
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m metrics") and listed in out
    with pytest.raises(SystemExit):
        main(["help", "compare"])  # argparse's own --help of that command
    assert "usage: python -m metrics compare" in capsys.readouterr().out
    assert main(["help", "nope"]) == 2
    assert "unknown command 'nope'" in capsys.readouterr().err


def test_the_console_script_is_declared():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml")
                            .read_text())["project"]
    assert project["scripts"]["retrieval-compare"] == "metrics.cli:run"


def test_the_process_leaves_with_mains_code_and_every_byte_written():
    """`run` skips the interpreter's teardown (where pyarrow's threads can abort a correct
    run): the exit code is still main's, and standard output is flushed whole."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "metrics", "--format", "json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["k"] == 5
    bad = subprocess.run([sys.executable, "-m", "metrics", "--no-such-flag"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode == 2
    assert "--no-such-flag" in bad.stderr


_POOL_AFTER_RUN = """
import os, pyarrow as pa, metrics.cli as cli
cli.main = lambda: print(pa.default_memory_pool().backend_name) or 0
cli.run()
"""


@pytest.mark.parametrize(("asked", "expected"), [(None, "system"), ("jemalloc", "jemalloc")])
def test_the_command_allocates_with_malloc_unless_the_environment_names_a_pool(asked, expected):

    import pyarrow as pa

    if asked and asked not in pa.supported_memory_backends():
        pytest.skip(f"this pyarrow has no {asked}")
    assert _printed_after_run(_POOL_AFTER_RUN, "ARROW_DEFAULT_MEMORY_POOL", asked) == expected


def _printed_after_run(script: str, variable: str, value: str | None) -> str:
    """What `script` prints in a fresh process whose environment sets `variable` to `value`
    (None: leaves it unset)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != variable}
    if value:
        env[variable] = value
    shown = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True)
    return shown.stdout.strip()


_HUGE_PAGES_AFTER_RUN = """
from numpy._core import multiarray
import metrics.cli as cli
cli.main = lambda: print(multiarray._set_madvise_hugepage(True)) or 0
cli.run()
"""


@pytest.mark.parametrize(("asked", "expected"), [(None, "False"), ("1", "True")])
def test_the_command_keeps_numpy_off_huge_pages_unless_the_environment_asks(asked, expected):
    """Huge pages cost a fragmented machine's kernel a compaction inside a page fault (see
    cli._without_huge_pages); the variable numpy reads keeps its say."""
    assert _printed_after_run(_HUGE_PAGES_AFTER_RUN, "NUMPY_MADVISE_HUGEPAGE", asked) == expected
