"""A retriever evaluated live: the run is what it answered (cut at k, in its order), warm-up
calls are not counted, threads give the same run, a call past its timeout or one that raises
or returns what a run cannot hold is its query's failure, the TREC run and the timings read
back through the project's readers, and the figures are those of the written run scored as
any run file."""

from __future__ import annotations

import csv
import io
import threading
import time

import numpy as np
import pytest

import metrics
from metrics.context.live import evaluate_retriever, ranked_answer
from metrics.core.files import RunSource, evaluate_files
from metrics.io import load_run
from metrics.vocabulary.live import (
    INVALID,
    NOT_ASKED,
    STUCK_TIMEOUTS,
    TIMEOUT,
    TIMINGS_COLUMNS,
)

QUERIES = {f"q{i}": f"text {i}" for i in range(1, 9)}
QRELS = b"".join(f"q{i} 0 d{i} 2\nq{i} 0 d{i + 1} 1\n".encode() for i in range(1, 9))


def lists(text: str) -> list[tuple[str, float]]:
    """A deterministic retriever: query i ranks d_i, d_{i+1}, ... with falling scores, every
    third query with a tie (kept in the order given)."""
    i = int(text.split()[1])
    found = [(f"d{(i + j - 1) % 12 + 1}", 10.0 - j) for j in range(6)]
    if i % 3 == 0:
        found[2] = (found[2][0], found[1][1])  # a tie: the file needs rank scores
    return found


def test_the_run_is_what_the_retriever_answered_cut_at_k(tmp_path):
    result = evaluate_retriever(lists, QUERIES, 4, run_name="dense", out=tmp_path / "d.run",
                                timings_out=tmp_path / "d.csv")
    assert result.query_ids == tuple(QUERIES)
    assert not result.failures and result.answered == 8 and result.cut == 8
    for query, text in QUERIES.items():
        want = lists(text)[:4]
        assert result.ids[query] == tuple(doc for doc, _ in want)
        assert result.scores[query] == tuple(score for _, score in want)
    assert result.rank_scored == ("q3", "q6")
    # the TREC file reads back, through the project's reader, in the order returned
    run, report = load_run(tmp_path / "d.run")
    assert run.name == "d"
    for query in QUERIES:
        rows = np.flatnonzero(run.query == query)
        assert tuple(run.doc[rows]) == result.ids[query]
    assert (tmp_path / "d.run").read_text() == result.trec_text
    assert result.trec_text.splitlines()[0] == "q1 Q0 d1 1 10.0 dense"
    # a tied query has rank scores, n..1; the others keep theirs
    assert [line.split()[4] for line in result.trec_text.splitlines()
            if line.startswith("q3 ")] == ["4.0", "3.0", "2.0", "1.0"]


def test_scores_that_tie_as_32_bit_floats_are_written_as_rank_scores():
    """1 + 2^-30 and 1 differ as doubles but not as float32: trec_eval 9 and pytrec_eval would
    order them by id ("b" before "a"), so the file gets rank scores; and reads back alike."""
    close = evaluate_retriever(lambda text: [("a", 1 + 2**-30), ("b", 1.0)], {"q": "x"}, 5)
    assert close.rank_scored == ("q",) and close.scores["q"] == (1 + 2**-30, 1.0)
    assert close.trec_text == "q Q0 a 1 2.0 live\nq Q0 b 2 1.0 live\n"
    apart = evaluate_retriever(lambda text: [("a", 1.5), ("b", 1.0)], {"q": "x"}, 5)
    assert apart.rank_scored == () and "q Q0 a 1 1.5 live" in apart.trec_text
    tied_in_id_order = evaluate_retriever(lambda text: [("b", 1.0), ("a", 1.0)], {"q": "x"}, 5)
    assert tied_in_id_order.rank_scored == ()  # a tie in trec_eval's own order is kept
    for result in (close, apart, tied_in_id_order):
        for precision in ("double", "float32"):
            run, _ = load_run(result.trec_text.encode(), file_name="r.run",
                              score_precision=precision)
            assert tuple(run.doc) == result.ids["q"]


