"""Nothing the user gave is overwritten or half-written: a flag that writes a file (--out,
--per-query-out, --load-report) naming one of the command's inputs, or the file another
such flag writes, is refused on every command, however the path is spelled; and a write that
fails (a full disk, a quota) leaves the file that was there as it was, with one line naming
the flag and the path."""

from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.report.command import main as report_main
from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR
from metrics.inputs.arguments import UsageError, command_parser
from metrics.io.writing import CannotWrite, paths_meet, replacing, write_text
from tests.marks import THOROUGH

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Copies of the sample's files, the inputs a command may be asked to write over."""
    names = {"qrels": "qrels.txt", "run": "baseline.run", "other": "bm25.run",
             "queries": "queries.csv", "corpus": "corpus.jsonl"}
    found = {role: Path(shutil.copy(SAMPLE_DIR / name, tmp_path / name))
             for role, name in names.items()}
    found["judge"] = Path(shutil.copy(SAMPLE_DIR / "qrels.txt", tmp_path / "judge.txt"))
    return found


def inputs_of(command: str, f: dict[str, Path]) -> list[str]:
    """The flags naming the inputs of a command that writes a file."""
    runs = ["--qrels", str(f["qrels"]), "--run", str(f["run"]), "--run", str(f["other"])]
    return {
        "score": runs,
        "compare": ["compare", *runs, "--permutations", "200"],
        "snapshot": ["snapshot", *runs, "--out", str(f["run"].with_name("snapshot.json"))],
        "leakage": ["leakage", *runs, "--queries", str(f["queries"]),
                    "--corpus", str(f["corpus"])],
        "leaderboard": ["leaderboard", *runs],
        "power": ["power", *runs],
        "unjudged": ["unjudged", *runs],
        "overlap": ["overlap", *runs],
        "fuse": ["fuse", *runs[2:]],
        "agreement": ["agreement", *runs],
        "judge": ["judge", *runs, "--judge-qrels", str(f["judge"])],
        "sample-for-labelling": ["sample-for-labelling", *runs, "--n", "2"],
        "report": ["report", *runs, "--format", "markdown"],
    }[command]


def run(capsys, argv: list[str]) -> tuple[int, str]:
    """A command in this process: its exit status and its last line on standard error."""
    if argv[0] == "report":
        code = report_main(argv)
    else:
        code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err[-1] if err else ""


def unchanged(f: dict[str, Path]) -> bool:
    names = {"qrels": "qrels.txt", "run": "baseline.run", "other": "bm25.run",
             "queries": "queries.csv", "corpus": "corpus.jsonl", "judge": "qrels.txt"}
    return all(f[role].read_bytes() == (SAMPLE_DIR / name).read_bytes()
               for role, name in names.items())


