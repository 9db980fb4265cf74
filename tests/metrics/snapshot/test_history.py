"""A history store: append and show round trip, the marks against scipy's and statsmodels'
tests on the same per-query figures, the unpaired comparison when a point stores no per-query
figures, a non-comparable append refused naming the difference, and a hostile index refused
naming the file and the entry."""

from __future__ import annotations

import hashlib
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from metrics.cli import main
from metrics.core.evaluate import evaluate
from metrics.snapshot import Snapshot, load, save
from metrics.snapshot.history import Store, append, trend, utc_time
from metrics.snapshot.integrity import seal
from metrics.vocabulary.history import DOWN, INDEX, MAX_LINE_BYTES, PAIRED, UNPAIRED, UP
from tests.metrics.builders import make_qrels, make_run

N = 40  # queries


def _qrels():
    return make_qrels({f"q{i:02d}": {f"d{i}-{j}": 1 for j in range(3)} for i in range(N)})


def _run(depth: list[int], name: str = "system", seed: int = 0):
    """Each query's three relevant ids placed at ranks from `depth` (0: first), the rest
    filler: a deeper placement is a worse run."""
    rng = np.random.default_rng(seed)
    lists = {}
    for i in range(N):
        ids = [f"x{i}-{j}" for j in range(10)]
        start = depth[i]
        for j in range(3):
            ids.insert(min(start + j * int(rng.integers(1, 3)), len(ids)), f"d{i}-{j}")
        lists[f"q{i:02d}"] = ids[:10]
    return make_run(lists, name)


def _snapshot(depth, *, k: int = 5, label: str | None = None, seed: int = 0) -> Snapshot:
    evaluation = evaluate(_qrels(), [_run(depth, seed=seed)], k)
    return Snapshot.from_evaluation(evaluation, label=label, key=None)


GOOD = [0] * N
WORSE = [3 if i % 4 else 0 for i in range(N)]  # three queries in four fall to rank 4
ALMOST = [0 if i != 7 else 1 for i in range(N)]  # one query moves down one rank
MIXED = [1 if i in (3, 11, 19, 27) else 0 for i in range(N)]  # 7 back up, 4 others down


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "store"
    append(root, _snapshot(GOOD, label="good"), time="2026-12-01T02:00:00Z", commit="a1",
           key=None)
    append(root, _snapshot(WORSE), time="2026-12-02T03:00:00+01:00", commit="b2",
           label="worse", key=None)
    append(root, _snapshot(WORSE), time="2026-12-03T02:00:00Z", commit="c3", label="same",
           key=None)
    append(root, _snapshot(ALMOST), time="2026-12-04T02:00:00Z", commit=None, label="almost",
           key=None)
    return root


def test_append_then_show_round_trip(store):
    read = Store.at(store)
    assert [(e.number, e.time, e.commit, e.label) for e in read.entries] == [
        (1, "2026-12-01T02:00:00Z", "a1", "good"), (2, "2026-12-02T02:00:00Z", "b2", "worse"),
        (3, "2026-12-03T02:00:00Z", "c3", "same"), (4, "2026-12-04T02:00:00Z", None, "almost")]
    found = trend(read, metrics=["nDCG", "MRR"], key=None)
    # each point is the figure the snapshot froze, as written
    for point in found.points:
        snapshot = read.snapshot(read.entries[point.entry - 1], key=None)
        assert point.mean == snapshot.run("system").summary[point.label_at_k].mean
    ndcg = [c for c in found.changes if c.metric == "nDCG"]
    assert [(c.before, c.after, c.test) for c in ndcg] == [(1, 2, PAIRED), (2, 3, PAIRED),
                                                          (3, 4, PAIRED)]
    assert ndcg[0].mark == DOWN and ndcg[0].difference < 0
    assert ndcg[1].mark == "" and ndcg[1].same_lists and ndcg[1].difference == 0
    assert ndcg[2].mark == UP  # back to almost good: more than noise
    assert found.k == 5 and found.n_scored == N


def _exact_sign_flip(d: np.ndarray) -> float:
    """The two-sided sign-flip p over every sign pattern of the non-zero differences (zeros
    flip to themselves), by scipy's permutation_test when there are too many to list."""
    nonzero = d[d != 0]
    if nonzero.size > 16:
        return stats.permutation_test((d,), np.mean, permutation_type="samples",
                                      n_resamples=50_000, random_state=1).pvalue
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * nonzero.size)).reshape(nonzero.size, -1)
    flipped = np.abs(nonzero @ signs)
    return float(np.mean(flipped >= abs(nonzero.sum()) - 1e-9))


