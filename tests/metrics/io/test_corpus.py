"""The corpus reader: each format, the ids kept and missed, malformed lines named by file and
line, and a file read as a stream (memory grows with the ids wanted, not the file)."""

from __future__ import annotations

import gzip
import json
import os
import threading
import tracemalloc

import pytest

from metrics.io import MAX_LINE_BYTES, LoadError
from metrics.io.corpus import (
    CORPUS_FORMATS,
    SHOWN,
    Corpus,
    CorpusReport,
    read_corpus,
)
from tests.marks import THOROUGH

BEIR = (
    b'{"_id": "d1", "title": "First", "text": "one two three"}\n'
    b'{"_id": "d2", "text": "no title here", "metadata": {"url": "x"}}\n'
    b'{"_id": "d3", "title": "Third", "text": "three"}\n'
)
DOC_ID = (
    b'{"doc_id": "d1", "text": "one two three", "title": "First"}\n'
    b'{"doc_id": "d2", "text": "no title here"}\n'
    b'{"doc_id": "d3", "text": "three", "title": null}\n'
)
TSV = b"d1\tone two three\nd2\tno title here\nd3\tthree\n"


def write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def error(data: bytes, wanted=("d1",), name: str = "c.jsonl") -> LoadError:
    with pytest.raises(LoadError) as caught:
        read_corpus(data, wanted, file_name=name)
    return caught.value


# --- formats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fmt", "titles"),
    [(BEIR, "beir", ("First", "")), (DOC_ID, "jsonl", ("First", "")), (TSV, "tsv", ("", ""))],
)
def test_each_format_keeps_only_the_wanted_ids_in_the_order_wanted(tmp_path, data, fmt, titles):
    corpus, report = read_corpus(write(tmp_path, "corpus.x", data), ["d2", "d1"])
    assert report.format == fmt
    assert corpus.doc_ids == ("d2", "d1")
    assert corpus.texts == ("no title here", "one two three")
    assert corpus.titles == titles[::-1]
    assert corpus.source == "corpus.x"
    assert "d3" not in corpus and corpus.text("d3") is None and corpus.title("d3") is None
    assert (report.lines_read, report.found, report.skipped, report.missing) == (3, 2, 1, 0)


def test_a_null_title_is_an_empty_one():
    corpus, _ = read_corpus(DOC_ID, ["d3"])
    assert corpus.title("d3") == ""


@pytest.mark.parametrize("name", ["corpus.jsonl.gz", "corpus.jsonl"])
def test_gzip_is_read_by_name_or_by_magic(tmp_path, name):
    corpus, report = read_corpus(write(tmp_path, name, gzip.compress(BEIR)), ["d3"])
    assert corpus.text("d3") == "three" and report.format == "beir"


def test_an_upload_is_read_from_its_bytes_and_named():
    corpus, report = read_corpus(bytearray(TSV), {"d1": 1}, file_name="collection.tsv")
    assert corpus.source == report.source == "collection.tsv"
    assert corpus.text("d1") == "one two three"
    _, report = read_corpus(gzip.compress(TSV), ["d1"])
    assert report.source == "<upload>" and report.found == 1


def test_the_format_can_be_named():
    assert CORPUS_FORMATS == ("beir", "jsonl", "tsv")
    _, report = read_corpus(BEIR, ["d1"], format="beir")
    assert report.format == "beir"
    with pytest.raises(LoadError, match=r"^c\.tsv, line 1: no tab"):
        read_corpus(BEIR, ["d1"], format="tsv", file_name="c.tsv")
    with pytest.raises(ValueError, match="format must be one of"):
        read_corpus(BEIR, ["d1"], format="csv")


def test_tsv_keeps_a_tab_inside_the_text_and_counts_it():
    corpus, report = read_corpus(b" d1 \tfirst\tthird column\nd2\tplain\n", ["d1", "d2"])
    assert corpus.text("d1") == "first\tthird column"  # ids are stripped, texts are not
    assert report.wide_lines == 1 and "1 text holding a tab" in report.summary()