COMMANDS = ["score", "compare", "snapshot", "leakage", "leaderboard", "power", "unjudged",
            "overlap", "fuse", "agreement", "judge", "sample-for-labelling", "report"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_load_report_naming_an_input_is_refused_on_every_command(capsys, files, command):
    code, last = run(capsys, [*inputs_of(command, files), "--load-report", str(files["run"])])
    assert (code, last) == (2, f"error: --load-report {files['run']} is one of this "
                               f"command's inputs (--run {files['run']}): write it elsewhere "
                               "(see --help)")
    assert unchanged(files)


@pytest.mark.parametrize("role, flag", [("run", "--run"), ("qrels", "--qrels"),
                                        ("queries", "--queries"), ("corpus", "--corpus"),
                                        ("judge", "--judge-qrels")])
@pytest.mark.parametrize("engine", ["memory", "blocks"])
def test_a_per_query_out_naming_any_input_is_refused(capsys, files, role, flag, engine):
    args = ["--qrels", str(files["qrels"]), "--run", str(files["run"]), "--engine", engine]
    if role in ("queries", "corpus", "judge"):  # the flags that name them, on any engine
        args += [flag, str(files[role])]
    code, last = run(capsys, [*args, "--per-query-out", str(files[role])])
    assert code == 2
    assert last == (f"error: --per-query-out {files[role]} is one of this command's inputs "
                    f"({flag} {files[role]}): write it elsewhere (see --help)")
    assert unchanged(files)


def test_an_output_is_compared_with_the_inputs_as_the_file_system_resolves_them(
        capsys, files, monkeypatch):
    link = files["run"].with_name("link.run")
    link.symlink_to(files["run"])
    hard = files["run"].with_name("hard.run")
    os.link(files["qrels"], hard)
    monkeypatch.chdir(files["run"].parent)
    Path("sub").mkdir()
    for given, out in [(str(link), str(files["run"])), (str(files["run"]), str(link)),
                       ("baseline.run", "./baseline.run"),
                       ("./baseline.run", "sub/../baseline.run"), (str(files["qrels"]), str(hard))]:
        # the run given one way, the output naming it (or the qrels, by a hard link) another
        code, last = run(capsys, ["--qrels", str(files["qrels"]), "--run", given,
                                  "--per-query-out", out])
        assert code == 2 and "is one of this command's inputs" in last, (given, out, last)
    assert unchanged(files)


def test_an_output_inside_a_directory_read_as_a_run_is_refused(capsys, files, tmp_path):
    folder = tmp_path / "run.parquet"
    folder.mkdir()
    part = folder / "part-0.parquet"
    pq.write_table(pa.table({"query_id": ["q01"], "doc_id": ["d1"], "rank": [1]}), part)
    before = part.read_bytes()
    code, last = run(capsys, ["--qrels", str(files["qrels"]), "--run", str(folder),
                              "--load-report", str(part)])
    assert code == 2 and last.startswith(f"error: --load-report {part} is one of this "
                                         f"command's inputs (--run {folder})")
    assert part.read_bytes() == before


@pytest.mark.parametrize("command, first, second", [
    ("score", "--per-query-out", "--load-report"),
    ("snapshot", "--out", "--load-report"),
    ("report", "--out", "--load-report"),
])
def test_two_outputs_naming_one_file_are_refused(capsys, files, tmp_path, monkeypatch,
                                                 command, first, second):
    monkeypatch.chdir(tmp_path)
    argv = [a for a in inputs_of(command, files)]
    if command == "snapshot":  # its own --out is the one under test
        at = argv.index("--out")
        del argv[at:at + 2]
    (tmp_path / "kept").write_text("kept\n")
    (tmp_path / "link").symlink_to(tmp_path / "kept")
    code, last = run(capsys, [*argv, first, "kept", second, "./link"])
    # named in the order the command declares them: --load-report with the inputs
    assert (code, last) == (2, f"error: {second} link and {first} kept name the same file: "
                               "give each its own (see --help)")
    assert (tmp_path / "kept").read_text() == "kept\n"


def test_an_output_of_its_own_is_written(capsys, files, tmp_path):
    out, report = tmp_path / "figures.parquet", tmp_path / "load.txt"
    code, _ = run(capsys, ["--qrels", str(files["qrels"]), "--run", str(files["run"]),
                           "--per-query-out", str(out), "--load-report", str(report)])
    assert code == 0 and pq.read_table(out).num_rows > 0
    assert "baseline.run: 100 lines read" in report.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


# --------------------------------------------------------------------------- failed writes


def run_limited(args: list[str], cwd: Path, max_file_bytes: int) -> subprocess.CompletedProcess:
    """A command in a child process that may write at most `max_file_bytes` to any file
    (`ulimit -f`, as a quota or a nearly full disk stops a write)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, preexec_fn=limit,
                          capture_output=True, timeout=300)


@pytest.mark.parametrize("flag, argv", [
    ("--per-query-out", ["metrics", "--engine", "blocks"]),
    ("--load-report", ["metrics"]),
    ("--out", ["metrics", "snapshot"]),
    # the report command end to end: its imports take seconds (tests/marks.py)
    pytest.param("--out", ["dashboard", "report", "--format", "markdown"], marks=THOROUGH),
])
def test_a_write_that_fails_keeps_the_file_that_was_there(files, tmp_path, flag, argv):
    kept = tmp_path / "out.bin"
    previous = b"the previous contents, which a failed write must not destroy\n" * 64
    kept.write_bytes(previous)
    done = run_limited([*argv, "--qrels", str(files["qrels"]), "--run", str(files["run"]),
                        flag, str(kept)], tmp_path, max_file_bytes=64)
    last = done.stderr.decode().strip().splitlines()[-1]
    assert done.returncode == 1, done.stderr.decode()[-600:]
    assert last == f"error: {flag} {kept}: cannot write (File too large)"
    assert kept.read_bytes() == previous
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_full_device_is_named_with_its_flag(capsys, files):
    code, last = run(capsys, ["--qrels", str(files["qrels"]), "--run", str(files["run"]),
                              "--load-report", "/dev/full"])
    assert (code, last) == (1, "error: --load-report /dev/full: cannot write (No space left "
                               "on device)")


@pytest.mark.parametrize("fmt", [["--format", "json"], ["--format", "trec_eval", "-q"],
                                 ["--format", "trec_eval"]])
def test_a_full_standard_output_is_named(files, fmt):
    """Standard output on a full device: one line naming it and why, whether a write fails
    midway (JSON, trec_eval -q) or only the last flush (the few lines of trec_eval's summary);
    it said '[Errno 28] No space left on device', or nothing."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "metrics", "--qrels", str(files["qrels"]),
                               "--run", str(files["run"]), *fmt], cwd=ROOT, stdout=full,
                              stderr=subprocess.PIPE, timeout=120)
    last = done.stderr.decode().strip().splitlines()[-1]
    assert (done.returncode, last) == (1, "error: standard output: cannot write (No space "
                                          "left on device)")


