"""The diversity kernel: subtopic judgments and one run's lists -> the intent-aware measures of
each query at every K, as ndeval (TREC Web track, version 4.5) computes them.

Arrays are queries x ranks x subtopics: `covers[q, i, s]` holds when the id at rank i + 1
of query q's list is relevant to its subtopic s (at its first occurrence; a repeat and an
unjudged id cover nothing). Every measure is a sum over subtopics and a cumulative sum over
ranks; the only loop is the greedy ideal order's, over ideal ranks, every query at once.

ndeval's reading, followed here:
- a subtopic judgment is binary: relevant when its grade is at least the relevance level
  (ndeval clips grades above 1 to 1; pyndeval reads `grade >= rel`);
- S, a query's subtopics, counts only those with at least one relevant id; a query with none
  scores 0 on every measure;
- the novelty gain of the id at rank i is the sum over the subtopics it covers of
  (1 - alpha)^c, c the ids above it covering the same subtopic;
- alpha-nDCG@K divides alpha-DCG@K by the alpha-DCG@K of an ideal order built greedily
  (at each rank the id of most gain, ties to the greater doc id by byte order, as ndeval's
  strcmp); nERR-IA@K divides ERR-IA's sum by the same ideal order's;
- ERR-IA@K divides the sum of gain / rank by S times the sum of (1 - alpha)^(r - 1) / r for r
  up to K ("ideal ideal" normalisation). ndeval leaves ERR-IA@1 undivided (its loop starts
  at the second rank), so that its ERR-IA@1 can exceed 1; here it is divided at every K;
- NRBP and AP-IA read the whole list; the others read the top K.

Intent probabilities, when given, weigh each subtopic: its share of the measure is its
probability over the sum of the probabilities of the query's subtopics that hold a relevant
id (uniform: 1 / S each, ndeval's weights). The weight multiplies each subtopic's term of the
gain (and of the greedy ideal's); S-recall counts subtopics unweighted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from metrics.core.kernel import Curves, Tail, _ratio, _whole_list, discount
from metrics.io.arrow import index_in
from metrics.io.rows import Run
from metrics.io.subtopics import IntentProbabilities, SubtopicQrels
from metrics.vocabulary.cutoffs import MAX_K

__all__ = ["DIVERSITY_KEYS", "Subtopics", "SubtopicSet", "align_subtopics", "diversity",
           "greedy_ideal", "prepare_subtopics"]

# the measures this kernel computes, by key
DIVERSITY_KEYS = ("alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "P_IA", "AP_IA", "StRecall")


@dataclass(frozen=True, eq=False)
class Subtopics:
    """What an evaluation is given for its diversity measures: the subtopic qrels, and the
    intent probabilities when a file gives them (else every subtopic weighs the same)."""

    judged: SubtopicQrels
    intents: IntentProbabilities | None = None


@dataclass(frozen=True, eq=False)
class SubtopicSet:
    """The subtopic side, on the query set's rows, prepared once and shared by every run."""

    query_ids: np.ndarray  # (n,) the query set's ids, its order
    subtopic_names: np.ndarray  # (n, S) object: each query's subtopic ids, "" for padding
    n_relevant: np.ndarray  # (n, S) relevant ids per subtopic
    actual: np.ndarray  # (n,) subtopics holding a relevant id: S
    weight: np.ndarray  # (n, S) each subtopic's multiplier: S p_s / sum p (1 uniform), 0 if none
    doc_names: pa.Array  # the subtopic qrels' distinct doc ids
    pair_keys: np.ndarray  # (m,) sorted: row * n_docs + doc code of each judged pair
    pair_covers: np.ndarray  # (m, S) bool: the subtopics each judged pair is relevant to
    pool: np.ndarray  # (n, D, S) bool: each query's relevant ids, greatest doc id first
    pool_docs: np.ndarray  # (n, D) object: their doc ids ("" for padding)
    ignored_queries: tuple[str, ...]  # subtopic qrels queries not in the query set
    relevance_level: int
    _ideal: dict = field(default_factory=dict)  # alpha -> (n, D, S) greedy ideal order

    @property
    def n_subtopics(self) -> int:
        return self.n_relevant.shape[1]

    def ideal(self, alpha: float) -> np.ndarray:
        """The greedy ideal order's covers at `alpha`, computed once per alpha."""
        if alpha not in self._ideal:
            self._ideal[alpha] = greedy_ideal(self.pool, self.weight, alpha)
        return self._ideal[alpha]


