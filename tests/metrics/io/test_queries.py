"""load_queries: every format, the facets' values, every rejected input, and the report."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from metrics import load_qrels
from metrics.io import LoadError
from metrics.io.queries import (
    REPORT_FIRST,
    Queries,
    QueriesReport,
    load_queries,
    queries_report,
)


def write(tmp_path, name: str, text: str | bytes):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def error(name: str, line: int | None, problem: str) -> str:
    """A `match=` pattern for `FILE, line N: problem` (problem is a regex)."""
    where = re.escape(name) if line is None else f"{re.escape(name)}, line {line}"
    return f"^{where}: {problem}"


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


# --- formats ---------------------------------------------------------------------------------


def test_tsv_ms_marco(tmp_path):
    text = '1048585\twhat is paula deen\'s brother\n2\tAndrogen receptor define\n3\tsay "hi"\n'
    queries = load_queries(write(tmp_path, "queries.dev.tsv", text))
    assert isinstance(queries, Queries)
    assert (queries.source, queries.format) == ("queries.dev.tsv", "tsv")
    assert queries.ids == ("1048585", "2", "3")
    assert queries.texts == ("what is paula deen's brother", "Androgen receptor define",
                             'say "hi"')  # no unquoting in a headerless TSV
    assert queries.facets == {} and queries.lines == (1, 2, 3) and len(queries) == 3
    assert queries.text("2") == "Androgen receptor define" and queries.text("9") is None


def test_beir_with_metadata(tmp_path):
    text = jsonl(
        {"_id": "q1", "text": "covid origin", "metadata": {"domain": "bio", "year": 2020}},
        {"_id": "q2", "text": "mask efficacy", "metadata": {"domain": "med"}},
        {"_id": "q3", "text": "vaccines", "metadata": {}},
        {"_id": "q4", "text": "long covid", "metadata": None},
    )
    queries = load_queries(write(tmp_path, "queries.jsonl", text))
    assert queries.format == "beir"
    assert queries.ids == ("q1", "q2", "q3", "q4")
    assert queries.facets == {"domain": ("bio", "med", None, None),
                              "year": (2020, None, None, None)}


def test_jsonl_with_extra_keys(tmp_path):
    text = jsonl(
        {"query_id": "a", "text": "one", "lang": "en", "hard": True, "score": 0.5, "n": "3"},
        {"query_id": 7, "text": "two", "lang": "de", "hard": False, "score": 2, "n": 4},
    )
    queries = load_queries(write(tmp_path, "q.jsonl", text))
    assert queries.format == "jsonl"
    assert queries.ids == ("a", "7")  # a JSON integer id is read as text, as the qrels read it
    assert queries.facets == {
        "lang": ("en", "de"),
        "hard": ("true", "false"),  # booleans are categories, not 1 and 0
        "score": (0.5, 2),
        "n": (3, 4),  # a number written as a string is a number too
    }


def test_jsonl_metadata_key_beside_metadata(tmp_path):
    text = jsonl({"query_id": "a", "text": "x", "metadata": {"lang": "en"}, "src": "web"})
    assert load_queries(write(tmp_path, "q.jsonl", text)).facets == {
        "src": ("web",), "lang": ("en",)
    }


def test_metadata_that_is_not_an_object_is_a_facet(tmp_path):
    text = jsonl({"_id": "a", "text": "x", "metadata": "web"}, {"_id": "b", "text": "y"})
    assert load_queries(write(tmp_path, "q.jsonl", text)).facets == {"metadata": ("web", None)}


def test_jsonl_nested_values_are_kept_as_json_text(tmp_path):
    text = jsonl(
        {"query_id": "a", "text": "x", "tags": ["b", "a"], "info": {"z": 1, "a": "é"}},
        {"query_id": "b", "text": "y", "tags": [], "info": None},
    )
    queries = load_queries(write(tmp_path, "q.jsonl", text))
    assert queries.facets == {"tags": ('["b", "a"]', "[]"), "info": ('{"a": "é", "z": 1}', None)}


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_delimited_with_header(tmp_path, delimiter):
    rows = [["topic", "QUERY_ID", "Text", "year"], ["news", "q1", "first, query", "2019"],
            ["sport", "q2", "second", ""], ["news", "q3", "third", "2021.5"]]
    lines = [delimiter.join(f'"{cell}"' if delimiter in cell else cell for cell in row)
             for row in rows]
    queries = load_queries(write(tmp_path, "q.csv", "\n".join(lines) + "\n"))
    assert queries.format == "csv"
    assert queries.ids == ("q1", "q2", "q3")
    assert queries.texts == ("first, query", "second", "third")
    assert queries.facets == {"topic": ("news", "sport", "news"), "year": (2019, None, 2021.5)}
    assert queries.lines == (2, 3, 4)


def test_csv_aliases_quotes_and_padding(tmp_path):
    text = 'qid, query, label\n"q,1", "say ""hi""", a\n q2 ,  spaced text ,  \n'
    queries = load_queries(write(tmp_path, "topics.csv", text))
    assert queries.ids == ("q,1", "q2")
    assert queries.texts == ('say "hi"', "spaced text ")  # text kept (bar the CSV padding)
    assert queries.facets == {"label": ("a", None)}


