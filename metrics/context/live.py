"""A retriever evaluated live: any callable (a query's text -> its ranked ids, or (id, score)
pairs) called on every query of a queries file, each call timed, and the answers made a run.

    result = evaluate_retriever(search, "queries.jsonl", 10, qrels="qrels.txt",
                                out="bm25.run", timings_out="bm25.timings.csv")

Warm-up calls come first and are not counted. Calls run `concurrency` at a time on as many
worker threads, which live through the warm-up and the evaluation (what a retriever keeps per
thread is made once per worker, as in a server); a call that raises, returns what a run
cannot hold, or runs past `timeout_s` is a failure of its query (counted, listed, never
fatal): `TIMEOUT_RULE` says how an overrunning call is bounded, since Python cannot stop a
thread. The answers are written as a TREC run (`ORDER_RULE`: it reads back as the order
returned) and the latencies as the timings file (`TIMINGS_COLUMNS`, `TIMINGS_RULE`); given
labels, the run is scored as the TREC text reads back, through the same reader and
`evaluate` as any run file.
"""

from __future__ import annotations

import csv
import io
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics.context.fusion import write_trec
from metrics.core.evaluate import Evaluation, evaluate
from metrics.io import LoadReport, Qrels, Queries, Run, load_qrels, load_queries, load_run
from metrics.io.errors import show
from metrics.io.loaders import run_name_of
from metrics.io.writing import write_text
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k
from metrics.vocabulary.format import count, trec_column_problem
from metrics.vocabulary.live import (
    DEFAULT_CONCURRENCY,
    DEFAULT_RUN_NAME,
    DEFAULT_WARMUP,
    INVALID,
    LATENCY_DECIMALS,
    MAX_CONCURRENCY,
    MAX_WARMUP,
    NOT_ASKED,
    STUCK_TIMEOUTS,
    TIMEOUT,
    TIMINGS_COLUMNS,
)
from metrics.vocabulary.numeric import is_number

__all__ = ["Failure", "LiveRun", "evaluate_retriever", "ranked_answer", "timings_text"]

Progress = Callable[[int, int, int], None]  # (queries done, queries in all, failures so far)
MESSAGE_CHARS = 300  # an exception's message is kept to this many characters


@dataclass(frozen=True)
class Failure:
    """One query whose call gave no ranked list: `kind` is the exception's type name,
    TIMEOUT, INVALID or NOT_ASKED; `latency_ms` the time the call took before it failed
    (None when it never returned, or was never made)."""

    query_id: str
    kind: str
    message: str
    latency_ms: float | None

    @property
    def line(self) -> str:
        return f"{self.query_id}: {self.kind}: {self.message}"


@dataclass(frozen=True, eq=False)
class LiveRun:
    """What a live evaluation found: each answered query's ids (cut at k) and scores (None
    where the retriever gave ids alone), its latency, each failed query, and the run as
    written (TREC text) and scored (`evaluation`, None without labels)."""

    name: str
    k: int
    query_ids: tuple[str, ...]  # every query asked, in the queries' order
    ids: dict[str, tuple[str, ...]]  # answered query -> ids in the order returned, cut at k
    scores: dict[str, tuple[float, ...] | None]  # answered query -> scores, or None
    latency_ms: dict[str, float]  # answered query -> its call's wall time (ms)
    failures: tuple[Failure, ...]  # in the queries' order
    warmup: int
    warmup_failures: tuple[Failure, ...]  # warm-up calls that failed (not counted either)
    concurrency: int
    timeout_s: float | None
    wall_s: float  # the timed calls' wall time, first start to last answer
    cut: int  # answered queries whose list was longer than k (cut)
    rank_scored: tuple[str, ...]  # answered queries whose TREC scores are rank scores
    still_running: int  # overrunning calls not yet returned when the evaluation ended
    trec_text: str
    timings_text: str
    run: Run  # the run as the TREC text reads back
    evaluation: Evaluation | None = None
    report: LoadReport | None = field(default=None)  # the TREC text's (None: no line)

    @property
    def answered(self) -> int:
        return len(self.latency_ms)

    @property
    def empty(self) -> tuple[str, ...]:
        """Answered queries whose list was empty: no line of the run, scored as missing."""
        return tuple(q for q in self.query_ids if q in self.ids and not self.ids[q])

    def latency_points(self) -> dict[str, float]:
        """The answered calls' latency in ms: mean, p50, p95, p99 and max (numpy's linear
        percentile), points without intervals; empty when no query was answered."""
        if not self.latency_ms:
            return {}
        ms = np.fromiter(self.latency_ms.values(), dtype=np.float64)
        p50, p95, p99 = np.percentile(ms, [50, 95, 99])
        return {"mean": float(ms.mean()), "p50": float(p50), "p95": float(p95),
                "p99": float(p99), "max": float(ms.max())}

    def failure_counts(self) -> dict[str, int]:
        """Failures by kind, most frequent first."""
        counts: dict[str, int] = {}
        for failure in self.failures:
            counts[failure.kind] = counts.get(failure.kind, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))


