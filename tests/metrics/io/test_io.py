"""Loaders: every format, trec_eval's run order, the load report, and every rejected input."""

from __future__ import annotations

import gzip
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.io import LoadError, LoadReport, ReportLine, load_qrels, load_run

TREC_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d1 -1\n"
TREC_RUN = "q1 Q0 d1 1 1.5 tag\nq1 Q0 d2 2 2.5 tag\nq2 Q0 d3 1 0.5 tag\nq1 Q0 d3 3 0.1 tag\n"


def write(tmp_path, name: str, text: str | bytes):
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    return path


def error(name: str, line: int | None, problem: str) -> str:
    """A `match=` pattern for `FILE, line N: problem` (problem is a regex)."""
    where = re.escape(name) if line is None else f"{re.escape(name)}, line {line}"
    return f"^{where}: {problem}"


def pairs(qrels) -> list[tuple[str, str, int]]:
    return list(zip(qrels.query.tolist(), qrels.doc.tolist(), qrels.grade.tolist(), strict=True))


def lists(run) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for query, doc in zip(run.query.tolist(), run.doc.tolist(), strict=True):
        out.setdefault(query, []).append(doc)
    return out


def check_invariant(report: LoadReport) -> None:
    assert report.lines_read == report.lines_used + len(report.dropped)


# --- qrels formats ---------------------------------------------------------------------------


def test_trec_qrels(tmp_path):
    qrels, report = load_qrels(write(tmp_path, "qrels.txt", TREC_QRELS))
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 2), ("q2", "d1", -1)]
    assert qrels.query_ids.tolist() == ["q1", "q2"]
    assert qrels.line.tolist() == [1, 2, 3, 4]
    assert qrels.source == "qrels.txt"
    assert qrels.grade.dtype == np.int64 and qrels.line.dtype == np.int64
    assert qrels.query.dtype == object and isinstance(qrels.doc[0], str)
    assert (report.kind, report.format, report.lines_read, report.lines_used) == (
        "qrels",
        "trec",
        4,
        4,
    )
    assert report.dropped == () and report.repeats == ()


def test_trec_qrels_with_tabs_and_padding(tmp_path):
    text = "q1\t0\td1\t1\n  q1 0   d2 0 \nq2\t0 d3  2\n"
    qrels, _ = load_qrels(write(tmp_path, "qrels.txt", text))
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 2)]
    assert qrels.line.tolist() == [1, 2, 3]


def test_beir_qrels(tmp_path):
    text = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td1\t0\n"
    qrels, report = load_qrels(write(tmp_path, "test.tsv", text))
    assert report.format == "beir"
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 2), ("q2", "d1", 0)]
    assert qrels.line.tolist() == [2, 3, 4]
    assert report.lines_read == 3  # the header is not a data line


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_csv_qrels(tmp_path, delimiter):
    rows = [["note", "query_id", "doc_id", "grade"], ["x", "q1", "d1", "3"], ["y", "q2", "d2", "1"]]
    text = "\n".join(delimiter.join(row) for row in rows) + "\n"
    qrels, report = load_qrels(write(tmp_path, "qrels.csv", text))
    assert report.format == "csv"
    assert pairs(qrels) == [("q1", "d1", 3), ("q2", "d2", 1)]
    assert qrels.line.tolist() == [2, 3]


def test_csv_qrels_quoted_and_padded_cells(tmp_path):
    text = 'Query_ID, Doc_ID, Grade\n"q,1", d1 , 2\nq2,"d 2",0\n'
    qrels, _ = load_qrels(write(tmp_path, "qrels.csv", text))
    assert pairs(qrels) == [("q,1", "d1", 2), ("q2", "d 2", 0)]


def test_jsonl_qrels_list_and_object(tmp_path):
    text = (
        '{"query_id": "q1", "relevant": ["d1", "d2"]}\n'
        '{"query_id": 7, "relevant": {"d3": 2, "d4": 0}, "retrieved": ["d3"]}\n'
        '{"query_id": "q3", "relevant": [5]}\n'
    )
    qrels, report = load_qrels(write(tmp_path, "labels.jsonl", text))
    assert report.format == "jsonl"
    assert pairs(qrels) == [
        ("q1", "d1", 1),
        ("q1", "d2", 1),
        ("7", "d3", 2),
        ("7", "d4", 0),
        ("q3", "5", 1),
    ]
    assert qrels.line.tolist() == [1, 1, 2, 2, 3]
    assert qrels.query_ids.tolist() == ["q1", "7", "q3"]
    assert (report.lines_read, report.lines_used) == (3, 3)


def test_jsonl_empty_relevant_keeps_the_query(tmp_path):
    text = '{"query_id": "q1", "relevant": ["d1"]}\n{"query_id": "q8", "relevant": []}\n'
    qrels, report = load_qrels(write(tmp_path, "labels.jsonl", text))
    assert qrels.query_ids.tolist() == ["q1", "q8"]
    assert qrels.query.tolist() == ["q1"]
    assert (report.lines_read, report.lines_used) == (2, 2)


def test_jsonl_qrels_id_listed_twice_is_counted_once_with_a_note(tmp_path):
    qrels, report = load_qrels(
        write(tmp_path, "l.jsonl", '{"query_id": "q1", "relevant": ["d1", "d1", "d2"]}\n')
    )
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 1)]
    assert report.lines_used == 1 and "line 1" in report.notes[0] and "'d1'" in report.notes[0]


def test_jsonl_identical_record_is_dropped(tmp_path):
    record = '{"query_id": "q1", "relevant": ["d1"]}\n'
    qrels, report = load_qrels(write(tmp_path, "l.jsonl", record + "\n" + record))
    assert pairs(qrels) == [("q1", "d1", 1)]
    assert report.dropped == (ReportLine(3, "identical duplicate of line 1"),)
    check_invariant(report)


# --- run formats -----------------------------------------------------------------------------


def test_trec_run_score_order(tmp_path):
    run, report = load_run(write(tmp_path, "baseline.run", TREC_RUN))
    assert lists(run) == {"q1": ["d2", "d1", "d3"], "q2": ["d3"]}
    assert run.query.tolist() == ["q1", "q1", "q1", "q2"]  # grouped by query
    assert run.line.tolist() == [2, 1, 4, 3]
    assert run.query_ids.tolist() == ["q1", "q2"]
    assert (run.name, run.source) == ("baseline", "baseline.run")
    assert (report.kind, report.format, report.lines_read, report.lines_used) == (
        "run",
        "trec",
        4,
        4,
    )


