"""What trec_eval 10.0 reads: comment lines, run lines wider than six fields, and scores
compared as doubles (float32, as trec_eval 9 and pytrec_eval, on request)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from metrics.io import SCORE_PRECISIONS, ReportLine, load_qrels, load_run
from metrics.io.sources import open_source


def error(name: str, line: int | None, problem: str) -> str:
    where = re.escape(name) if line is None else f"{re.escape(name)}, line {line}"
    return f"^{where}: {problem}"


def pairs(qrels) -> list[tuple[str, str, int]]:
    return list(zip(qrels.query.tolist(), qrels.doc.tolist(), qrels.grade.tolist(), strict=True))


# --- comment lines ---------------------------------------------------------------------------


def test_qrels_with_comment_lines_are_read_and_the_comments_counted():
    text = b"# comment here\nq1 0 d1 1\n  # indented\nq1 0 d2 0\n\t#\tafter a tab\nq2 0 d3 2\n"
    qrels, report = load_qrels(text, file_name="q.txt")
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 2)]
    assert qrels.line.tolist() == [2, 4, 6]
    assert (report.format, report.lines_read, report.lines_used, report.comments) == (
        "trec", 3, 3, 3
    )
    assert report.summary() == "q.txt: 3 lines read, 3 used, 0 dropped, 3 comment lines skipped"


def test_three_column_qrels_are_told_by_the_first_line_that_is_not_a_comment():
    text = b"\n# qid docid grade, judged 2024\n\n# another\nq1 a 2\nq1 b 0\n# end\nq2 c 1\n"
    qrels, report = load_qrels(text, file_name="q3.txt")
    assert pairs(qrels) == [("q1", "a", 2), ("q1", "b", 0), ("q2", "c", 1)]
    assert qrels.line.tolist() == [5, 6, 8]
    assert report.comments == 3
    ragged = error("q3.txt", 4, r"expected 3 columns \(qid docid grade\), got 4")
    with pytest.raises(ValueError, match=ragged):
        load_qrels(b"# four words in it\nq1 a 2\n# x\nq1 0 b 1\n", file_name="q3.txt")


def test_run_with_comment_lines_is_ordered_and_numbered_by_the_file():
    text = b"# run: bm25\nq1 Q0 a 1 0.5 t\n#q1 Q0 z 1 9.0 t\nq1 Q0 b 2 0.9 t\n   # done\n"
    run, report = load_run(text, file_name="bm25.run")
    assert run.doc.tolist() == ["b", "a"]  # the commented-out line with the top score is skipped
    assert run.line.tolist() == [4, 2]
    assert (report.lines_read, report.lines_used, report.comments) == (2, 2, 3)
    assert report.summary() == (
        "bm25.run: 2 lines read, 2 used, 0 dropped, 0 repeats, 3 comment lines skipped"
    )
    assert report.lines_read == report.lines_used + len(report.dropped)


def test_a_hash_inside_a_line_is_data():
    doc = "msmarco_v2.1_doc_00_0#1_2"
    qrels, report = load_qrels(f"q#1 0 {doc} 1\nq#1 0 d# 0\n".encode(), file_name="q.txt")
    assert pairs(qrels) == [("q#1", doc, 1), ("q#1", "d#", 0)]
    assert report.comments == 0 and "comment" not in report.summary()
    run, report = load_run(f"q1 Q0 {doc} 1 2 t#x\nq1 Q0 a#b 2 1 t\n".encode(), file_name="r")
    assert run.doc.tolist() == [doc, "a#b"] and report.comments == 0
    # beside comment lines too (the line-by-line reader)
    run, report = load_run(f"# c\nq1 Q0 {doc} 1 2 t\n".encode(), file_name="r")
    assert run.doc.tolist() == [doc] and report.comments == 1


def test_a_comment_as_wide_as_a_data_line_is_still_skipped():
    """A regular file (one separator) is split by the fast CSV reader, which would take a
    comment of exactly four (or six) words for data: comment lines keep it off that path."""
    qrels, report = load_qrels(b"# judged by me\nq1 0 d1 1\nq1 0 d2 2\n", file_name="q")
    assert pairs(qrels) == [("q1", "d1", 1), ("q1", "d2", 2)] and report.comments == 1
    run, report = load_run(b"q1 Q0 a 1 1 t\n# not q1 Q0 z 9\n", file_name="r")
    assert run.doc.tolist() == ["a"] and report.comments == 1


def test_comment_lines_are_found_only_at_the_start_of_a_line():
    def has_comments(data: bytes) -> bool:
        return open_source(data, "f").has_comment_lines

    assert has_comments(b"# x\nq 0 d 1\n") and has_comments(b"q 0 d 1\n \t# x\n")
    assert not has_comments(b"q 0 d#1 1\nq 0 #d 1\n") and not has_comments(b"q 0 d 1\n")


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("# a\n# b\nq1 0 d1 1\nq1 0 d2 x\n", 4, "grade must be an integer, got 'x'"),
        ("# a\nq1 0 d1 1\n# b\n\nq1 0 d2\n", 5, r"expected 4 columns .*, got 3"),
        ("# a\nq1 0 d1 1\n# b\nq1 0 d1 2\n", 4, "query 'q1' doc 'd1' has grade 2 here but "
                                                "grade 1 on line 2"),
        ("# a\nq1 0 d1 1\n#\n0 d2 1\n", 4, r"expected 4 columns .*, got 3"),
    ],
)
def test_qrels_errors_after_comments_name_the_file_line(text, line, problem):
    with pytest.raises(ValueError, match=error("q.txt", line, problem)):
        load_qrels(text.encode(), file_name="q.txt")


def test_run_errors_and_report_lines_after_comments_name_the_file_line():
    with pytest.raises(ValueError, match=error("r.txt", 3, "score must be a number, got 'x'")):
        load_run(b"# a\nq1 Q0 d1 1 1 t\nq1 Q0 d2 2 x t\n", file_name="r.txt")
    with pytest.raises(ValueError, match=error("r.txt", 4, r"expected 6 columns .*, got 5")):
        load_run(b"q1 Q0 d1 1 1 t\n# a\n  # b\nq1 Q0 d2 2 1\n", file_name="r.txt")
    _, report = load_run(b"# a\nq1 Q0 d1 1 2 t\n# b\nq1 Q0 d1 2 1 t\n", file_name="r.txt")
    assert report.repeats == (
        ReportLine(4, "repeat of d1 at rank 2 (first at rank 1): keeps its rank slot, "
                      "scores nothing"),
    )
    _, report = load_qrels(b"# a\nq1 0 d1 1\n# b\nq1 0 d1 1\n", file_name="q.txt")
    assert report.dropped == (ReportLine(4, "identical duplicate of line 2"),)


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("# qrels\nq1 0 d1 1\n", "qrels", "trec"),
        ("# query_id doc_id grade\nq1 d1 1\n", "qrels", "trec"),
        ("# comment\nq1 Q0 d1 1 1 t\n", "run", "trec"),
        ("\n  # comment\n\nq1 Q0 d1 1 1 t\n", "run", "trec"),
    ],
)
def test_format_detection_skips_comment_lines(text, kind, expected):
    load = load_qrels if kind == "qrels" else load_run
    _, report = load(text.encode(), file_name="f")
    assert report.format == expected and report.comments >= 1


def test_only_comment_lines_is_no_data():
    for load in (load_qrels, load_run):
        with pytest.raises(ValueError, match=error("f", None, r"no data lines \(only comment")):
            load(b"# one\n  # two\n\n", file_name="f")
    with pytest.raises(ValueError, match=error("f", None, r"no data lines \(only comment")):
        load_run(b"# one\n", file_name="f", format="trec")


def test_comments_are_not_skipped_in_csv_and_jsonl():
    """Only the whitespace formats take comments, as trec_eval reads only those."""
    qrels, report = load_qrels(b"query_id,doc_id,grade\n#q,d,1\n", file_name="q.csv")
    assert pairs(qrels) == [("#q", "d", 1)] and report.comments == 0
    with pytest.raises(ValueError, match=error("r.jsonl", 1, "not valid JSON")):
        load_run(b'# c\n{"query_id": "q", "retrieved": ["d"]}\n', file_name="r.jsonl")


def test_a_comment_leaves_the_order_as_without_it(tmp_path):
    rng = np.random.default_rng(5)
    rows = [
        (f"q{rng.integers(30)}", f"d{rng.integers(50)}", float(rng.choice([0.5, 1.0, 2.25])))
        for _ in range(400)
    ]
    plain = "".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(rows))
    fast, fast_report = load_run(plain.encode(), file_name="a")
    slow, slow_report = load_run(("# header\n" + plain).encode(), file_name="b")
    assert slow.doc.tolist() == fast.doc.tolist() and slow.query.tolist() == fast.query.tolist()
    assert slow.line.tolist() == (fast.line + 1).tolist()
    assert (fast_report.comments, slow_report.comments) == (0, 1)
    assert [r.line + 1 for r in fast_report.repeats] == [r.line for r in slow_report.repeats]


# --- run lines of more than six fields ---------------------------------------------------------


def test_run_lines_wider_than_six_fields_read_their_first_six():
    text = (
        b"q1 Q0 a 1 0.5 t extra more fields\n"  # 9 fields, the first line
        b"q1 Q0 b 2 0.9 t\n"
        b"q1 Q0 c 3 0.7 t x\n"
        b"q2\tQ0\td\t1\t1.0\tt\tx\ty\n"
    )
    run, report = load_run(text, file_name="wide.run")
    assert report.format == "trec"
    assert {q: run.doc[run.query == q].tolist() for q in ("q1", "q2")} == {
        "q1": ["b", "c", "a"], "q2": ["d"]
    }
    assert run.line.tolist() == [2, 3, 1, 4]
    assert (report.lines_read, report.lines_used, report.wide_lines) == (4, 4, 3)
    assert report.summary() == (
        "wide.run: 4 lines read, 4 used, 0 dropped, 0 repeats, "
        "fields after the sixth ignored on 3 lines"
    )
    ranked, _ = load_run(text, file_name="wide.run", order="rank")
    assert ranked.doc.tolist() == ["a", "b", "c", "d"]


def test_every_line_wide_and_format_detected_from_a_wide_first_line():
    text = b"q1 Q0 a 1 0.5 t 7\nq1 Q0 b 2 0.9 t 7\n"
    run, report = load_run(text, file_name="r")
    assert report.format == "trec" and run.doc.tolist() == ["b", "a"]
    assert report.wide_lines == 2
    assert "fields after the sixth ignored on 2 lines" in report.summary()
    _, report = load_run(b"q1 Q0 a 1 0.5 t\n", file_name="r")
    assert report.wide_lines == 0 and "sixth" not in report.summary()


def test_run_lines_of_fewer_than_six_fields_are_still_refused():
    message = r"expected 6 columns \(qid Q0 docid rank score tag\), got 5"
    with pytest.raises(ValueError, match=error("r", 3, message)):
        load_run(b"q1 Q0 a 1 0.5 t x y\nq1 Q0 b 2 0.9 t\nq1 Q0 c 3 0.7\n", file_name="r")
    with pytest.raises(ValueError, match=error("r", 1, message)):
        load_run(b"q1 Q0 c 3 0.7\nq1 Q0 a 1 0.5 t x y\n", file_name="r")


def test_qrels_lines_stay_strict():
    with pytest.raises(ValueError, match=error("q", 2, r"expected 4 columns .*, got 5")):
        load_qrels(b"q1 0 a 1\nq1 0 b 1 x\n", file_name="q")


def test_comments_and_wide_lines_together():
    text = b"# trec_eval 10 test run\nq1 Q0 a 1 0.5 t 1 2 3\n# x\nq1 Q0 b 2 0.9 t\n"
    run, report = load_run(text, file_name="r.run")
    assert run.doc.tolist() == ["b", "a"] and run.line.tolist() == [4, 2]
    assert (report.comments, report.wide_lines) == (2, 1)
    assert report.summary() == (
        "r.run: 2 lines read, 2 used, 0 dropped, 0 repeats, 2 comment lines skipped, "
        "fields after the sixth ignored on 1 line"
    )


# --- score precision -----------------------------------------------------------------------------


TIE_QRELS = b"q 0 a 1\nq 0 b 0\n"
TIE_RUN = b"q Q0 a 1 1.00000001 t\nq Q0 b 2 1.0 t\n"


def test_score_precision_default_and_choices():
    assert SCORE_PRECISIONS == ("double", "float32")
    assert inspect.signature(load_run).parameters["score_precision"].default == "double"
    with pytest.raises(ValueError, match="score_precision must be one of double, float32, got "
                                         "'single'"):
        load_run(TIE_RUN, score_precision="single")


@pytest.mark.parametrize(
    ("precision", "expected", "hit_at_1"),
    [("double", ["a", "b"], True), ("float32", ["b", "a"], False)],
)
def test_scores_that_tie_only_as_float32(precision, expected, hit_at_1):
    """1.00000001 and 1.0 differ as doubles (trec_eval 10.0) and are equal as float32
    (trec_eval 9): then doc id descending puts b first, and the relevant a falls to rank 2."""
    qrels, _ = load_qrels(TIE_QRELS, file_name="q.txt")
    run, _ = load_run(TIE_RUN, file_name="r.run", score_precision=precision, labels=qrels)
    assert run.doc.tolist() == expected
    relevant = set(qrels.doc[qrels.grade > 0].tolist())
    assert (run.doc[0] in relevant) is hit_at_1
    assert load_run(TIE_RUN, file_name="r.run")[0].doc.tolist() == ["a", "b"]  # the default


@pytest.mark.parametrize(("precision", "expected"), [("double", ["a", "b"]),
                                                     ("float32", ["b", "a"])])
def test_csv_run_without_rank_orders_scores_at_the_precision(precision, expected):
    text = b"query_id,doc_id,score\nq,a,1.00000001\nq,b,1.0\n"
    run, _ = load_run(text, file_name="r.csv", score_precision=precision)
    assert run.doc.tolist() == expected


@pytest.mark.parametrize(("precision", "expected"), [("double", ["a", "b"]),
                                                     ("float32", ["b", "a"])])
def test_scores_beyond_float32_tie_only_as_float32(precision, expected):
    run, _ = load_run(b"q Q0 a 1 1e40 t\nq Q0 b 2 1e39 t\n", score_precision=precision)
    assert run.doc.tolist() == expected


def test_rank_order_ignores_the_precision():
    for precision in SCORE_PRECISIONS:
        run, _ = load_run(TIE_RUN, order="rank", score_precision=precision)
        assert run.doc.tolist() == ["a", "b"]
        run, _ = load_run(b"q Q0 a 2 1.00000001 t\nq Q0 b 1 1.0 t\n", order="rank",
                          score_precision=precision)
        assert run.doc.tolist() == ["b", "a"]
