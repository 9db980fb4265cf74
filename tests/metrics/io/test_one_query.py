"""One query's rows read on demand (metrics.io.one_query) give that query's list exactly as
loading the whole file gives it, from Parquet (row groups skipped by their statistics),
TREC, CSV and JSONL text, gzipped or not, paths or bytes; a bad line is named by its line in
the whole file; a query the file lacks gives None."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.io import LoadError, load_qrels, load_run
from metrics.io.one_query import load_query_qrels, load_query_run
from tests.metrics.core.test_blocks import collection, trec_text


def lists_of(run) -> dict[str, list[str]]:
    doc = run.doc
    return {str(q): [str(d) for d in doc[run.query_code == i]]
            for i, q in enumerate(run.query_ids)}


def grades_of(qrels, query: str) -> dict[str, int]:
    rows = qrels.query == query
    return dict(zip(map(str, qrels.doc[rows]), qrels.grade[rows].tolist(), strict=True))


@pytest.fixture(scope="module")
def columns():
    qrels, runs = collection(21, n_queries=40)
    return qrels, runs[0]


def written(tmp_path, run: dict, kind: str):
    if kind == "parquet":
        path = tmp_path / "run.parquet"
        pq.write_table(pa.table(run), path, row_group_size=25)
    elif kind == "parquet-shuffled":
        path = tmp_path / "run.parquet"
        order = np.random.default_rng(4).permutation(len(run["query_id"]))
        pq.write_table(pa.table(run).take(pa.array(order)), path, row_group_size=25)
    elif kind == "trec":
        path = tmp_path / "run.trec"
        path.write_text(trec_text(run))
    elif kind == "trec.gz":
        path = tmp_path / "run.trec.gz"
        path.write_bytes(gzip.compress(trec_text(run).encode()))
    elif kind == "csv":
        path = tmp_path / "run.csv"
        path.write_text("query_id,doc_id,score\n" + "".join(
            f"{q},{d},{s}\n" for q, d, s in zip(run["query_id"], run["doc_id"], run["score"],
                                                 strict=True)))
    else:
        path = tmp_path / "run.jsonl"
        by_query: dict[str, list[str]] = {}
        order = sorted(range(len(run["query_id"])), key=lambda i: (run["query_id"][i],
                                                                   -run["score"][i]))
        for i in order:
            by_query.setdefault(run["query_id"][i], []).append(run["doc_id"][i])
        path.write_text("".join(json.dumps({"query_id": q, "retrieved": docs}) + "\n"
                                for q, docs in by_query.items()))
    return path


@pytest.mark.parametrize("kind", ["parquet", "parquet-shuffled", "trec", "trec.gz", "csv",
                                  "jsonl"])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_one_querys_list_is_the_whole_files(tmp_path, columns, kind, as_bytes):
    _, run = columns
    path = written(tmp_path, run, kind)
    whole = lists_of(load_run(path)[0])
    source = path.read_bytes() if as_bytes else path
    for query in [*sorted(set(run["query_id"]))[:12], "q039", "zz1"]:
        got = load_query_run(source, query, file_name=path.name)
        if query not in whole:
            assert got is None
            continue
        assert lists_of(got) == {query: whole[query]}, query
        assert got.name == "run"


def test_parquet_reads_only_the_row_groups_that_can_hold_the_query(tmp_path, columns,
                                                                   monkeypatch):
    _, run = columns
    path = written(tmp_path, run, "parquet")  # grouped by query: statistics prune
    read = []
    original = pq.ParquetFile.read_row_groups

    def counting(self, groups, *args, **kwargs):
        read.extend(groups)
        return original(self, groups, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_groups", counting)
    total = pq.ParquetFile(path).metadata.num_row_groups
    load_query_run(path, "q010")
    assert 0 < len(read) <= 2 < total


def test_one_querys_judgments(tmp_path, columns):
    qrels_columns, _ = columns
    whole, _ = load_qrels(pa.table(qrels_columns))
    text = "".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(
        qrels_columns["query_id"], qrels_columns["doc_id"], qrels_columns["grade"], strict=True))
    (tmp_path / "qrels.txt").write_text(text)
    pq.write_table(pa.table(qrels_columns), tmp_path / "qrels.parquet", row_group_size=16)
    for name in ("qrels.txt", "qrels.parquet"):
        for query in ("q000", "q007", "q033"):
            got = load_query_qrels(tmp_path / name, query)
            assert grades_of(got, query) == grades_of(whole, query)
            assert set(map(str, got.query_ids)) == {query}
        assert load_query_qrels(tmp_path / name, "nope") is None


def test_a_bad_line_is_named_by_its_line_in_the_whole_file(tmp_path):
    lines = ["q1 Q0 d1 1 2.0 r", "q2 Q0 d1 1 2.0 r", "q2 Q0 d2 2 x r", "q3 Q0 d1 1 1.0 r"]
    (tmp_path / "bad.run").write_text("\n".join(lines) + "\n")
    assert lists_of(load_query_run(tmp_path / "bad.run", "q3")) == {"q3": ["d1"]}
    with pytest.raises(LoadError, match=r"bad\.run, line 3: "):
        load_query_run(tmp_path / "bad.run", "q2")


def test_an_id_inside_another_id_is_not_taken_for_it(tmp_path):
    (tmp_path / "r.run").write_text("q1 Q0 q10 1 2.0 r\nq10 Q0 d1 1 2.0 r\nq1 Q0 d9 2 1.0 r\n")
    assert lists_of(load_query_run(tmp_path / "r.run", "q1")) == {"q1": ["q10", "d9"]}
    assert lists_of(load_query_run(tmp_path / "r.run", "q10")) == {"q10": ["d1"]}


def test_a_parquet_directorys_bad_row_is_named_by_its_file_and_row(tmp_path):
    """The rows kept of a directory's files are named where they are (a bad score was named
    as the kept rows' first row), and files that type a column otherwise are read as the whole
    read reads them (an ArrowTypeError escaped)."""
    folder = tmp_path / "split"
    folder.mkdir()
    pq.write_table(pa.table({"query_id": ["q1", "q2"], "doc_id": ["a", "b"],
                             "score": [1.0, 3.0]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"query_id": ["q1", "q2", "q2"], "doc_id": [7, 1, 2],
                             "score": [1, 1, 2]}), folder / "part-1.parquet")
    assert lists_of(load_query_run(folder, "q2")) == {"q2": ["b", "2", "1"]}
    pq.write_table(pa.table({"query_id": ["q1", "q2", "q2"], "doc_id": [7, 1, 2],
                             "score": [1, float("nan"), 2]}), folder / "part-1.parquet")
    with pytest.raises(LoadError, match=r"^split/part-1\.parquet, row 2: score must be a "
                       "number, got nan$"):
        load_query_run(folder, "q2")