def test_trec_run_ties_go_to_the_larger_doc_id_as_a_string(tmp_path):
    # trec_eval: score descending, then strcmp descending: "d9" > "d10" > "d1" > "D5".
    text = "".join(f"q1 Q0 {doc} 1 0.5 t\n" for doc in ["d1", "D5", "d10", "d9"])
    run, _ = load_run(write(tmp_path, "r.txt", text))
    assert run.doc.tolist() == ["d9", "d10", "d1", "D5"]


def test_trec_run_scores_compare_as_32_bit_floats_like_trec_eval_9(tmp_path):
    # trec_eval 9 stores a score as a C float: these two tie, so the doc id decides.
    path = write(tmp_path, "r.txt", "q1 Q0 a 1 1.0000000001 t\nq1 Q0 b 2 1.0 t\n")
    run, _ = load_run(path, score_precision="float32")
    assert run.doc.tolist() == ["b", "a"]
    run, _ = load_run(path)  # trec_eval 10.0 stores a double: no tie
    assert run.doc.tolist() == ["a", "b"]
    path = write(tmp_path, "r.txt", "q1 Q0 a 1 1.00001 t\nq1 Q0 b 2 1.0 t\n")
    for precision in ("float32", "double"):
        run, _ = load_run(path, score_precision=precision)
        assert run.doc.tolist() == ["a", "b"]


