"""The queries file under the bounds the qrels and run readers have: a line, the lines a
file holds, a cell, and memory (a one-line error naming the file); the command line in a
child process with capped memory."""

from __future__ import annotations

import pytest

from metrics.inputs.arguments import ReadingOutOfMemory, run_guarded
from metrics.inputs.reading import Inputs
from metrics.io import LoadError, load_queries
from metrics.io.queries import MAX_QUERY_LINES
from tests.marks import THOROUGH
from tests.metrics.capped import run_capped

MB = 1 << 20


def last_error(done) -> str:
    return done.stderr.decode().strip().splitlines()[-1]


def test_a_line_past_16_mb_is_refused_naming_it(tmp_path):
    path = tmp_path / "queries.tsv"
    path.write_bytes(b"q01\tshort\nq02\t" + b"word " * (20 * MB // 5) + b"\nq03\tshort\n")
    done = run_capped(["--queries", str(path)], cap_mb=3072)
    assert done.returncode == 1
    assert last_error(done) == ("error: queries.tsv, line 2: line of 20,971,524 bytes, over "
                                "the 16 MB limit for one line")


def test_millions_of_tiny_records_are_refused_before_they_are_parsed(tmp_path):
    path = tmp_path / "queries.tsv"
    path.write_bytes(b"".join(b"q%d\tx\n" % i for i in range(MAX_QUERY_LINES + 1)))
    done = run_capped(["--queries", str(path)], cap_mb=1024)
    assert done.returncode == 1
    assert last_error(done) == ("error: queries.tsv: 2,000,001 lines, over the 2,000,000 "
                                "limit for a queries file (one query a line)")


def test_a_long_csv_cell_is_said_to_be_too_long_not_malformed():
    data = b'query_id,text,notes\nq1,"a text",' + b"n" * 200_000 + b"\n"
    with pytest.raises(LoadError) as raised:
        load_queries(data, file_name="queries.csv")
    assert str(raised.value) == ("queries.csv, line 2: a cell longer than 131,072 characters, "
                                 "the limit for one cell")


@THOROUGH  # writes 100 MB
def test_out_of_memory_names_the_queries_file(tmp_path):
    path = tmp_path / "queries.tsv"
    line = b"\t" + b"word " * 48 + b"\n"
    path.write_bytes(b"".join(b"q%d" % i + line for i in range(400_000)))
    done = run_capped(["--queries", str(path)], cap_mb=900)
    assert done.returncode == 1
    assert last_error(done).startswith("error: queries.tsv: too large to load in memory")


def test_out_of_memory_elsewhere_names_what_was_being_read(tmp_path, monkeypatch, capsys):
    def exhausted(self):
        raise MemoryError

    monkeypatch.setattr(Inputs, "_read_queries", exhausted)
    inputs = Inputs(queries_file=tmp_path / "queries.tsv")
    with pytest.raises(ReadingOutOfMemory, match=r"queries\.tsv \(--queries\)"):
        inputs.queries()

    def command(_argv):
        return Inputs(queries_file=tmp_path / "queries.tsv").queries()

    assert run_guarded(command, []) == 1
    assert capsys.readouterr().err == ("error: out of memory while reading queries.tsv "
                                       "(--queries): give smaller inputs\n")