def test_marks_match_scipy_and_statsmodels_on_the_stored_figures(store):
    # and a small change, whose p is neither 1 nor the smallest a test of 10,000 flips gives
    append(store, _snapshot(MIXED), time="2026-12-05T02:00:00Z", commit="e5", key=None)
    read = Store.at(store)
    found = trend(read, key=None)
    raw, moderate = [], 0
    for change in found.changes:
        before = read.snapshot(read.entries[change.before - 1], key=None)
        after = read.snapshot(read.entries[change.after - 1], key=None)
        label = next(p.label_at_k for p in found.points if p.metric == change.metric)
        column = label.replace("MRR", "RR").replace("MAP", "AP")
        x = np.asarray(before.run("system").per_query[column], dtype=float)
        y = np.asarray(after.run("system").per_query[column], dtype=float)
        d = y - x
        assert change.difference == pytest.approx(d.mean(), abs=1e-12)
        if np.all(d == 0):
            assert change.p == 1.0
        else:  # the sign-flip test against the exact one, within 10,000 flips' error
            reference = _exact_sign_flip(d)
            assert change.p == pytest.approx(reference, abs=0.015)
            moderate += 0.01 < reference < 0.9
        raw.append(change.p)
    holm = multipletests(raw, alpha=0.05, method="holm")
    assert [c.p_adjusted for c in found.changes] == pytest.approx(list(holm[1]), abs=1e-12)
    assert [c.significant for c in found.changes] == [
        bool(r) and c.difference != 0 for r, c in zip(holm[0], found.changes, strict=True)]
    assert len(found.changes) == 4 * 9  # every consecutive pair of the 9 summary figures
    assert moderate >= 5, "no change between noise and certainty was checked"


def test_a_point_without_per_query_figures_is_compared_unpaired_and_said_so(tmp_path):
    first = _snapshot(GOOD).to_dict()
    for row in first["runs"][0]["queries"]:
        del row["nDCG@5"]
    del first["snapshot"]["figures_fingerprint"]
    path = tmp_path / "stripped.json"
    save(seal(first, None), path, key=None)
    root = tmp_path / "store"
    append(root, load(path, key=None), time="2026-12-01T00:00:00Z", commit="a", key=None)
    append(root, _snapshot(WORSE), time="2026-12-02T00:00:00Z", commit="b", key=None)
    found = trend(Store.at(root), metrics=["nDCG", "P"], key=None)
    by_metric = {c.metric: c for c in found.changes}
    assert by_metric["P"].test == PAIRED
    change = by_metric["nDCG"]
    assert change.test == UNPAIRED
    a, b = (p for p in found.points if p.metric == "nDCG")
    z = NormalDist().inv_cdf(0.975)
    se = math.hypot((a.high - a.low) / (2 * z), (b.high - b.low) / (2 * z))
    expected = 2 * stats.norm.sf(abs(b.mean - a.mean) / se)
    assert change.p == pytest.approx(expected, rel=1e-9)
    assert change.low == pytest.approx(b.mean - a.mean - z * se)


def test_an_evaluation_that_is_not_comparable_is_refused_naming_the_difference(store):
    before = (store / INDEX).read_bytes()
    with pytest.raises(ValueError) as refused:
        append(store, _snapshot(GOOD, k=3), time="2026-12-05T00:00:00Z", key=None)
    message = str(refused.value)
    assert str(store / INDEX) in message and "cannot append" in message
    assert "K differs: 5 in the store's entry 1 (2026-12-01T02:00:00Z, commit a1, 'good'), 3 " \
           "in this evaluation" in message
    other = evaluate(make_qrels({"q1": {"a": 1}, "q2": {"b": 1}}),
                     [make_run({"q1": ["a"], "q2": ["b"]}, "system")], 5)
    with pytest.raises(ValueError, match="the query set or its labels differ"):
        append(store, Snapshot.from_evaluation(other, key=None), key=None)
    assert (store / INDEX).read_bytes() == before  # nothing appended
    assert sorted(p.name for p in (store / "snapshots").iterdir()) == [
        "000001.json", "000002.json", "000003.json", "000004.json"]


def _edit_line(store, number: int, **fields):
    lines = (store / INDEX).read_text().splitlines()
    data = json.loads(lines[number - 1])
    data.update(fields)
    lines[number - 1] = json.dumps(data)
    (store / INDEX).write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("fields", "said"), [
    ({"file": "../../etc/passwd"}, "line 3 (entry 2): file must be snapshots/NNNNNN.json, got "
                                   "'../../etc/passwd'"),
    ({"file": "snapshots/000001.json"}, "line 3 (entry 2): entry number or file "
                                        "snapshots/000001.json appears twice"),
    ({"time": "yesterday"}, "line 3 (entry 2): time must be UTC ISO 8601"),
    ({"sha256": "00"}, "line 3 (entry 2): sha256 must be 64 hex digits"),
    ({"entry": -1}, "line 3: entry must be a positive whole number, got -1"),
    ({"label": "a\x1b[31mred"}, "line 3 (entry 2): label must be text"),
    ({"extra": 1}, "line 3 (entry 2): unknown keys ['extra']"),
])
def test_a_hostile_index_is_refused_naming_the_file_and_the_entry(store, fields, said):
    _edit_line(store, 3, **fields)
    with pytest.raises(ValueError) as refused:
        Store.at(store)
    assert str(refused.value).startswith(f"{store / INDEX}: ")
    assert said in str(refused.value)