def test_gzipped_by_extension_and_by_content(tmp_path):
    data = gzip.compress(b"q1\tfirst\nq2\tsecond\n")
    assert load_queries(write(tmp_path, "queries.tsv.gz", data)).ids == ("q1", "q2")
    assert load_queries(write(tmp_path, "queries", data)).ids == ("q1", "q2")
    upload = load_queries(data, file_name="queries.tsv.gz")
    assert (upload.source, upload.texts) == ("queries.tsv.gz", ("first", "second"))


def test_bytes_as_an_upload():
    queries = load_queries(jsonl({"_id": "q1", "text": "hello"}).encode())
    assert (queries.source, queries.format, queries.ids) == ("<upload>", "beir", ("q1",))
    with pytest.raises(LoadError, match=error("<upload>", 1, "not valid JSON")):
        load_queries(b"{oops\n")


def test_named_format_skips_detection(tmp_path):
    path = write(tmp_path, "q.tsv", "query_id\ttext\nq1\tx\n")
    assert load_queries(path, format="tsv").ids == ("query_id", "q1")
    assert load_queries(path).ids == ("q1",)
    with pytest.raises(LoadError, match=error("q.jsonl", 1, "JSON record has no '_id'")):
        load_queries(write(tmp_path, "q.jsonl", jsonl({"query_id": "a", "text": "x"})),
                     format="beir")
    with pytest.raises(ValueError, match="format must be one of"):
        load_queries(path, format="parquet")


def test_unicode_bom_crlf_and_blank_lines(tmp_path):
    data = "\ufeffq1\tcafé naïve\r\n\r\nq2\t東京の天気 ☔\r\n\n".encode()
    queries = load_queries(write(tmp_path, "q.tsv", data))
    assert queries.texts == ("café naïve", "東京の天気 ☔")
    assert queries.lines == (1, 3)


HOSTILE = [
    "<script>alert('x')</script>",
    "**bold** [link](javascript:alert(1)) `code` $x^2$",
    "=HYPERLINK(\"http://evil\")",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "&lt;b&gt; &amp; {{ template }}",
]


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "csv"])
def test_hostile_text_is_kept_verbatim(tmp_path, fmt):
    if fmt == "tsv":
        text = "".join(f"q{i}\t{hostile}\n" for i, hostile in enumerate(HOSTILE))
    elif fmt == "jsonl":
        text = jsonl(*({"query_id": f"q{i}", "text": t} for i, t in enumerate(HOSTILE)))
    else:
        quoted = ('"' + t.replace('"', '""') + '"' for t in HOSTILE)
        text = "query_id,text\n" + "".join(f"q{i},{t}\n" for i, t in enumerate(quoted))
    assert load_queries(write(tmp_path, "q", text)).texts == tuple(HOSTILE)


