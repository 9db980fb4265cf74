"""Hostile inputs: bounded reading (gzip bombs, huge, sparse and endless files, devices,
FIFOs, pipes), long lines, inputs that used to escape as tracebacks, and silent cases."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.io import (
    MAX_INPUT_BYTES,
    MAX_LINE_BYTES,
    LoadError,
    load_qrels,
    load_run,
    loaders,
    streams,
)

from .test_io import TREC_QRELS, TREC_RUN, error, lists, write

MB = 1 << 20
REPO = Path(__file__).resolve().parents[3]


def text_bomb(expanded: int, line: bytes = b"q1 0 d1 1\n") -> bytes:
    """Gzip of `expanded` bytes of valid-looking qrels lines, made without holding them."""
    block = line * (MB // len(line))
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(block) for _ in range(expanded // len(block))]
    return b"".join(parts) + packer.flush()


def peak_of(call) -> tuple[BaseException | None, int]:
    """The exception `call` raised (or None) and the peak of traced memory meanwhile."""
    tracemalloc.start()
    try:
        call()
    except BaseException as exc:  # handed back to the test
        return exc, tracemalloc.get_traced_memory()[1]
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return None, peak


# --- bounded reading ------------------------------------------------------------------------


def test_the_default_bound_is_exported_and_checked():
    assert MAX_INPUT_BYTES == 512 * MB
    with pytest.raises(ValueError, match="max_bytes must be a positive integer, got 0"):
        load_qrels(TREC_QRELS.encode(), max_bytes=0)
    with pytest.raises(ValueError, match="max_bytes must be a positive integer"):
        load_run(TREC_RUN.encode(), max_bytes=1.5)


@pytest.mark.parametrize("as_path", [True, False])
def test_a_gzip_bomb_stops_at_the_bound_in_bounded_memory(tmp_path, as_path):
    bomb = text_bomb(50 * MB)
    assert len(bomb) < MB
    source = write(tmp_path, "bomb.txt.gz", bomb) if as_path else bomb
    exc, peak = peak_of(lambda: load_qrels(source, file_name="bomb.txt.gz", max_bytes=10 * MB))
    assert isinstance(exc, LoadError)
    assert str(exc) == "bomb.txt.gz: expands beyond the 10 MB limit (--max-input-mb)"
    assert peak < 3 * 10 * MB


def test_a_bomb_of_zeros_is_refused_on_its_first_block(tmp_path):
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = b"".join(packer.compress(bytes(MB)) for _ in range(200)) + packer.flush()
    exc, peak = peak_of(lambda: load_run(write(tmp_path, "zeros.gz", bomb)))
    assert isinstance(exc, LoadError) and "binary or non-UTF-8 data (byte 0x00" in str(exc)
    assert peak < 4 * MB


def test_plain_files_and_uploads_over_the_bound(tmp_path):
    text = TREC_QRELS.encode() * 100
    with pytest.raises(LoadError, match=error("q.txt", None, r"is larger than the 1,000 bytes")):
        load_qrels(write(tmp_path, "q.txt", text), max_bytes=1000)
    with pytest.raises(LoadError, match=error("<upload>", None, "is larger than the 1,000 byt")):
        load_qrels(text, max_bytes=1000)
    qrels, _ = load_qrels(write(tmp_path, "q.txt", text), max_bytes=len(text))
    assert len(qrels.line) == 4  # the rest are identical duplicates


def test_gzip_is_bounded_by_its_compressed_size_too(tmp_path):
    empty_members = gzip.compress(b"") * 2000  # 40 kB that expand to nothing
    with pytest.raises(LoadError, match=error("n.gz", None, "is larger than the 32,768 bytes")):
        load_qrels(write(tmp_path, "n.gz", empty_members), max_bytes=32 * 1024)


def test_a_sparse_file_is_refused_as_binary_before_it_is_read(tmp_path):
    path = tmp_path / "sparse.txt"
    with open(path, "wb") as handle:
        handle.truncate(300 * MB)
    exc, peak = peak_of(lambda: load_run(path, max_bytes=100 * MB))
    assert str(exc) == "sparse.txt, line 1: binary or non-UTF-8 data (byte 0x00 at column 1)"
    assert peak < 4 * MB


def test_binary_data_after_the_first_block_is_still_named(tmp_path):
    text = TREC_QRELS.encode() * 10_000 + b"q9 0 d\x009 1\n"
    with pytest.raises(LoadError, match=error("q.txt", 40_001, "binary .*byte 0x00 at column 7")):
        load_qrels(write(tmp_path, "q.txt", text))


def test_devices_and_directories_are_refused_by_type(tmp_path):
    with pytest.raises(LoadError, match=error("/dev/zero", None, "is a device, not a file$")):
        load_run("/dev/zero")
    with pytest.raises(LoadError, match=error(str(tmp_path), None, "is a directory, not a f")):
        load_qrels(tmp_path)
    with pytest.raises(LoadError, match="no such file"):
        load_qrels(tmp_path / "missing.txt")


def test_gzip_members_padding_and_corruption():
    data = gzip.compress(TREC_QRELS[:20].encode()) + gzip.compress(TREC_QRELS[20:].encode())
    qrels, _ = load_qrels(data + b"\x00" * 10, file_name="q.gz")
    assert len(qrels.line) == 4
    with pytest.raises(LoadError, match=error("q.gz", None, "corrupt gzip data")):
        load_qrels(data + b"trailing garbage", file_name="q.gz")
    with pytest.raises(LoadError, match=error("q.gz", None, r"corrupt gzip data \(it ends before")):
        load_qrels(data[:-5], file_name="q.gz")
    with pytest.raises(LoadError, match=error("q.gz", None, "empty file")):
        load_qrels(b"", file_name="q.gz")


# --- FIFOs, pipes and standard input ----------------------------------------------------------


def _feed(path: Path, data: bytes, delay: float = 0.0, repeat: bool = False) -> threading.Thread:
    def run() -> None:
        time.sleep(delay)
        try:
            with open(path, "wb") as handle:
                handle.write(data)
                while repeat:
                    handle.write(data)
        except BrokenPipeError:  # the reader stopped at its bound
            pass

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("delay", [0.0, 0.3])  # a writer already there, or one that comes late
def test_a_fifo_is_read_as_a_stream(tmp_path, delay):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = _feed(fifo, TREC_RUN.encode(), delay)
    run, report = load_run(fifo)
    writer.join(5)
    assert lists(run)["q1"] == ["d2", "d1", "d3"] and report.source == "run.fifo"


def test_an_endless_fifo_stops_at_the_bound(tmp_path):
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    writer = _feed(fifo, TREC_RUN.encode() * 1000, repeat=True)
    with pytest.raises(LoadError, match=error("endless", None, "is larger than the 1 MB limit")):
        load_run(fifo, max_bytes=MB)
    writer.join(5)
    assert not writer.is_alive()


def test_a_fifo_nobody_writes_to_is_not_waited_on_forever(tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "FIFO_WAIT_SECONDS", 0.2)
    fifo = tmp_path / "silent"
    os.mkfifo(fifo)
    with pytest.raises(LoadError, match=error("silent", None, "nothing opened this FIFO")):
        load_qrels(fifo)


# leaves as metrics.cli.run does: pyarrow's threads can abort the teardown of a correct run
_LOAD_ARGV = (
    "import os, sys; from metrics.io import load_run; "
    "run, report = load_run(sys.argv[1]); print(report.source, len(run.line)); "
    "sys.stdout.flush(); os._exit(0)"
)


@pytest.mark.parametrize("path", ["-", "/dev/stdin"])
@pytest.mark.parametrize("compress", [False, True])
def test_standard_input(path, compress):
    data = gzip.compress(TREC_RUN.encode()) if compress else TREC_RUN.encode()
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_ARGV, path], input=data, capture_output=True, cwd=REPO,
        timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    name = "<stdin>" if path == "-" else "stdin"
    assert done.stdout.decode().split() == [name, "4"]


def test_process_substitution(tmp_path):
    path = write(tmp_path, "run.gz", gzip.compress(TREC_RUN.encode()))
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -c "$0" <(gzip -dc "$1")', _LOAD_ARGV, str(path)],
        capture_output=True, cwd=REPO, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split()[1] == "4"


# --- memory and long lines ---------------------------------------------------------------


def test_memory_error_becomes_a_load_error(monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(loaders, "detect", exhausted)
    with pytest.raises(LoadError, match=error("big.txt", None, "too large to load in memory")):
        load_qrels(TREC_QRELS.encode(), file_name="big.txt")
    with pytest.raises(LoadError, match=error("<upload>", None, "too large to load in memory")):
        load_run(TREC_RUN.encode())


@pytest.mark.parametrize(
    ("head", "line"), [("", "q1 0 {} 1"), ("query_id,doc_id,grade\n", "q1,{},1")]
)
def test_long_lines_load_up_to_the_line_limit(head, line):
    rows = [line.format(doc) for doc in ("d0", "d" * (4 * MB), "x")]
    qrels, _ = load_qrels((head + "\n".join(rows) + "\n").encode(), file_name="q")
    assert [len(doc) for doc in qrels.doc.tolist()] == [2, 4 * MB, 1]
    rows = [line.format(doc) for doc in ("d0", "d" * (MAX_LINE_BYTES + 1))]
    problem = r"line of 16,777,2\d\d bytes, over the 16 MB limit for one line"
    with pytest.raises(LoadError, match=error("q", 3 if head else 2, problem)):
        load_qrels((head + "\n".join(rows) + "\n").encode(), file_name="q")


# --- tracebacks that are now one-line errors ------------------------------------------------


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ('{"query_id": "q", "relevant": {"d": 9223372036854775808}}',
         "grade 9223372036854775808 of 'd' is too large"),
        ('{"query_id": "q", "relevant": {"d": -9223372036854775809}}', "grade .* is too large"),
        ('{"query_id": "q", "relevant": ' + "[" * 50_000 + "]" * 50_000 + "}",
         "JSON nested too deeply"),
        ('{"query_id": ' + "7" * 5000 + ', "relevant": []}',
         r"number too long \(over 4,300 digits\)"),
        ('{"query_id": "q", "relevant": ["\\ud800"]}',
         r"id '\\ud800' is not valid UTF-8 \(a lone surrogate escape\)"),
        ('{"query_id": "q\\udfff", "relevant": ["d"]}', "id 'q.udfff' is not valid UTF-8"),
        ('{"query_id": "q", "relevant": {"d\\udc80": 1}}', "id .* is not valid UTF-8"),
    ],
)
def test_jsonl_qrels_errors_name_the_line(record, problem):
    text = '{"query_id": "q0", "relevant": ["d"]}\n' + record + "\n"
    with pytest.raises(LoadError, match=error("q.jsonl", 2, problem)):
        load_qrels(text.encode(), file_name="q.jsonl")


def test_jsonl_run_with_a_surrogate_and_a_valid_pair():
    with pytest.raises(LoadError, match=error("r.jsonl", 1, "id 'a.ud800' is not valid UTF-8")):
        load_run(b'{"query_id": "q", "retrieved": ["a\\ud800"]}\n', file_name="r.jsonl")
    run, _ = load_run(b'{"query_id": "q", "retrieved": ["\\ud83d\\ude00"]}\n', file_name="r.jsonl")
    assert run.doc.tolist() == ["\N{GRINNING FACE}"]


def test_deep_values_are_shown_shortly():
    text = '{"query_id": "q", "relevant": {"d": ' + "[" * 500 + "]" * 500 + "}}\n"
    with pytest.raises(LoadError, match=r"got an array \[\[\[\[\.\.\.\]\]\]\]$"):
        load_qrels(text.encode(), file_name="q.jsonl")


def test_invalid_utf8_in_gzip_names_the_line():
    data = gzip.compress(b"q1 0 d1 1\nq1 0 d\xff 1\n")
    with pytest.raises(LoadError, match=error("q.gz", 2, r"binary or non-UTF-8 .*0xff at col")):
        load_qrels(data, file_name="q.gz")


# --- silent or misleading cases -----------------------------------------------------------


def graded(name: str, grade: int) -> bytes:
    """A qrels file in the format its name says, its second judgment graded `grade` (on the
    line or row LINE[name] gives)."""
    if name.endswith(".parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                                 "grade": [1, grade]}), sink)
        return sink.getvalue().to_pybytes()
    return {
        "q.trec": f"q1 0 d1 1\nq1 0 d2 {grade}\n",
        "q.csv": f"query_id,doc_id,grade\nq1,d1,1\nq1,d2,{grade}\n",
        "q.tsv": f"query_id\tdoc_id\tgrade\nq1\td1\t1\nq1\td2\t{grade}\n",
        "q.jsonl": f'{{"query_id": "q0", "relevant": {{"d1": 1}}}}\n'
                   f'{{"query_id": "q1", "relevant": {{"d2": {grade}}}}}\n',
    }[name].encode()


LINE = {"q.trec": 2, "q.csv": 3, "q.tsv": 3, "q.jsonl": 2, "q.parquet": 2}
GRADED = tuple(LINE)


@pytest.mark.parametrize("name", GRADED)
@pytest.mark.parametrize("grade", [961, 1024, 2**62, -961, -(2**62)])
def test_a_grade_past_what_a_gain_can_hold_is_refused_on_every_reader(name, grade):
    """2^1024 overflows a double: an exponential gain of 1,024 or more made nDCG NaN (exit 0,
    no word), 2^62 made every paired difference infinite (Compare and Export stopped)."""
    unit = "row" if name.endswith(".parquet") else "line"
    where = f"^{name}, {unit} {LINE[name]}"
    with pytest.raises(LoadError, match=f"{where}: grade {grade} is out of range: grades are "
                       "integers from -960 to 960"):
        load_qrels(graded(name, grade), file_name=name)


@pytest.mark.parametrize("name", GRADED)
def test_the_largest_grades_give_finite_figures_under_an_exponential_gain(name):
    """960 and -960 are read; 2^960 - 1 summed over a query's judged ids stays finite."""
    from metrics import Conventions, evaluate

    qrels, _ = load_qrels(graded(name, 960), file_name=name)
    assert qrels.grade.tolist()[-1] == 960
    assert load_qrels(graded(name, -960), file_name=name)[0].grade.tolist()[-1] == -960
    run, _ = load_run(b"q0 Q0 d1 1 3.0 r\nq1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n",
                      file_name="r.run")
    figures = evaluate(qrels, [run], 2, Conventions(gain="exponential")).run("r").summary
    assert figures["nDCG"].mean == 1.0 and all(
        np.isfinite([f.mean, f.low, f.high]).all() for f in figures.values())



