"""--subtopic-qrels and the diversity measures on the command line: every output format
prints them by name, and the figures are ndeval's."""

from __future__ import annotations

import json

import pytest

from metrics.cli import main

pyndeval = pytest.importorskip("pyndeval")

QRELS = "1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n2 0 d4 1\n"
SUBTOPICS = "1 1 d1 1\n1 2 d2 1\n1 2 d3 1\n2 1 d4 1\n2 2 d5 0\n2 2 d6 1\n"
RUN = "1 Q0 d3 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d2 3 1 r\n2 Q0 d9 1 5 r\n2 Q0 d4 2 4 r\n"
NAMES = {"alpha_nDCG(alpha=0.5)@20": "alpha-nDCG@20", "ERR_IA@20": "ERR-IA@20",
         "nERR_IA@5": "nERR-IA@5", "P_IA@5": "P-IA@5", "StRecall@5": "strec@5",
         "NRBP": "NRBP", "AP_IA": "MAP-IA"}


@pytest.fixture
def files(tmp_path):
    for name, text in (("q.txt", QRELS), ("s.txt", SUBTOPICS), ("a.run", RUN)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _run(capsys, files, *more):
    code = main(["--qrels", str(files / "q.txt"), "--run", str(files / "a.run"),
                 "--subtopic-qrels", str(files / "s.txt"),
                 *[arg for name in NAMES for arg in ("--metric", name)], *more])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_figures_equal_ndeval(capsys, files):
    code, out, err = _run(capsys, files, "--format", "json")
    assert code == 0, err
    queries = json.loads(out)["runs"][0]["queries"]
    rows = [tuple(line.split()) for line in SUBTOPICS.splitlines()]
    rows = [(q, s, d, int(g)) for q, s, d, g in rows]
    run = [(f[0], f[2], float(f[4])) for f in (line.split() for line in RUN.splitlines())]
    theirs = pyndeval.ndeval(rows, run, measures=list(NAMES.values()))
    for query in queries:
        for ours, name in NAMES.items():
            label = ours.replace("NRBP", "NRBP(alpha=0.5,beta=0.5)")
            assert query[label] == pytest.approx(theirs[query["query_id"]][name], abs=1e-12)


@pytest.mark.parametrize("form", ["table", "trec_eval", "latex"])
def test_every_format_prints_the_names(capsys, files, form):
    code, out, err = _run(capsys, files, "--format", form)
    assert code == 0, err
    for name in ("ERR_IA@20", "StRecall@5", "AP_IA", "P_IA@5"):
        assert name.replace("_", "\\_") in out if form == "latex" else name in out


def test_without_subtopic_qrels_the_error_says_what_to_give(capsys, files):
    code = main(["--qrels", str(files / "q.txt"), "--run", str(files / "a.run"),
                 "--metric", "alpha_nDCG@10"])
    _, err = capsys.readouterr()
    assert code != 0
    assert "reads the subtopic qrels" in err and "--subtopic-qrels FILE" in err


def test_a_bad_subtopic_file_names_the_file_and_the_line(capsys, files):
    (files / "bad.txt").write_text("1 1 d1 1\n1 1 d2 x\n")
    code = main(["--qrels", str(files / "q.txt"), "--run", str(files / "a.run"),
                 "--subtopic-qrels", str(files / "bad.txt"), "--metric", "StRecall@5"])
    _, err = capsys.readouterr()
    assert code != 0
    assert "bad.txt, line 2: grade must be an integer, got 'x'" in err


def test_intents_weigh_the_subtopics(capsys, files):
    (files / "p.txt").write_text("1 1 0.9\n1 2 0.1\n")
    code, out, err = _run(capsys, files, "--format", "json", "--intents", str(files / "p.txt"))
    assert code == 0, err
    first = json.loads(out)["runs"][0]["queries"][0]
    # query 1: d3 (subtopic 2) at rank 1, d1 (subtopic 1) at 2, d2 (2) at 3; P-IA@5 is
    # (0.1 S + 0.9 S + 0.1 S) / (5 S) with the weights 0.9 and 0.1
    assert first["P_IA@5"] == pytest.approx((0.1 + 0.9 + 0.1) / 5)