# --- rejected inputs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "line", "problem"),
    [
        ("q.tsv", "q1\tok\nq2 no tab here\n", 2, "expected 2 tab-separated columns"),
        ("q.tsv", "q1\tok\nq2\ttext\twith tab\n", 2, r"expected 2 tab-separated columns "
         r"\(query_id, text\), got 3"),
        ("q.tsv", "q1\tok\n  \tno id\n", 2, "empty query id"),
        ("q.tsv", "q1\tok\nq2\t   \n", 2, "query 'q2' has an empty text"),
        ("q.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "b", "text": "y"\n', 2,
         r"not valid JSON \(Expecting ',' delimiter at column 25\)"),
        ("q.jsonl", '{"_id": "a", "text": "x"}\n{"text": "y"}\n', 2,
         "JSON record has no '_id'"),
        ("q.jsonl", '{"text": "y"}\n', 1, r"JSON record has no 'query_id' \(or '_id'"),
        ("q.jsonl", '{"query_id": "a"}\n', 1, "JSON record has no 'text'"),
        ("q.jsonl", '{"query_id": "a", "text": null}\n', 1, "'text' must be a string, got null"),
        ("q.jsonl", '{"query_id": "a", "text": 5}\n', 1, "'text' must be a string"),
        ("q.jsonl", '{"query_id": "", "text": "x"}\n', 1, "query_id is an empty id"),
        ("q.jsonl", '{"query_id": ["a"], "text": "x"}\n', 1, "query_id must be a string id"),
        ("q.jsonl", '["a", "x"]\n', 1, "expected a JSON object, got an array"),
        ("q.jsonl", '{"query_id": "a", "text": "x", "text": "y"}\n', 1,
         "JSON object repeats the key 'text'"),
        ("q.jsonl", '{"query_id": "a", "text": "\\ud800"}\n', 1,
         r"a string is not valid UTF-8 \(a lone surrogate escape\)"),
        ("q.jsonl", '{"query_id": "a", "text": "x", "k": 1, "metadata": {"k": 2}}\n', 1,
         "'k' is given both in 'metadata' and beside it"),
        ("q.csv", "query_id,text,topic\nq1,x,a\nq2,y\n", 3,
         r"expected 3 columns \(as in the header on line 1\), got 2"),
        ("q.csv", 'query_id,text\nq1,"open\n', 2, "a quoted cell runs past the end of the line"),
        ("q.csv", 'query_id,text\nq1,"a"b\n', 2, "malformed quotes"),
        ("q.csv", "id,text\nq1,x\n", 1, "header lacks a query_id or qid column"),
        ("q.csv", "query_id,title\nq1,x\n", 1, "header lacks a text or query column"),
        ("q.csv", "qid,query_id,text\nq1,q1,x\n", 1,
         "the header names the query_id column twice: query_id and qid"),
        ("q.csv", "query_id,text,Topic,topic\nq1,x,a,b\n", 1,
         "the header names the column 'topic' twice"),
        ("q.csv", "query_id,text,\nq1,x,\n", 1, "the header's column 3 has no name"),
        ("q.csv", "query_id,text\n", None, r"no data lines \(only a header\)"),
        ("q.txt", "just one field\n", 1, "cannot detect the format"),
    ],
)
def test_malformed_lines_name_the_file_and_line(tmp_path, name, text, line, problem):
    with pytest.raises(LoadError, match=error(name, line, problem)) as raised:
        load_queries(write(tmp_path, name, text))
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("q.tsv", "q1\tfirst\nq2\tsecond\nq1\tfirst\n"),
        ("q.jsonl", jsonl({"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"},
                          {"_id": "q1", "text": "c"})),
        ("q.csv", "query_id,text\nq1,a\n\nq1,b\n"),
    ],
)
def test_a_repeated_id_is_an_error_naming_both_lines(tmp_path, name, text):
    first, again = (1, 3) if name != "q.csv" else (2, 4)
    problem = f"query 'q1' was already given on line {first}"
    with pytest.raises(LoadError, match=error(name, again, problem)):
        load_queries(write(tmp_path, name, text))


@pytest.mark.parametrize("data", [b"", b"\n  \n", gzip.compress(b"", mtime=0)],
                         ids=["empty", "blank lines", "gzipped empty"])  # stable ids: xdist
def test_an_empty_file_is_an_error(tmp_path, data):
    with pytest.raises(LoadError, match=error("q.tsv", None, "empty file")):
        load_queries(write(tmp_path, "q.tsv", data))