@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('query_id,doc_id,grade\nq1,"d\n1",1\nq2,d2,x\n', 2),
        ('query_id,doc_id,grade\n\nq0,d,1\nq1,d1,1\nq1,"d\n\n2",1\nq2,d2,1\n', 5),
        ('query_id,doc_id,grade\nq1,d1,1\nq1,"d2,1\nq2,d2,1\n', 3),  # a quote never closed
    ],
)
def test_a_quoted_line_break_is_refused_where_it_starts(text, line):
    with pytest.raises(LoadError, match=error("q.csv", line, "a quoted cell runs past the end")):
        load_qrels(text.encode(), file_name="q.csv")


def test_quotes_on_one_line_still_load():
    qrels, _ = load_qrels(b'query_id,doc_id,grade\nq1,"d,1",1\nq2,d"2,1\n', file_name="q.csv")
    assert qrels.doc.tolist() == ["d,1", 'd"2'] and qrels.line.tolist() == [2, 3]


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        ("query_id,doc_id,grade,grade", "the header names the column 'grade' twice"),
        ("query_id,doc_id,Grade,grade", "the header names the column 'grade' twice"),
        ("query_id,doc_id,docid,grade", "the header names the doc column twice: 'doc_id' and"),
        ("qid,query_id,doc_id,grade", "the header names the query column twice"),
        ("query_id,doc_id,grade,label", "the header names the grade column twice"),
    ],
)
def test_a_repeated_header_column_is_refused(header, problem):
    cells = ",".join(["x"] * (header.count(",") + 1))
    with pytest.raises(LoadError, match=error("q.csv", 1, problem)):
        load_qrels(f"{header}\n{cells}\n".encode(), file_name="q.csv")


