"""Outputs that cannot be forged: an id holding a line break, a tab, ESC, NUL, a line or
paragraph separator or a bidirectional override (what the readers accept: Parquet ids hold
any of them, CSV and TREC ids most) is written as its escape in every output, so that it
cannot add a line (a forged trec_eval summary), a column, or a terminal sequence: trec_eval's
three columns, the text tables, CSV, JSON (as JSON's own escapes, so the id reads back
exactly), the Markdown summary, the LaTeX table and every line on standard error."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard import safe
from dashboard.report.command import main as report_main
from metrics.cli import main
from metrics.outputs.latex import escape as latex_escape
from metrics.vocabulary.format import listing, terminal

# each character an id may hold that must never reach an output as it is: line ends
# (\n, \r, NEL, U+2028, U+2029, which str.splitlines and JavaScript end a line at), a tab
# (a column of trec_eval's or a TSV's), ESC and CSI (terminal sequences), NUL and DEL, a
# bidirectional override and a zero-width space (what is shown differs from what is there)
HOSTILE = ["\n", "\r", "\t", "\x1b[2J", "\x00", "\x7f", "\x85", "\x9b", "\u2028", "\u2029",
           "\u202e", "\u200b"]
MARK = "FORGED"  # follows each hostile character: a raw line break starts a line with it
QUERIES = [f"q{c}{MARK}{i}" for i, c in enumerate(HOSTILE)]
# what an attacker wants a trec_eval reader to take for the summary
SUMMARY = "x\nndcg_cut_5           \tall\t1.0000"
UNSHOWN = ("Cc", "Cf", "Cs", "Zl", "Zp")


def raw(text: str, allowed: str = "\n") -> set[str]:
    """The characters of `text` no output may write as they are, but `allowed` (a line's
    own newline, trec_eval's tabs, CSV's carriage returns)."""
    return {c for c in text if c not in allowed and unicodedata.category(c) in UNSHOWN}


def forged(text: str) -> list[str]:
    """The lines (as str.splitlines reads them) that an id's line break began."""
    return [line for line in text.splitlines() if line.startswith(MARK)]


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, Path]:
    """Parquet qrels and two runs whose query and doc ids hold every HOSTILE character; one
    query without a relevant id (listed as excluded) and one only the first run answers."""
    queries = [*QUERIES, SUMMARY]
    qrels = {"query_id": [], "doc_id": [], "relevance": []}
    runs = [{"query_id": [], "doc_id": [], "rank": []} for _ in range(2)]
    for i, query in enumerate(queries):
        docs = [f"d{HOSTILE[(i + j) % len(HOSTILE)]}{MARK}{i}-{j}" for j in range(3)]
        for j, doc in enumerate(docs):
            qrels["query_id"].append(query)
            qrels["doc_id"].append(doc)
            qrels["relevance"].append(int(j < 2))
        for n, run in enumerate(runs):
            if n and i == 3:
                continue  # a qrels query the second run has no list for
            for rank, doc in enumerate([docs[n], f"u{HOSTILE[i % len(HOSTILE)]}{MARK}{i}",
                                        docs[2]], start=1):
                run["query_id"].append(query)
                run["doc_id"].append(doc)
                run["rank"].append(rank)
    excluded = f"e\t{MARK}\x1b"
    qrels["query_id"].append(excluded)
    qrels["doc_id"].append("d0")
    qrels["relevance"].append(0)
    paths = {"qrels": tmp_path / "qrels.parquet", "a": tmp_path / "a.parquet",
             "b": tmp_path / "b.parquet", "queries": tmp_path / "queries.jsonl"}
    pq.write_table(pa.table(qrels), paths["qrels"])
    for name, run in zip("ab", runs, strict=True):
        pq.write_table(pa.table(run), paths[name])
    paths["queries"].write_text("".join(
        json.dumps({"query_id": q, "text": f"text of {i}", "topic": f"t{HOSTILE[i % 3]}{MARK}"})
        + "\n" for i, q in enumerate([*queries, excluded])))
    return paths


def args_of(paths: dict[str, Path]) -> list[str]:
    return ["--qrels", str(paths["qrels"]), "--run", str(paths["a"]), "--run", str(paths["b"])]


def run(capsys, argv: list[str]) -> tuple[str, str]:
    code = report_main(argv) if argv[0] == "report" else main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err[-600:]
    return out, err


# --------------------------------------------------------------------------- the function