def test_json_ids_may_be_integers_and_any_key_may_come_first():
    data = b'{"_id": 7, "text": "seven"}\n{"title": "T", "text": "late id", "_id": "d9"}\n'
    corpus, report = read_corpus(data, ["7", "d9"])
    assert corpus.texts == ("seven", "late id") and corpus.title("d9") == "T"
    assert report.skipped == 0


def test_blank_lines_crlf_and_a_byte_order_mark():
    data = b"\xef\xbb\xbf\r\n" + BEIR.replace(b"\n", b"\r\n\r\n") + b"  \r\n"
    corpus, report = read_corpus(data, ["d1", "d3"])
    assert corpus.texts == ("one two three", "three") and report.lines_read == 3
    corpus, _ = read_corpus(b"d1\ta lone \r stays\r\nd2\tend\r", ["d1", "d2"])
    assert corpus.texts == ("a lone \r stays", "end")


def test_lines_across_block_boundaries_are_read_whole(tmp_path):
    # 1 MiB blocks: texts of odd lengths put line ends, and a CRLF, on every side of them
    lines = [f"d{i}\t{'x' * (i % 997)}{i}" for i in range(8000)]
    path = write(tmp_path, "big.tsv", ("\r\n".join(lines)).encode())  # no final newline
    corpus, report = read_corpus(path, [f"d{i}" for i in range(8000)])
    assert report.found == 8000 and report.lines_read == 8000
    assert all(corpus.text(f"d{i}") == line.split("\t", 1)[1] for i, line in enumerate(lines))


# --- ids -----------------------------------------------------------------------------------


def test_wanted_ids_not_in_the_corpus_are_counted_and_shown():
    wanted = ["d1"] + [f"absent{i}" for i in range(SHOWN + 5)] + ["d1"]
    corpus, report = read_corpus(BEIR, wanted)
    assert len(corpus) == 1 and report.wanted == SHOWN + 6  # a repeated wanted id counts once
    assert report.missing == SHOWN + 5
    assert report.missing_ids == tuple(f"absent{i}" for i in range(SHOWN))
    assert f"{SHOWN + 5:,} not in the corpus ('absent0', " in report.summary()
    assert report.summary().endswith(", ...)")


def test_a_repeated_corpus_id_keeps_its_first_text():
    data = BEIR + b'{"_id": "d1", "text": "again"}\n{"_id": "d2", "text": "and again"}\n'
    corpus, report = read_corpus(data, ["d1"])
    assert corpus.text("d1") == "one two three"
    assert report.repeats == 1 and report.repeat_lines[0].line == 4
    assert "line 1" in report.repeat_lines[0].reason
    assert report.lines_read == report.found + report.skipped + report.repeats == 5


@pytest.mark.parametrize(
    ("raw_id", "doc_id"),
    [
        (r"a\"b", 'a"b'), (r"a\\b", "a\\b"), (r"caf\u00e9", "café"), ("café", "café"),
        ("my doc 1", "my doc 1"), (r"tab\there", "tab\there"), ("文書 ✓ 🙂", "文書 ✓ 🙂"),
    ],
)
def test_ids_with_quotes_escapes_spaces_and_unicode(raw_id, doc_id):
    line = f'{{"_id": "{raw_id}", "text": "found"}}\n'.encode()
    corpus, report = read_corpus(line, [doc_id, "a"])
    assert corpus.text(doc_id) == "found" and report.found == 1
    assert "a" not in corpus  # an escaped id is never read as its prefix


def test_unicode_texts():
    texts = ["naïve café", "日本語のテキスト", "emoji 🙂 ok", 'quote " and \\ slash']
    data = "".join(json.dumps({"_id": f"d{i}", "text": t}, ensure_ascii=i % 2 == 0) + "\n"
                   for i, t in enumerate(texts)).encode()
    corpus, _ = read_corpus(data, [f"d{i}" for i in range(4)])
    assert corpus.texts == tuple(texts)
    corpus, _ = read_corpus("d0\tnaïve café 🙂\n".encode(), ["d0"])
    assert corpus.text("d0") == "naïve café 🙂"