# --------------------------------------------------------------------------- the answer


class _Invalid(ValueError):
    """A call returned something a run cannot hold; the message says what."""


def ranked_answer(answer: object, k: int) -> tuple[tuple[str, ...], tuple[float, ...] | None,
                                                    bool]:
    """A call's return value as (ids cut at k, scores or None, whether it was cut).

    An answer is an iterable (not a string) of ids, or of (id, score) pairs, all alike; an id
    is a string (an integer is read as its decimal text) that a TREC column can hold
    (`trec_column_problem`), a score a finite real number. Anything else raises ValueError
    naming the rank and the value."""
    if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
        raise _Invalid(f"expected a list of ids or of (id, score) pairs, got "
                       f"{type(answer).__name__}")
    ids: list[str] = []
    scores: list[float] = []
    paired: bool | None = None
    cut = False
    for rank, item in enumerate(answer, 1):
        if rank > k:  # what lies past k is neither kept nor checked
            cut = True
            break
        is_pair = isinstance(item, tuple | list)
        if paired is None:
            paired = is_pair
        elif paired != is_pair:
            raise _Invalid(f"rank {rank}: {_shown(item)} mixes ids alone and (id, score) pairs")
        if is_pair:
            if len(item) != 2:
                raise _Invalid(f"rank {rank}: expected an (id, score) pair, got {len(item)} "
                               "values")
            doc, score = item
            if not (math.isfinite(score) if type(score) is float else is_number(score)):
                raise _Invalid(f"rank {rank}: the score {_shown(score)} is not a finite number")
            scores.append(float(score))
        else:
            doc = item
        if type(doc) is not str and isinstance(doc, int) and not isinstance(doc, bool):
            doc = str(doc)
        if type(doc) is not str and not isinstance(doc, str):
            raise _Invalid(f"rank {rank}: the id {_shown(doc)} is a {type(doc).__name__}, not "
                           "a string")
        ids.append(doc)
    # every id a TREC column can hold: one check of them all (each rule is of a character, or
    # of an empty id), then one by one only to name the first that cannot be
    if not all(ids) or trec_column_problem("".join(ids)) is not None:
        for rank, doc in enumerate(ids, 1):
            problem = trec_column_problem(doc)
            if problem is not None:
                raise _Invalid(f"rank {rank}: the id {show(doc)} {problem}")
    return tuple(ids), (tuple(scores) if paired else None), cut


