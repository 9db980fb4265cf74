"""Every engine gives a hostile input the in-memory engine's verdict: the same exit status and
the same one-line error naming the file (and the row), or the same acceptance. Each file is
run through `python -m metrics` in memory, with `--engine blocks` and with `--engine spark`
(thorough: the JVM and a job per file); the in-memory verdict is checked too (refused, and
with what, or scored)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.cli import main
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_OK
from tests.marks import THOROUGH

QRELS = {"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["d1", "d2", "d1", "d3"],
         "grade": [1, 2, 1, 1]}
RUN = {"query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["d1", "d2", "d3", "d1", "d3"],
       "rank": [1, 2, 1, 2, 1], "score": [0.9, 0.8, 0.7, 0.6, 0.5]}
HEAD = {key: values[:2] for key, values in RUN.items()}  # a directory's two parts
TAIL = {key: values[2:] for key, values in RUN.items()}


def not_utf8(values: list[str], at: int) -> pa.Array:
    """Strings whose value at `at` starts with the byte 0x80, which no UTF-8 text holds
    (pyarrow stores such bytes in a Parquet string column unchecked, as other writers may)."""
    raw = [b"\x80" + v.encode() if i == at else v.encode() for i, v in enumerate(values)]
    offsets = np.cumsum([0, *map(len, raw)]).astype(np.int32)
    buffers = [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(raw))]
    return pa.Array.from_buffers(pa.string(), len(values), buffers)


def run_with(**columns) -> pa.Table:
    return pa.table({**RUN, **columns})


def scored_by(score: list) -> pa.Table:
    """The run ordered by its scores alone."""
    return pa.table({"query_id": RUN["query_id"], "doc_id": RUN["doc_id"], "score": score})


def qrels_with(**columns) -> pa.Table:
    return pa.table({**QRELS, **columns})


def empty(columns: dict, text: tuple[str, ...] = ("query_id", "doc_id")) -> pa.Table:
    return pa.table({key: pa.array([], pa.string() if key in text else pa.int64())
                     for key in columns})


def damaged(path: Path) -> None:
    """A run of 100 rows whose footer says its rank column holds 70 values (in many small
    pages: a reader stops at 70), as a file cut short or written wrongly may: read whole it
    gave "Column 2 named rank expected length 100 but got length 70", naming no file."""
    rows = 100
    pq.write_table(pa.table({"query_id": [f"q{i % 3 + 1}" for i in range(rows)],
                             "doc_id": [f"d{i}" for i in range(rows)],
                             "rank": list(range(1, rows + 1))}), path, data_page_size=64,
                   write_batch_size=10, use_dictionary=False, write_statistics=False)
    raw = path.read_bytes()
    start = len(raw) - 8 - int.from_bytes(raw[-8:-4], "little")
    # the Thrift field "num_values: 100" (type i64, zigzag varint c8 01) of each column
    # chunk; the rank column's is the one that, changed to 70 (8c 01), the footer reads so
    for at in [m.start() for m in re.finditer(b"\x16\xc8\x01", raw[start:-8])]:
        path.write_bytes(raw[:start + at + 1] + b"\x8c" + raw[start + at + 2:])
        if pq.ParquetFile(path).metadata.row_group(0).column(2).num_values == 70:
            return
    raise AssertionError("no num_values field found")


def bomb(path: Path) -> None:
    """1,100 rows repeating one 512 KB doc id held once in a dictionary page: a few KB on
    disk, 550 MB once read (the issue's 26 MB file decoded to 6 GB and took Spark's JVM
    down)."""
    zeros = pa.array(np.zeros(1_100, dtype=np.int32))
    pq.write_table(pa.table({
        "query_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["q1"])),
        "doc_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["x" * (512 << 10)])),
        "rank": pa.array(np.arange(1, 1_101))}), path, compression="zstd",
                   store_schema=False)  # read back as plain strings, as other writers give


@dataclass(frozen=True)
class Hostile:
    name: str
    kind: str  # the file it replaces: "qrels" or "run"
    write: Callable[[Path], None]  # writes the file (or the directory) at the path given
    refused: str | None  # what the in-memory error line says (after "error: "); None: scored


def table(t: pa.Table) -> Callable[[Path], None]:
    return lambda path: pq.write_table(t, path)


def directory(*parts: pa.Table, also: dict[str, str] | None = None) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.mkdir()
        for i, part in enumerate(parts):
            pq.write_table(part, path / f"part-{i}.parquet")
        for name, text in (also or {}).items():
            (path / name).write_text(text)
    return write


OUT_OF_RANGE = "is out of range: grades are integers from -960 to 960"
HOSTILE = [
    Hostile("nan score", "run", table(scored_by([0.9, float("nan"), 0.7, 0.6, 0.5])),
            "run.parquet, row 2: score must be a number, got nan"),
    Hostile("rank -3", "run", table(run_with(rank=[1, -3, 1, 2, 1])),
            "run.parquet, row 2: rank must not be negative, got -3"),
    Hostile("rank 1.5", "run", table(run_with(rank=[1, 1.5, 1, 2, 1])),
            "run.parquet, row 2: rank must be an integer, got 1.5"),
    Hostile("doc id not utf-8", "run", table(run_with(doc_id=not_utf8(RUN["doc_id"], 1))),
            "run.parquet, row 2: doc id b'\\x80d2' is not valid UTF-8 (byte 0x80 at byte 1)"),
    Hostile("query id not utf-8", "run", table(run_with(query_id=not_utf8(RUN["query_id"], 2))),
            "run.parquet, row 3: query id b'\\x80q2' is not valid UTF-8"),
    Hostile("qrels id not utf-8", "qrels", table(qrels_with(doc_id=not_utf8(QRELS["doc_id"], 1))),
            "qrels.parquet, row 2: doc id b'\\x80d2' is not valid UTF-8"),
    Hostile("list query ids", "run", table(run_with(query_id=[[q] for q in RUN["query_id"]])),
            "run.parquet: the query id column holds list<element: string>, not strings or "
            "integers"),
    Hostile("zero-row run", "run", table(empty(RUN)), "run.parquet: no data rows"),
    Hostile("zero-row qrels", "qrels", table(empty(QRELS)), "qrels.parquet: no data rows"),
    Hostile("a directory holding a README", "run",
            directory(pa.table(RUN), also={"README.md": "# the parts\n"}),
            "run.parquet/README.md: not a Parquet file"),
    Hostile("a CSV named .parquet", "run",
            lambda path: path.write_text("query_id,doc_id,rank\nq1,d1,1\n"),
            "run.parquet: not a Parquet file"),
    Hostile("a column named twice", "run", table(pa.Table.from_arrays(
        [pa.array(RUN["query_id"]), pa.array(RUN["doc_id"]), pa.array(RUN["rank"]),
         pa.array(RUN["query_id"])], names=["query_id", "doc_id", "rank", "query_id"])),
        "run.parquet: the schema names the column 'query_id' twice"),
    Hostile("uint64 rank", "run", table(run_with(rank=pa.array(RUN["rank"], pa.uint64()))),
            None),
    Hostile("uint64 rank past int64", "run",
            table(run_with(rank=pa.array([1, 2**64 - 1, 1, 2, 1], pa.uint64()))),
            "run.parquet, row 2: rank 18446744073709551615 is too large"),
    Hostile("parts typing the ids and ranks otherwise", "run", directory(
        pa.table(HEAD), pa.table({**TAIL, "doc_id": [1, 2, 3],
                                  "rank": [str(r) for r in TAIL["rank"]]})), None),
    Hostile("parts typing the ranks as text and as floats", "run", directory(
        pa.table({**HEAD, "rank": ["1", "2"]}), pa.table({**TAIL, "rank": [1.0, 2.0, 1.0]})),
        "run.parquet/part-1.parquet: the rank column holds double where "
        "run.parquet/part-0.parquet holds text (string)"),
    Hostile("parts typing the scores as text and as floats", "run", directory(
        pa.table({**HEAD, "score": ["0.9", "0.8"]}), pa.table(TAIL)), None),
    Hostile("float rank against int rank", "run", directory(
        pa.table(HEAD), pa.table({**TAIL, "rank": [float(r) for r in TAIL["rank"]]})), None),
    Hostile("struct doc ids against strings", "run", directory(
        pa.table(HEAD), pa.table({**TAIL, "doc_id": [{"a": d} for d in TAIL["doc_id"]]})),
        "run.parquet/part-1.parquet: the doc id column holds struct<a: string>, not strings "
        "or integers"),
    Hostile("a null query id", "run", table(run_with(query_id=["q1", None, "q2", "q2", "q3"])),
            "run.parquet, row 2: no query id (a null)"),
    Hostile("a null judged id", "qrels", table(qrels_with(doc_id=["d1", None, "d1", "d3"])),
            "qrels.parquet, row 2: no doc id (a null)"),
    Hostile("binary ids", "run", table(run_with(
        doc_id=pa.array([d.encode() for d in RUN["doc_id"]], pa.binary()))),
        "run.parquet: the doc id column holds binary, not strings or integers"),
    Hostile("timestamp ranks", "run",
            table(run_with(rank=pa.array(RUN["rank"], pa.timestamp("ms")))),
            "run.parquet: the rank column holds timestamp[ms], not integers"),
    Hostile("grade 2^62", "qrels", table(qrels_with(grade=[1, 2**62, 1, 1])),
            f"qrels.parquet, row 2: grade {2**62} {OUT_OF_RANGE}"),
    Hostile("grade 1024", "qrels", table(qrels_with(grade=[1, 1024, 1, 1])),
            f"qrels.parquet, row 2: grade 1024 {OUT_OF_RANGE}"),
    Hostile("uint64 grade past int64", "qrels",
            table(qrels_with(grade=pa.array([1, 2**64 - 1, 1, 1], pa.uint64()))),
            "qrels.parquet, row 2: grade 18446744073709551615 is too large"),
    Hostile("decimal ranks, one not whole", "run",
            table(run_with(rank=pa.array([Decimal(r) for r in ("1", "1.5", "1", "2", "1")],
                                            pa.decimal128(5, 1)))),
            "run.parquet, row 2: rank must be an integer, got 1.5"),
    Hostile("integer scores past 2^53", "run", table(scored_by([2**60, 3, 2, 1, 0])), None),
    Hostile("a footer that counts fewer ranks than rows", "run", damaged,
            "run.parquet: damaged: row group 1 holds 100 rows but 70 values of its rank "
            "column"),
    Hostile("16-bit float scores", "run",
            table(scored_by(pa.array(np.array([0.9, 0.8, 0.7, 0.6, 0.5], np.float16)))),
            "run.parquet: the score column holds 16-bit floats, which not every engine reads"),
    Hostile("empty file", "run", lambda path: path.write_bytes(b""),
            "run.parquet: not a Parquet file"),
    Hostile("a dictionary-page bomb", "run", bomb,
            "run.parquet: decodes to as much as 550.0 MB once read (a string value its rows "
            "repeat), beyond the 512 MB limit (--max-input-mb)"),
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, list[str]]:
    """Each hostile file beside a good one of the other kind: its command line."""
    argv = {}
    for case in HOSTILE:
        folder = tmp_path_factory.mktemp("hostile")
        pq.write_table(pa.table(QRELS), folder / "qrels.parquet")
        pq.write_table(pa.table(RUN), folder / "run.parquet")
        (folder / f"{case.kind}.parquet").unlink()
        case.write(folder / f"{case.kind}.parquet")
        argv[case.name] = ["--qrels", str(folder / "qrels.parquet"),
                           "--run", str(folder / "run.parquet"), "--k", "3"]
    return argv


def verdict(argv: list[str], capsys, engine: str | None = None) -> tuple[int, str | None]:
    """The exit status and the first error line (without the engine's name), None when
    scored; a traceback fails the test."""
    code = main([*argv, *(["--engine", engine] if engine else [])])
    err = capsys.readouterr().err
    first = next((line for line in err.splitlines() if line.startswith("error: ")), None)
    if first is not None and engine:
        first = re.sub(rf"\b{engine}\b", "<engine>", first)
    return code, first


@pytest.mark.parametrize("engine", ["blocks", pytest.param("spark", marks=THOROUGH)])
@pytest.mark.parametrize("case", HOSTILE, ids=[case.name for case in HOSTILE])
def test_every_engine_gives_a_hostile_file_the_in_memory_verdict(case, engine, folders,
                                                                   capsys, request):
    if engine == "spark":
        request.getfixturevalue("spark")
    argv = folders[case.name]
    memory = verdict(argv, capsys)
    if case.refused is None:
        assert memory == (EXIT_OK, None)
    else:
        assert memory[0] == EXIT_BAD_INPUT and memory[1].startswith(f"error: {case.refused}")
    assert verdict(argv, capsys, engine) == memory