def prepare_subtopics(query_ids, judged: SubtopicQrels, *, relevance_level: int = 1,
                      intents: IntentProbabilities | None = None) -> SubtopicSet:
    """The subtopic judgments on the rows of a query set (`query_ids`, its order): queries
    the subtopic qrels do not name have no subtopic (S = 0, every measure 0, as ndeval);
    subtopic qrels queries outside the query set are ignored and named."""
    query_ids = np.asarray(query_ids, dtype=object)
    n = len(query_ids)
    row_of = index_in(list(judged.query_ids), list(query_ids))
    ignored = tuple(str(q) for q in judged.query_ids[row_of < 0])
    rows = row_of[judged.query_code]
    inside = rows >= 0
    rows, sub, doc = rows[inside], judged.subtopic_code[inside], judged.doc_code[inside]
    relevant = judged.grade[inside] >= relevance_level

    # each query's subtopics, numbered 0.. in order of their ids
    sub_keys = np.unique(np.stack([rows, sub], axis=1), axis=0) if len(rows) else \
        np.zeros((0, 2), dtype=np.int64)
    per_query = np.bincount(sub_keys[:, 0], minlength=n) if len(sub_keys) else np.zeros(n, int)
    width = max(int(per_query.max(initial=0)), 1)
    local_of_key = np.arange(len(sub_keys)) - (np.cumsum(per_query) - per_query)[sub_keys[:, 0]]
    names = np.full((n, width), "", dtype=object)
    names[sub_keys[:, 0], local_of_key] = judged.subtopic_ids[sub_keys[:, 1]]
    n_subs = max(len(judged.subtopic_ids), 1)
    key_index = np.searchsorted(sub_keys[:, 0] * n_subs + sub_keys[:, 1], rows * n_subs + sub)
    local = local_of_key[key_index] if len(rows) else np.zeros(0, dtype=np.int64)

    n_relevant = np.zeros((n, width), dtype=np.int64)
    np.add.at(n_relevant, (rows[relevant], local[relevant]), 1)
    actual = (n_relevant > 0).sum(axis=1)
    weight = _weights(query_ids, names, n_relevant, intents)

    # every judged (query, doc) pair and the subtopics it is relevant to
    n_docs = max(len(judged.doc_names), 1)
    keys = rows * n_docs + doc
    pair_keys, pair_of = np.unique(keys, return_inverse=True)
    pair_covers = np.zeros((len(pair_keys), width), dtype=bool)
    pair_covers[pair_of.ravel()[relevant], local[relevant]] = True

    # each query's relevant ids (covering some subtopic), greatest doc id first
    useful = pair_covers.any(axis=1)
    pair_rows, pair_docs = pair_keys // n_docs, pair_keys % n_docs
    doc_text = np.asarray(judged.doc_names.to_pylist(), dtype=object)
    chosen = np.flatnonzero(useful)
    texts = doc_text[pair_docs[chosen]] if len(chosen) else np.zeros(0, dtype=object)
    # by row, then by doc id's bytes descending (ndeval's strcmp)
    as_bytes = np.array([t.encode() for t in texts], dtype="S") if len(texts) else \
        np.zeros(0, dtype="S1")
    byte_rank = np.argsort(np.argsort(as_bytes, kind="stable"), kind="stable")
    chosen = chosen[np.lexsort((-byte_rank, pair_rows[chosen]))]
    counts = np.bincount(pair_rows[chosen], minlength=n)
    depth = max(int(counts.max(initial=0)), 1)
    position = np.arange(len(chosen)) - (np.cumsum(counts) - counts)[pair_rows[chosen]]
    pool = np.zeros((n, depth, width), dtype=bool)
    pool[pair_rows[chosen], position] = pair_covers[chosen]
    pool_docs = np.full((n, depth), "", dtype=object)
    pool_docs[pair_rows[chosen], position] = doc_text[pair_docs[chosen]]
    return SubtopicSet(query_ids, names, n_relevant, actual, weight, judged.doc_names,
                       pair_keys, pair_covers, pool, pool_docs, ignored, relevance_level)