def test_trec_run_order_matches_pytrec_eval(tmp_path):
    """pytrec_eval (trec_eval 9) compares scores as 32-bit floats: score_precision="float32"."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    lines, qrels, results = [], {}, {}
    for q in range(60):
        docs = [f"d{i}" for i in rng.choice(30, size=8, replace=False)]
        scores = rng.choice([0.5, 1.0, 1.0000000001, 2.0, -1.0], size=8)
        results[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        qrels[f"q{q}"] = {docs[int(rng.integers(8))]: 1}
        lines += [f"q{q} Q0 {d} 0 {s!r} t\n" for d, s in zip(docs, scores.tolist(), strict=True)]
    run, _ = load_run(write(tmp_path, "r.txt", "".join(lines)), score_precision="float32")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P_1", "P_2"})
    expected = evaluator.evaluate(results)
    ranked = lists(run)
    for query, measures in expected.items():
        relevant = qrels[query]
        assert measures["P_1"] == float(ranked[query][0] in relevant)
        assert measures["P_2"] == sum(d in relevant for d in ranked[query][:2]) / 2


def test_trec_run_rank_order_ties_keep_line_order(tmp_path):
    text = "q1 Q0 a 3 9 t\nq1 Q0 b 1 0 t\nq1 Q0 c 2 0 t\nq1 Q0 d 2 5 t\n"
    run, _ = load_run(write(tmp_path, "r.txt", text), order="rank")
    assert run.doc.tolist() == ["b", "c", "d", "a"]
    run, _ = load_run(write(tmp_path, "r.txt", text))
    assert run.doc.tolist() == ["a", "d", "c", "b"]


def test_trec_run_rank_column_is_ignored_when_ordering_by_score(tmp_path):
    run, _ = load_run(write(tmp_path, "r.txt", "q1 Q0 a x 1 t\nq1 Q0 b - 2 t\n"))
    assert run.doc.tolist() == ["b", "a"]


def test_queries_keep_first_appearance_order(tmp_path):
    text = "q9 Q0 a 1 1 t\nq10 Q0 b 1 1 t\nq1 Q0 c 1 1 t\nq9 Q0 d 2 2 t\n"
    run, _ = load_run(write(tmp_path, "r.txt", text))
    assert run.query_ids.tolist() == ["q9", "q10", "q1"]
    assert lists(run)["q9"] == ["d", "a"]


def test_csv_run_follows_the_rank_column(tmp_path):
    text = "query_id,doc_id,rank,score\nq1,a,2,9\nq1,b,1,0\nq2,c,1,1\n"
    for order in ("score", "rank"):
        run, report = load_run(write(tmp_path, "dense.csv", text), order=order)
        assert report.format == "csv"
        assert lists(run) == {"q1": ["b", "a"], "q2": ["c"]}
        assert run.line.tolist() == [3, 2, 4]
        assert run.name == "dense"


def test_tsv_run_without_score(tmp_path):
    run, _ = load_run(write(tmp_path, "r.tsv", "query_id\tdoc_id\trank\nq1\ta\t2\nq1\tb\t1\n"))
    assert run.doc.tolist() == ["b", "a"]


def test_jsonl_run_keeps_list_order_and_repeats(tmp_path):
    text = (
        '{"query_id": "q2", "retrieved": ["d3", "d1", "d3"]}\n'
        '{"query_id": 1, "retrieved": ["d9", 4]}\n'
    )
    run, report = load_run(write(tmp_path, "bm25.jsonl", text))
    assert lists(run) == {"q2": ["d3", "d1", "d3"], "1": ["d9", "4"]}
    assert run.line.tolist() == [1, 1, 1, 2, 2]
    assert run.name == "bm25"
    assert report.repeats == (
        ReportLine(
            1, "repeat of d3 at rank 3 (first at rank 1): keeps its rank slot, scores nothing"
        ),
    )
    assert (report.lines_read, report.lines_used) == (2, 2)


def test_one_jsonl_file_serves_as_qrels_and_run(tmp_path):
    text = (
        '{"query_id": "q1", "retrieved": ["d2", "d1"], "relevant": {"d1": 2}}\n'
        '{"query_id": "q2", "retrieved": ["d5"], "relevant": []}\n'
    )
    path = write(tmp_path, "pasted.jsonl", text)
    qrels, _ = load_qrels(path)
    run, _ = load_run(path)
    assert pairs(qrels) == [("q1", "d1", 2)]
    assert qrels.query_ids.tolist() == ["q1", "q2"]
    assert lists(run) == {"q1": ["d2", "d1"], "q2": ["d5"]}


def test_jsonl_run_with_an_empty_list_is_noted(tmp_path):
    text = '{"query_id": "q1", "retrieved": []}\n{"query_id": "q2", "retrieved": ["a"]}\n'
    run, report = load_run(write(tmp_path, "r.jsonl", text))
    assert run.query_ids.tolist() == ["q2"]
    assert report.notes == ("line 1: query 'q1' retrieved nothing",)


# --- sources: gzip, bytes, names, detection, override --------------------------------------


def test_gzip_by_extension_and_by_content(tmp_path):
    data = gzip.compress(TREC_RUN.encode())
    run, report = load_run(write(tmp_path, "baseline.run.gz", data))
    assert run.name == "baseline" and report.source == "baseline.run.gz"
    assert lists(run)["q1"] == ["d2", "d1", "d3"]
    run, _ = load_run(write(tmp_path, "compressed", data))  # no extension: the magic bytes
    assert lists(run)["q1"] == ["d2", "d1", "d3"]
    qrels, _ = load_qrels(gzip.compress(TREC_QRELS.encode()), file_name="qrels.txt.gz")
    assert len(qrels.query) == 4


def test_bytes_input_uses_the_given_name():
    run, report = load_run(TREC_RUN.encode(), file_name="bm25.jsonl.txt")
    assert (run.name, run.source, report.source) == ("bm25", "bm25.jsonl.txt", "bm25.jsonl.txt")
    run, report = load_run(bytearray(TREC_RUN.encode()))
    assert (run.source, report.source) == ("<upload>", "<upload>")
    with pytest.raises(ValueError, match=error("<upload>", 1, "expected 4 columns")):
        load_qrels(TREC_RUN.encode())


@pytest.mark.parametrize(
    ("file_name", "run_name"),
    [
        ("baseline.run.gz", "baseline"),
        ("bm25.jsonl", "bm25"),
        ("bge-1.5.run", "bge-1.5"),
        ("my.run.v2", "my.run.v2"),
        ("splade.trec.tsv", "splade"),
    ],
)
def test_run_name_drops_known_extensions(file_name, run_name):
    data = TREC_RUN.encode()
    data = gzip.compress(data) if file_name.endswith(".gz") else data
    run, _ = load_run(data, file_name=file_name)
    assert run.name == run_name


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        (TREC_QRELS, "qrels", "trec"),
        ("query-id\tcorpus-id\tscore\nq\td\t1\n", "qrels", "beir"),
        ("query_id,doc_id,grade\nq,d,1\n", "qrels", "csv"),
        ('{"query_id": "q", "relevant": ["d"]}\n', "qrels", "jsonl"),
        (TREC_RUN, "run", "trec"),
        ("query_id\tdoc_id\trank\nq\td\t1\n", "run", "csv"),
        ('\n  {"query_id": "q", "retrieved": ["d"]}\n', "run", "jsonl"),
    ],
)
def test_format_detection(text, kind, expected):
    load = load_qrels if kind == "qrels" else load_run
    _, report = load(text.encode(), file_name="f")
    assert report.format == expected


def test_format_override():
    # A single-column-looking line would not be detected; forcing the format reads it.
    text = "query_id\tdoc_id\tgrade\nq1\td1\t2\n"
    qrels, report = load_qrels(text.encode(), file_name="q.tsv", format="csv")
    assert report.format == "csv" and pairs(qrels) == [("q1", "d1", 2)]
    with pytest.raises(ValueError, match=error("q.txt", 1, "not valid JSON")):
        load_qrels(TREC_QRELS.encode(), file_name="q.txt", format="jsonl")
    with pytest.raises(ValueError, match=error("q.txt", 1, "CSV/TSV header lacks column")):
        load_qrels(TREC_QRELS.encode(), file_name="q.txt", format="csv")
    with pytest.raises(ValueError, match=error("r.csv", 1, r"expected 6 columns .* got 1")):
        load_run(b"query_id,doc_id,rank\nq,d,1\n", file_name="r.csv", format="trec")


def test_utf8_bom_and_crlf(tmp_path):
    text = "\ufeffquery_id,doc_id,grade\r\nq1,d1,1\r\n\r\nq2,d2,2\r\n"
    qrels, report = load_qrels(write(tmp_path, "q.csv", text))
    assert pairs(qrels) == [("q1", "d1", 1), ("q2", "d2", 2)]
    assert qrels.line.tolist() == [2, 4]
    run, _ = load_run(write(tmp_path, "r.txt", TREC_RUN.replace("\n", "\r\n")))
    assert lists(run)["q1"] == ["d2", "d1", "d3"]


def test_non_ascii_ids(tmp_path):
    run, _ = load_run(write(tmp_path, "r.txt", "q1 Q0 é 1 1 t\nq1 Q0 z 2 1 t\nq1 Q0 文 3 1 t\n"))
    assert run.doc.tolist() == ["文", "é", "z"]  # code point order, as strcmp on UTF-8


# --- the load report -------------------------------------------------------------------------


def test_identical_duplicate_qrels_line_is_dropped(tmp_path):
    text = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\nq2 0 d2 0\nq1 0 d2 0\n"
    qrels, report = load_qrels(write(tmp_path, "qrels.txt", text))
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d2", 0)]
    assert qrels.line.tolist() == [1, 2, 4]
    assert report.dropped == (
        ReportLine(3, "identical duplicate of line 1"),
        ReportLine(5, "identical duplicate of line 2"),
    )
    assert (report.lines_read, report.lines_used) == (5, 3)
    check_invariant(report)


def test_repeats_are_kept_in_their_slot_and_reported(tmp_path):
    text = "q10 Q0 d05 1 0.9 t\nq10 Q0 d05 2 0.8 t\nq10 Q0 d07 3 0.7 t\nq10 Q0 d05 4 0.6 t\n"
    run, report = load_run(write(tmp_path, "baseline.run", text))
    assert run.doc.tolist() == ["d05", "d05", "d07", "d05"]
    reason = "repeat of d05 at rank {} (first at rank 1): keeps its rank slot, scores nothing"
    assert report.repeats == (ReportLine(2, reason.format(2)), ReportLine(4, reason.format(4)))
    assert (report.lines_read, report.lines_used, report.dropped) == (4, 4, ())
    assert report.summary() == "baseline.run: 4 lines read, 4 used, 0 dropped, 2 repeats"


def test_repeat_first_rank_follows_the_sorted_order(tmp_path):
    text = "q1 Q0 a 1 0.1 t\nq1 Q0 b 2 0.5 t\nq1 Q0 a 3 0.9 t\n"
    run, report = load_run(write(tmp_path, "r.run", text))
    assert run.doc.tolist() == ["a", "b", "a"]
    assert report.repeats == (
        ReportLine(
            1, "repeat of a at rank 3 (first at rank 1): keeps its rank slot, scores nothing"
        ),
    )


def test_blank_lines_do_not_shift_line_numbers(tmp_path):
    text = "\n\nq1 0 d1 1\n   \n\nq1 0 d2 2\n\t\nq1 0 d1 1\n\n\n"
    qrels, report = load_qrels(write(tmp_path, "qrels.txt", text))
    assert qrels.line.tolist() == [3, 6]
    assert report.dropped == (ReportLine(8, "identical duplicate of line 3"),)
    assert (report.lines_read, report.lines_used) == (3, 2)
    run, _ = load_run(write(tmp_path, "r.txt", "\n" + TREC_RUN.replace("\n", "\n\n")))
    assert run.line.tolist() == [4, 2, 8, 6]
    with pytest.raises(ValueError, match=error("qrels.txt", 5, "grade must be an integer")):
        load_qrels(write(tmp_path, "qrels.txt", "q1 0 d1 1\n\n\n\nq1 0 d2 x\n"))


def test_a_line_of_separators_alone_is_a_blank_line(tmp_path):
    """A line of exactly as many spaces as a row has separators splits into empty fields: it
    is blank (skipped, as trec_eval skips it), not a row of empty ids, even in a file with no
    other blank line."""
    qrels, report = load_qrels(write(tmp_path, "qrels.txt", "q1 0 d1 1\n   \nq1 0 d2 2\n"))
    assert qrels.line.tolist() == [1, 3] and report.lines_read == 2
    run, report = load_run(write(tmp_path, "r.run",
                                 "q1 Q0 d1 1 2.0 t\n     \nq1 Q0 d2 2 1.0 t\n"))
    assert run.line.tolist() == [1, 3] and report.lines_read == 2
    tabs, _ = load_qrels(write(tmp_path, "tabs.txt", "q1\t0\td1\t1\n\t\t\t\nq1\t0\td2\t2\n"))
    assert tabs.line.tolist() == [1, 3]


def test_summary_and_with_dropped():
    _, report = load_run(TREC_RUN.encode(), file_name="baseline.run")
    assert report.summary() == "baseline.run: 4 lines read, 4 used, 0 dropped, 0 repeats"
    later = report.with_dropped([ReportLine(3, "query q2 is not in the qrels")])
    assert later.summary() == "baseline.run: 4 lines read, 3 used, 1 dropped, 0 repeats"
    assert later.dropped == (ReportLine(3, "query q2 is not in the qrels"),)
    check_invariant(later)
    assert report.lines_used == 4  # the original is unchanged
    with pytest.raises(ValueError, match="cannot drop 5 lines"):
        report.with_dropped([ReportLine(1, "x")] * 5)
    _, qreport = load_qrels(b"q 0 d 1\n", file_name="q.txt")
    assert qreport.summary() == "q.txt: 1 line read, 1 used, 0 dropped"


def test_fast_and_line_by_line_readers_agree(tmp_path):
    rng = np.random.default_rng(3)
    rows = [
        (f"q{rng.integers(40)}", f"d{rng.integers(60)}", float(rng.choice([0.5, 1.0, 2.25])))
        for _ in range(500)
    ]
    regular = "".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(rows))
    irregular = "".join(f" {q}\tQ0  {d} {i} {s}  t\n" for i, (q, d, s) in enumerate(rows))
    fast, fast_report = load_run(write(tmp_path, "a.txt", regular))
    slow, slow_report = load_run(write(tmp_path, "b.txt", irregular))
    for a, b in [(fast.query, slow.query), (fast.doc, slow.doc), (fast.line, slow.line)]:
        assert a.tolist() == b.tolist()
    assert fast_report.repeats == slow_report.repeats
    assert fast_report.repeats  # random (query, doc) pairs repeat


# --- malformed input ---------------------------------------------------------------------------


def test_missing_file_and_directory(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(ValueError, match=f"^{re.escape(str(missing))}: no such file$"):
        load_qrels(missing)
    with pytest.raises(ValueError, match="is a directory"):
        load_run(tmp_path)


@pytest.mark.parametrize("text", ["", "\n\n  \n", "\ufeff"])
def test_empty_file(tmp_path, text):
    with pytest.raises(ValueError, match=error("empty.txt", None, r"empty file \(no data lines\)")):
        load_qrels(write(tmp_path, "empty.txt", text))
    with pytest.raises(ValueError, match=error("empty.txt", None, "empty file")):
        load_run(write(tmp_path, "empty.txt", text))


@pytest.mark.parametrize(
    "text", ["query_id,doc_id,grade", "query_id,doc_id,grade\n", "\nquery_id,doc_id,grade\n\n"]
)
def test_header_only(text):
    with pytest.raises(ValueError, match=error("q.csv", None, r"no data lines \(only a header\)")):
        load_qrels(text.encode(), file_name="q.csv")


def test_jsonl_qrels_without_any_judgment_keeps_its_queries():
    qrels, report = load_qrels(b'{"query_id": "q1", "relevant": []}\n', file_name="l.jsonl")
    assert qrels.query_ids.tolist() == ["q1"] and len(qrels.query) == 0
    assert qrels.grade.dtype == np.int64 and (report.lines_read, report.lines_used) == (1, 1)


def test_jsonl_run_identical_record_is_dropped_and_order_does_not_apply(tmp_path):
    record = '{"query_id": "q1", "retrieved": ["b", "a"]}\n'
    run, report = load_run(write(tmp_path, "r.jsonl", record * 2), order="rank")
    assert run.doc.tolist() == ["b", "a"]
    assert report.dropped == (ReportLine(2, "identical duplicate of line 1"),)
    check_invariant(report)


def test_a_json_array_gets_a_json_error():
    with pytest.raises(ValueError, match=error("a.json", 1, "expected a JSON object, got an arr")):
        load_qrels(b'[{"query_id": "q1", "relevant": ["d1"]}]', file_name="a.json")


def test_non_utf8_and_binary_name_the_line(tmp_path):
    data = b"q1 0 d1 1\nq1 0 d2 1\nq1 0 d\xe9 1\n"
    with pytest.raises(ValueError, match=error("latin1.txt", 3, r"binary or non-UTF-8 .*0xe9")):
        load_qrels(write(tmp_path, "latin1.txt", data))
    nul = r"binary or non-UTF-8 data \(byte 0x00 at column 8\)"
    with pytest.raises(ValueError, match=error("nul.txt", 2, nul)):
        load_run(write(tmp_path, "nul.txt", b"q1 Q0 d1 1 1 t\nq1 Q0 d\x002 2 1 t\n"))
    with pytest.raises(ValueError, match=error("x.png", 1, "binary or non-UTF-8")):
        load_run(b"\x89PNG\r\n\x1a\n\x00\x00", file_name="x.png")


def test_ragged_lines_are_named_after_blank_lines(tmp_path):
    csv_text = "query_id,doc_id,grade\n\nq1,d1,1\n\n  \nq1,d2,1,9\nq2,d3,1\n"
    with pytest.raises(ValueError, match=error("q.csv", 6, "expected 3 columns .* got 4")):
        load_qrels(write(tmp_path, "q.csv", csv_text))
    with pytest.raises(ValueError, match=error("q.csv", 4, "expected 3 columns .* got 2")):
        load_qrels(write(tmp_path, "q.csv", "query_id,doc_id,grade\nq,a,1\nq,b,1\nq,c\nq,d,1\n"))
    trec = "q1 0 d1 1\n" * 5000 + "q1 0 d2\n" + "q1 0 d3 1\n"
    with pytest.raises(ValueError, match=error("q.txt", 5001, "expected 4 columns .* got 3")):
        load_qrels(write(tmp_path, "q.txt", trec))
    with pytest.raises(ValueError, match=error("q.txt", 5003, "expected 4 columns .* got 3")):
        load_qrels(write(tmp_path, "q.txt", "\n\n" + trec.replace("\n", "\t\n")))


def test_old_mac_line_endings(tmp_path):
    qrels, _ = load_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\rq1 0 d2 2\r\rq2 0 d3 1\r"))
    assert qrels.line.tolist() == [1, 2, 4]


def test_control_byte_is_binary(tmp_path):
    with pytest.raises(ValueError, match=error("q.txt", 2, r"binary .*\(byte 0x01 at column 3")):
        load_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\nq1\x01 0 d2 2\n"))


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(TREC_QRELS.encode())
    with pytest.raises(ValueError, match=error("q.txt.gz", None, "corrupt gzip")):
        load_qrels(write(tmp_path, "q.txt.gz", data[:20]))
    with pytest.raises(ValueError, match=error("q.txt.gz", None, "corrupt gzip")):
        load_qrels(write(tmp_path, "q.txt.gz", b"not gzip at all"))
    with pytest.raises(ValueError, match=error("<upload>", None, "corrupt gzip")):
        load_run(b"\x1f\x8b" + b"\x00" * 30)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (
            "q1 0 d1 1\nq1 0 d2\nq1 0 d3 1\n",
            2,
            r"expected 4 columns \(qid iter docid grade\), got 3",
        ),
        ("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1 x\n", 3, "expected 4 columns .*, got 5"),
        ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "grade must be an integer, got '1.5'"),
        ("q1 0 d1 2.0\n", 1, "grade must be an integer, got '2.0'"),
        ("q1 0 d1 high\n", 1, "grade must be an integer, got 'high'"),
        ("q1 0 d1 99999999999999999999\n", 1, "grade '99999999999999999999' is too large"),
        (
            "q1 0 d1 1\nq2 0 d1 0\nq1 0 d1 2\n",
            3,
            "query 'q1' doc 'd1' has grade 2 here but grade 1 on line 1",
        ),
        ("query-id\tcorpus-id\tscore\nq1\td1\t0.5\n", 2, "grade must be an integer, got '0.5'"),
        ("query-id\tcorpus-id\tscore\nq1\td1\n", 2, r"expected 3 columns \(as in the header"),
        ("query_id,doc_id,grade\nq1,d1,1\n,d2,1\n", 3, "empty query id"),
        ("query_id,doc_id\nq1,d1\n", 1, "CSV/TSV header lacks column.*grade"),
        ("query_id,doc_id,rank\nq1,d1,1\n", 1, "CSV/TSV header lacks column.*grade"),
        ("qid,docid,rel\nq1,d1,1\n", 1,
         "CSV/TSV header lacks column.s. grade or relevance or label .found qid, docid, rel"),
        ("id,passage,rel\nq1,d1,1\n", 1, "cannot detect the format from 'id,passage,rel'"),
        ("query-id,corpus-id\nq,d\n", 1, "BEIR header lacks column.*score"),
    ],
)
def test_malformed_qrels(tmp_path, text, line, problem):
    with pytest.raises(ValueError, match=error("qrels.txt", line, problem)):
        load_qrels(write(tmp_path, "qrels.txt", text))

@pytest.mark.parametrize(
    ("qrels_text", "run_text"),
    [
        ("qid,docid,relevance\nq1,a,2\nq1,b,0\n", "qid,docid,rank,score\nq1,b,1,9\nq1,a,2,8\n"),
        ("qid\tpid\tlabel\nq1\ta\t2\nq1\tb\t0\n", "qid\tpid\trank\nq1\tb\t1\nq1\ta\t2\n"),
    ],
)
def test_csv_headers_from_common_exports_are_read(qrels_text, run_text):
    """qid / docid or pid / relevance or label: what pandas exports and IR toolkits write."""
    qrels, _ = load_qrels(qrels_text.encode(), file_name="labels.csv")
    run, report = load_run(run_text.encode(), file_name="system.csv")
    assert qrels.query.tolist() == ["q1", "q1"] and qrels.doc.tolist() == ["a", "b"]
    assert qrels.grade.tolist() == [2, 0] and report.format == "csv"
    assert run.doc.tolist() == ["b", "a"]

def test_a_csv_run_without_a_rank_column_is_ordered_by_score_like_trec():
    """Score descending, ties by doc id descending (trec_eval's order), whatever `order`."""
    text = b"query_id,doc_id,score\nq1,a,0.5\nq1,b,0.9\nq1,c,0.5\nq2,d,1\n"
    for order in ("score", "rank"):
        run, _ = load_run(text, file_name="scores.csv", order=order)
        assert run.doc.tolist() == ["b", "c", "a", "d"]
    with pytest.raises(ValueError, match="header lacks column.s. rank or score"):
        load_run(b"query_id,doc_id\nq1,a\n", file_name="ids.csv")

def test_three_column_qrels_without_the_iteration_column():
    qrels, report = load_qrels(b"q1 a 2\nq1\tb 0\nq2 c 1\n", file_name="q3.txt")
    assert report.format == "trec" and qrels.doc.tolist() == ["a", "b", "c"]
    assert qrels.grade.tolist() == [2, 0, 1]
    # the first line decides: a four-column line after it is ragged, and named
    ragged = error("q3.txt", 2, r"expected 3 columns \(qid docid grade\), got 4")
    with pytest.raises(ValueError, match=ragged):
        load_qrels(b"q1 a 2\nq1 0 b 1\n", file_name="q3.txt")
    # three words that do not end in a grade are no such qrels: the first line is named
    with pytest.raises(ValueError, match=error("q3.txt", 1, "expected 4 columns .*, got 3")):
        load_qrels(b"judged by me\nq1 0 b 1\n", file_name="q3.txt")





@pytest.mark.parametrize(
    ("text", "order", "line", "problem"),
    [
        (
            "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1\n",
            "score",
            2,
            r"expected 6 columns \(qid Q0 docid rank score tag\), got 5",
        ),
        ("q1 Q0 d1 1 1 t\nq1 Q0 d2 2 high t\n", "score", 2, "score must be a number, got 'high'"),
        ("q1 Q0 d1 1 1 t\nq1 Q0 d2 2 nan t\n", "rank", 2, "score must be a number, got 'nan'"),
        ("q1 Q0 d1 1 1 t\nq1 Q0 d2 2.5 1 t\n", "rank", 2, "rank must be an integer, got '2.5'"),
        (
            "query_id,doc_id,rank\nq1,d1,1\nq1,d2,two\n",
            "score",
            3,
            "rank must be an integer, got 'two'",
        ),
        ("query_id,doc_id,rank,score\nq1,d1,1,x\n", "score", 2, "score must be a number, got 'x'"),
        ("query_id,doc_id\nq1,d1\n", "score", 1, "CSV/TSV header lacks column.*rank or score"),
        # a qrels file in the runs' box: its columns named in words (no tab escape), and
        # where it belongs
        ("query-id\tcorpus-id\tscore\nq\td\t1\n", "score", 1,
         "the header names the columns query-id, corpus-id, score: it looks like a BEIR qrels "
         "file; give it as the qrels, not as a run"),
        ("q1 0 d1 1\n", "score", 1, "expected 6 columns .*, got 4"),
    ],
)
def test_malformed_run(tmp_path, text, order, line, problem):
    with pytest.raises(ValueError, match=error("run.txt", line, problem)):
        load_run(write(tmp_path, "run.txt", text), order=order)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ('{"query_id": "q2", "relevant": ["d1"]', "not valid JSON"),
        ('["q2", "d1"]', "expected a JSON object, got an array"),
        ('"q2"', "expected a JSON object, got a string"),
        ('{"relevant": ["d1"], "retrieved": []}', "JSON record has no 'query_id'"),
        (
            '{"query_id": null, "relevant": [], "retrieved": []}',
            "query_id must be a string id, got null",
        ),
        (
            '{"query_id": 2.5, "relevant": [], "retrieved": []}',
            "query_id must be a string id, got a number 2.5",
        ),
        (
            '{"query_id": ["q"], "relevant": [], "retrieved": []}',
            "query_id must be a string id, got an array",
        ),
        ('{"query_id": "", "relevant": [], "retrieved": []}', "query_id is an empty id"),
        (
            '{"query_id": "q", "query_id": "r", "relevant": [], "retrieved": []}',
            "JSON object repeats the key 'query_id'",
        ),
    ],
)
def test_malformed_jsonl_record_either_way(tmp_path, record, problem):
    path = write(
        tmp_path,
        "pasted.jsonl",
        '{"query_id": "q1", "relevant": [], "retrieved": []}\n' + record + "\n",
    )
    for load in (load_qrels, load_run):
        with pytest.raises(ValueError, match=error("pasted.jsonl", 2, problem)):
            load(path)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (
            '{"query_id": "q2", "retrieved": ["d1"]}',
            "JSON record has no 'relevant', needed for qrels",
        ),
        (
            '{"query_id": "q2", "relevant": "d1"}',
            r"'relevant' must be a list of ids or an object \{id: grade\}, got a string",
        ),
        ('{"query_id": "q2", "relevant": [null]}', "'relevant' must be a string id, got null"),
        ('{"query_id": "q2", "relevant": [1.5]}', "'relevant' must be a string id, got a number"),
        (
            '{"query_id": "q2", "relevant": {"d1": 1.5}}',
            "grade of 'd1' must be an integer, got a number 1.5",
        ),
        ('{"query_id": "q2", "relevant": {"d1": "2"}}', "grade of 'd1' must be an integer"),
        (
            '{"query_id": "q2", "relevant": {"d1": true}}',
            "grade of 'd1' must be an integer, got true",
        ),
        (
            '{"query_id": "q1", "relevant": ["d2"]}',
            "query 'q1' was already given on line 1 with a different 'relevant'",
        ),
    ],
)
def test_malformed_jsonl_qrels(tmp_path, record, problem):
    path = write(tmp_path, "l.jsonl", '{"query_id": "q1", "relevant": ["d1"]}\n' + record + "\n")
    with pytest.raises(ValueError, match=error("l.jsonl", 2, problem)):
        load_qrels(path)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (
            '{"query_id": "q2", "relevant": ["d1"]}',
            "JSON record has no 'retrieved', needed for a run",
        ),
        (
            '{"query_id": "q2", "retrieved": {"d1": 1}}',
            "'retrieved' must be a list of ids, got an object",
        ),
        (
            '{"query_id": "q2", "retrieved": ["d1", false]}',
            "'retrieved' must be a string id, got false",
        ),
        (
            '{"query_id": "q1", "retrieved": ["d1", "d2"]}',
            "query 'q1' was already given on line 1 with a different 'retrieved'",
        ),
    ],
)
def test_malformed_jsonl_run(tmp_path, record, problem):
    path = write(tmp_path, "r.jsonl", '{"query_id": "q1", "retrieved": ["d1"]}\n' + record + "\n")
    with pytest.raises(ValueError, match=error("r.jsonl", 2, problem)):
        load_run(path)


