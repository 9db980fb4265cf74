"""The typed snapshot: an exact round trip, old snapshots read under the conventions that made
them, and one ValueError naming the file and the field for every schema problem."""

from __future__ import annotations

import dataclasses
import json

import pytest

from metrics import Conventions, vocabulary
from metrics import snapshot as snap
from metrics.core.sample import load_sample


@pytest.fixture(scope="module")
def snapshot(sample):
    return snap.Snapshot.from_evaluation(sample, label="May", created="2024-05-01T09:00:00+00:00")


def _old_style(snapshot) -> dict:
    """The snapshot as written before score_precision and empty_queries existed (and before
    figures fingerprints)."""
    data = json.loads(snap.dumps(snapshot))
    for field in ("score_precision", "empty_queries"):
        del data["conventions"][field]
    del data["snapshot"]["figures_fingerprint"]
    return data


def _refused(tmp_path, data, *fields) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as error:
        snap.load(path)
    message = str(error.value)
    assert message.startswith(f"{path}: not a snapshot: ")
    for field in fields:
        assert field in message
    return message


def test_round_trip_of_the_typed_snapshot(snapshot):
    assert snap.loads(snap.dumps(snapshot)) == snapshot
    assert snap.dumps(snap.loads(snap.dumps(snapshot))) == snap.dumps(snapshot)
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.k = 10


def test_the_file_keeps_the_layout_of_to_snapshot(sample, snapshot):
    data = snap.to_snapshot(sample, label="May", created="2024-05-01T09:00:00+00:00")
    compact = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    assert snap.dumps(snapshot) == compact + "\n" == snap.dumps(data)
    assert list(data) == ["snapshot", "k", "conventions", "query_set", "runs"]
    assert list(data["runs"][0]) == [
        "name", "repeats", "missing_queries", "ignored_queries", "summary", "queries",
        "suggestion", "diagnosis", "sweep", "fingerprint",
    ]


def test_an_old_snapshot_reads_as_float32_and_excluded(sample, snapshot):
    old = snap.loads(json.dumps(_old_style(snapshot)))
    assert old.verification == "unverified: written before figures fingerprints"
    assert old.conventions.score_precision == "float32"
    assert old.conventions.empty_queries == "exclude"
    # a new evaluation under the default (double) is not comparable with it
    assert old.mismatches(sample) == [
        "convention score_precision differs: 'float32' in the snapshot, 'double' in this "
        "evaluation (--score-precision)"
    ]
    with pytest.raises(ValueError, match=r"score_precision differs.*\(--score-precision\)"):
        snap.compare_with_snapshot(sample, _old_style(snapshot))
    with pytest.raises(ValueError, match="score_precision"):
        snap.drift_rows([_old_style(snapshot), snapshot])
    # scored as the old tool scored, it compares
    float32 = load_sample(5, Conventions(score_precision="float32"))
    assert old.mismatches(float32) == []
    snap.check_comparable(_old_style(snapshot), float32)


def test_mismatch_sentences_name_the_vocabularys_flags(snapshot):
    for field in dataclasses.fields(Conventions):
        value = getattr(snapshot.conventions, field.name)
        other = {"relevance_level": 2, "confidence_level": 0.9, "n_resamples": 7, "seed": 1}.get(
            field.name,
            next((c for c in vocabulary.CHOICES.get(field.name, ()) if c != value), None),
        )
        changed = dataclasses.replace(
            snapshot, conventions=dataclasses.replace(snapshot.conventions, **{field.name: other})
        )
        (sentence,) = snapshot.mismatches(changed)
        flag = vocabulary.flag(field.name)
        assert sentence.startswith(f"convention {field.name} differs: ")
        assert sentence.endswith(f" ({flag})" if flag else "this snapshot")


def test_a_summary_that_is_not_an_object_names_the_field(tmp_path, snapshot):
    data = json.loads(snap.dumps(snapshot))
    data["runs"][1]["summary"] = "x"
    _refused(tmp_path, data, "run 'reranked'", "summary must be an object", "'x'")


@pytest.mark.parametrize("where", ["summary", "queries"])
def test_a_score_outside_zero_one_names_the_field(tmp_path, snapshot, where):
    data = json.loads(snap.dumps(snapshot))
    run = data["runs"][0]
    if where == "summary":
        run["summary"]["nDCG@5"]["mean"] = 1.5
        _refused(tmp_path, data, "run 'baseline'", "summary.nDCG@5.mean", "[0, 1]", "1.5")
    else:
        run["queries"][2]["P@5"] = 1.5
        _refused(tmp_path, data, "run 'baseline'", "queries['q03'].P@5", "[0, 1]", "1.5")


def test_dcg_is_no_score_but_must_be_a_number(tmp_path, snapshot):
    data = json.loads(snap.dumps(snapshot))
    data["runs"][0]["queries"][0]["DCG@5"] = 3.5  # DCG is not bounded by 1
    data["snapshot"]["figures_fingerprint"] = snap.figures_fingerprint(data)  # re-sealed
    assert snap.loads(json.dumps(data)).runs[0].per_query["DCG@5"][0] == 3.5
    data["runs"][0]["queries"][0]["DCG@5"] = "high"
    _refused(tmp_path, data, "queries['q01'].DCG@5", "'high'")


def test_duplicate_query_ids_in_a_run_name_the_field(tmp_path, snapshot):
    data = json.loads(snap.dumps(snapshot))
    data["runs"][2]["queries"][1]["query_id"] = data["runs"][2]["queries"][0]["query_id"]
    _refused(tmp_path, data, "run 'bm25'", "queries", "query_id 'q01' more than once")


@pytest.mark.parametrize(
    "change, fields",
    [
        (lambda d: d["conventions"].update(gain="cubic"), ("conventions", "gain", "cubic")),
        (lambda d: d["conventions"].pop("seed"), ("conventions lack seed",)),
        (lambda d: d.update(k=True), ("k must be a positive integer",)),
        (lambda d: d["snapshot"].update(label=5), ("snapshot.label",)),
        (lambda d: d["runs"][0].update(fingerprint=None), ("run 'baseline'", "fingerprint")),
        (lambda d: d["query_set"].update(excluded="q08"), ("query_set.excluded",)),
        (lambda d: d["query_set"].update(scored=3), ("query_set.scored says 3",)),
        (lambda d: d["runs"][0]["queries"][1].pop("class"), ("the row of 'q02'",)),
        (lambda d: d["runs"][0]["summary"]["P@5"].update(low=None), ("summary.P@5.low",)),
    ],
)
def test_every_schema_problem_names_the_file_and_field(tmp_path, snapshot, change, fields):
    data = json.loads(snap.dumps(snapshot))
    change(data)
    _refused(tmp_path, data, *fields)


def test_a_snapshot_pairs_its_figures_by_run(snapshot, sample):
    assert snapshot.run().name == "baseline" and snapshot.run("bm25").name == "bm25"
    assert snapshot.scored_ids == tuple(sample.scored_ids)
    scores = snapshot.scores(sample.scored_ids, run="bm25", metrics=["Hit"])
    assert scores["Hit@5"].tolist() == sample.per_query_scores("bm25")["Hit"].tolist()
    assert snapshot.k == 5 and not hasattr(snapshot, "__getitem__")  # attributes, not keys