def test_the_one_escape_writes_every_unshown_character_as_its_escape():
    assert terminal("q\n1\t\r\x1b[2J\x00\x7f\x85\x9b\u2028\u2029\u202e\u200b\U000e0001") == (
        "q\\n1\\t\\r\\x1b[2J\\x00\\x7f\\x85\\x9b\\u2028\\u2029\\u202e\\u200b\\U000e0001")
    # what shows as itself stays: letters of any script, accents, spaces, private use
    assert terminal("café Ω 東京 a b\u00a0c \ue000") == "café Ω 東京 a b\u00a0c \ue000"
    # trec_eval's readers split on white space: there every space is escaped too
    assert terminal("a b\u00a0c\u3000d", spaces=True) == "a\\x20b\\xa0c\\u3000d"
    assert listing(["q\n1", "q2"]) == "q\\n1, q2"
    assert "\x1b" not in latex_escape("run\x1b[2J") and "\u202e" not in latex_escape("a\u202eb")


# --------------------------------------------------------------------------- trec_eval


def test_trec_eval_lines_cannot_be_forged(capsys, hostile):
    out, _ = run(capsys, [*args_of(hostile), "--format", "trec_eval", "-q"])
    assert raw(out, "\n\t") == set() and forged(out) == []
    lines = out.splitlines()
    # three columns however a reader splits them: at tabs, or at any white space
    assert all(len(line.split("\t")) == 3 and len(line.split()) == 3 for line in lines)
    # the summary lines are the real ones alone: runid, num_q and each measure, per run
    alls = [line.split("\t")[0].strip() for line in lines if line.split("\t")[1] == "all"]
    per_run = len(alls) // 2
    assert alls[:per_run] == alls[per_run:] and alls[:2] == ["runid", "num_q"]
    assert len(set(alls[2:per_run])) == per_run - 2
    shown = {line.split("\t")[1] for line in lines} - {"all"}
    assert shown == {terminal(q, spaces=True) for q in QUERIES} | {
        terminal(SUMMARY, spaces=True)}


