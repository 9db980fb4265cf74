"""Subtopic qrels and intent probabilities: the formats read and the input refused."""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.io import LoadError
from metrics.io.subtopics import load_intent_probabilities, load_subtopic_qrels

TREC = b"# diversity qrels\n51 1 d1 1\n51 2 d1 0\n\n51 2 d2 2\n52 1 d3 1\n"


def _rows(judged):
    docs = judged.doc_names.to_pylist()
    return [(judged.query_ids[q], judged.subtopic_ids[s], docs[d], int(g))
            for q, s, d, g in zip(judged.query_code, judged.subtopic_code, judged.doc_code,
                                  judged.grade, strict=True)]


EXPECTED = [("51", "1", "d1", 1), ("51", "2", "d1", 0), ("51", "2", "d2", 2),
            ("52", "1", "d3", 1)]


def test_trec_whitespace_with_comments_and_blank_lines():
    judged, report = load_subtopic_qrels(TREC, file_name="div.qrels")
    assert _rows(judged) == EXPECTED
    assert list(judged.line) == [2, 3, 5, 6]
    assert report.lines_read == 4 and report.format == "trec"


def test_tabs_and_gzip():
    data = gzip.compress(TREC.replace(b" ", b"\t"))
    judged, _ = load_subtopic_qrels(data, file_name="div.qrels.gz")
    assert _rows(judged) == EXPECTED


def test_csv_and_tsv_headers_in_any_order():
    csv = b"doc_id,query_id,grade,subtopic_id\nd1,51,1,1\nd1,51,0,2\nd2,51,2,2\nd3,52,1,1\n"
    judged, report = load_subtopic_qrels(csv, file_name="div.csv")
    assert _rows(judged) == EXPECTED and report.format == "csv"
    tsv = csv.replace(b",", b"\t")
    assert _rows(load_subtopic_qrels(tsv, file_name="div.tsv")[0]) == EXPECTED


def test_parquet_and_arrow_table(tmp_path):
    table = pa.table({"query_id": ["51", "51", "51", "52"], "subtopic_id": [1, 2, 2, 1],
                      "doc_id": ["d1", "d1", "d2", "d3"], "grade": [1, 0, 2, 1]})
    path = tmp_path / "div.parquet"
    pq.write_table(table, path)
    assert _rows(load_subtopic_qrels(str(path))[0]) == EXPECTED
    assert _rows(load_subtopic_qrels(table)[0]) == EXPECTED


def test_identical_duplicate_dropped_and_reported():
    judged, report = load_subtopic_qrels(b"51 1 d1 1\n51 1 d1 1\n", file_name="d.txt")
    assert len(judged.grade) == 1
    assert [(r.line, r.reason) for r in report.dropped] == [(2, "identical duplicate of line 1")]


@pytest.mark.parametrize("data, message", [
    (b"51 1 d1 1\n51 1 d2\n", "d.txt, line 2: expected 4 columns (query_id subtopic_id "
                              "doc_id grade), got 3"),
    (b"51 1 d1 1\n51 1 d2 1.0\n", "d.txt, line 2: grade must be an integer, got '1.0'"),
    (b"51 1 d1 1\n\n51 1 d1 2\n", "d.txt, line 3: query '51' subtopic '1' doc 'd1' has grade "
                                  "2 here but 1 on line 1"),
    (b"query_id,doc_id,grade\n51,d1,1\n", "d.txt, line 1: the subtopic qrels header must name "
                                          "query_id, subtopic_id, doc_id, grade"),
    (b"query_id,subtopic_id,doc_id,grade\n51,1,d1\n", "d.txt, line 2: expected 4 fields"),
    (b"51 1 d1 99999999999\n", "d.txt, line 1: "),
    (b"\x00\x01\x02binary", "d.txt"),
    (b"   \n\n", "d.txt: empty file"),
])
def test_bad_input_names_the_file_and_the_line(data, message):
    with pytest.raises(LoadError) as error:
        load_subtopic_qrels(data, file_name="d.txt")
    assert str(error.value).startswith(message)


def test_bounded_memory():
    with pytest.raises(LoadError, match="d.txt"):
        load_subtopic_qrels(TREC * 100, file_name="d.txt", max_bytes=64)


def test_intent_probabilities():
    intents, _ = load_intent_probabilities(b"51 1 0.25\n51 2 0.75\n", file_name="p.txt")
    assert list(intents.query_id) == ["51", "51"]
    np.testing.assert_array_equal(intents.probability, [0.25, 0.75])
    csv = b"query_id,subtopic_id,probability\n51,1,0.25\n"
    assert list(load_intent_probabilities(csv, file_name="p.csv")[0].probability) == [0.25]


@pytest.mark.parametrize("data, message", [
    (b"51 1 1.5\n", "p.txt, line 1: probability 1.5 is not a number from 0 to 1"),
    (b"51 1 0.5\n51 2 nan\n", "p.txt, line 2: probability must be a number, got 'nan'"),
    (b"51 1 x\n", "p.txt, line 1: "),
    (b"51 1 0.5\n51 1 0.25\n", "p.txt, line 2: query '51' subtopic '1' has probability 0.25 "
                               "here but 0.5 on line 1"),
    (b"51 1\n", "p.txt, line 1: expected 3 columns"),
])
def test_bad_probabilities_are_refused(data, message):
    with pytest.raises(LoadError) as error:
        load_intent_probabilities(data, file_name="p.txt")
    assert str(error.value).startswith(message)
