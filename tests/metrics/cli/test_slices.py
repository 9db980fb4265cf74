"""--queries and --by on the command line: slices in the JSON and the table, one-line
errors, and the queries file's report on standard error."""

from __future__ import annotations

import json

import pytest

from metrics import Conventions, facets, label_of, load_queries, load_sample, slice_evaluation
from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR
from metrics.vocabulary import SUMMARY_MEASURES

QUERIES = ("query_id,text,intent\n"
           "q01,what is bm25,definition\nq02,how do rerankers work,howto\n"
           "q03,define recall,definition\nq04,best chunk size for rag,howto\n"
           "q05,ndcg vs map,comparison\nq06,what is mrr,definition\nq07,how to pick k,howto\n"
           "q08,hybrid search,comparison\nq09,dense retrieval with e5,howto\n"
           "q10,=cmd|calc,other\nq99,not in the qrels,other\n")


@pytest.fixture
def queries_file(tmp_path):
    path = tmp_path / "queries.csv"
    path.write_text(QUERIES)
    return path


def sample_args(*more: str) -> list[str]:
    return ["--qrels", str(SAMPLE_DIR / "qrels.txt"),
            "--run", str(SAMPLE_DIR / "baseline.run"),
            "--run", str(SAMPLE_DIR / "reranked.run"), "--k", "5", *more]


def test_json_carries_each_run_s_summary_per_slice(capsys, queries_file):
    assert main(sample_args("--queries", str(queries_file), "--by", "intent",
                            "--format", "json")) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    evaluation = load_sample(5)
    expected = slice_evaluation(evaluation, facets(load_queries(queries_file),
                                                   evaluation.scored_ids)["intent"])
    for run in data["runs"]:
        slices = run["slices"]
        assert [s["value"] for s in slices] == [s.value for s in expected]
        assert sum(s["queries"] for s in slices) == data["query_set"]["scored"]
        assert all(s["facet"] == "intent" and s["too_small"] for s in slices)
        assert set(slices[0]["summary"]) == set(run["summary"])  # shaped like the run's own
        for got, piece in zip(slices, expected, strict=True):
            for m in SUMMARY_MEASURES:
                interval = piece.summary[run["name"]][m.key]
                assert got["summary"][label_of(m, 5, Conventions())] == {
                    "mean": interval.mean, "low": interval.low, "high": interval.high,
                    "interval": interval.method}
    assert "1 query not in the qrels (never scored): q99" in err


def test_the_table_shows_every_slice_and_its_size(capsys, queries_file):
    assert main(sample_args("--queries", str(queries_file), "--by", "intent")) == 0
    out, _ = capsys.readouterr()
    assert "By intent: each slice evaluated alone" in out
    for value in ("howto", "definition", "comparison", "other"):
        assert value in out
    assert "4 queries (too few)" in out


def test_without_by_the_json_has_no_slices(capsys, queries_file):
    assert main(sample_args("--queries", str(queries_file), "--format", "json")) == 0
    out, err = capsys.readouterr()
    assert all("slices" not in run for run in json.loads(out)["runs"])
    assert "queries.csv: 11 queries read" in err


@pytest.mark.parametrize("argv, message", [
    (["--by", "intent"], "--by needs --queries"),
    (["--queries", "QUERIES", "--by", "topic"],
     "--by 'topic': queries.csv has no such facet; its facets: 'query length (words)', "
     "'intent'"),
])
def test_a_wrong_by_is_a_one_line_error(capsys, queries_file, argv, message):
    argv = [str(queries_file) if a == "QUERIES" else a for a in argv]
    assert main(sample_args(*argv)) == 2
    _, err = capsys.readouterr()
    assert message in err