@pytest.mark.parametrize("flag, argv", [("--per-query-out", []), ("--out", ["fuse"])])
def test_an_output_that_cannot_be_a_file_is_named_with_its_flag(capsys, files, tmp_path,
                                                                flag, argv):
    runs = ["--run", str(files["run"]), "--run", str(files["other"])]
    for out, reason in [(tmp_path, "it is a directory"),
                        (tmp_path / "missing" / "x", "No such file or directory"),
                        (files["qrels"] / "x", "Not a directory")]:
        code, last = run(capsys, [*argv, "--qrels", str(files["qrels"]), *runs, flag, str(out)])
        assert (code, last) == (1, f"error: {flag} {out}: cannot write ({reason})")
    assert unchanged(files)


# --------------------------------------------------------------------------- the writer


def test_the_writer_replaces_atomically_and_keeps_links_and_permissions(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    with pytest.raises(RuntimeError), replacing(target) as temporary:
        temporary.write_text("half")
        raise RuntimeError("the writer stops halfway")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "target.txt"]


def test_the_writer_writes_a_device_in_place(tmp_path):
    write_text("/dev/null", "nothing\n")  # neither replaced nor refused
    with pytest.raises(CannotWrite) as error:
        write_text("/dev/full", "x")
    assert str(error.value) == "/dev/full: cannot write (No space left on device)"


def test_paths_meet_by_identity(tmp_path):
    a = tmp_path / "a"
    a.write_text("a")
    (tmp_path / "d").mkdir()
    (tmp_path / "l").symlink_to(a)
    assert paths_meet(a, tmp_path / "l") and paths_meet(a, tmp_path / "d" / ".." / "a")
    assert paths_meet(tmp_path / "d" / "new", tmp_path / "d")  # inside a directory read
    assert paths_meet(tmp_path / "new", tmp_path / "d" / ".." / "new")  # neither exists
    assert not paths_meet(a, tmp_path / "b") and not paths_meet("/dev/null", "/dev/null")


def test_judge_writes_the_load_report_it_is_given(capsys, files, tmp_path):
    report = tmp_path / "load.txt"
    code, _ = run(capsys, [*inputs_of("judge", files), "--load-report", str(report)])
    assert code == 0
    written = report.read_text().splitlines()
    # the human labels' report, then the judge evaluation's: its labels and each run
    assert written[:2] == ["qrels.txt: 33 lines read, 33 used, 0 dropped",
                           "judge.txt: 33 lines read, 33 used, 0 dropped"]
    assert "baseline.run: 100 lines read, 100 used, 0 dropped, 1 repeat" in written


def test_on_the_bundled_sample_its_files_are_the_inputs():
    parser = command_parser("test", "the sample's files may not be written over")
    with pytest.raises(UsageError, match="is one of this command's inputs \\(the bundled sample"):
        parser.parse_args(["--load-report", str(SAMPLE_DIR / "qrels.txt")])
    own = parser.parse_args(["--qrels", "mine.txt", "--run", "mine.run",
                             "--load-report", str(SAMPLE_DIR / "report.txt")])
    assert own.load_report == SAMPLE_DIR / "report.txt"  # not on the sample: its folder is not read


def test_agreement_over_two_label_sets_writes_both_load_reports(capsys, files, tmp_path):
    report = tmp_path / "load.txt"
    code, _ = run(capsys, [*inputs_of("agreement", files), "--qrels", str(files["judge"]),
                           "--load-report", str(report)])
    assert code == 0
    written = report.read_text().splitlines()
    # each label set's report, the runs read under each: nothing written over
    assert [line.split(":")[0] for line in written if "lines read" in line] == [
        "qrels.txt", "baseline.run", "bm25.run", "judge.txt", "baseline.run", "bm25.run"]
