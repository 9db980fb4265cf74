"""Upload handling without a browser: each file read once through the engine's loaders, a
malformed file reported by name and line while the others are scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import metrics
from dashboard.data import cache
from dashboard.data.cache import FileBytes as Upload
from metrics import SAMPLE_DIR, Conventions, evaluate, load_sample

VIEWER = "a test session"  # the store keeps the files a session shows


def sample_file(name: str) -> Upload:
    return Upload(name, (SAMPLE_DIR / name).read_bytes())


def test_a_malformed_run_is_reported_and_the_rest_is_scored():
    bad = Upload("broken.run", b"q01 Q0 d01 1 high baseline\n")
    inputs = cache.read_uploads(sample_file("qrels.txt"),
                               [sample_file("baseline.run"), bad, sample_file("bm25.run")],
                               Conventions(), viewer=VIEWER)
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
                               [sample_file("baseline.run")], Conventions(), viewer=VIEWER)
    assert not inputs.ready
    assert inputs.qrels.error.startswith("labels.csv, line 2:")
    assert cache.build_view(inputs, ["baseline"], {}, 5, Conventions()) is None


def test_labels_from_a_jsonl_run_when_there_is_no_qrels():
    records = [{"query_id": "a", "retrieved": ["x", "y"], "relevant": {"y": 2}}]
    run = Upload("dense.jsonl", "\n".join(map(json.dumps, records)).encode())
    inputs = cache.read_uploads(None, [run], Conventions(), viewer=VIEWER)
    assert inputs.ready and inputs.qrels.report.format == "jsonl"
    view = cache.build_view(inputs, ["dense"], {"dense": "dense v2"}, 10, Conventions())
    assert view.evaluation.run_names == ["dense v2"]
    assert view.evaluation.run("dense v2").summary["RR"].mean == 0.5


def test_no_qrels_and_a_trec_run_says_what_is_missing():
    inputs = cache.read_uploads(None, [sample_file("baseline.run")], Conventions(),
                                viewer=VIEWER)
    assert not inputs.ready
    # a TREC run carries no labels: the labels are asked for, in their box
    assert inputs.problem.startswith("No qrels file yet: upload the labels in the sidebar's "
                                     "Qrels box. baseline.run is a TREC run")
    assert "give it as a run" not in inputs.problem


def test_nothing_uploaded():
    inputs = cache.read_uploads(None, [], Conventions(), viewer=VIEWER)
    assert not inputs.ready and inputs.problem is None and inputs.run_names == []


def test_same_stem_twice_gets_distinct_names():
    assert metrics.distinct_names(["a", "b", "a", "a"]) == ["a", "b", "a (2)", "a (3)"]
    inputs = cache.read_uploads(sample_file("qrels.txt"),
                               [sample_file("bm25.run"), Upload("bm25.run", b"q01 Q0 d01 1 1 x\n")],
                               Conventions(), viewer=VIEWER)
    assert inputs.run_names == ["bm25", "bm25 (2)"]
    view = cache.build_view(inputs, ["bm25 (2)", "bm25"], {}, 5, Conventions())
    assert view.evaluation.run_names == ["bm25 (2)", "bm25"]


def test_run_order_convention_reaches_the_loader():
    # scores contradict ranks: by score d02 comes first, by rank d01
    run = Upload("tied.run", b"q01 Q0 d01 1 1.0 x\nq01 Q0 d02 2 9.0 x\n")
    qrels = Upload("q.txt", b"q01 0 d01 1\n")
    for order, rr in (("score", 0.5), ("rank", 1.0)):
        inputs = cache.read_uploads(qrels, [run], Conventions(order=order), viewer=VIEWER)
        view = cache.build_view(inputs, ["tied"], {}, 5, Conventions(order=order))
        assert view.evaluation.runs[0].summary["RR"].mean == rr


def test_the_sample_is_read_once_per_order():
    first = cache.read_sample(Conventions(), viewer=VIEWER)
    again = cache.read_sample(Conventions(gain="exponential"), viewer=VIEWER)
    assert first.runs[0] is again.runs[0]  # the cached parse: gain does not change the reading
    for other in (Conventions(order="rank"), Conventions(score_precision="float32")):
        assert cache.read_sample(other, viewer=VIEWER).runs[0] is not first.runs[0]
    assert first.run_names == ["baseline", "reranked", "bm25"]


# ------------------------------------------------------------------ what a change recomputes


class Counted:
    """Wraps an engine function and counts the calls that reach it."""

    def __init__(self, function):
        self.function, self.calls = function, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


@pytest.fixture
def counted(monkeypatch):
    """The engine's prepare (id matching, alignment) and evaluate_prepared (scoring) as the
    cache calls them, counted, with every cache emptied first."""
    cache.store().clear()
    calls = {"prepare": Counted(cache.prepare), "evaluate": Counted(cache.evaluate_prepared),
             "load_run": Counted(cache.read_run)}
    monkeypatch.setattr(cache, "prepare", calls["prepare"])
    monkeypatch.setattr(cache, "evaluate_prepared", calls["evaluate"])
    monkeypatch.setattr(cache, "read_run", calls["load_run"])
    yield calls
    cache.store().clear()


UPLOADED = (sample_file("qrels.txt"),  # one upload each: the same file ids every rerun
            [sample_file(f"{n}.run") for n in ("baseline", "reranked", "bm25")])


def sample_uploads(conventions=None):
    """What the sidebar reads on a rerun: the same uploads, read through the cache."""
    return cache.read_uploads(*UPLOADED, conventions or Conventions(), viewer=VIEWER)


def test_a_new_k_is_read_from_the_scores_not_reloaded_realigned_or_rescored(counted):
    inputs = sample_uploads()
    cache.build_view(inputs, ["baseline", "bm25"], {}, 5, Conventions())
    assert (counted["load_run"].calls, counted["prepare"].calls,
            counted["evaluate"].calls) == (3, 1, 1)
    view = cache.build_view(sample_uploads(), ["baseline", "bm25"], {}, 7, Conventions())
    assert view.evaluation.k == 7
    assert (counted["load_run"].calls, counted["prepare"].calls,
            counted["evaluate"].calls) == (3, 1, 1)
    # the figures are those of scoring at 7
    fresh = evaluate(inputs.qrels.value, [p.value for p in inputs.usable_runs], 7, Conventions())
    for name in ("baseline", "bm25"):
        assert view.evaluation.run(name).summary == fresh.run(name).summary
    # another convention scores again
    cache.build_view(sample_uploads(), ["baseline"], {}, 7, Conventions(gain="exponential"))
    assert counted["evaluate"].calls == 2


def test_a_change_of_gain_shares_what_no_gain_changes_and_both_gains_stay(counted):
    # at 5 runs x 10,000 queries one gain's scores are 457 MB: two did not fit the store
    # beside the files, so every change of gain scored every run again (2.5 s on the
    # Overview, 8 s on Compare)
    names = ["baseline", "reranked", "bm25"]
    linear = cache.build_view(sample_uploads(), names, {}, 5, Conventions())
    alone = cache.store().bytes
    exponential = cache.build_view(sample_uploads(), names, {}, 5, Conventions(gain="exponential"))
    inputs = sample_uploads()
    fresh = evaluate(inputs.qrels.value, [p.value for p in inputs.usable_runs], 5,
                     Conventions(gain="exponential"))
    for name in names:
        assert exponential.evaluation.run(name).summary == fresh.run(name).summary
        was = linear.evaluation.run(name).scores.values
        now = exponential.evaluation.run(name).scores.values
        assert now["P"] is was["P"] and now["AP"] is was["AP"]
        assert now["nDCG"] is not was["nDCG"]
    scored = [entry for entry in cache.store()._entries.values() if entry.kind == "scored"]
    assert len(scored) == 2 and scored[1].nbytes < scored[0].nbytes / 2
    assert cache.store().bytes - alone < scored[0].nbytes / 2
    calls = counted["evaluate"].calls
    for gain in ("linear", "exponential", "linear"):  # flipping back and forth: all kept
        cache.build_view(sample_uploads(), names, {}, 5, Conventions(gain=gain))
    assert counted["evaluate"].calls == calls


def test_hiding_showing_reordering_or_renaming_a_run_does_not_rescore(counted):
    inputs = sample_uploads()
    full = cache.build_view(inputs, ["baseline", "reranked", "bm25"], {}, 5, Conventions())
    some = cache.build_view(inputs, ["bm25", "baseline"], {"bm25": "lexical"}, 5, Conventions())
    assert counted["evaluate"].calls == 1 and counted["prepare"].calls == 1
    assert some.evaluation.run_names == ["lexical", "baseline"]
    # a run's figures and intervals do not depend on which runs are shown beside it
    assert some.evaluation.run("lexical").summary == full.evaluation.run("bm25").summary
    alone = evaluate(inputs.qrels.value, [inputs.usable_runs[2].value], 5, Conventions())
    assert alone.runs[0].summary == full.evaluation.run("bm25").summary


def test_a_run_added_matches_only_its_own_ids_to_the_labels(counted, monkeypatch):
    """A fused run or a run file added aligns every run again (the run set is new), but only
    the new run's ids are matched to the labels' (a string hash pass over its rows); the
    figures are those of scoring every run from scratch."""
    from dataclasses import replace

    from metrics.io import rows

    matched = []
    index_in = rows.index_in
    monkeypatch.setattr(rows, "index_in", lambda values, table: (
        matched.append(len(values)), index_in(values, table))[1])
    inputs = sample_uploads()
    two = replace(inputs, runs=inputs.runs[:2])
    cache.build_view(two, ["baseline", "reranked"], {}, 5, Conventions())
    first = list(matched)
    assert len(first) == 2
    view = cache.build_view(inputs, ["baseline", "reranked", "bm25"], {}, 5, Conventions())
    assert counted["prepare"].calls == 2
    assert matched[len(first):] == [len(inputs.runs[2].value.doc_ids)]  # bm25's alone
    fresh = evaluate(inputs.qrels.value, [p.value for p in inputs.usable_runs], 5, Conventions())
    for name in ("baseline", "reranked", "bm25"):
        assert view.evaluation.run(name).summary == fresh.run(name).summary


def test_the_evaluation_caches_hold_at_most_their_bounds(counted):
    inputs = sample_uploads()
    key = cache.build_view(inputs, ["baseline"], {}, 1, Conventions()).key[0][0]
    ks = range(1, cache.KEPT["evaluation"] + 2)  # one more K than the cache keeps
    for k in ks:
        cache.build_view(inputs, ["baseline"], {}, k, Conventions())
    assert cache.store().count("evaluation") == cache.KEPT["evaluation"]
    assert ("evaluation", (key, ks[-1], Conventions())) in cache.store()  # the newest: kept
    assert ("evaluation", (key, ks[0], Conventions())) not in cache.store()  # the oldest: out
    # (not the gain: an evaluation under the other gain holds the first one's arrays)
    choices = [Conventions(rr=rr, seed=s) for rr in ("cutoff", "full") for s in (1, 2)]
    for conventions in choices[:cache.KEPT["scored"] + 1]:  # one more than kept
        cache.build_view(inputs, ["baseline"], {}, 3, conventions)
    assert cache.store().count("scored") == cache.KEPT["scored"]
    calls = counted["evaluate"].calls
    cache.build_view(inputs, ["baseline"], {}, 3, choices[0])  # the oldest: scored again
    assert counted["evaluate"].calls == calls + 1


def test_a_return_to_any_of_the_last_16_k_tests_nothing_again(counted, monkeypatch):
    # an evaluation leaving the store takes what was computed at its K with it: a person
    # flipping between K must not wait for the tests again (the browser benchmark's pages
    # have used 14 K by the time it reaches Compare)
    compared = Counted(cache.compare_evaluation)
    monkeypatch.setattr(cache, "compare_evaluation", compared)
    names = ["baseline", "reranked", "bm25"]
    options = cache.CompareOptions(names[0], tuple(names[1:]), ("nDCG",), "holm", 0.05)

    def visit(k: int) -> None:
        view = cache.build_view(sample_uploads(), names, {}, k, Conventions())
        assert cache.compare(view, options, []).comparison is not None

    ks = range(1, 17)
    for k in ks:
        visit(k)
    assert compared.calls == len(ks)
    visit(ks[0])  # the first K again, fifteen changes later
    assert compared.calls == len(ks)


def test_a_replaced_upload_leaves_the_store_with_everything_computed_from_it(counted):
    qrels, runs = UPLOADED
    first = cache.read_uploads(qrels, runs, Conventions(), viewer=VIEWER)
    old = cache.build_view(first, first.run_names, {}, 5, Conventions())
    replacement = sample_file("bm25.run")  # a new upload id: another file to the store
    second = cache.read_uploads(qrels, [*runs[:2], replacement], Conventions(),
                                viewer=VIEWER)
    assert ("file", ("run", first.runs[2].key)) not in cache.store()
    assert not any(("evaluation", (old.key[0][0], k, Conventions())) in cache.store()
                   for k in range(1, 10))
    new = cache.build_view(second, second.run_names, {}, 5, Conventions())
    kept = [("file", ("run", parsed.key)) for parsed in second.runs]
    assert all(entry in cache.store() for entry in kept)
    assert cache.store().count("evaluation") == 1
    assert new.evaluation.run_names == old.evaluation.run_names
    assert cache.store().bytes <= cache.STORE_BYTES


def test_a_slow_step_says_so_within_a_fifth_of_a_second():
    """Streamlit's spinner reads its delay from this module constant when it starts."""
    from streamlit.elements import spinner as streamlit_spinner

    assert streamlit_spinner.DELAY_SECS == cache.SPINNER_DELAY_S <= 0.2
    source = Path(streamlit_spinner.__file__).read_text()
    assert "threading.Timer(DELAY_SECS" in source  # read at each start, not bound at import
