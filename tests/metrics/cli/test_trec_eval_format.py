"""--format trec_eval (-q): trec_eval's three columns. Checked line by line against pytrec_eval
(trec_eval's code) on random collections, written the way trec_eval 10.0 writes its output
(`%-22s\\t%s\\t%6.4f`, counts as integers, queries in byte order, the `all` lines after), and,
when TREC_EVAL names a trec_eval 10.0 binary, against its own `-q -c` output byte for byte.

The query set is trec_eval -c's under --empty-queries zero: every qrels query, those the run
never answered and those without a relevant id scoring 0. pytrec_eval evaluates only the
queries the run answers, so the reference fills the others with 0, as -c does.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from metrics.cli import main
from metrics.core.sample import load_sample
from metrics.outputs.trec_eval import NAME_WIDTH
from tests.marks import thorough_after
from tests.metrics.core.test_against_trec_eval import (
    random_collection,
    trec_eval_ndcg,
    write_files,
)

# our names (each trec_eval's own spelling) -> pytrec_eval's measure and key
NAMES = ["P_5", "P_10", "recall_10", "ndcg_cut_10", "map_cut_10", "map", "recip_rank", "ndcg",
         "Rprec", "bpref", "infAP", "success_1", "success_10", "num_ret", "num_rel",
         "num_rel_ret", *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11))]
PYTREC = {"P.5,10", "recall.10", "ndcg_cut.10", "map_cut.10", "map", "recip_rank", "Rprec",
          "bpref", "infAP", "success.1,10", "num_ret", "num_rel", "num_rel_ret",
          "iprec_at_recall"}
# trec_eval's table of measures: the order of its lines within a query
ORDER = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
         "iprec_at_recall", "P", "recall", "infAP", "ndcg", "ndcg_cut", "map_cut", "success"]
COUNTS = {"num_ret", "num_rel", "num_rel_ret"}


def _base(name: str) -> tuple[int, float]:
    head, _, tail = name.rpartition("_")
    if head and tail.replace(".", "").isdigit():
        return ORDER.index(head), float(tail)
    return ORDER.index(name), 0.0


def _line(name: str, query: str, value: float) -> str:
    written = f"{int(value)}" if name in COUNTS else f"{value:6.4f}"
    return f"{name:<{NAME_WIDTH}}\t{query}\t{written}"


def ours(capsys, qrels_path, run_path, *extra) -> str:
    code = main(["--qrels", str(qrels_path), "--run", f"run={run_path}", "--k", "10",
                 "--format", "trec_eval", "-q", "--empty-queries", "zero",
                 *(f"--metric={name}" for name in NAMES), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def expected(qrels: dict, run: dict) -> tuple[str, set[tuple[str, str]]]:
    """pytrec_eval's figures in trec_eval's format; and the (query, measure) pairs where
    trec_eval 9's rounding of an interpolation level (pytrec_eval's) differs from 10.0's."""
    found = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)
    ndcg = trec_eval_ndcg(qrels, run)  # 0 for a query without a relevant id, as trec_eval
    for qid, values in found.items():
        values["ndcg"] = ndcg.get(qid, 0.0)
    names = sorted(NAMES, key=_base)
    lines, rounding = [], set()
    for qid in sorted(qrels, key=str.encode):
        values = found.get(qid)
        r = sum(1 for g in qrels[qid].values() if g >= 1)
        for name in names:
            value = 0.0 if values is None else values[name]
            if name == "num_rel":
                value = r  # a query without a list has its relevant ids all the same
            if name.startswith("iprec") and values is not None:
                level = float(name.rsplit("_", 1)[1])
                if math.floor(level * r + 0.5) != int(level * r + 0.9):
                    rounding.add((qid, name))
            lines.append(_line(name, qid, value))
    n = len(qrels)
    lines += [f"{'runid':<{NAME_WIDTH}}\tall\trun", f"{'num_q':<{NAME_WIDTH}}\tall\t{n}"]
    for name in names:
        total = 0.0  # trec_eval adds query by query, in its order
        for q in sorted(qrels, key=str.encode):
            total += (found[q][name] if q in found else 0.0) if name != "num_rel" else sum(
                1 for g in qrels[q].values() if g >= 1)
        lines.append(_line(name, "all", total if name in COUNTS else total / n))
    return "\n".join(lines) + "\n", rounding


@pytest.mark.parametrize("seed", thorough_after(range(30), 6))
def test_lines_agree_with_pytrec_eval(tmp_path, capsys, seed):
    qrels, run = random_collection(seed)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    text, rounding = expected(qrels, run)
    got = ours(capsys, qrels_path, run_path).splitlines()
    want = text.splitlines()
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        name, query, _ = theirs.split("\t")
        if (query, name.strip()) in rounding:  # trec_eval 9 and 10 round the level apart
            assert mine.split("\t")[:2] == [name, query]
            continue
        if query == "all" and name.strip().startswith("iprec") and rounding:
            continue  # its mean carries the same difference
        assert mine == theirs


def test_the_format_without_q_prints_the_all_lines_only(capsys):
    code = main(["--format", "trec_eval", "--metric", "P_5", "--metric", "map"])
    out, _ = capsys.readouterr()
    assert code == 0
    evaluation = load_sample(5).with_measures(["map"])
    expected = []
    for run in evaluation.runs:  # map before P in trec_eval's table, whatever the order asked
        expected += [f"{'runid':<22}\tall\t{run.name}", f"{'num_q':<22}\tall\t9",
                     f"{'map':<22}\tall\t{run.summary['AP(read=full)'].mean:6.4f}",
                     f"{'P_5':<22}\tall\t{run.summary['P'].mean:6.4f}"]
    assert out.splitlines() == expected


def test_a_figure_trec_eval_lacks_keeps_this_tools_label(capsys):
    code = main(["--format", "trec_eval", "--metric", "F1", "--metric", "ERR@10",
                 "--metric", "P(rel=2)"])
    out, _ = capsys.readouterr()
    assert code == 0
    names = {line.split("\t")[0].strip() for line in out.splitlines()}
    assert names == {"runid", "num_q", "F1@5", "ERR@10", "P(rel=2)@5"}


def test_q_needs_the_trec_eval_format(capsys):
    assert main(["-q"]) == 2
    assert "-q prints every query's lines of --format trec_eval" in capsys.readouterr().err


TREC_EVAL = os.environ.get("TREC_EVAL")


@pytest.mark.skipif(not TREC_EVAL, reason="set TREC_EVAL to a trec_eval 10.0 binary")
@pytest.mark.parametrize("seed", range(20))
def test_lines_equal_trec_eval_10s_own(tmp_path, capsys, seed):
    """Byte for byte, every line trec_eval 10.0 -q -c prints for the measures both compute."""
    qrels, run = random_collection(seed)
    qrels_path, run_path = write_files(tmp_path, qrels, run, np.random.default_rng(seed))
    measures = ["-m", "runid", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", "-m",
                "num_rel_ret", "-m", "map", "-m", "Rprec", "-m", "bpref", "-m", "recip_rank",
                "-m", "iprec_at_recall", "-m", "P.5,10", "-m", "recall.10", "-m", "infAP",
                "-m", "ndcg", "-m", "ndcg_cut.10", "-m", "map_cut.10", "-m", "success.1,10"]
    theirs = subprocess.run([TREC_EVAL, "-q", "-c", *measures, str(qrels_path),
                             str(run_path)], capture_output=True, text=True, check=True).stdout
    # trec_eval -c sums num_rel over every judgment graded above 0: the same at level 1
    assert ours(capsys, qrels_path, Path(run_path)).replace("\trun\n", "\ttag\n") == theirs