def _weights(query_ids: np.ndarray, names: np.ndarray, n_relevant: np.ndarray,
             intents: IntentProbabilities | None) -> np.ndarray:
    """Each subtopic's multiplier: 1 for each subtopic holding a relevant id when no
    probabilities are given (exactly 1, so that the figures are ndeval's to the bit); else
    S p_s / (sum of p over those subtopics); 0 for the others."""
    holds = n_relevant > 0
    if intents is None:
        return holds.astype(float)
    given = {(str(q), str(s)): p for q, s, p in zip(intents.query_id, intents.subtopic_id,
                                                    intents.probability, strict=True)}
    p = np.zeros(names.shape)
    for (row, col) in zip(*np.nonzero(holds), strict=True):
        p[row, col] = given.get((str(query_ids[row]), str(names[row, col])), np.nan)
    queries_given = {q for q, _ in given}
    for row in range(len(query_ids)):
        if str(query_ids[row]) not in queries_given:
            p[row] = np.where(holds[row], 1.0, 0.0)  # no probabilities for it: uniform
        elif np.isnan(p[row]).any():
            missing = names[row][np.isnan(p[row])][0]
            raise ValueError(f"{intents.source}: query {query_ids[row]!r} gives no "
                             f"probability for its subtopic {missing!r}")
    total = p.sum(axis=1, keepdims=True)
    if ((total == 0) & holds.any(axis=1, keepdims=True)).any():
        row = int(np.flatnonzero((total[:, 0] == 0) & holds.any(axis=1))[0])
        raise ValueError(f"{intents.source}: query {query_ids[row]!r}: its subtopics' "
                         "probabilities sum to 0")
    return np.where(holds, _ratio(p * holds.sum(axis=1, keepdims=True), total), 0.0)


def greedy_ideal(pool: np.ndarray, weight: np.ndarray, alpha: float) -> np.ndarray:
    """ndeval's greedy ideal order: at each rank the id whose novelty gain is greatest (the
    first in `pool`'s order among equals: the greatest doc id), every query at once. The
    ideal order is NP-hard (Clarke et al. 2008); this is the approximation ndeval ranks by."""
    n, depth, width = pool.shape
    gain = np.ones((n, width))
    taken = ~pool.any(axis=2)  # padding is never picked
    out = np.zeros_like(pool)
    rows = np.arange(n)
    for rank in range(depth):
        score = np.where(taken, -np.inf, (pool * (weight * gain)[:, None, :]).sum(axis=2))
        pick = np.argmax(score, axis=1)
        live = ~taken[rows, pick]
        if not live.any():
            break
        picked = pool[rows, pick] & live[:, None]
        out[:, rank] = picked
        taken[rows[live], pick[live]] = True
        gain = np.where(picked, gain * (1.0 - alpha), gain)
    return out


def align_subtopics(subtopics: SubtopicSet, run: Run, row: np.ndarray,
                    repeat: np.ndarray) -> np.ndarray:
    """(n, width, S) covers of one run's aligned lists: `row` and `repeat` are the aligned
    run's (`AlignedRun.row`, -1 for padding, and `AlignedRun.repeat`)."""
    n, width = row.shape
    codes = run.codes_in(subtopics.doc_names)
    slot_q, slot_i = np.nonzero((row >= 0) & ~repeat)
    doc = codes[row[slot_q, slot_i]]
    known = doc >= 0
    n_docs = max(len(subtopics.doc_names), 1)
    keys = slot_q[known] * n_docs + doc[known]
    at = np.minimum(np.searchsorted(subtopics.pair_keys, keys),
                    max(len(subtopics.pair_keys) - 1, 0))
    found = subtopics.pair_keys[at] == keys if len(subtopics.pair_keys) else keys < 0
    covers = np.zeros((n, width, subtopics.n_subtopics), dtype=bool)
    q, i = slot_q[known][found], slot_i[known][found]
    covers[q, i] = subtopics.pair_covers[at[found]]
    return covers


def _novelty(covers: np.ndarray, alpha: float) -> np.ndarray:
    """(1 - alpha)^c at each rank and subtopic, c the ids above covering it: a running
    product, as ndeval multiplies its gains down the list."""
    step = np.where(covers, 1.0 - alpha, 1.0)
    product = np.cumprod(step, axis=1)
    return np.concatenate([np.ones_like(product[:, :1]), product[:, :-1]], axis=1)


def _gain(covers: np.ndarray, weight: np.ndarray, alpha: float) -> np.ndarray:
    """(n, ranks) novelty gain of each rank: the weighted sum over the subtopics it covers."""
    return (covers * _novelty(covers, alpha) * weight[:, None, :]).sum(axis=2)


def _ideal_ideal(alpha: float) -> np.ndarray:
    """(1, T) the sum of (1 - alpha)^(r - 1) / r for r up to K = 1..T, T where the terms no
    longer change it (flat past T), at most MAX_K: ERR-IA's denominator per subtopic."""
    if alpha >= 1:
        length = 1
    elif alpha <= 0:
        length = MAX_K
    else:
        length = int(min(MAX_K, 2 + np.log(1e-18) / np.log(1.0 - alpha)))
    r = np.arange(1, length + 1, dtype=float)
    decay = np.cumprod(np.r_[1.0, np.full(length - 1, 1.0 - alpha)])
    return np.cumsum(decay / r)[None, :]