def test_the_run_name_is_the_one_the_file_loads_under(tmp_path):
    result = evaluate_retriever(lists, QUERIES, 3, out=tmp_path / "dense.v2.run",
                                timings_out=tmp_path / "t.csv")
    assert result.name == load_run(tmp_path / "dense.v2.run")[0].name == "dense.v2"
    assert (tmp_path / "t.csv").read_text().splitlines()[1].startswith("q1,dense.v2,")
    assert evaluate_retriever(lists, QUERIES, 3).name == "live"


def test_ids_alone_are_ranked_as_given_and_integers_read_as_text():
    result = evaluate_retriever(lambda text: [7, "b", "a"], {"q": "x"}, 10)
    assert result.ids["q"] == ("7", "b", "a") and result.scores["q"] is None
    run = result.run
    assert tuple(run.doc) == ("7", "b", "a")  # rank scores 3, 2, 1: the order given


def test_the_timings_file_reads_back_with_its_header(tmp_path):
    result = evaluate_retriever(lists, QUERIES, 5, run_name="bm25",
                                timings_out=tmp_path / "t.csv")
    text = (tmp_path / "t.csv").read_text()
    assert text == result.timings_text
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == TIMINGS_COLUMNS == ("query_id", "run", "latency_ms")
    assert [row[0] for row in rows[1:]] == list(QUERIES)
    assert {row[1] for row in rows[1:]} == {"bm25"}
    for query, _, ms in rows[1:]:
        assert float(ms) == pytest.approx(result.latency_ms[query], abs=5e-4)


def test_latency_is_the_call_alone_in_milliseconds():
    def slow(text):
        time.sleep(0.03)
        return ["a"]

    result = evaluate_retriever(slow, {"q1": "x", "q2": "y"}, 1)
    assert all(30 <= ms < 300 for ms in result.latency_ms.values())
    points = result.latency_points()
    assert points["p50"] == pytest.approx(np.percentile(list(result.latency_ms.values()), 50))


def test_warm_up_calls_come_first_and_are_not_counted():
    asked = []

    def cold_start(text):
        asked.append(text)
        if len(asked) <= 3:  # the first calls pay for loading the index
            time.sleep(0.15)
        return ["a"]

    cold = evaluate_retriever(cold_start, QUERIES, 1)
    assert cold.latency_ms["q1"] >= 150  # without warm-up the first queries pay for it
    asked.clear()
    warm = evaluate_retriever(cold_start, QUERIES, 1, warmup=3)
    assert asked == ["text 1", "text 2", "text 3", *QUERIES.values()]
    assert len(warm.latency_ms) == 8 and max(warm.latency_ms.values()) < 150
    asked.clear()
    evaluate_retriever(cold_start, {"q1": "a", "q2": "b"}, 1, warmup=5)
    assert asked == ["a", "b", "a", "b", "a", "a", "b"]  # from the top again


def test_concurrency_gives_the_same_run_and_calls_at_once():
    in_flight, most = [0], [0]
    lock = threading.Lock()

    def counted(text):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return lists(text)

    one = evaluate_retriever(counted, QUERIES, 5)
    assert most[0] == 1
    four = evaluate_retriever(counted, QUERIES, 5, concurrency=4)
    assert most[0] == 4
    assert four.trec_text == one.trec_text and four.ids == one.ids
    assert list(four.latency_ms) == list(QUERIES)  # the queries' order, not the answers'


def test_a_call_past_its_timeout_is_its_querys_failure_and_is_not_waited_for():
    release = threading.Event()

    def stuck_on_q3(text):
        if text == "text 3":
            release.wait(5)
        return ["a"]

    started = time.perf_counter()
    result = evaluate_retriever(stuck_on_q3, QUERIES, 1, timeout_s=0.1, concurrency=2)
    took = time.perf_counter() - started
    release.set()
    assert took < 2
    assert [(f.query_id, f.kind) for f in result.failures] == [("q3", TIMEOUT)]
    assert "0.1 s timeout" in result.failures[0].message
    assert "q3" not in result.latency_ms and result.answered == 7
    assert "q3" not in result.ids and "q3 " not in result.trec_text
    assert result.still_running == 1


def test_a_call_that_returns_after_its_timeout_is_a_failure_too():
    def late(text):
        time.sleep(0.08 if text == "text 2" else 0)
        return ["a"]

    result = evaluate_retriever(late, {"q1": "text 1", "q2": "text 2"}, 1, timeout_s=0.05)
    assert [(f.query_id, f.kind) for f in result.failures] == [("q2", TIMEOUT)]