def test_error_is_one_line_and_carries_its_parts(tmp_path):
    with pytest.raises(LoadError) as caught:
        load_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d2 " + "x" * 500 + "\n"))
    message = str(caught.value)
    assert "\n" not in message and len(message) < 120
    assert (caught.value.source, caught.value.line) == ("q.txt", 2)
    assert isinstance(caught.value, ValueError)


def test_bad_arguments():
    qrels_formats = "format must be one of auto, trec, beir, csv, jsonl, parquet, got 'tsv'"
    with pytest.raises(ValueError, match=qrels_formats):
        load_qrels(b"q 0 d 1\n", format="tsv")
    with pytest.raises(ValueError, match="one of auto, trec, csv, jsonl, parquet, got 'beir'"):
        load_run(TREC_RUN.encode(), format="beir")
    with pytest.raises(ValueError, match="order must be one of score, rank, got 'Score'"):
        load_run(TREC_RUN.encode(), order="Score")
    precisions = "score_precision must be one of double, float32, got 'float64'"
    with pytest.raises(ValueError, match=precisions):
        load_run(TREC_RUN.encode(), score_precision="float64")


def test_jsonl_record_without_either_list(tmp_path):
    path = write(tmp_path, "x.jsonl", json.dumps({"query_id": "q"}) + "\n")
    with pytest.raises(ValueError, match=error("x.jsonl", 1, "JSON record has no 'relevant'")):
        load_qrels(path)
    with pytest.raises(ValueError, match=error("x.jsonl", 1, "JSON record has no 'retrieved'")):
        load_run(path)