def test_a_changed_snapshot_file_or_index_header_or_endless_line_is_refused(store):
    path = store / "snapshots" / "000002.json"
    payload = path.read_bytes()
    assert b'"label":null' in payload
    path.write_bytes(payload.replace(b'"label":null', b'"label":"edited"', 1))
    with pytest.raises(ValueError, match=r"index.jsonl: entry 2 \(2026-12-02T02:00:00Z, commit "
                       r"b2, 'worse'\): snapshots/000002.json does not match the SHA-256"):
        trend(Store.at(store), key=None)
    # the snapshot's own figures fingerprint, once the index's sha256 is made to agree
    _edit_line(store, 3, sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    with pytest.raises(ValueError, match=r"000002.json \(entry 2 .*\): the figures were changed"):
        trend(Store.at(store), key=None)
    (store / INDEX).write_bytes(b'{"format": "something else"}\n')
    with pytest.raises(ValueError, match="line 1: not a history index"):
        Store.at(store)
    (store / INDEX).write_bytes(b'{"format": "retrieval-compare history", "version": 1}\n'
                                + b"x" * (MAX_LINE_BYTES * 4))
    with pytest.raises(ValueError, match=f"line 2 is longer than {MAX_LINE_BYTES:,} bytes"):
        Store.at(store)


def test_an_entry_whose_snapshot_mixes_in_another_k_is_refused_by_show(store, tmp_path):
    other = tmp_path / "k3"
    append(other, _snapshot(GOOD, k=3), time="2026-12-09T00:00:00Z", key=None)
    # a hand-made store: an entry of another store copied in
    (store / "snapshots" / "000009.json").write_bytes(
        (other / "snapshots" / "000001.json").read_bytes())
    line = json.loads((other / INDEX).read_text().splitlines()[1]) | {
        "entry": 9, "file": "snapshots/000009.json"}
    with open(store / INDEX, "a") as index:
        index.write(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"entry 9 \(2026-12-09T00:00:00Z\) "
                       r"\(snapshots/000009.json\) cannot be read beside .*K differs: 5 in the "
                       r"first, entry 1 .*, 3 in entry 9"):
        trend(Store.at(store), key=None)


def test_times_are_stored_in_utc_and_must_carry_a_zone():
    assert utc_time("2026-12-02T03:00:00+01:00") == "2026-12-02T02:00:00Z"
    with pytest.raises(ValueError, match="must carry a zone"):
        utc_time("2026-12-02T03:00:00")


def test_the_command_line_appends_and_shows(tmp_path, capsys):
    root = tmp_path / "store"
    for i, label in enumerate(["one", "two"]):
        code = main(["history", "append", "--store", str(root), "--time",
                     f"2026-12-0{i + 1}T02:00:00Z", "--commit", f"c{i}", "--label", label])
        assert code == 0
    capsys.readouterr()
    assert main(["history", "show", "--store", str(root), "--metric", "nDCG", "--run",
                 "bm25", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [p["label"] for p in document["points"]] == ["one", "two"]
    assert document["points"][1]["test"] == PAIRED and document["points"][1]["same_lists"]
    assert document["correction"] == "holm" and document["n_changes"] == 1
    assert [e["figures"] for e in document["entries"]] == ["verified", "verified"]
    assert main(["history", "show", "--store", str(root), "--metric", "MRR"]) == 0
    text = capsys.readouterr().out
    assert "bm25 · MRR@5" in text and "paired; same ranked lists" in text
    assert "scored queries, query set " in text and "; figures 2 verified." in text
    assert "Holm correction over the 3 changes shown" in text
    assert main(["history", "append", "--store", str(root), "--k", "3", "--commit", "x"]) == 1
    assert "K differs: 5 in the store's entry 1" in capsys.readouterr().err
    assert main(["history", "show", "--store", str(root), "--run", "nope"]) == 1
    assert "no entry holds a run named 'nope'" in capsys.readouterr().err


def test_show_holds_one_snapshot_at_a_time_whatever_the_entries(tmp_path, monkeypatch):
    import weakref

    root = tmp_path / "long"
    for day in range(30):
        append(root, _snapshot(GOOD if day % 3 else WORSE), key=None,
               time=f"2026-11-{day + 1:02d}T02:00:00Z")
    alive: list[weakref.ref] = []
    most = 0
    read = Store.snapshot

    def counted(self, entry, **options):
        nonlocal most
        snapshot = read(self, entry, **options)
        alive.append(weakref.ref(snapshot))
        most = max(most, sum(ref() is not None for ref in alive))
        return snapshot

    monkeypatch.setattr(Store, "snapshot", counted)
    found = trend(Store.at(root), metrics=["nDCG"], n_permutations=200, key=None)
    assert len(found.points) == 30 and len(alive) == 30
    assert most <= 3  # the first (the comparability reference), the previous, the one read