def diversity(subtopics: SubtopicSet, covers: np.ndarray, wanted=DIVERSITY_KEYS, *,
              alpha: float = 0.5, beta: float = 0.5,
              rows: slice | np.ndarray = slice(None)) -> tuple[dict[str, Curves], dict]:
    """The measures `wanted` names (DIVERSITY_KEYS) of each query at K = 1..width (and past
    it in closed form), and the parts an explanation states: each rank's covers and gain,
    the ideal's gains, S. `rows` picks the query set's rows `covers` holds."""
    unknown = [key for key in wanted if key not in DIVERSITY_KEYS]
    if unknown:
        raise ValueError(f"no diversity measure {unknown[0]!r}; measures: "
                         f"{', '.join(DIVERSITY_KEYS)}")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be a number from 0 to 1, got {alpha!r}")
    if not 0 <= beta <= 1:
        raise ValueError(f"beta must be a number from 0 to 1, got {beta!r}")
    weight = subtopics.weight[rows]
    actual = subtopics.actual[rows].astype(float)
    n, width, _ = covers.shape
    rank = np.arange(1, width + 1, dtype=float)
    gain = _gain(covers, weight, alpha)
    parts: dict[str, np.ndarray] = {"covers": covers, "gain": gain, "subtopics": actual,
                                    "alpha": np.array(alpha)}
    values: dict[str, Curves] = {}
    ideal_gain = None
    if {"alpha_nDCG", "nERR_IA"} & set(wanted):
        ideal = subtopics.ideal(alpha)[rows]
        ideal_gain = _gain(ideal, weight, alpha)
        parts["ideal_gain"] = ideal_gain
    if "alpha_nDCG" in wanted:
        dcg = np.cumsum(gain / discount(width), axis=1)
        idcg = np.cumsum(ideal_gain / discount(ideal_gain.shape[1]), axis=1)
        at = np.minimum(np.arange(width), idcg.shape[1] - 1)
        values["alpha_nDCG"] = Curves(_ratio(dcg, idcg[:, at]),
                                      Tail("IDCG", dcg[:, -1], ideal=idcg))
        parts["alpha_DCG"], parts["alpha_IDCG"] = dcg, idcg
    if {"ERR_IA", "nERR_IA"} & set(wanted):
        err = np.cumsum(gain / rank, axis=1)
        if "ERR_IA" in wanted:
            base = _ideal_ideal(alpha)
            per = _ratio(err, actual[:, None])
            at = np.minimum(np.arange(width), base.shape[1] - 1)
            values["ERR_IA"] = Curves(per / base[:, at], Tail("IDCG", per[:, -1], ideal=base))
            parts["ideal_ideal"] = base[0]
        if "nERR_IA" in wanted:
            ierr = np.cumsum(ideal_gain / np.arange(1, ideal_gain.shape[1] + 1), axis=1)
            at = np.minimum(np.arange(width), ierr.shape[1] - 1)
            values["nERR_IA"] = Curves(_ratio(err, ierr[:, at]),
                                       Tail("IDCG", err[:, -1], ideal=ierr))
        parts["err"] = err
    if "NRBP" in wanted:
        decay = np.cumprod(np.r_[1.0, np.full(width - 1, beta)])
        total = np.cumsum(gain * decay, axis=1)[:, -1]
        nrbp = _ratio(total * (1 - (1 - alpha) * beta), actual)
        values["NRBP"] = _whole_list(nrbp, width)
        parts["beta"] = np.array(beta)
    if "P_IA" in wanted:
        count = np.cumsum((covers * weight[:, None, :]).sum(axis=2), axis=1)
        per = _ratio(count, actual[:, None])
        values["P_IA"] = Curves(per / rank, Tail("K", per[:, -1]))
    if "AP_IA" in wanted:
        seen = np.cumsum(covers, axis=1)
        total = (covers * seen / rank[None, :, None]).sum(axis=1)  # (n, S)
        per_subtopic = _ratio(total, subtopics.n_relevant[rows].astype(float))
        values["AP_IA"] = _whole_list(_ratio((per_subtopic * weight).sum(axis=1), actual),
                                      width)
        parts["ap_per_subtopic"] = per_subtopic
    if "StRecall" in wanted:
        covered = (np.cumsum(covers, axis=1) > 0).sum(axis=2)
        values["StRecall"] = Curves(_ratio(covered.astype(float), actual[:, None]))
    return values, parts