def test_renamed_run_keeps_its_lists_and_computed_repeats():
    from metrics.io import Run

    run = Run.from_lists("a", {"q": ["x", "x", "y"]})
    repeats = run.repeats
    renamed = run.renamed("b")
    assert renamed.name == "b" and run.name == "a"
    assert renamed.repeats is repeats
    assert renamed.repeat.tolist() == [False, True, False]
    assert renamed.doc.tolist() == ["x", "x", "y"]


def _repeats_by_loop(pairs: list[tuple]) -> tuple[list[int], list[int]]:
    seen, rows, firsts = {}, [], []
    for row, pair in enumerate(pairs):
        if pair in seen:
            rows.append(row)
            firsts.append(seen[pair])
        else:
            seen[pair] = row
    return rows, firsts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6)), max_size=40))
def test_repeated_pairs_match_a_plain_loop(pairs):
    from metrics.io import repeated_pairs

    query = np.array([q for q, _ in pairs], dtype=np.int64)
    doc = np.array([d for _, d in pairs], dtype=np.int64)
    rows, first = repeated_pairs(query, doc)
    assert (rows.tolist(), first.tolist()) == _repeats_by_loop(pairs)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "ab", "B", "é", ""])),
                max_size=40))
def test_repeated_ids_of_strings_match_a_plain_loop(pairs):
    """The run's repeats come from one arrow sort by (query, id): first occurrences must be
    the earliest rows and the repeats come back in row order."""
    import pyarrow as pa

    from metrics.io import repeated_ids

    query = np.array([q for q, _ in pairs], dtype=np.int64)
    rows, first = repeated_ids(query, pa.array([d for _, d in pairs], pa.string()))
    assert (rows.tolist(), first.tolist()) == _repeats_by_loop(pairs)