def test_binary_data_is_refused(tmp_path):
    with pytest.raises(LoadError, match=error("q.tsv", 1, "binary or non-UTF-8")):
        load_queries(write(tmp_path, "q.tsv", b"q1\t\xff\xfe\n"))


# --- facet values ----------------------------------------------------------------------------


def test_a_column_is_numeric_only_when_every_present_value_is_a_finite_number(tmp_path):
    rows = [("q1", "1", "1", "7", "1e999", "x", "007"), ("q2", "2.5", "two", "", "2", "1", "12"),
            ("q3", "-3", "3", "  ", "3", "NaN", "1_0")]
    text = "query_id\ttext\ta\tb\tc\td\te\tf\n" + "".join(
        f"{q}\ttext\t{a}\t{b}\t{c}\t{d}\t{e}\t{f}\n" for q, a, b, c, d, e, f in rows)
    facets = load_queries(write(tmp_path, "q.tsv", text)).facets
    assert facets["a"] == (1, 2.5, -3) and type(facets["a"][0]) is int
    assert facets["b"] == ("1", "two", "3")
    assert facets["c"] == (7, None, None)  # blank cells are missing
    assert facets["d"] == ("1e999", "2", "3")  # beyond float range: not a number
    assert facets["e"] == ("x", "1", "NaN")
    assert facets["f"] == ("007", "12", "1_0")


def test_json_non_finite_numbers_make_a_category(tmp_path):
    text = '{"query_id": "a", "text": "x", "v": NaN}\n{"query_id": "b", "text": "y", "v": 1}\n'
    assert load_queries(write(tmp_path, "q.jsonl", text)).facets == {"v": ("NaN", "1")}


def test_a_key_absent_from_some_records_is_missing_there(tmp_path):
    text = jsonl({"query_id": "a", "text": "x"}, {"query_id": "b", "text": "y", "lang": "fr"},
                 {"query_id": "c", "text": "z", "lang": " "})
    assert load_queries(write(tmp_path, "q.jsonl", text)).facets == {"lang": (None, "fr", None)}


# --- the report against the query set --------------------------------------------------------


QRELS = b"q1 0 d1 1\nq2 0 d1 0\nq3 0 d2 1\nq4 0 d3 1\n"


def test_report_against_a_qrels():
    qrels, _ = load_qrels(QRELS, file_name="qrels.txt")
    queries = load_queries(b"q2\tb\nq9\tz\nq1\ta\nq8\ty\n", file_name="queries.tsv")
    report = queries_report(queries, qrels)
    assert report == QueriesReport(
        source="queries.tsv", queries=4, with_text=2, not_in_qrels=2,
        not_in_qrels_first=("q9", "q8"), without_text=2, without_text_first=("q3", "q4"),
    )
    assert report == queries_report(queries, qrels.query_ids.tolist())
    assert report.queries == report.with_text + report.not_in_qrels
    assert len(qrels.query_ids) == report.with_text + report.without_text
    assert report.summary() == (
        "queries.tsv: 4 queries read; 2 qrels queries with a text; 2 queries not in the qrels "
        "(never scored): q9, q8; 2 qrels queries without a text: q3, q4"
    )


def test_report_counts_everything_and_lists_the_first_few():
    qrels, _ = load_qrels("".join(f"q{i} 0 d 1\n" for i in range(30)).encode())
    queries = load_queries("".join(f"x{i}\tt\n" for i in range(25)).encode())
    report = queries_report(queries, qrels)
    assert (report.not_in_qrels, report.without_text, report.with_text) == (25, 30, 0)
    assert report.not_in_qrels_first == tuple(f"x{i}" for i in range(REPORT_FIRST))
    assert report.without_text_first == tuple(f"q{i}" for i in range(REPORT_FIRST))
    assert "x9 and 15 more" in report.summary() and "q9 and 20 more" in report.summary()


def test_report_when_everything_matches():
    qrels, _ = load_qrels(QRELS)
    queries = load_queries(b"q1\ta\nq2\tb\nq3\tc\nq4\td\n")
    report = queries_report(queries, qrels)
    assert (report.with_text, report.not_in_qrels, report.without_text) == (4, 0, 0)
    assert report.summary() == "<upload>: 4 queries read; 4 qrels queries with a text"