def test_wanted_must_be_ids():
    with pytest.raises(ValueError, match="iterable of ids"):
        read_corpus(BEIR, "d1")
    with pytest.raises(ValueError, match="must be strings, got int 1"):
        read_corpus(BEIR, ["d1", 1])
    with pytest.raises(ValueError, match="max_text_bytes"):
        read_corpus(BEIR, ["d1"], max_text_bytes=0)


# --- malformed files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "problem"),
    [
        (BEIR + b'{"_id": "d1", "text": }\n', 4, "not valid JSON (Expecting value at column"),
        (b'{"_id": "d0", "text": "a"}\n\n{"_id": "d1", "title": "t"}\n', 3,
         "JSON record has no 'text'"),
        (b'{"_id": "d1", "text": 5}\n', 1, "'text' must be a string, got an integer"),
        (b'{"_id": "d1", "text": "a", "title": []}\n', 1, "'title' must be a string"),
        (b'{"_id": "d0", "text": "a"}\n["d1", "a"]\n', 2, "expected a JSON object, got an array"),
        (b'{"_id": "d0", "text": "a"}\n{"_id": "d1", "text": "a", "text": "b"}\n', 2,
         "JSON object repeats the key 'text'"),
        (b'{"_id": "d0", "text": "a"}\n{"_id": true, "text": "a"}\n', 2,
         "_id must be a string id, got true"),
        (b'{"_id": "d0", "text": "a"}\n{"doc_id": "d1", "text": "a"}\n', 2,
         "JSON record has no '_id'"),
        (b'{"_id": "d0", "text": "a"}\n{"_id": "", "text": "a"}\n', 2, "empty doc id"),
        (b'{"_id": "d1", "text": "\\ud800"}\n', 1, "text '\\ud800' is not valid UTF-8"),
        (b'{"_id": "d1", "text": "caf\xe9"}\n', 1, "binary or non-UTF-8 data (byte 0xe9"),
        # a line whose id is not wanted is still checked for its id and its end
        (b'{"_id": "d0", "text": "cut sh\n{"_id": "d1", "text": "a"}\n', 1, "not valid JSON"),
        (b'{"_id": "d0", "text": "a"}\nnot json\n', 2, "not valid JSON"),
    ],
)
def test_malformed_json_lines_name_the_file_and_line(data, line, problem):
    exc = error(data)
    assert (exc.source, exc.line) == ("c.jsonl", line)
    assert exc.problem.startswith(problem), exc.problem
    assert str(exc).startswith(f"c.jsonl, line {line}: ")


@pytest.mark.parametrize(
    ("data", "line", "problem"),
    [
        (b"d0\tzero\n\nd1 has no tab\n", 3, "no tab: expected doc_id<TAB>text"),
        (b"d0\tzero\n\td1\n", 2, "empty doc id"),
        (b"d0\tzero\nd1\tbad \xff byte\n", 2, "binary or non-UTF-8 data (byte 0xff at column 8)"),
    ],
)
def test_malformed_tsv_lines_name_the_file_and_line(data, line, problem):
    exc = error(data, name="c.tsv")
    assert (exc.source, exc.line) == ("c.tsv", line) and exc.problem.startswith(problem)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "empty file (no data lines)"),
        (b"\n  \n\t\n", "empty file (no data lines)"),
        (b"just words\n", "not a corpus line"),
        (b'{"id": "d1", "text": "a"}\n', "a JSON record with neither '_id'"),
        (b"\x00\x01\x02binary", "binary or non-UTF-8 data (byte 0x00 at column 1)"),
        (b"d1\ttext\n" + b"\x00" * 100, "binary or non-UTF-8 data"),
        (b"\x1f\x8b\x08not really gzip", "corrupt gzip data"),
    ],
)
def test_files_that_are_not_corpora(data, problem):
    assert error(data).problem.startswith(problem)


def test_paths_that_are_not_files(tmp_path):
    with pytest.raises(LoadError, match="no such file"):
        read_corpus(str(tmp_path / "absent.jsonl"), ["d1"])
    with pytest.raises(LoadError, match="is a directory"):
        read_corpus(tmp_path, ["d1"])