# ids that share their last bytes, their length or both, or their first and last 8 bytes
# and their length (only the middle differs: the same fingerprint, not the same id)
_LOOKALIKES = ["d1", "e1", "x-00000001", "y-00000001", "x-000000001", "00000001", "10000000",
               "é1", "1", "0" * 20, "1" + "0" * 19, "q", "prefix00-a-suffix00",
               "prefix00-b-suffix00", "", "ab", "abc"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(_LOOKALIKES)), max_size=60),
       st.integers(0, 3))
def test_repeated_ids_of_lookalike_and_sliced_ids_match_a_plain_loop(pairs, cut):
    """Ids alike in their last bytes, their length or their fingerprint, empty, shorter and
    longer than 8 bytes, and a sliced array (its data not at offset 0) give the loop's
    repeats."""
    import pyarrow as pa

    from metrics.io import repeated_ids

    whole = [(9, "x-00000001")] * cut + pairs  # rows cut off the front: a slice
    ids = pa.array([d for _, d in whole], pa.string()).slice(cut)
    query = np.array([q for q, _ in pairs], dtype=np.int64)
    rows, first = repeated_ids(query, ids)
    assert (rows.tolist(), first.tolist()) == _repeats_by_loop(pairs)


def test_repeated_ids_of_a_large_run_match_a_plain_loop():
    """Sixty thousand rows, thousands of repeats: the loop's, in row order."""
    import pyarrow as pa

    from metrics.io import repeated_ids

    rng = np.random.default_rng(3)
    pairs = [(int(q), f"doc{int(d)}") for q, d in zip(rng.integers(0, 300, 60_000),
                                                      rng.integers(0, 2_000, 60_000),
                                                      strict=True)]
    query = np.array([q for q, _ in pairs], dtype=np.int64)
    rows, first = repeated_ids(query, pa.array([d for _, d in pairs], pa.string()))
    assert len(rows) > 1000
    assert (rows.tolist(), first.tolist()) == _repeats_by_loop(pairs)


