"""Snapshots: fingerprints of rows not bytes, an exact round trip, drift that refuses to mix
query sets, K or conventions, and comparison of live runs against a snapshot's figures."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import math

import numpy as np
import pytest

from metrics import Conventions, RunSource, evaluate, evaluate_files, label_of, load_qrels, load_run
from metrics import snapshot as snap
from metrics.cli import main
from metrics.core.compare import compare_evaluation
from metrics.core.kernel import MEASURES, SUMMARY_MEASURES
from metrics.core.sample import SAMPLE_DIR, load_sample, sample_qrels, sample_runs
from tests.metrics.builders import make_qrels, make_run

QRELS_ROWS = [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1), ("q2", "d4", 1), ("q3", "d5", 0)]
RUN_LISTS = {"q1": ["d2", "d1", "d9"], "q2": ["d4", "d8", "d3"], "q3": ["d5"]}


def write_trec_qrels(path, rows):
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
    return path


def write_trec_run(path, lists, name="run"):
    lines = [
        f"{q} Q0 {d} {rank} {10 - rank}.5 {name}\n"
        for q, docs in lists.items()
        for rank, d in enumerate(docs, start=1)
    ]
    path.write_text("".join(lines))
    return path


@pytest.fixture(scope="module")
def sample_snapshot(sample):
    return snap.Snapshot.from_evaluation(
        sample, label="sample", created="2024-05-01T09:00:00+00:00"
    )


# --------------------------------------------------------------------------- fingerprints


def test_qrels_fingerprint_ignores_format_and_line_order(tmp_path):
    trec = write_trec_qrels(tmp_path / "qrels.txt", QRELS_ROWS)
    shuffled = write_trec_qrels(tmp_path / "shuffled.txt", QRELS_ROWS[::-1])
    csv = tmp_path / "qrels.csv"
    csv.write_text("query_id,doc_id,grade\n" + "".join(f"{q},{d},{g}\n" for q, d, g in QRELS_ROWS))
    padded = tmp_path / "padded.txt"
    padded.write_text("".join(f"{q}\t0\t{d}\t{g}   \n\n" for q, d, g in QRELS_ROWS))
    prints = {snap.fingerprint_qrels(load_qrels(p)[0]) for p in (trec, shuffled, csv, padded)}
    assert len(prints) == 1
    (fingerprint,) = prints
    assert fingerprint.startswith("sha256:") and len(fingerprint) == len("sha256:") + 64


def test_qrels_fingerprint_changes_with_a_grade_a_doc_or_a_query():
    base = snap.fingerprint_qrels(make_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}))
    for changed in (
        {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}},  # a grade
        {"q1": {"d1": 2, "d9": 0}, "q2": {"d3": 1}},  # a doc id
        {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}, "q3": {}},  # a query without judgments
    ):
        assert snap.fingerprint_qrels(make_qrels(changed)) != base


def test_ids_cannot_run_together_in_the_fingerprint():
    # ("q1", "d 1") and ("q1 d", "1") would collide in a naive "query doc" join
    one = make_qrels({"q1": {"d 1": 1}})
    two = make_qrels({"q1 d": {"1": 1}})
    assert snap.fingerprint_qrels(one) != snap.fingerprint_qrels(two)


def test_evaluation_fingerprint_equals_the_qrels_fingerprint(tmp_path):
    qrels, _ = load_qrels(sample_qrels())
    evaluation = load_sample()
    assert snap.evaluation_fingerprints(evaluation)["qrels"] == snap.fingerprint_qrels(qrels)
    # a JSONL query with no relevant list is a query without judgments, kept by both
    jsonl = tmp_path / "both.jsonl"
    jsonl.write_text(
        '{"query_id": "a", "retrieved": ["x", "y"], "relevant": {"x": 2, "z": 1}}\n'
        '{"query_id": "b", "retrieved": ["y"], "relevant": []}\n'
    )
    qrels, _ = load_qrels(jsonl)
    evaluation = evaluate_files(None, [RunSource(jsonl)], 5)
    assert snap.evaluation_fingerprints(evaluation)["qrels"] == snap.fingerprint_qrels(qrels)


def test_run_fingerprint_is_the_ranked_lists_not_the_file(tmp_path):
    trec = write_trec_run(tmp_path / "a.run", RUN_LISTS, name="a")
    # the same lists, lines reversed and another tag: the score still orders them
    reversed_lines = tmp_path / "b.run"
    reversed_lines.write_text(
        "".join(reversed(trec.read_text().splitlines(keepends=True))).replace(" a\n", " other\n")
    )
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"query_id": q, "retrieved": docs}) + "\n" for q, docs in RUN_LISTS.items()
        )
    )
    prints = {snap.fingerprint_run(load_run(p)[0]) for p in (trec, reversed_lines, jsonl)}
    assert len(prints) == 1
    swapped = dict(RUN_LISTS, q1=["d1", "d2", "d9"])
    assert snap.fingerprint_run(make_run(swapped)) != prints.pop()
    assert snap.fingerprint_run(make_run(RUN_LISTS, name="x")) == snap.fingerprint_run(
        make_run(RUN_LISTS, name="y")
    )


# --------------------------------------------------------------------------- snapshots


def test_snapshot_holds_the_engine_figures(sample, sample_snapshot):
    data = sample_snapshot
    header = data.header
    assert header.format == snap.FORMAT and header.version == snap.VERSION
    assert header.tool_version == importlib.metadata.version("retrieval-compare")
    assert header.created == "2024-05-01T09:00:00+00:00" and header.label == "sample"
    assert data.k == 5
    assert {n: getattr(data.conventions, n) for n in Conventions().as_dict()} == (
        sample.conventions.as_dict()
    )
    qrels, _ = load_qrels(sample_qrels())
    assert data.query_set_fingerprint == snap.fingerprint_qrels(qrels)
    assert data.excluded_ids == ("q08",)
    for run_data, source in zip(data.runs, sample_runs(), strict=True):
        assert run_data.fingerprint == snap.fingerprint_run(load_run(source.source)[0])
        run = sample.run(run_data.name)
        for m in SUMMARY_MEASURES:
            figure = run_data.summary[label_of(m, 5, Conventions())]
            assert (figure.mean, figure.low, figure.high) == (
                run.summary[m.key].mean,
                run.summary[m.key].low,
                run.summary[m.key].high,
            )
        per_query = sample.per_query_scores(run.name)
        for i, query_id in enumerate(run_data.query_ids):
            assert query_id == sample.scored_ids[i]
            for m in MEASURES:
                label = label_of(m, 5, Conventions(), summary=False)
                assert run_data.per_query[label][i] == per_query[m.key][i]
    assert data.runs[0].summary["Hit@5"].mean == 7 / 9


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from _floats(item)


def test_round_trip_is_exact(tmp_path, sample_snapshot):
    path = tmp_path / "snap.json"
    snap.save(sample_snapshot, path)
    loaded = snap.load(path)
    assert loaded == sample_snapshot
    before, after = list(_floats(sample_snapshot.to_dict())), list(_floats(loaded.to_dict()))
    assert len(before) > 500
    assert [x.hex() for x in before] == [x.hex() for x in after]
    snap.save(loaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_default_timestamp_is_utc_now(sample):
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    created = dt.datetime.fromisoformat(snap.Snapshot.from_evaluation(sample).header.created)
    assert created.tzinfo is not None and before <= created <= dt.datetime.now(dt.UTC)
    with pytest.raises(ValueError, match="time zone"):
        snap.to_snapshot(sample, created=dt.datetime(2024, 1, 1))


@pytest.mark.parametrize(
    "text, problem",
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"k": 5}', 'no "snapshot" header'),
    ],
)
def test_load_refuses_what_is_not_a_snapshot(tmp_path, text, problem):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=problem) as error:
        snap.load(path)
    assert str(path) in str(error.value)


def test_load_refuses_a_newer_format_and_a_gutted_snapshot(tmp_path, sample_snapshot):
    newer = json.loads(snap.dumps(sample_snapshot))
    newer["snapshot"]["version"] = snap.VERSION + 1
    with pytest.raises(ValueError, match="reads up to"):
        snap.loads(json.dumps(newer))
    gutted = json.loads(snap.dumps(sample_snapshot))
    del gutted["runs"][1]["queries"]
    with pytest.raises(ValueError, match="'reranked' has no queries"):
        snap.loads(json.dumps(gutted))
    with pytest.raises(ValueError, match="not a snapshot"):
        snap.save({"k": 5}, tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()


# --------------------------------------------------------------------------- drift


def test_drift_rows_over_snapshots_of_one_query_set(sample, sample_snapshot):
    later = snap.to_snapshot(sample, created="2024-06-01T09:00:00+00:00")
    rows = snap.drift_rows([sample_snapshot, later])
    assert len(rows) == 2 * len(sample.runs) * len(SUMMARY_MEASURES)
    hit = [r for r in rows if r["run"] == "baseline" and r["metric"] == "Hit"]
    assert [r["created"] for r in hit] == ["2024-05-01T09:00:00+00:00", "2024-06-01T09:00:00+00:00"]
    assert [r["snapshot"] for r in hit] == [0, 1]
    assert {r["mean"] for r in hit} == {7 / 9} and hit[0]["label_at_k"] == "Hit@5"
    assert hit[0]["low"] == sample.run("baseline").summary["Hit"].low
    assert hit[0]["run_fingerprint"].startswith("sha256:")


def _changed_grade_evaluation(tmp_path):
    text = sample_qrels().read_text().replace("q01 0 d01 3", "q01 0 d01 2")
    assert text != sample_qrels().read_text()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(text)
    return evaluate_files(qrels, sample_runs(), 5)


def test_drift_refuses_another_query_set(tmp_path, sample_snapshot):
    other = snap.to_snapshot(_changed_grade_evaluation(tmp_path), created="2024-06-01T00:00:00Z")
    with pytest.raises(ValueError) as error:
        snap.drift_rows([sample_snapshot, other])
    message = str(error.value)
    assert "query set or its labels differ" in message
    assert "the snapshot of 2024-06-01 00:00 (#2)" in message
    assert sample_snapshot.query_set_fingerprint[7:19] in message


def test_drift_refuses_another_k_or_conventions(sample_snapshot):
    at_ten = snap.to_snapshot(load_sample(10))
    with pytest.raises(ValueError, match="K differs: 5 in the first, 10 in this one"):
        snap.drift_rows([sample_snapshot, at_ten])
    exponential = snap.to_snapshot(load_sample(5, Conventions(gain="exponential")))
    with pytest.raises(
        ValueError,
        match="convention gain differs: 'linear' in the first, 'exponential' in this one",
    ):
        snap.drift_rows([sample_snapshot, exponential])
    reseeded = snap.to_snapshot(load_sample(5, Conventions(seed=1)))
    assert snap.mismatches(sample_snapshot, reseeded) == [
        "convention seed differs: 20080101 in the first snapshot, 1 in this snapshot (--seed)"
    ]
    assert snap.mismatches(sample_snapshot, at_ten, flags=False) == [
        "K differs: 5 in the first snapshot, 10 in this snapshot"
    ]
    assert snap.mismatches(sample_snapshot, at_ten)[0].endswith("(--k)")
    with pytest.raises(ValueError, match="non-empty list"):
        snap.drift_rows([])


# --------------------------------------------------------------------------- comparison


def test_compare_with_snapshot_equals_the_live_comparison(sample, sample_snapshot):
    against_snapshot = snap.compare_with_snapshot(sample, sample_snapshot, candidates=["reranked"])
    live = compare_evaluation(sample, baseline="baseline", candidates=["reranked"])
    assert against_snapshot.baseline == "baseline (snapshot 2024-05-01 09:00)"
    assert against_snapshot.metrics == live.metrics
    for a, b in zip(against_snapshot.tests, live.tests, strict=True):
        assert (a.difference, a.low, a.high, a.p_randomization, a.p_adjusted, a.effect_size) == (
            b.difference,
            b.low,
            b.high,
            b.p_randomization,
            b.p_adjusted,
            b.effect_size,
        )
    same = snap.compare_with_snapshot(sample, sample_snapshot, candidates=["baseline"])
    assert all(t.difference == 0 and t.ties == 9 for t in same.tests)


def test_compare_with_snapshot_pairs_by_query_id(tmp_path, sample_snapshot):
    lines = sample_qrels().read_text().splitlines(keepends=True)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(reversed(lines)))  # other query order, same rows
    evaluation = evaluate_files(qrels, sample_runs(), 5)
    assert evaluation.scored_ids != load_sample().scored_ids
    comparison = snap.compare_with_snapshot(evaluation, sample_snapshot, candidates=["baseline"])
    assert all(t.difference == 0 for t in comparison.tests)
    assert comparison.query_ids == tuple(evaluation.scored_ids)


def test_compare_with_snapshot_refuses_a_mismatch(tmp_path, sample_snapshot):
    with pytest.raises(ValueError, match="query set or its labels differ"):
        snap.compare_with_snapshot(_changed_grade_evaluation(tmp_path), sample_snapshot)
    with pytest.raises(ValueError, match="K differs: 5 in the snapshot, 3 in this evaluation"):
        snap.compare_with_snapshot(load_sample(3), sample_snapshot)
    with pytest.raises(ValueError, match="relevance_level differs"):
        snap.compare_with_snapshot(load_sample(5, Conventions(relevance_level=2)), sample_snapshot)
    with pytest.raises(ValueError, match="no run named 'nope'; it has: baseline, reranked, bm25"):
        snap.compare_with_snapshot(load_sample(), sample_snapshot, run="nope")


def test_snapshot_scores_refuse_unpaired_queries(sample_snapshot):
    ids = load_sample().scored_ids
    scores = snap.snapshot_scores(sample_snapshot, ids[::-1], metrics=["nDCG", "RR"])
    assert list(scores) == ["nDCG@5", "MRR@5"]
    expected = load_sample().per_query_scores("baseline")["nDCG"][::-1]
    np.testing.assert_array_equal(scores["nDCG@5"], expected)
    with pytest.raises(ValueError, match="no figure for 1 scored queries \\(zz\\)"):
        snap.snapshot_scores(sample_snapshot, [*ids, "zz"])
    with pytest.raises(ValueError, match="figures for 1 queries not scored here \\(q10\\)"):
        snap.snapshot_scores(sample_snapshot, [q for q in ids if q != "q10"])


def test_in_memory_evaluation_snapshots():
    qrels = make_qrels({"q1": {"d1": 1}, "q2": {"d2": 2}})
    evaluation = evaluate(qrels, [make_run({"q1": ["d1"], "q2": ["d3", "d2"]})], 2)
    data = snap.to_snapshot(evaluation)
    assert data["query_set"]["fingerprint"] == snap.fingerprint_qrels(qrels)
    assert all(math.isfinite(x) for x in _floats(data))


# --------------------------------------------------------------------------- command line


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_snapshot_then_compare_against_it(tmp_path, capsys):
    path = tmp_path / "old.json"
    code, out, err = run_cli(capsys, "snapshot", "--out", str(path), "--label", "May")
    assert code == 0 and out == ""
    assert f"written to {path}" in err and "baseline.run: 100 lines read" in err
    data = snap.load(path)
    assert data.header.label == "May" and data.k == 5
    assert data.runs[0].summary["Hit@5"].mean == 7 / 9

    qrels, reranked = str(sample_qrels()), str(SAMPLE_DIR / "reranked.run")
    # on the user's files K defaults to 10, but to the snapshot's K with --snapshot
    code, out, err = run_cli(
        capsys,
        "compare",
        "--snapshot",
        str(path),
        "--qrels",
        qrels,
        "--run",
        reranked,
        "--format",
        "json",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["k"] == 5 and result["candidates"] == ["reranked"]
    assert result["baseline"] == f"baseline (snapshot {snap.created_minute(data.header)})"
    assert result["snapshot"]["run"] == "baseline" and result["snapshot"]["file"] == str(path)
    assert result["snapshot"]["query_set_fingerprint"] == data.query_set_fingerprint
    live = compare_evaluation(load_sample(), candidates=["reranked"])
    assert [row["p_randomization"] for row in result["comparisons"]] == [
        row["p_randomization"] for row in live.rows()
    ]

    code, out, _ = run_cli(
        capsys,
        "compare",
        "--snapshot",
        str(path),
        "--snapshot-run",
        "bm25",
        "--run",
        reranked,
        "--qrels",
        qrels,
    )
    assert code == 0 and "reranked vs bm25 (snapshot" in out


def test_cli_compare_refuses_a_snapshot_of_another_query_set(tmp_path, capsys):
    path = tmp_path / "old.json"
    assert run_cli(capsys, "snapshot", "--out", str(path))[0] == 0
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(sample_qrels().read_text().replace("q01 0 d01 3", "q01 0 d01 1"))
    run = str(SAMPLE_DIR / "reranked.run")
    code, out, err = run_cli(
        capsys, "compare", "--snapshot", str(path), "--qrels", str(qrels), "--run", run
    )
    assert code == 1 and out == ""
    error = err.strip().splitlines()[-1]
    assert error.startswith("error: cannot compare this evaluation with the snapshot of")
    assert "query set or its labels differ" in error
    code, _, err = run_cli(
        capsys,
        "compare",
        "--snapshot",
        str(path),
        "--run",
        run,
        "--qrels",
        str(sample_qrels()),
        "--k",
        "3",
    )
    assert code == 1 and "K differs: 5 in the snapshot, 3 in this evaluation (--k)" in err
    code, _, err = run_cli(capsys, "compare", "--snapshot", str(path), "--gain", "exponential")
    assert code == 1 and "convention gain differs" in err and "(--gain)" in err


def test_cli_snapshot_errors_are_one_line(tmp_path, capsys):
    code, _, err = run_cli(capsys, "snapshot")
    assert code == 2 and err.count("\n") == 1 and "--out" in err
    code, _, err = run_cli(capsys, "compare", "--snapshot-run", "x")
    assert code == 2 and "--snapshot-run needs --snapshot" in err
    missing = tmp_path / "missing.json"
    code, _, err = run_cli(capsys, "compare", "--snapshot", str(missing))
    assert code == 1 and err.count("\n") == 1 and "missing.json" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _, err = run_cli(capsys, "compare", "--snapshot", str(bad))
    assert code == 1 and f"error: {bad}: not a snapshot" in err


def test_compare_without_snapshot_keeps_its_rule(capsys):
    code, _, err = run_cli(
        capsys, "compare", "--qrels", str(sample_qrels()), "--run", str(SAMPLE_DIR / "bm25.run")
    )
    assert code == 2 and "baseline and at least one candidate" in err


# --------------------------------------------------------------------------- names


def test_a_snapshot_keys_a_figure_by_its_label_under_its_conventions():
    full = snap.Snapshot.from_evaluation(load_sample(5, Conventions(rr="full", ap="full")))
    assert {"MRR", "MAP", "P@5"} <= set(full.runs[0].summary)
    assert {"RR", "AP", "P@5"} <= set(full.runs[0].per_query)
    assert not {"MRR@5", "MAP@5", "RR@5", "AP@5"} & {*full.runs[0].summary,
                                                     *full.runs[0].per_query}


def test_a_snapshot_written_before_labels_followed_the_conventions_still_reads():
    """Until labels followed the conventions, RR and AP read over the full list were keyed
    as read at K ("MRR@5", "RR@5"): such a snapshot reads, keeps its bytes and its figures
    fingerprint, and its figures are found under today's labels by scores, drift and
    comparison."""
    from metrics.snapshot.integrity import seal

    evaluation = load_sample(5, Conventions(rr="full", ap="full"))
    written = json.loads(snap.dumps(snap.to_snapshot(evaluation,
                                                     created="2024-05-01T09:00:00+00:00")))
    before = {"MRR": "MRR@5", "MAP": "MAP@5", "RR": "RR@5", "AP": "AP@5"}
    for run in written["runs"]:
        run["summary"] = {before.get(k, k): v for k, v in run["summary"].items()}
        run["queries"] = [{before.get(k, k): v for k, v in row.items()}
                          for row in run["queries"]]
    old = snap.loads(json.dumps(seal(written, None)))
    assert old.verified
    assert json.loads(snap.dumps(old)) == written  # written back as it was read
    scores = old.scores(evaluation.scored_ids, run="reranked", metrics=["RR", "AP", "nDCG"])
    assert list(scores) == ["MRR", "MAP", "nDCG@5"]
    live = evaluation.per_query_scores("reranked")
    for key, label in (("RR", "MRR"), ("AP", "MAP")):
        np.testing.assert_array_equal(scores[label], live[key])
    rows = snap.drift_rows([old, snap.to_snapshot(evaluation)])
    mrr = [r for r in rows if r["run"] == "bm25" and r["metric"] == "MRR"]
    assert [r["label_at_k"] for r in mrr] == ["MRR", "MRR"]
    assert mrr[0]["mean"] == mrr[1]["mean"] == evaluation.run("bm25").summary["RR"].mean
    comparison = snap.compare_with_snapshot(evaluation, old, run="bm25", candidates=["bm25"])
    assert {"MRR", "MAP"} <= set(comparison.metrics)
    assert all(t.difference == 0 for t in comparison.tests)
    assert snap.same_run_note(old, evaluation, run="bm25",
                              candidates=["bm25"]).endswith("their per-query figures agree.")