def test_a_query_named_all_is_refused_under_q(capsys, tmp_path):
    qrels, run_file = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_text("all 0 d1 1\nq2 0 d2 1\n")
    run_file.write_text("all Q0 d1 1 1.0 a\nq2 Q0 d2 1 1.0 a\n")
    code = main(["--qrels", str(qrels), "--run", str(run_file), "--format", "trec_eval", "-q"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.strip().splitlines()[-1] == (
        "error: a query is named 'all' (qrels.txt), which trec_eval -q writes as the summary's "
        "query: its lines would read as the summary; leave out -q or rename the query")


# --------------------------------------------------------------------------- text tables


@pytest.mark.parametrize("argv", [
    [],
    ["--engine", "blocks"],
    ["compare", "--permutations", "200"],
    ["unjudged"], ["overlap"], ["leaderboard"], ["agreement"], ["power"],
])
def test_text_tables_and_standard_error_write_ids_escaped(capsys, hostile, argv):
    by = ["--queries", str(hostile["queries"]), "--by", "topic"] if not argv else []
    out, err = run(capsys, [*argv, *args_of(hostile), *by])
    for stream in (out, err):
        assert raw(stream) == set() and forged(stream) == [], stream[-800:]
    if argv == ["unjudged"]:
        assert terminal(f"u\x1b[2J{MARK}3") in out


def test_sample_ids_are_written_escaped(capsys, hostile):
    out, _ = run(capsys, ["sample-for-labelling", *args_of(hostile), "--n", "13", "--as",
                          "ids"])
    assert raw(out) == set() and forged(out) == []
    assert sorted(out.splitlines()) == sorted(terminal(q) for q in [*QUERIES, SUMMARY])


# --------------------------------------------------------------------------- CSV


@pytest.mark.parametrize("argv", [["unjudged", "--as", "csv"],
                                  ["sample-for-labelling", "--n", "13", "--as", "csv"]])
def test_csv_cells_write_ids_escaped(capsys, hostile, argv):
    out, _ = run(capsys, [argv[0], *args_of(hostile), *argv[1:]])
    assert raw(out, "\r\n") == set() and forged(out) == []
    rows = list(csv.reader(io.StringIO(out)))
    assert len({len(row) for row in rows}) == 1  # no cell split, no row added
    assert len(rows) == len(out.splitlines())  # no cell holds a line break


def test_dashboard_csv_exports_write_ids_escaped():
    frame = pd.DataFrame({"query_id": QUERIES, "value": range(len(QUERIES))})
    text = safe.csv_text(frame)
    assert raw(text, "\r\n") == set() and forged(text) == []
    assert list(pd.read_csv(io.StringIO(text))["query_id"]) == [terminal(q) for q in QUERIES]


# --------------------------------------------------------------------------- JSON


def strings(value: object) -> list[str]:
    """Every string a JSON value holds, keys included."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("argv", [["score", "--format", "json"],
                                  ["compare", "--format", "json", "--permutations", "200"],
                                  ["unjudged", "--format", "json"]])
def test_json_writes_every_unshown_character_as_a_json_escape(capsys, hostile, argv):
    out, _ = run(capsys, [*argv[:1], *args_of(hostile), *argv[1:]])
    assert raw(out) == set() and len(out.splitlines()) == 1
    # the ids read back exactly, as the files hold them: JSON's escapes, not terminal's
    ids = {s for s in strings(json.loads(out)) if MARK in s}
    assert ids and all(unicodedata.category(s[1]) in UNSHOWN for s in ids if s[0] in "qe")
    assert ids <= {*QUERIES, SUMMARY, f"e\t{MARK}\x1b"} | {
        s for s in ids if s[0] in "du"}  # doc ids


def test_a_snapshot_file_writes_every_unshown_character_as_a_json_escape(capsys, hostile,
                                                                       tmp_path):
    out = tmp_path / "snapshot.json"
    run(capsys, ["snapshot", *args_of(hostile), "--out", str(out)])
    text = out.read_text(encoding="utf-8")
    assert raw(text) == set() and len(text.splitlines()) == 1
    ids = {row["query_id"] for run_ in json.loads(text)["runs"] for row in run_["queries"]}
    assert set(QUERIES) <= ids


# --------------------------------------------------------------------------- Markdown, LaTeX


def test_the_markdown_summary_and_the_latex_table_hold_no_unshown_character(capsys, hostile):
    out, err = run(capsys, ["report", *args_of(hostile), "--format", "markdown"])
    assert raw(out) == set() and raw(err) == set() and forged(err) == []
    out, _ = run(capsys, [*args_of(hostile), "--format", "latex"])
    assert raw(out) == set()


# --------------------------------------------------------------------------- errors


def test_an_error_naming_a_hostile_file_name_writes_it_escaped(capsys, tmp_path):
    name = tmp_path / f"bad\n{MARK}\t\x1b[2J.run"
    code = main(["--qrels", str(name), "--run", str(name)])
    err = capsys.readouterr().err
    assert code == 1 and raw(err) == set() and forged(err) == []


# --------------------------------------------------------------------------- files read back


@pytest.mark.parametrize("argv", [["fuse"], ["unjudged", "--as", "qrels"],
                                  ["sample-for-labelling", "--n", "2"]])
def test_trec_files_to_read_back_refuse_an_id_they_would_carry_raw(capsys, tmp_path, argv):
    """A fused run and a qrels template are read back as TREC files, which can carry no
    escape: an id holding ESC (or a line separator, a bidirectional override) is refused,
    named, rather than written raw or as an escape no qrels matches."""
    qrels, run_file = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_text("q\x1b[2J1 0 d1 1\nq2 0 d2 1\n")
    run_file.write_text("q\x1b[2J1 Q0 dX 1 2.0 a\nq\x1b[2J1 Q0 d1 2 1.0 a\nq2 Q0 d2 1 1 a\n")
    runs = ["--run", str(run_file), "--run", f"b={run_file}"]
    code = main([argv[0], *([] if argv[0] == "fuse" else ["--qrels", str(qrels)]), *runs,
                 *argv[1:]])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and raw(err) == set()
    assert "'q\\x1b[2J1'" in err.strip().splitlines()[-1]


@pytest.mark.parametrize("doc, why", [
    ("d\nFORGED\tall\t1.0000", "holds white space or a NUL byte"),
    ("d\tFORGED", "holds white space or a NUL byte"),
    ("d\x1b]0;FORGED\x07", "holds a control or format character"),
])
@pytest.mark.parametrize("argv", [["fuse"], ["unjudged", "--as", "qrels"],
                                  ["sample-for-labelling", "--n", "2", "--as", "qrels"]])
def test_an_id_a_trec_file_cannot_hold_is_named_where_it_was_read(capsys, tmp_path, argv, doc,
                                                                  why):
    """A fused run and a qrels template refuse an id that would split a TREC line or ride
    in it raw by one rule (`trec_column_problem`), naming the run file and the line the id
    was read from and why; the fused run once named neither, the template no file."""
    qrels, run_file = tmp_path / "qrels.jsonl", tmp_path / "a.jsonl"
    qrels.write_text('{"query_id": "q1", "relevant": {"d1": 1}}\n'
                     '{"query_id": "q2", "relevant": {"d2": 1}}\n')
    run_file.write_text(json.dumps({"query_id": "q2", "retrieved": ["d2"]}) + "\n"
                        + json.dumps({"query_id": "q1", "retrieved": ["d1", doc]}) + "\n")
    runs = ["--run", str(run_file), "--run", f"b={run_file}"]
    code = main([argv[0], "--qrels", str(qrels), *runs, *argv[1:]])
    out, err = capsys.readouterr()
    last = err.strip().splitlines()[-1]
    assert code == 1 and out == "" and raw(err) == set()
    assert last.startswith("error: a.jsonl, line 2: ") and why in last, last