def test_a_stuck_retriever_ends_the_evaluation_rather_than_hanging_it():
    release = threading.Event()

    def stuck(text):
        release.wait(10)
        return ["a"]

    started = time.perf_counter()
    result = evaluate_retriever(stuck, QUERIES, 1, timeout_s=0.05)
    took = time.perf_counter() - started
    release.set()
    assert 0.05 + STUCK_TIMEOUTS * 0.05 <= took < 3
    kinds = [f.kind for f in result.failures]
    assert kinds == [TIMEOUT] + [NOT_ASKED] * 7
    assert result.failure_counts() == {NOT_ASKED: 7, TIMEOUT: 1}
    assert result.answered == 0 and result.trec_text == "" and result.still_running == 1
    assert result.failures[1].message == ("1 call still running 0.5 s past the 0.05 s "
                                          "timeout: the retriever looks stuck")


def test_an_overrunning_call_that_returns_in_time_lets_the_others_be_asked():
    def slow_once(text):
        time.sleep(0.3 if text == "text 2" else 0)
        return ["a"]

    result = evaluate_retriever(slow_once, QUERIES, 1, timeout_s=0.1)  # one at a time
    assert [(f.query_id, f.kind) for f in result.failures] == [("q2", TIMEOUT)]
    assert result.answered == 7


def test_an_exception_is_recorded_counted_and_listed():
    def flaky(text):
        if text in ("text 2", "text 5"):
            raise ConnectionError(f"index offline\n  for {text}")
        if text == "text 7":
            raise KeyError("shard")
        if text == "text 8":
            raise SystemExit(3)  # ends no worker: its query's failure too
        return lists(text)

    result = evaluate_retriever(flaky, QUERIES, 3, qrels=QRELS)
    assert [(f.query_id, f.kind, f.message) for f in result.failures] == [
        ("q2", "ConnectionError", "index offline for text 2"),
        ("q5", "ConnectionError", "index offline for text 5"),
        ("q7", "KeyError", "'shard'"), ("q8", "SystemExit", "3")]
    assert result.failure_counts() == {"ConnectionError": 2, "KeyError": 1, "SystemExit": 1}
    assert result.answered == 4
    # a failed query is scored as a query the run does not answer
    assert set(result.evaluation.runs[0].missing_queries) == {"q2", "q5", "q7", "q8"}


@pytest.mark.parametrize("answer, why", [
    (["a b"], "rank 1: the id 'a b' holds white space"),
    (["a", 1.5], "rank 2: the id 1.5 is a float, not a string"),
    ([("a", 1.0), "b"], "rank 2: 'b' mixes ids alone and (id, score) pairs"),
    ([("a", float("nan"))], "rank 1: the score nan is not a finite number"),
    ([("a", "high")], "rank 1: the score 'high' is not a finite number"),
    ([("a", 1.0, 2)], "rank 1: expected an (id, score) pair, got 3 values"),
    ("abc", "expected a list of ids or of (id, score) pairs, got str"),
    (None, "expected a list of ids or of (id, score) pairs, got NoneType"),
    ([""], "rank 1: the id '' is empty"),
    ([True], "rank 1: the id True is a bool, not a string"),
])
def test_an_answer_a_run_cannot_hold_is_its_querys_failure(answer, why):
    result = evaluate_retriever(lambda text: answer, {"q1": "x"}, 5)
    (failure,) = result.failures
    assert failure.kind == INVALID and failure.message.startswith(why)
    with pytest.raises(ValueError):
        ranked_answer(answer, 5)


def test_what_lies_past_k_is_neither_kept_nor_checked():
    result = evaluate_retriever(lambda text: ["a", "b", "c d", None], {"q1": "x"}, 2)
    assert not result.failures and result.ids["q1"] == ("a", "b") and result.cut == 1
    assert evaluate_retriever(lambda text: ["a", "b"], {"q1": "x"}, 2).cut == 0


def test_an_empty_answer_is_answered_but_has_no_line():
    result = evaluate_retriever(lambda text: [] if text == "x" else ["a"], {"q1": "x", "q2": "y"},
                                5, qrels=b"q1 0 a 1\nq2 0 a 1\n")
    assert result.empty == ("q1",) and not result.failures
    assert result.trec_text == "q2 Q0 a 1 1.0 live\n"
    assert result.evaluation.runs[0].missing_queries == ("q1",)