@pytest.mark.parametrize("labels_as", ["qrels", "function"])
def test_a_run_loaded_against_labels_aligns_as_one_loaded_alone(tmp_path, labels_as):
    """load_run(labels=) codes ids by the labels' doc ids (given as Qrels, or as a function
    called while the run loads); align must give the same arrays as its own string join,
    including for ids the labels lack and for repeats, and the load report is the same."""
    from metrics.core.ranking import align, prepare_query_set

    qrels_path = write(tmp_path, "q.txt", "q1 0 a 2\nq1 0 b 0\nq2 0 c 1\nq3 0 a 1\n")
    # each query's lines written worst first: loading reorders them (the labels are matched
    # to the lines as read, then follow that order)
    run_text = "".join(
        f"{q} Q0 {d} {rank} {10 - rank} t\n"
        for q, docs in {"q2": "xcc", "q1": "zbaa", "q9": "a"}.items()
        for rank, d in reversed(list(enumerate(docs, 1)))
    )
    run_path = write(tmp_path, "r.run", run_text)
    qrels, _ = load_qrels(qrels_path)
    labelled, labelled_report = load_run(
        run_path, labels=qrels if labels_as == "qrels" else lambda: qrels)
    alone, alone_report = load_run(run_path)
    assert labelled.labels is qrels.doc_names and alone.labels is None
    assert labelled_report == alone_report and len(alone_report.repeats) == 2
    assert labelled.label_code.tolist() == [-1, 2, 2, -1, 1, 0, 0, 0]
    query_set = prepare_query_set(qrels)
    a, b = align(query_set, labelled, width=5), align(query_set, alone, width=5)
    for field in ("grade", "relevant", "judged", "repeat", "returned", "row", "answered"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    assert a.grade.tolist()[:2] == [[0, 0, 2, 0, 0], [0, 1, 0, 0, 0]]
    assert a.repeat.sum() == 2 and a.ignored_queries == ("q9",)


@pytest.mark.parametrize("name, text", [
    ("r.run", "q1 Q0 a 1 1 t\n"),
    ("r.csv", "query_id,doc_id,rank\nq1,a,1\n"),
    ("r.jsonl", '{"query_id": "q1", "retrieved": ["a"]}\n'),
])
def test_labels_that_fail_to_load_fail_the_run_load_with_their_own_error(tmp_path, name, text):
    """A labels function raises its own error (the qrels file's) from load_run, whatever the
    run's format: it is not swallowed by the thread that calls it."""
    def labels():
        raise LoadError("q.txt", 3, "bad grade")

    with pytest.raises(LoadError, match="q.txt.*line 3.*bad grade"):
        load_run(write(tmp_path, name, text), labels=labels)


# --- Run.score: each row's score as read, in the run's order (fusion reads it) ----------


def _scored(run) -> list[tuple[str, str, float]]:
    return list(zip(run.query.tolist(), run.doc.tolist(), run.score.tolist(), strict=True))


def test_trec_run_keeps_each_rows_score_in_either_order(tmp_path):
    path = write(tmp_path, "r.run", "q1 Q0 a 2 0.5 t\nq1 Q0 b 1 0.25 t\nq1 Q0 c 3 0.5 t\n"
                                    "q2 Q0 d 1 -1e300 t\n")
    by_score, _ = load_run(path)
    by_rank, _ = load_run(path, order="rank")
    assert _scored(by_score) == [("q1", "c", 0.5), ("q1", "a", 0.5), ("q1", "b", 0.25),
                                 ("q2", "d", -1e300)]
    assert _scored(by_rank) == [("q1", "b", 0.25), ("q1", "a", 0.5), ("q1", "c", 0.5),
                                ("q2", "d", -1e300)]
    assert by_score.score.dtype == np.float64


def test_float32_order_keeps_the_scores_as_doubles(tmp_path):
    # the two scores tie as float32 (doc id descending decides) but stay apart as read
    path = write(tmp_path, "r.run", "q1 Q0 a 1 1.00000001 t\nq1 Q0 b 2 1.00000002 t\n")
    run, _ = load_run(path, score_precision="float32")
    assert _scored(run) == [("q1", "b", 1.00000002), ("q1", "a", 1.00000001)]


def test_lists_without_scores_have_none(tmp_path):
    jsonl, _ = load_run(write(tmp_path, "r.jsonl", '{"query_id": "q1", "retrieved": ["a"]}\n'))
    csv, _ = load_run(write(tmp_path, "r.csv", "query_id,doc_id,rank\nq1,a,2\nq1,b,1\n"))
    scored, _ = load_run(write(tmp_path, "s.csv",
                               "query_id,doc_id,rank,score\nq1,a,2,0.1\nq1,b,1,0.9\n"))
    assert jsonl.score is None and csv.score is None
    assert _scored(scored) == [("q1", "b", 0.9), ("q1", "a", 0.1)]


def test_scores_stay_aligned_when_identical_ids_are_dropped_or_the_run_renamed(tmp_path):
    path = write(tmp_path, "r.run", "q1 Q0 x 1 3 t\nq1 Q0 q1 2 2 t\nq1 Q0 y 3 1 t\n")
    run, _ = load_run(path)
    kept, dropped = run.without_identical_ids()
    assert _scored(kept) == [("q1", "x", 3.0), ("q1", "y", 1.0)] and dropped.tolist() == [2]
    assert _scored(kept.renamed("other")) == _scored(kept)
    qrels, _ = load_qrels(write(tmp_path, "q.txt", "q1 0 y 1\n"))
    assert _scored(run.labelled_by(qrels)) == _scored(run)


def test_from_lists_takes_one_score_per_id():
    from metrics.io import Run

    run = Run.from_lists("r", {"q1": ["a", "b"], "q2": ["c"]},
                         scores={"q1": [2, 1], "q2": [0.5]})
    assert _scored(run) == [("q1", "a", 2.0), ("q1", "b", 1.0), ("q2", "c", 0.5)]
    assert Run.from_lists("r", {"q1": ["a"]}).score is None
    with pytest.raises(ValueError, match="query 'q2': scores must give one value per id"):
        Run.from_lists("r", {"q1": ["a"], "q2": ["b", "c"]}, scores={"q1": [1], "q2": [3]})
