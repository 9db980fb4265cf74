"""--identical-ids drop: a retrieved id equal to its query id is removed before scoring, as
BEIR's evaluator does, the ids below move up, and the load report counts each one."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import Conventions, evaluate, load_qrels, load_run
from metrics.cli import main
from metrics.vocabulary import SUMMARY_MEASURES
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.capped import run_capped


def collection(seed: int):
    """Queries whose ids are doc ids too (ArguAna-style): runs often return the query."""
    rng = np.random.default_rng(seed)
    docs = [f"q{i}" for i in range(30)]
    judgments = {f"q{i}": {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 4, replace=False)
                           if d != f"q{i}"} for i in range(20)}
    lists = {q: list(rng.choice(docs, rng.integers(1, 12), replace=False)) for q in judgments}
    return judgments, lists


@pytest.mark.parametrize("seed", range(4))
def test_dropping_equals_scoring_the_lists_without_the_query_s_own_id(seed):
    judgments, lists = collection(seed)
    qrels = make_qrels(judgments)
    dropped = evaluate(qrels, [make_run(lists, name="r")], 5,
                       Conventions(identical_ids="drop"))
    without = {q: [d for d in docs if d != q] for q, docs in lists.items()}
    expected = evaluate(qrels, [make_run(without, name="r")], 5)
    for m in SUMMARY_MEASURES:
        assert dropped.runs[0].summary[m.key] == expected.runs[0].summary[m.key], m.key
    kept = evaluate(qrels, [make_run(lists, name="r")], 5)
    same = sum(q in docs for q, docs in lists.items())
    assert same > 0  # the collection does return queries' own ids, each one slot less
    assert (kept.runs[0].aligned.list_length.sum()
            - dropped.runs[0].aligned.list_length.sum()) == same


def test_the_load_report_counts_each_id_dropped(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 q1 1 9 r\nq1 Q0 d1 2 8 r\nq2 Q0 d2 1 9 r\nq2 Q0 q2 2 8 r\n")
    assert main(["--qrels", str(qrels), "--run", str(run), "--k", "1",
                 "--identical-ids", "drop", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "4 lines read, 2 used, 2 dropped" in err
    assert "line 1: the doc id is the query id: dropped" in err
    assert '"P@1":{"mean":1.0' in out  # d1 moved up to rank 1
    evaluation = evaluate(load_qrels(qrels)[0], [load_run(run)[0]], 1)
    assert evaluation.runs[0].summary["P"].mean == 0.5  # kept: q1's own id sits at rank 1
    assert "ids equal to the query id dropped" in " ".join(
        Conventions(identical_ids="drop").in_words())
    with pytest.raises(ValueError, match="identical_ids must be one of keep, drop"):
        Conventions(identical_ids="skip")


def test_a_long_query_id_costs_its_bytes_once(tmp_path):
    """One 1 MB query id over 1,000 rows: each row's query id was once laid out as numpy
    text as wide as the longest id (4 GB); in 2 GB of address space the ids equal to their
    query's are dropped as for short ids."""
    long = "Q" * (1 << 20)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_text(f"{long} 0 d1 1\nq2 0 d2 1\n")
    run.write_text("".join(f"q2 Q0 d{i} {i + 1} 1.0 x\n" for i in range(1000))
                   + f"{long} Q0 {long} 1 2.0 x\n{long} Q0 d1 2 1.0 x\n")
    done = run_capped(["--qrels", str(qrels), "--run", str(run), "--identical-ids", "drop",
                       "--format", "json", "--k", "1"], cap_mb=2048, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert b"1 row dropped" in done.stderr or b"1 dropped" in done.stderr, done.stderr
