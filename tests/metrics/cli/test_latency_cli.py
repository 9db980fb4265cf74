"""compare --timings and --max-latency: the latency figures in the text and JSON output, the
headline's latency piece, the gate's exit status (3 when a limit fails, as the budgets),
usage errors (2) and refused files (1) naming the file and line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.cli import main
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_GATE, EXIT_OK, EXIT_USAGE

N = 40


@pytest.fixture
def files(tmp_path):
    """40 queries; 'slow' ranks as 'base' does but takes about three times as long."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(N)))
    base = tmp_path / "base.run"
    base.write_text("".join(f"q{i} Q0 rel{i} 1 9 b\nq{i} Q0 x{i} 2 8 b\n" for i in range(N)))
    slow = tmp_path / "slow.run"
    slow.write_text("".join(f"q{i} Q0 x{i} 1 9 s\nq{i} Q0 rel{i} 2 8 s\n" for i in range(N)))
    rng = np.random.default_rng(0)
    fast = rng.lognormal(np.log(20), 0.3, N)
    rows = "".join(f"q{i},base,{fast[i]:.2f}\nq{i},slow,{3 * fast[i]:.2f}\n" for i in range(N))
    timings = tmp_path / "timings.csv"
    timings.write_text("query_id,run,latency_ms\n" + rows)
    return [str(qrels), str(base), str(slow), str(timings)]


def argv(files, *more):
    qrels, base, slow, timings = files
    return ["compare", "--qrels", qrels, "--run", base, "--run", slow, "--k", "5",
            "--permutations", "200", "--timings", timings, *more]


def test_the_text_output_shows_figures_pairs_and_the_headline_piece(files, capsys):
    assert main(argv(files)) == EXIT_OK
    out, err = capsys.readouterr()
    assert "p95 latency +" in out.splitlines()[0] and "(+200%)" in out.splitlines()[0]
    assert "latency_ms per run (95% intervals; ms):" in out
    assert "latency_ms: each candidate against base, paired; ms:" in out
    assert "percentile bootstrap of the quantile" in out
    assert "timings.csv: timings: 80 lines read, 2 runs (base, slow)" in err
    assert "slow: latency_ms for 40 of 40 scored queries" in err


@pytest.mark.parametrize("limit, code, verdict", [
    ("p95=+250%", EXIT_OK, "within budget"), ("p95=+100%", EXIT_GATE, "worse beyond budget"),
    ("mean=+1000ms", EXIT_OK, "within budget"), ("p50=5ms", EXIT_GATE, "worse beyond budget")])
def test_the_gate_exits_as_the_budgets_do(files, capsys, limit, code, verdict):
    assert main(argv(files, "--max-latency", limit, "--format", "json")) == code
    out, err = capsys.readouterr()
    data = json.loads(out)
    gate = next(g for g in data["gates"] if g["gate"] == "latency")
    assert gate["candidate"] == "slow" and gate["verdict"] == verdict
    assert gate["passed"] is (code == EXIT_OK)
    assert (f"latency: slow {limit.split('=')[0]} against base" in err) is (code != EXIT_OK)
    pair = data["timings"]["pairs"][0]
    assert pair["ratio"]["p95"]["value"] == pytest.approx(3, rel=1e-3)
    assert "p95 latency" in data["headline"]


def test_a_bad_limit_is_a_usage_error_naming_the_flag(files, capsys):
    assert main(argv(files, "--max-latency", "p90=+20%")) == EXIT_USAGE
    assert "--max-latency" in capsys.readouterr()[1]


def test_a_limit_without_latencies_is_a_usage_error(files, capsys):
    qrels, base, slow, _ = files
    assert main(["compare", "--qrels", qrels, "--run", base, "--run", slow,
                 "--max-latency", "p95=100ms"]) == EXIT_USAGE
    assert "--timings" in capsys.readouterr()[1]


def test_a_bad_timings_file_and_an_unknown_run_are_refused(files, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,run,latency_ms\nq1,base,12\nq2,base,-4\n")
    files[3] = str(bad)
    assert main(argv(files)) == EXIT_BAD_INPUT
    assert "bad.csv, line 3: latency_ms must be 0 or more, got '-4'" in capsys.readouterr()[1]
    bad.write_text("query_id,run,latency_ms\nq1,bm25,12\n")
    assert main(argv(files)) == EXIT_BAD_INPUT
    assert "timings for run 'bm25', which is not loaded" in capsys.readouterr()[1]


def test_a_csv_run_carries_its_own_latency(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 rel{i} 1\n" for i in range(10)))
    for name, ms in (("a", 10), ("b", 30)):
        (tmp_path / f"{name}.csv").write_text("query_id,doc_id,rank,latency_ms\n" + "".join(
            f"q{i},rel{i},1,{ms + i}\nq{i},x{i},2,{ms + i}\n" for i in range(10)))
    assert main(["compare", "--qrels", str(qrels), "--run", str(tmp_path / "a.csv"),
                 "--run", str(tmp_path / "b.csv"), "--permutations", "100",
                 "--max-latency", "p95=+10ms", "--format", "json"]) == EXIT_GATE
    data = json.loads(capsys.readouterr()[0])
    assert data["timings"]["pairs"][0]["difference"]["p95"]["value"] == pytest.approx(20)


def test_score_shows_the_figures_and_refuses_timings_under_another_engine(files, capsys):
    qrels, base, slow, timings = files
    argv = ["--qrels", qrels, "--run", base, "--run", slow, "--timings", timings]
    assert main([*argv, "--format", "json"]) == EXIT_OK
    data = json.loads(capsys.readouterr()[0])
    assert {c["run"] for c in data["timings"]["runs"]} == {"base", "slow"}
    assert main([*argv, "--engine", "blocks"]) == EXIT_USAGE
    assert "in-memory engine" in capsys.readouterr()[1]