def _shown(value: object, limit: int = 60) -> str:
    """A returned value as Python writes it (repr: every control character escaped), cut."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- the calls


@dataclass
class _Call:
    index: int
    query_id: str
    text: str
    started: float = 0.0  # perf_counter when a worker took it


def _make(retriever: Callable[[str], object], call: _Call, k: int) -> tuple[object, float]:
    """One call, timed around the call alone: ((ids, scores, cut) or a Failure, its ms)."""
    started = time.perf_counter()
    try:
        answer = retriever(call.text)
        took = (time.perf_counter() - started) * 1000
        return ranked_answer(answer, k), took
    except _Invalid as error:
        took = (time.perf_counter() - started) * 1000
        return Failure(call.query_id, INVALID, str(error), took), took
    except BaseException as error:  # noqa: BLE001 - SystemExit too: a worker that ended
        # without recording its call would leave the evaluation waiting for it
        took = (time.perf_counter() - started) * 1000
        message = " ".join(str(error).split()) or "(no message)"
        return Failure(call.query_id, type(error).__name__, message[:MESSAGE_CHARS], took), took


class _Worker(threading.Thread):
    """A daemon thread making calls one after another, so that what a retriever keeps per
    thread (a connection, a session) is made once, as in a server. Retired when a call of
    its runs past the timeout: it ends once that call returns."""

    def __init__(self, pool: _Pool) -> None:
        super().__init__(daemon=True, name="retriever")
        self.pool = pool
        self.call: _Call | None = None  # the call it is making (the pool's lock guards it)
        self.retired = False

    def run(self) -> None:
        pool = self.pool
        while True:
            call = pool.take(self)
            if call is None:
                return
            outcome, took = _make(pool.retriever, call, pool.k)
            if not pool.finish(self, call, outcome, took):
                return


class _Pool:
    """`concurrency` workers taking calls from one list and recording what each call ended
    in; TIMEOUT_RULE for the calls that overrun (at most `concurrency` retired workers still
    running; a stuck retriever's queries left NOT_ASKED).

    The workers record their own outcomes (and call `progress`, one at a time, outside the
    timed call): the thread that waits for them wakes only at a call's deadline, so that it
    takes no share of the interpreter from the calls being timed."""

    def __init__(self, retriever: Callable[[str], object], k: int, concurrency: int,
                 timeout_s: float | None) -> None:
        self.retriever, self.k = retriever, k
        self.concurrency, self.timeout_s = concurrency, timeout_s
        self.lock = threading.Condition()
        self.waiting: deque[_Call] = deque()
        self.closed = False
        self.active: list[_Worker] = []
        self.retired: list[_Worker] = []
        # the calls being asked now (a warm-up, then the timed ones), and their outcomes
        self.asked: dict[int, _Call] = {}
        self.outcomes: dict[int, tuple[object, float]] = {}
        self.progress: Progress | None = None

    def take(self, worker: _Worker) -> _Call | None:
        """The next call for this worker (None: the pool is closed)."""
        with self.lock:
            while not self.waiting and not self.closed:
                self.lock.wait()
            if self.closed:
                return None
            call = self.waiting.popleft()
            call.started = time.perf_counter()
            worker.call = call
            return call

    def finish(self, worker: _Worker, call: _Call, outcome: object, took: float) -> bool:
        """Record a call's outcome (unless it was already recorded as overrunning); whether
        the worker takes another call (not when it is retired)."""
        with self.lock:
            worker.call = None
            if call.index in self.asked and call.index not in self.outcomes:
                if (self.timeout_s is not None and took > self.timeout_s * 1000
                        and not isinstance(outcome, Failure)):
                    outcome = Failure(call.query_id, TIMEOUT, f"took {took:,.0f} ms, over "
                                      f"the {self.timeout_s:g} s timeout", took)
                self._record(call.index, outcome, took)
            if worker.retired:
                self.lock.notify_all()  # a slot may be free again
                return False
            return True

    def _record(self, index: int, outcome: object, took: float) -> None:
        """(Under the lock.) One call's outcome; all of them: the waiting thread is woken."""
        self.outcomes[index] = (outcome, took)
        if self.progress is not None:
            self.progress(len(self.outcomes), len(self.asked),
                          sum(isinstance(o, Failure) for o, _ in self.outcomes.values()))
        if len(self.outcomes) == len(self.asked):
            self.lock.notify_all()

    def close(self) -> int:
        """No more calls: idle workers end; the retired ones still running are counted."""
        with self.lock:
            self.closed = True
            self.lock.notify_all()
        return sum(worker.is_alive() for worker in self.retired)

    def ask(self, calls: list[_Call], progress: Progress | None) -> dict[int, tuple[object,
                                                                                   float]]:
        """Every call made; the outcome of each by index and its milliseconds (nan for a
        call that never returned or was never made)."""
        timeout_s = self.timeout_s
        stuck_since: float | None = None
        with self.lock:
            self.asked = {call.index: call for call in calls}
            self.outcomes = {}
            self.progress = progress
            self.waiting.extend(calls)
            self.lock.notify_all()
            while len(self.outcomes) < len(calls):
                now = time.perf_counter()
                if timeout_s is not None:  # the calls past their time: failures, retired
                    for worker in [w for w in self.active if w.call is not None
                                   and now - w.call.started >= timeout_s]:
                        worker.retired = True
                        self.active.remove(worker)
                        self.retired.append(worker)
                        self._record(worker.call.index, Failure(
                            worker.call.query_id, TIMEOUT, f"no answer within the "
                            f"{timeout_s:g} s timeout (the call was left to finish, unread)",
                            None), math.nan)
                self.retired = [w for w in self.retired if w.is_alive()]
                while (self.waiting and len(self.active) < self.concurrency
                       and len(self.retired) < self.concurrency):
                    worker = _Worker(self)
                    self.active.append(worker)
                    worker.start()
                if self.waiting and not self.active:  # every slot held by an overrun
                    stuck_since = stuck_since or now
                    if now - stuck_since >= STUCK_TIMEOUTS * timeout_s:
                        rest, self.waiting = list(self.waiting), deque()
                        for call in rest:
                            self._record(call.index, Failure(
                                call.query_id, NOT_ASKED, f"{count(len(self.retired), 'call')}"
                                f" still running {STUCK_TIMEOUTS * timeout_s:g} s past the "
                                f"{timeout_s:g} s timeout: the retriever looks stuck", None),
                                         math.nan)
                        continue
                else:
                    stuck_since = None
                wait = None
                if timeout_s is not None:
                    ends = [w.call.started + timeout_s for w in self.active
                            if w.call is not None]
                    if stuck_since is not None:
                        ends.append(stuck_since + STUCK_TIMEOUTS * timeout_s)
                    wait = max(0.0, min([*ends, now + timeout_s]) - time.perf_counter())
                if len(self.outcomes) < len(calls):
                    self.lock.wait(wait)
            self.progress = None
            return self.outcomes


# --------------------------------------------------------------------------- the files


def _trec_scores(ids: tuple[str, ...], scores: tuple[float, ...] | None) -> tuple[list[float],
                                                                                   bool]:
    """The scores a TREC file gives these ids so that every reader reads it back in this
    order (score descending, ties by id descending as a string; scores compared as doubles,
    as trec_eval 10 does, or as 32-bit floats, as trec_eval 9 and pytrec_eval do): the scores
    given when they do, else rank scores n..1 (ORDER_RULE); and whether they are rank
    scores."""
    if scores is not None:
        narrow = np.asarray(scores, dtype=np.float32).tolist()
        if all(_in_order(ids, values) for values in (scores, narrow)):
            return list(scores), False
    return [float(len(ids) - i) for i in range(len(ids))], True


def _in_order(ids: tuple[str, ...], scores: Sequence[float]) -> bool:
    return all(scores[i] > scores[i + 1] or (scores[i] == scores[i + 1] and ids[i] > ids[i + 1])
               for i in range(len(ids) - 1))


def timings_text(name: str, latency_ms: Mapping[str, float]) -> str:
    """The timings file: CSV with the header TIMINGS_COLUMNS, one row per query timed, in
    the order given. Ids are written as they are (quoted by the CSV rules where they must
    be), not made safe for a spreadsheet: they must match the run's ids to be read beside it,
    and a live run's ids are TREC columns (no white space, no control character)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TIMINGS_COLUMNS)
    writer.writerows((query, name, f"{ms:.{LATENCY_DECIMALS}f}")
                     for query, ms in latency_ms.items())
    return out.getvalue()


# --------------------------------------------------------------------------- the entry


def evaluate_retriever(
    retriever: Callable[[str], object],
    queries: Queries | Mapping[str, str] | str | os.PathLike | bytes,
    k: int,
    *,
    run_name: str | None = None,
    warmup: int = DEFAULT_WARMUP,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout_s: float | None = None,
    progress: Progress | None = None,
    qrels: Qrels | str | os.PathLike | bytes | None = None,
    out: str | os.PathLike | None = None,
    timings_out: str | os.PathLike | None = None,
    eval_k: int | None = None,
    conventions: Conventions | None = None,
) -> LiveRun:
    """Call `retriever` on every query's text and return what it answered, how long each
    call took and which failed; write the TREC run to `out` and the timings to `timings_out`
    when given; score the run against `qrels` when given (as `evaluate` scores a run file),
    its figures read at `eval_k` (default k). `run_name` (the TREC tag and the timings' run
    column) defaults to the name `out` loads under (its file name without extensions, as
    every reader names a run file), else DEFAULT_RUN_NAME.

    `queries`: a queries file (path or bytes, read by `load_queries`), a `Queries`, or a
    mapping query id -> text. `k`: each list is cut at k ids (it may hold fewer). `warmup`:
    calls made first (the first queries' texts, again from the top if more are asked) and not
    counted. `concurrency`: calls at once (threads). `timeout_s`: seconds a call may take
    (None: no limit). `progress(done, total, failures)`: called as each query ends
    (by the worker threads, one at a time, outside the timed call).
    Arguments are checked first (ValueError naming the bad value); the calls' failures never
    raise: they are `LiveRun.failures`.
    """
    k = check_k(k)
    eval_k = k if eval_k is None else check_k(eval_k, name="eval_k")
    if not callable(retriever):
        raise ValueError(f"retriever must be callable (text -> ranked ids), got "
                         f"{type(retriever).__name__}")
    if run_name is None:  # the name the run file loads under, so the timings match it
        run_name = DEFAULT_RUN_NAME if out is None else run_name_of(os.fspath(out))
    if not isinstance(run_name, str) or trec_column_problem("_".join(run_name.split())):
        raise ValueError(f"run_name must be a name a TREC run's tag column can hold, got "
                         f"{run_name!r}")
    if not is_number(warmup, integer=True) or not 0 <= warmup <= MAX_WARMUP:
        raise ValueError(f"warmup must be an integer from 0 to {MAX_WARMUP:,}, got {warmup!r}")
    if not is_number(concurrency, integer=True) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ValueError(f"concurrency must be an integer from 1 to {MAX_CONCURRENCY}, got "
                         f"{concurrency!r}")
    if timeout_s is not None and (isinstance(timeout_s, bool) or not is_number(timeout_s)
                                  or not 0 < timeout_s < math.inf):
        raise ValueError(f"timeout_s must be a number of seconds > 0 (or None), got "
                         f"{timeout_s!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable (done, total, failures), got "
                         f"{type(progress).__name__}")
    ids, texts = _asked(queries)
    conventions = conventions or Conventions()
    labels = None
    if qrels is not None:
        labels = qrels if isinstance(qrels, Qrels) else load_qrels(qrels)[0]

    warm = [_Call(-1 - i, ids[i % len(ids)], texts[i % len(ids)]) for i in range(warmup)]
    calls = [_Call(i, query, text) for i, (query, text) in enumerate(zip(ids, texts,
                                                                         strict=True))]
    pool = _Pool(retriever, k, int(concurrency), timeout_s)
    try:
        warm_outcomes = pool.ask(warm, None) if warm else {}
        started = time.perf_counter()
        outcomes = pool.ask(calls, progress)
        wall_s = time.perf_counter() - started
    finally:
        still = pool.close()

    answered_ids: dict[str, tuple[str, ...]] = {}
    answered_scores: dict[str, tuple[float, ...] | None] = {}
    latency: dict[str, float] = {}
    failures = []
    cut = 0
    lists: dict[str, list[str]] = {}
    trec_scores: dict[str, list[float]] = {}
    rank_scored = []
    for i, query in enumerate(ids):
        outcome, took = outcomes[i]
        if isinstance(outcome, Failure):
            failures.append(outcome)
            continue
        got, scores, was_cut = outcome
        answered_ids[query], answered_scores[query], latency[query] = got, scores, took
        cut += was_cut
        if got:
            lists[query] = list(got)
            trec_scores[query], by_rank = _trec_scores(got, scores)
            if by_rank:
                rank_scored.append(query)
    tag = "_".join(run_name.split())
    trec = write_trec(Run.from_lists(run_name, lists, scores=trec_scores), tag) if lists else ""
    timings = timings_text(run_name, latency)
    file_name = os.path.basename(os.fspath(out)) if out is not None else f"{tag}.run"
    if trec:
        run, report = load_run(trec.encode(), file_name=file_name, format="trec",
                               order=conventions.order,
                               score_precision=conventions.score_precision, run_name=run_name,
                               labels=labels)
    else:  # no query answered with an id: an empty run, every labelled query missing from it
        run, report = Run.from_lists(run_name, {}, file_name), None
    evaluation = None
    if labels is not None:
        evaluation = evaluate(labels, [run], eval_k, conventions,
                              reports=None if report is None else {run.name: report})
    if out is not None:
        write_text(out, trec)
    if timings_out is not None:
        write_text(timings_out, timings)
    return LiveRun(
        name=run_name, k=k, query_ids=ids, ids=answered_ids, scores=answered_scores,
        latency_ms=latency, failures=tuple(failures), warmup=int(warmup),
        warmup_failures=tuple(o for o, _ in warm_outcomes.values() if isinstance(o, Failure)),
        concurrency=int(concurrency), timeout_s=timeout_s, wall_s=wall_s, cut=cut,
        rank_scored=tuple(rank_scored), still_running=still, trec_text=trec,
        timings_text=timings, run=run, evaluation=evaluation, report=report)


def _asked(queries: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The query ids and texts, in order; each id one a TREC run's first column can hold."""
    if isinstance(queries, Queries):
        ids, texts = queries.ids, queries.texts
    elif isinstance(queries, Mapping):
        ids, texts = tuple(queries), tuple(queries.values())
        for query, text in zip(ids, texts, strict=True):
            if not isinstance(query, str) or not isinstance(text, str) or not text.strip():
                raise ValueError(f"queries must map query ids to non-blank texts (strings), "
                                 f"got {query!r}: {text!r}")
    elif isinstance(queries, str | bytes | os.PathLike):
        read = load_queries(queries)
        ids, texts = read.ids, read.texts
    else:
        raise ValueError(f"queries must be a queries file, a Queries or a mapping id -> text, "
                         f"got {type(queries).__name__}")
    if not ids:
        raise ValueError("queries holds no query")
    for query in ids:
        problem = trec_column_problem(query, first=True)
        if problem is not None:
            raise ValueError(f"query id {show(query)} {problem}: a TREC run cannot hold it")
    return tuple(ids), tuple(texts)