def test_progress_is_called_as_each_query_ends():
    seen = []
    evaluate_retriever(lambda t: (_ for _ in ()).throw(OSError("x")) if t == "text 4"
                       else ["a"], QUERIES, 1, concurrency=3,
                       progress=lambda *a: seen.append(a))
    assert [done for done, _, _ in seen] == list(range(1, 9))
    assert {total for _, total, _ in seen} == {8} and seen[-1][2] == 1


def test_the_figures_are_those_of_the_written_run_scored_as_any_run(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS)
    result = evaluate_retriever(lists, QUERIES, 6, qrels=qrels, out=tmp_path / "live.run",
                                eval_k=3)
    assert result.evaluation.k == 3
    again = evaluate_files(qrels, [RunSource(tmp_path / "live.run", name="live")], k=3)
    for key, interval in again.runs[0].summary.items():
        assert result.evaluation.runs[0].summary[key] == interval
    # and read in memory from a queries file, a Queries or a mapping, alike
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(f'{{"_id": "{q}", "text": "{t}"}}\n' for q, t in QUERIES.items()))
    from_file = evaluate_retriever(lists, queries, 6)
    from_queries = evaluate_retriever(lists, metrics.load_queries(queries), 6)
    assert from_file.trec_text == from_queries.trec_text == evaluate_retriever(
        lists, QUERIES, 6).trec_text


@pytest.mark.parametrize("change, message", [
    ({"k": 0}, "k must be an integer from 1"),
    ({"k": 2.5}, "k must be an integer from 1"),
    ({"eval_k": 0}, "eval_k must be an integer from 1"),
    ({"concurrency": 0}, "concurrency must be an integer from 1 to 256, got 0"),
    ({"concurrency": 2.0}, "concurrency must be an integer"),
    ({"warmup": -1}, "warmup must be an integer from 0"),
    ({"timeout_s": 0}, "timeout_s must be a number of seconds > 0 (or None), got 0"),
    ({"timeout_s": float("inf")}, "timeout_s must be a number of seconds > 0"),
    ({"timeout_s": True}, "timeout_s must be a number of seconds > 0"),
    ({"run_name": ""}, "run_name must be a name a TREC run's tag column can hold, got ''"),
    ({"run_name": "a\x1bb"}, "run_name must be a name a TREC run's tag column"),
    ({"retriever": "bm25"}, "retriever must be callable (text -> ranked ids), got str"),
    ({"progress": 3}, "progress must be callable"),
    ({"queries": {"q 1": "x"}}, "query id 'q 1' holds white space"),
    ({"queries": {"#q": "x"}}, "query id '#q' starts with '#'"),
    ({"queries": {"q1": ""}}, "queries must map query ids to non-blank texts"),
    ({"queries": {}}, "queries holds no query"),
    ({"queries": ["x"]}, "queries must be a queries file, a Queries or a mapping"),
])
def test_arguments_are_checked_first_naming_the_bad_value(change, message):
    calls = []
    arguments = {"retriever": lambda text: calls.append(text) or ["a"], "queries": QUERIES,
                 "k": 5, **change}
    retriever, queries, k = (arguments.pop(n) for n in ("retriever", "queries", "k"))
    with pytest.raises(ValueError) as error:
        evaluate_retriever(retriever, queries, k, **arguments)
    assert message in str(error.value)
    assert not calls


def test_the_public_api_names_it():
    assert metrics.evaluate_retriever is evaluate_retriever
    assert metrics.LiveFailure.__name__ == "Failure"


def test_calls_run_on_concurrency_threads_that_live_through_the_warm_up():
    """What a retriever keeps per thread (a connection, a session) is made once per worker,
    warm-up included, as in a server; the workers end with the evaluation."""
    local, made, threads = threading.local(), [], set()

    def connected(text):
        if not hasattr(local, "connection"):
            local.connection = object()
            made.append(threading.get_ident())
        threads.add(threading.get_ident())
        time.sleep(0.002)
        return ["a"]

    before = threading.active_count()
    evaluate_retriever(connected, QUERIES, 1, concurrency=3, warmup=6)
    assert len(made) == len(threads) <= 3 and threading.get_ident() not in threads
    deadline = time.perf_counter() + 2
    while threading.active_count() > before and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == before