def test_ranks_negative_refused_duplicates_noted():
    text = "query_id,doc_id,rank\nq1,a,1\nq1,b,-2\n"
    with pytest.raises(LoadError, match=error("r.csv", 3, "rank must not be negative, got -2")):
        load_run(text.encode(), file_name="r.csv")
    text = "query_id,doc_id,rank\nq1,a,2\nq1,b,1\nq1,c,1\nq2,d,0\nq2,e,0\nq2,f,0\n"
    run, report = load_run(text.encode(), file_name="r.csv")
    assert lists(run) == {"q1": ["b", "c", "a"], "q2": ["d", "e", "f"]}
    assert report.notes == (
        "line 4: query 'q1' gives rank 1 again (first on line 3); rows of equal rank keep "
        "their line order; 2 more lines repeat a rank",
    )
    _, report = load_run(b"query_id,doc_id,rank\nq1,a,1\nq1,b,2\n", file_name="r.csv")
    assert report.notes == ()


def test_duplicate_ids_in_a_relevant_list_are_noted():
    record = {"query_id": "q1", "relevant": ["d1", "d2", "d1"]}
    qrels, report = load_qrels((json.dumps(record) + "\n").encode(), file_name="q.jsonl")
    assert qrels.doc.tolist() == ["d1", "d2"]
    assert report.notes == ("line 1: 'd1' listed more than once in 'relevant'; counted once",)