@pytest.mark.parametrize("compress", [False, True])
def test_a_fifo_is_read_as_a_stream(tmp_path, compress):
    fifo = tmp_path / "corpus.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as handle:
            handle.write(gzip.compress(BEIR) if compress else BEIR)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    corpus, report = read_corpus(fifo, ["d2"])
    writer.join(5)
    assert corpus.text("d2") == "no title here" and report.source == "corpus.fifo"


@pytest.mark.parametrize("final_newline", [True, False])
def test_a_line_over_the_limit_is_named(tmp_path, final_newline):
    long_line = b"d4\t" + b"x" * (MAX_LINE_BYTES + 1 - 3)
    data = TSV + long_line + (b"\n" if final_newline else b"")
    with pytest.raises(LoadError) as caught:
        read_corpus(write(tmp_path, "long.tsv", data), ["d1"])
    assert caught.value.line == 4 and "line longer than 16 MB" in caught.value.problem
    corpus, _ = read_corpus(TSV + long_line[:-1] + b"\n", ["d4"])  # at the limit: read
    assert len(corpus.text("d4")) == MAX_LINE_BYTES - 3


def test_the_texts_kept_are_bounded():
    with pytest.raises(LoadError) as caught:
        read_corpus(BEIR, ["d1", "d2", "d3"], file_name="c.jsonl", max_text_bytes=100)
    exc = caught.value
    assert exc.line == 2 and "pass the 100 bytes limit (max_text_bytes)" in exc.problem
    corpus, _ = read_corpus(BEIR, ["d1", "d3"], max_text_bytes=120)  # unwanted lines are free
    assert len(corpus) == 2


# --- the corpus and its report -------------------------------------------------------------


def test_the_corpus_object():
    corpus = Corpus("c", ("a", "b"), ("A", ""), ("one two  three", "four"))
    assert len(corpus) == 2 and "a" in corpus and "z" not in corpus
    assert corpus.text("a") == "one two  three" and corpus.title("b") == ""
    assert corpus.words_per_chunk == 2.0
    assert Corpus("c", (), (), ()).words_per_chunk == 0.0
    with pytest.raises(ValueError, match="differ in length"):
        Corpus("c", ("a",), (), ("x",))
    with pytest.raises(ValueError, match="repeat an id"):
        Corpus("c", ("a", "a"), ("", ""), ("x", "y"))


def test_the_report_summary():
    _, report = read_corpus(BEIR, ["d1", "zz"], file_name="corpus.jsonl")
    assert isinstance(report, CorpusReport)
    assert report.summary() == (
        "corpus.jsonl: 3 lines read, 1 of 2 wanted ids found, 2 lines of other ids skipped, "
        "1 not in the corpus ('zz')"
    )


# --- streaming --------------------------------------------------------------------------------


def _large_corpus(tmp_path, gzipped: bool) -> tuple[str, int]:
    text = " ".join(f"word{i % 97}" for i in range(45))  # ~300 bytes a line
    lines = "".join(f'{{"_id": "d{i:07d}", "title": "", "text": "{text} {i}"}}\n'
                    for i in range(200_000)).encode()
    path = tmp_path / ("big.jsonl.gz" if gzipped else "big.jsonl")
    path.write_bytes(gzip.compress(lines, 1) if gzipped else lines)
    return str(path), len(lines)


@THOROUGH
@pytest.mark.parametrize("gzipped", [False, True])
def test_a_large_file_is_read_as_a_stream(tmp_path, gzipped):
    path, size = _large_corpus(tmp_path, gzipped)
    assert size > 60_000_000
    wanted = [f"d{i:07d}" for i in range(0, 200_000, 2000)] + ["absent"]
    tracemalloc.start()
    try:
        corpus, report = read_corpus(path, wanted)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.found == 100 and report.missing == 1 and report.lines_read == 200_000
    assert corpus.text("d0198000").endswith(" 198000")
    assert peak < size / 10, f"peak {peak:,} bytes for a {size:,}-byte file"
