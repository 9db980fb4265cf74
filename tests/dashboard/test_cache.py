"""Upload handling without a browser: each file read once through the engine's loaders, a
malformed file reported by name and line while the others are scored."""

from __future__ import annotations

import json

import metrics
from dashboard import cache
from dashboard.cache import FileBytes as Upload
from metrics import SAMPLE_DIR, Conventions, load_sample


def sample_file(name: str) -> Upload:
    return Upload(name, (SAMPLE_DIR / name).read_bytes())


def test_a_malformed_run_is_reported_and_the_rest_is_scored():
    bad = Upload("broken.run", b"q01 Q0 d01 1 high baseline\n")
    inputs = cache.read_uploads(sample_file("qrels.txt"),
                               [sample_file("baseline.run"), bad, sample_file("bm25.run")],
                               Conventions())
    assert inputs.ready and inputs.problem is None
    assert inputs.runs[1].error == "broken.run, line 1: score must be a number, got 'high'"
    assert inputs.run_names == ["baseline", "bm25"]
    view = cache.build_view(inputs, ["bm25", "baseline"], {}, 5, Conventions())
    assert view.evaluation.run_names == ["bm25", "baseline"]
    assert view.baseline == "bm25"
    assert view.colour_domain == ("baseline", "bm25")
    expected = load_sample().run("baseline").summary
    assert view.evaluation.run("baseline").summary == expected


def test_a_malformed_qrels_leaves_nothing_to_score():
    inputs = cache.read_uploads(Upload("labels.csv", b"query_id,doc_id,grade\nq1,d1,x\n"),
                               [sample_file("baseline.run")], Conventions())
    assert not inputs.ready
    assert inputs.qrels.error.startswith("labels.csv, line 2:")
    assert cache.build_view(inputs, ["baseline"], {}, 5, Conventions()) is None


def test_labels_from_a_jsonl_run_when_there_is_no_qrels():
    records = [{"query_id": "a", "retrieved": ["x", "y"], "relevant": {"y": 2}}]
    run = Upload("dense.jsonl", "\n".join(map(json.dumps, records)).encode())
    inputs = cache.read_uploads(None, [run], Conventions())
    assert inputs.ready and inputs.qrels.report.format == "jsonl"
    view = cache.build_view(inputs, ["dense"], {"dense": "dense v2"}, 10, Conventions())
    assert view.evaluation.run_names == ["dense v2"]
    assert view.evaluation.run("dense v2").summary["RR"].mean == 0.5


def test_no_qrels_and_a_trec_run_says_what_is_missing():
    inputs = cache.read_uploads(None, [sample_file("baseline.run")], Conventions())
    assert not inputs.ready
    assert inputs.problem.startswith("No qrels file: upload one, or make the first run a JSONL")
    assert "baseline.run" in inputs.problem


def test_nothing_uploaded():
    inputs = cache.read_uploads(None, [], Conventions())
    assert not inputs.ready and inputs.problem is None and inputs.run_names == []


def test_same_stem_twice_gets_distinct_names():
    assert metrics.distinct_names(["a", "b", "a", "a"]) == ["a", "b", "a (2)", "a (3)"]
    inputs = cache.read_uploads(sample_file("qrels.txt"),
                               [sample_file("bm25.run"), Upload("bm25.run", b"q01 Q0 d01 1 1 x\n")],
                               Conventions())
    assert inputs.run_names == ["bm25", "bm25 (2)"]
    view = cache.build_view(inputs, ["bm25 (2)", "bm25"], {}, 5, Conventions())
    assert view.evaluation.run_names == ["bm25 (2)", "bm25"]


def test_run_order_convention_reaches_the_loader():
    # scores contradict ranks: by score d02 comes first, by rank d01
    run = Upload("tied.run", b"q01 Q0 d01 1 1.0 x\nq01 Q0 d02 2 9.0 x\n")
    qrels = Upload("q.txt", b"q01 0 d01 1\n")
    for order, rr in (("score", 0.5), ("rank", 1.0)):
        inputs = cache.read_uploads(qrels, [run], Conventions(order=order))
        view = cache.build_view(inputs, ["tied"], {}, 5, Conventions(order=order))
        assert view.evaluation.runs[0].summary["RR"].mean == rr


def test_the_sample_is_read_once_per_order():
    first = cache.read_sample(Conventions())
    again = cache.read_sample(Conventions(gain="exponential"))
    assert first.runs[0] is again.runs[0]  # the cached parse: gain does not change the reading
    assert cache.read_sample(Conventions(order="rank")).runs[0] is not first.runs[0]
    assert cache.read_sample(Conventions(score_precision="float32")).runs[0] is not first.runs[0]
    assert first.run_names == ["baseline", "reranked", "bm25"]