# --- property: only LoadError escapes -------------------------------------------------------

_TOKENS = st.sampled_from(
    ["q1", "0", "Q0", "d1", "1", "-1", "2.5", "x", " ", "\t", ",", '"', "\n", "\r", "#",
     "query_id", "doc_id", "grade", "rank", "score", "{", "}", "[", "]", ":", "\x00", "é",
     "\ufeff", "99999999999999999999"]
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                               max_size=4),
    max_leaves=12,
)


@st.composite
def _hostile(draw) -> bytes:
    kind = draw(st.sampled_from(["bytes", "tokens", "gzip", "json", "nested"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "tokens":
        return "".join(draw(st.lists(_TOKENS, max_size=60))).encode()
    if kind == "gzip":
        inner = draw(st.binary(max_size=100) | st.lists(_TOKENS, max_size=40).map(
            lambda tokens: "".join(tokens).encode()))
        packed = gzip.compress(inner)
        cut = draw(st.integers(0, len(packed)))
        return draw(st.sampled_from([packed, packed[:cut], packed + packed, packed + b"x"]))
    if kind == "json":
        record = {"query_id": draw(_JSON), "relevant": draw(_JSON), "retrieved": draw(_JSON)}
        keep = draw(st.sets(st.sampled_from(sorted(record)), min_size=1))
        return (json.dumps({k: record[k] for k in keep}) + "\n").encode()
    depth = draw(st.integers(1, 3000))
    opener = draw(st.sampled_from(["[", '{"a":']))
    closer = "]" if opener == "[" else "}"
    return f'{{"query_id": "q", "relevant": {opener * depth}1{closer * depth}}}\n'.encode()


@settings(max_examples=60, deadline=None)
@given(
    data=_hostile(),
    name=st.sampled_from(["f", "f.gz", "f.csv", "f.jsonl"]),
    format=st.sampled_from(["auto", "trec", "csv", "jsonl"]),
)
def test_hostile_bytes_only_ever_raise_value_error(data, name, format):
    for load in (load_qrels, load_run):
        try:
            load(data, file_name=name, format=format, max_bytes=1 << 16)
        except ValueError:
            pass
