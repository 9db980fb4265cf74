"""The per-query kernel: one block of queries -> every measure of each query at every K.

A block is any set of queries, each with its own judgments and one run's ranked rows, as
arrays with one row per query (`Labels`, `Ranked`: the whole query set's `QuerySet` and
`AlignedRun` are blocks, and so are their `rows(...)`). Nothing here reads outside the block:
a query's R, its judged non-relevant ids and its ideal list come from its own judgments, and
the one collection-wide figure a measure reads (ERR's highest grade of the qrels) is carried
on every row of the labels, so scoring blocks one by one gives every figure scoring them
together gives. Aggregation (means, intervals, tests, decisions) reads the kernel's per-query
figures and never a ranked list.

`cumsum` along ranks gives every cutoff up to the block's width at once; there is no Python
loop over queries or K. Past the width every list has ended, so each figure is closed form
in K (a `Tail`: hits / K, hits / min(R, K), 2 hits / (D + K), IDCG at min(K, positive
grades), RBP's residual p^n - p^K, ...) or its last column, and any K up to MAX_K is read
without materialising columns up to K (`Curves`); `Scores.figures(cutoffs)` keeps only the
cutoffs asked for, as plain columns keyed by query (`Figures`).

Two shapes, one array type. A measure read at K (P, nDCG, ERR, RBP...) is a curve over K. A
measure of the whole list (Rprec, Bpref, infAP, each interpolated precision, the counts)
has one figure per query whatever K is: it is the same `Curves`, flat (a broadcast view of
one column, so it costs one column of memory), and `Scores`, `Figures` and every reader of
them take it as they take the others; only its label (from the vocabulary) carries no K.

The measures of `metrics.vocabulary.MEASURES` are always computed; the others when `wanted`
names them. What each measure means is declared in metrics.vocabulary; this module only
computes it, and keeps what it divided by (and, for the measures that sum one term per rank,
those terms: `Scores.parts`) so that an explanation can state them.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
import pyarrow as pa

from metrics.vocabulary import MEASURE_BY_KEY, MEASURES, SUMMARY_MEASURES, Measure
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import MAX_K, check_k
from metrics.vocabulary.measures import PERSISTENCE, Q_BETA, STANDARD_RECALL
from metrics.vocabulary.names import recall_spec

__all__ = ["MAX_K", "MEASURES", "MEASURE_BY_KEY", "SUMMARY_MEASURES", "Curves", "Figures",
           "LabelRows", "Labels", "Measure", "Ranked", "Scores", "Tail", "compute",
           "discount", "gains", "ideal_dcg"]


class Labels(Protocol):
    """What the kernel reads of a block's judgments, one row per query."""

    n_relevant: np.ndarray  # (n,) ids graded at or above the relevance level: R
    ideal: np.ndarray  # (n, P) every positive grade, best first, 0-padded: IDCG's list
    n_nonrelevant: np.ndarray  # (n,) ids graded from 0 up to the level: Bpref's N
    max_grade: np.ndarray  # (n,) the highest grade of the whole qrels (ERR's scale), >= 1


class Ranked(Protocol):
    """What the kernel reads of one run on the same rows: (n, width) arrays, one column a
    rank, padding slots 0/False."""

    grade: np.ndarray  # grade at an id's first occurrence, else 0
    relevant: np.ndarray  # first occurrence and grade >= the relevance level
    judged: np.ndarray  # first occurrence of an id that carries a label
    returned: np.ndarray  # the slot holds an id
    repeat: np.ndarray  # the id already appeared higher in the list


@dataclass(frozen=True, eq=False)
class LabelRows:
    """Some rows of a query set's labels: a block of its queries as the kernel reads them."""

    n_relevant: np.ndarray
    ideal: np.ndarray
    n_nonrelevant: np.ndarray
    max_grade: np.ndarray


@dataclass(frozen=True, eq=False)
class Tail:
    """A figure past the stored columns, where every list has ended: numerator / den(K),
    0 where den(K) is 0, or den(K) itself without a numerator. den(K) is K, D(K) or
    D(K) + K (D = R, or min(R, K) when `clipped`), or IDCG(K) read from `ideal`; or, for
    "p^K", numerator - p^K (RBP's residual: the empty slots from the list's end to K)."""

    denominator: str  # "K", "D", "D+K", "IDCG" or "p^K"
    numerator: np.ndarray | None = None  # (n,) what the lists left: hits, 2 hits, DCG, ...
    relevant: np.ndarray | None = None  # (n,) R
    clipped: bool = False
    ideal: np.ndarray | None = None  # (n, P) IDCG at K = 1..P, flat past each query's grades
    persistence: float | None = None  # p, for "p^K"

    def __call__(self, k: np.ndarray) -> np.ndarray:
        """(n, len(k)) values at the cutoffs k (floats, each past the stored columns)."""
        if self.denominator == "p^K":
            return self.numerator[:, None] - self.persistence ** k[None, :]
        if self.denominator == "IDCG":
            den = self.ideal[:, np.minimum(k, self.ideal.shape[1]).astype(np.int64) - 1]
        elif self.denominator == "K":
            den = k[None, :]
        else:
            relevant = self.relevant[:, None]
            d = np.minimum(relevant, k) if self.clipped else relevant
            den = d + k if self.denominator == "D+K" else d
        if self.numerator is None:
            return den
        return _ratio(self.numerator[:, None], den)


class Curves(np.ndarray):
    """Per-query values at K = 1..width, an (n, width) array, readable at any K up to MAX_K.

    The stored columns reach past every list; beyond them a figure is its `Tail` of K, or
    its last column when it has none. Indexing [rows, K - 1] (an integer, a slice or an
    integer array of columns) answers past the width from that form; any other use
    (arithmetic, reductions, a row mask alone) sees the stored array, and what it returns
    is a plain ndarray.
    """

    _extends = False  # only the arrays compute() built answer past their width
    _tail: Tail | None = None

    def __new__(cls, stored, tail: Tail | None = None) -> Curves:
        curves = np.asarray(stored).view(cls)
        curves._extends, curves._tail = True, tail
        return curves

    def __array_finalize__(self, obj) -> None:
        self._extends = False

    def __array_wrap__(self, array, context=None, return_scalar=False):
        array = array.view(np.ndarray)
        return array[()] if return_scalar else array

    def __reduce__(self):
        if not self._extends:
            return self.view(np.ndarray).__reduce__()
        return (Curves, (np.array(self.view(np.ndarray)), self._tail))

    def __getitem__(self, index):
        if self._extends and isinstance(index, tuple) and len(index) == 2:
            rows, columns = index
            wanted = _columns_past(columns, self.shape[1])
            if wanted is not None:
                distinct = np.unique(wanted)
                block = self.columns(distinct)
                if isinstance(columns, slice):
                    return block[rows, :]  # increasing columns: block is the slice
                if not np.ndim(columns):
                    return block[rows, 0]
                return block[rows, np.searchsorted(distinct, wanted)]
        found = super().__getitem__(index)
        return found.view(np.ndarray) if isinstance(found, np.ndarray) else found

    def columns(self, columns: np.ndarray) -> np.ndarray:
        """The (n, len(columns)) values at the given 0-based columns (K - 1), any up to
        MAX_K - 1: stored ones copied, later ones from the closed form."""
        columns = np.asarray(columns, dtype=np.int64)
        if len(columns) and not 0 <= columns.min() <= columns.max() < MAX_K:
            raise IndexError(f"K must lie in 1..{MAX_K:,} (MAX_K), got {columns.max() + 1}")
        stored = self.view(np.ndarray)
        inside = columns < stored.shape[1]
        kind = stored.dtype if self._tail is None else np.result_type(stored.dtype, float)
        if len(columns) > 1 and inside[-1] and (np.diff(columns) == 1).all():
            # a run of stored columns (a sweep): one copy of a slice, no gather
            return stored[:, columns[0]:columns[-1] + 1].astype(kind)
        out = np.empty((stored.shape[0], len(columns)), dtype=kind)
        out[:, inside] = stored[:, columns[inside]]
        if self._tail is None:
            out[:, ~inside] = stored[:, -1:]
        elif not inside.all():
            out[:, ~inside] = self._tail((columns[~inside] + 1).astype(float))
        return out


def _columns_past(columns, width: int) -> np.ndarray | None:
    """The 0-based columns an index asks for when some lie past `width`, else None (the
    stored array answers). Negative positions keep numpy's meaning, within the width."""
    if isinstance(columns, slice):
        start, stop, step = columns.start or 0, columns.stop, columns.step or 1
        if stop is None or stop <= width or start < 0 or step < 0:
            return None
        return np.arange(start, stop, step)
    if isinstance(columns, bool | np.bool_):
        return None
    if isinstance(columns, int | np.integer):
        return np.array([columns]) if columns >= width else None
    wanted = np.asarray(columns)
    if wanted.dtype.kind not in "iu" or not wanted.size:
        return None
    if wanted.max() < width or wanted.min() < 0:
        return None
    return wanted


@dataclass(frozen=True, eq=False)
class Figures:
    """One block's per-query figures at the cutoffs asked for, as plain columns keyed by
    query: ``values[key]`` is (n, len(cutoffs)), and the facts aggregation reads beside them
    (hits and noise at each cutoff; per query the first relevant rank, the list's length and
    its repeats)."""

    cutoffs: np.ndarray  # (c,) the K of each column
    values: dict[str, np.ndarray]
    hits: np.ndarray  # (n, c) relevant ids within the top K
    noise: np.ndarray  # (n, c) returned ids within the top K that are not relevant
    first_relevant_rank: np.ndarray  # (n,) 1-based, 0 when no relevant id was returned
    list_length: np.ndarray  # (n,)
    repeats: np.ndarray  # (n,)

    def at(self, k: int) -> dict[str, np.ndarray]:
        """Every measure's per-query values at one of the cutoffs."""
        column = np.flatnonzero(self.cutoffs == k)
        if not len(column):
            raise ValueError(f"K = {k} is not among the cutoffs scored: "
                             f"{', '.join(map(str, self.cutoffs))}")
        return {key: values[:, column[0]] for key, values in self.values.items()}

    def table(self, query_ids) -> pa.Table:
        """One row a query: its id, then every measure at every cutoff ("nDCG@10", ...) and
        the facts, as an Arrow table (the columns a Parquet file or a Spark frame takes)."""
        columns = {"query_id": pa.array(list(query_ids), pa.string())}
        for key, values in self.values.items():
            for i, k in enumerate(self.cutoffs):
                columns[f"{key}@{int(k)}"] = pa.array(values[:, i])
        columns |= {"first_relevant_rank": pa.array(self.first_relevant_rank),
                    "list_length": pa.array(self.list_length), "repeats": pa.array(self.repeats)}
        return pa.table(columns)


@dataclass(frozen=True, eq=False)
class Scores:
    """Per-query values of every measure at every K: values[key][q, k - 1], any K up to MAX_K.

    The arrays are `Curves`: stored up to `width` (past the longest list), closed form
    beyond.
    """

    values: dict[str, Curves]
    first_relevant_rank: np.ndarray  # (n,) 1-based, 0 when no relevant id was returned
    hits: Curves  # (n, width) relevant ids within the top K
    noise: Curves  # (n, width) returned ids within the top K that are not relevant
    # what recall and AP divided by at every K (read-only): an explanation states these
    # rather than recomputing them
    recall_denominator: Curves
    ap_denominator: Curves
    list_length: np.ndarray  # (n,) the ids each list returned
    repeats: np.ndarray  # (n,) the repeated ids of each list
    # measure key -> what an explanation states of it: each rank's term of the sum, the
    # counts it read, what it divided by (read-only; only for the measures computed)
    parts: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def figures(self, cutoffs) -> Figures:
        """Only the cutoffs asked for (any K up to MAX_K): what a driver keeps of a block."""
        ks = np.asarray(cutoffs, dtype=np.int64)
        for k in ks:
            check_k(int(k))
        columns = ks - 1
        return Figures(ks, {key: v.columns(columns) for key, v in self.values.items()},
                       self.hits.columns(columns), self.noise.columns(columns),
                       self.first_relevant_rank, self.list_length, self.repeats)

    @property
    def width(self) -> int:
        """The columns stored; any K up to MAX_K can be read."""
        return self.hits.shape[1]

    def at(self, k: int) -> dict[str, np.ndarray]:
        """Every measure's per-query values at K."""
        check_k(k)
        return {key: v[:, k - 1] for key, v in self.values.items()}

    def curve(self, key: str, lo: int, hi: int) -> np.ndarray:
        """(n, hi - lo + 1) values of one measure at K = lo..hi."""
        check_k(lo)
        check_k(hi)
        return self.values[key].columns(np.arange(lo - 1, hi))


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (no evidence, no credit)."""
    out = np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _per_count(numerator: np.ndarray, count: np.ndarray) -> np.ndarray:
    """numerator / count for a count that is 0 only where the numerator is 0 too (no hits
    when no id is relevant, ...): 0 there, and a plain division everywhere else."""
    return numerator / np.maximum(count, 1)


def gains(grades: np.ndarray, gain: str) -> np.ndarray:
    positive = np.maximum(grades, 0, dtype=float)  # grades <= 0 give no gain
    return positive if gain == "linear" else np.exp2(positive) - 1


def discount(ranks: int) -> np.ndarray:
    """DCG's discount log2(rank + 1) at ranks 1..`ranks`: the one that DCG, IDCG and nDCG
    divide by here and that the explainer's rank tables show."""
    return np.log2(np.arange(2, ranks + 2, dtype=float))


# labels of a block -> {gain: IDCG}: computed once per block's labels, shared by every run
_IDEAL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def ideal_dcg(labels: Labels, gain: str) -> np.ndarray:
    """IDCG at K = 1..P, P the most positive grades of any query: the cumulative DCG of the
    best order, flat once a query's grades run out. Computed once per block of labels and
    gain, shared by every run (IDCG depends on the labels alone)."""
    tables = _IDEAL.setdefault(labels, {})
    if gain not in tables:
        ideal = labels.ideal
        tables[gain] = np.cumsum(gains(ideal, gain) / discount(ideal.shape[1]), axis=1)
    return tables[gain]


def _ideal_columns(labels: Labels, gain: str, width: int) -> np.ndarray:
    """IDCG at K = 1..width, one read-only array shared by every run scored at that width
    (4 MB per run on 5,000 queries x 100 ids, otherwise repeated per run)."""
    tables = _IDEAL.setdefault(labels, {})
    if (gain, width) not in tables:
        table = ideal_dcg(labels, gain)
        columns = table[:, np.minimum(np.arange(width), table.shape[1] - 1)]
        columns.setflags(write=False)
        tables[gain, width] = columns
    return tables[gain, width]


def compute(labels: Labels, run: Ranked, conventions: Conventions,
            wanted: Collection[str] = (), *, persistence: float = PERSISTENCE.default,
            recall_levels: Sequence[float] = STANDARD_RECALL,
            whole: Collection[str] = (), beta: float = Q_BETA.default) -> Scores:
    """The kernel: every measure of each query of the block at K = 1..width from the arrays,
    and past it in closed form. The run's rows must be at least as wide as its longest list
    (align() and prepare() make them one column wider).

    The measures shown by default are always computed; `wanted` adds others by key ("Rprec",
    "ERR", "IPrec" for every level of `recall_levels`, "RBP" and "RBPresid" at
    `persistence`). RR and AP are read over the full list by their conventions; `whole`
    names the measures read so by a parameter of their own ("nDCG": trec_eval's ndcg)."""
    width = run.grade.shape[1]
    cutoff = np.arange(1, width + 1, dtype=float)
    hits = np.cumsum(run.relevant, axis=1, dtype=np.int32)
    n_relevant = labels.n_relevant[:, None]
    list_length = run.returned.sum(axis=1)
    clipped = conventions.recall_denominator == "min"
    denominator = np.minimum(n_relevant, cutoff) if clipped else n_relevant

    precision = hits / cutoff
    recall = _per_count(hits, denominator)
    # 2PR / (P + R) with P = hits / K and R = hits / D is 2 hits / (D + K), and 0 without hits
    f1 = 2 * hits / (denominator + cutoff)

    any_relevant = run.relevant.any(axis=1)
    first = np.where(any_relevant, run.relevant.argmax(axis=1) + 1, 0)
    rr = np.where(
        (first[:, None] > 0) & (first[:, None] <= cutoff), 1 / np.maximum(first, 1)[:, None], 0.0
    )

    precision_sum = np.cumsum(run.relevant * precision, axis=1)
    ap = _per_count(precision_sum, denominator)
    context_precision = _per_count(precision_sum, hits)
    if conventions.rr == "full":
        rr = np.broadcast_to(rr[:, -1:], rr.shape).copy()
    ap_denominator = denominator
    if conventions.ap == "full":
        # over the query's own list: min(R, K) becomes min(R, its list length), so a score
        # does not depend on how long the other runs' lists are
        length = list_length[:, None]
        ap_denominator = np.minimum(n_relevant, length) if clipped else n_relevant
        ap = np.broadcast_to(_per_count(precision_sum[:, -1:], ap_denominator), ap.shape).copy()

    returned = np.cumsum(run.returned, axis=1, dtype=np.int32)
    shape = hits.shape
    # past the width the lists have ended: what they left (hits, their precisions, DCG) stays
    left = hits[:, -1].astype(float)
    relevant = labels.n_relevant

    def tail(denominator: str, numerator: np.ndarray | None = None) -> Tail:
        return Tail(denominator, numerator, relevant, clipped)

    d_tail = tail("D") if clipped else None  # D = R is constant
    values = {
        "P": Curves(precision, tail("K", left)),
        "R": Curves(recall, tail("D", left) if clipped else None),
        "F1": Curves(f1, tail("D+K", 2 * left)),
        "Hit": Curves((hits > 0).astype(float)),
        "RR": Curves(rr),
        "AP": Curves(ap, tail("D", precision_sum[:, -1]) if conventions.ap == "cutoff" else None),
        **_gain_curves(labels, run, conventions.gain, whole=_read_whole(whole)),
        "CP": Curves(context_precision),
        "Judged": Curves(_per_count(np.cumsum(run.judged, axis=1, dtype=np.int32), returned)),
    }
    scores = Scores(
        values=values,
        first_relevant_rank=first,
        hits=Curves(hits),
        noise=Curves(returned - hits),
        recall_denominator=Curves(np.broadcast_to(denominator, shape), d_tail),
        ap_denominator=Curves(np.broadcast_to(ap_denominator, shape),
                              d_tail if conventions.ap == "cutoff" else None),
        list_length=list_length,
        repeats=run.repeat.sum(axis=1),
    )
    if not wanted:
        return scores
    return extend(scores, labels, run, wanted, persistence=persistence,
                  recall_levels=recall_levels, beta=beta)


# the figures the DCG gain changes; every other figure of compute() reads no gain
GAIN_KEYS = ("DCG", "IDCG", "nDCG")
# the measures a parameter of their own (no convention) may read over the full list
READ_WHOLE = ("nDCG",)


def _read_whole(whole: Collection[str]) -> bool:
    """Whether nDCG is read over the full list; ValueError for a measure the kernel reads at
    K only."""
    unknown = [key for key in whole if key not in READ_WHOLE]
    if unknown:
        raise ValueError(f"{unknown[0]!r} is read over the full list by its convention, or "
                         f"not at all; by a parameter of its own: {', '.join(READ_WHOLE)}")
    return "nDCG" in whole


def _gain_curves(labels: Labels, run: Ranked, gain: str, *,
                 whole: bool = False) -> dict[str, Curves]:
    width = run.grade.shape[1]
    dcg = np.cumsum(gains(run.grade, gain) / discount(width), axis=1)
    table = ideal_dcg(labels, gain)
    idcg = _ideal_columns(labels, gain, width)
    if whole:
        # over the full list (trec_eval ndcg): the DCG of every id returned (the last column:
        # the lists end within the width) over the IDCG of every judged relevant id (the
        # ideal table's last column), the same at every K
        full = table[:, -1] if table.shape[1] else np.zeros(len(table))
        ndcg = _whole_list(_ratio(dcg[:, -1], full), width)
    else:
        ndcg = Curves(_ratio(dcg, idcg), Tail("IDCG", dcg[:, -1], labels.n_relevant,
                                              ideal=table))
    return {
        "DCG": Curves(dcg),
        "IDCG": Curves(idcg, Tail("IDCG", None, labels.n_relevant, ideal=table)),
        "nDCG": ndcg,
    }


def regained(scores: Scores, labels: Labels, run: Ranked, gain: str) -> Scores:
    """compute()'s scores of the same block under another DCG gain: the GAIN_KEYS scored
    again, every other figure the same array (a change of gain alone need not copy them)."""
    return replace(scores, values={**scores.values, **_gain_curves(labels, run, gain)})


def extend(scores: Scores, labels: Labels, run: Ranked, wanted: Collection[str], *,
           persistence: float = PERSISTENCE.default,
           recall_levels: Sequence[float] = STANDARD_RECALL,
           beta: float = Q_BETA.default) -> Scores:
    """The same block's scores with the measures `wanted` names added (those not there yet),
    computed from the arrays the scores already hold (hits, precision, list lengths)."""
    unknown = [key for key in wanted if key not in MEASURE_BY_KEY]
    if unknown:
        raise ValueError(f"no measure {unknown[0]!r}; measures: {', '.join(MEASURE_BY_KEY)}")
    diverse = [key for key in wanted if MEASURE_BY_KEY[key].subtopics]
    if diverse:
        raise ValueError(f"{diverse[0]} reads the subtopic qrels: metrics.core.diversity "
                         "scores it")
    levels = [level for level in recall_levels
              if recall_spec(level).key not in scores.values]
    more = _OnRequest(labels, run, scores.hits.view(np.ndarray),
                      scores.values["P"].view(np.ndarray), scores.list_length,
                      np.arange(1, scores.width + 1, dtype=float), persistence, levels,
                      scores.recall_denominator.view(np.ndarray), beta)
    values, parts = dict(scores.values), dict(scores.parts)
    for key in dict.fromkeys(wanted):
        if key in values or (key == "IPrec" and not levels):
            continue
        found, explained = more.compute(key)
        values |= found
        parts[key] = explained
    return replace(scores, values=values, parts=parts)


def _whole_list(values: np.ndarray, width: int) -> Curves:
    """A figure of the whole list: the same value at every K, one column broadcast."""
    return Curves(np.broadcast_to(np.asarray(values, dtype=float)[:, None],
                                  (len(values), width)))


def _running(terms: np.ndarray) -> np.ndarray:
    """The running sum along ranks, added in rank order as trec_eval adds (cumsum is
    sequential, where sum() pairs terms and can differ in the last bit)."""
    return np.cumsum(terms, axis=1)


def _exclusive(flags: np.ndarray) -> np.ndarray:
    """How many flags are set strictly above each rank."""
    counts = np.cumsum(flags, axis=1, dtype=np.int64)
    return counts - flags


@dataclass(frozen=True, eq=False)
class _OnRequest:
    """The measures computed when asked for, from the arrays every measure shares. Each
    returns its curves by key and the parts an explanation states: each rank's term, the
    counts it read, what it divided by."""

    labels: Labels
    run: Ranked
    hits: np.ndarray  # (n, width) relevant ids within the top K
    precision: np.ndarray  # (n, width) P@K
    list_length: np.ndarray
    cutoff: np.ndarray  # (width,) K = 1..width, floats
    persistence: float
    recall_levels: Sequence[float]
    denominator: np.ndarray  # (n, width) what recall and AP divide by: R, or min(R, K)
    beta: float = Q_BETA.default  # Q-measure's

    def compute(self, key: str) -> tuple[dict[str, Curves], dict[str, np.ndarray]]:
        """One measure's curves and parts: the method named after its key ("Bpref" ->
        _bpref)."""
        return getattr(self, f"_{key.lower()}")()

    @property
    def width(self) -> int:
        return self.hits.shape[1]

    def _judged_nonrelevant(self) -> np.ndarray:
        """First occurrences judged below the level with a grade of 0 or more."""
        run = self.run
        return run.judged & (run.grade >= 0) & ~run.relevant

    def _rprec(self):
        r = self.labels.n_relevant
        # the top R slots; past the list's end the hits stay those of the whole list
        at = np.minimum(np.maximum(r, 1), self.width) - 1
        hits_at_r = np.where(r > 0, self.hits[np.arange(len(r)), at], 0)
        return ({"Rprec": _whole_list(_ratio(hits_at_r.astype(float), r), self.width)},
                {"hits_at_r": hits_at_r, "denominator": r})

    def _bpref(self):
        r, n = self.labels.n_relevant, self.labels.n_nonrelevant
        above = _exclusive(self._judged_nonrelevant())
        cap = np.minimum(n, r)[:, None]
        terms = np.where(self.run.relevant, 1.0 - _ratio(np.minimum(above, r[:, None]), cap),
                         0.0)
        total = _running(terms)[:, -1]
        return ({"Bpref": _whole_list(_per_count(total, r), self.width)},
                {"terms": terms, "nonrelevant_above": above, "cap": cap[:, 0],
                 "denominator": r})

    def _infap(self):
        run, r = self.run, self.labels.n_relevant
        relevant_above = _exclusive(run.relevant)
        nonrelevant_above = _exclusive(self._judged_nonrelevant())
        pooled_above = _exclusive(run.judged & (run.grade < 0))  # pooled, not judged
        j = self.cutoff[None, :] - 1  # ids above the rank
        in_pool = relevant_above + nonrelevant_above + pooled_above
        # trec_eval 10.0's terms, in its order of operations, so the sums agree to the bit
        share = np.divide(in_pool, j, out=np.zeros(in_pool.shape), where=j > 0)
        judged_rate = (relevant_above + INFAP_EPSILON) / (
            relevant_above + nonrelevant_above + 2 * INFAP_EPSILON)
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * share * judged_rate
        terms = np.where(run.relevant, np.where(j > 0, terms, 1.0), 0.0)
        total = _running(terms)[:, -1]
        return ({"infAP": _whole_list(_per_count(total, r), self.width)},
                {"terms": terms, "pooled_above": in_pool, "denominator": r})

    def _iprec(self):
        r, run = self.labels.n_relevant, self.run
        # the best precision at each rank or below it: the interpolation
        best_below = np.maximum.accumulate(self.precision[:, ::-1], axis=1)[:, ::-1]
        found = self.hits[:, -1]  # relevant ids anywhere in the list
        rows, columns = np.nonzero(run.relevant)  # row-major: each row's relevant ranks in order
        starts = np.cumsum(found) - found
        values, ranks, needed_by_level = {}, {}, {}
        queries = np.arange(len(r))
        for level in self.recall_levels:
            exact = level * r  # trec_eval 10.0 rounds half away from 0 (lround)
            needed = np.floor(exact).astype(np.int64)
            needed += (exact - needed) >= 0.5
            reached = (needed >= 1) & (needed <= found)
            index = np.where(reached, starts + needed - 1, 0)
            rank = np.where(reached, columns[index] if len(columns) else 0, 0)  # 0-based
            value = np.where(needed <= found, best_below[queries, rank], 0.0)
            key = recall_spec(level).key
            values[key] = _whole_list(value, self.width)
            ranks[key] = np.where(reached, rank + 1, 0)
            needed_by_level[key] = needed
        return values, {"interpolated": best_below, **{f"rank {k}": v for k, v in ranks.items()},
                        **{f"needed {k}": v for k, v in needed_by_level.items()}}

    def _success(self):
        return {"Success": Curves((self.hits > 0).astype(float))}, {}

    def _err(self):
        top = self.labels.max_grade.astype(float)[:, None]
        stop = gains(self.run.grade, "exponential") / np.exp2(top)  # (2^g - 1) / 2^max
        went_on = np.cumprod(1.0 - stop, axis=1)
        reached = np.concatenate([np.ones((len(stop), 1)), went_on[:, :-1]], axis=1)
        terms = stop * reached / self.cutoff[None, :]
        return ({"ERR": Curves(_running(terms))},
                {"terms": terms, "stop": stop, "reached": reached, "max_grade": top[:, 0]})

    def _weights(self) -> np.ndarray:
        p = self.persistence
        return (1 - p) * p ** (self.cutoff - 1)

    def _rbp(self):
        terms = self.run.relevant * self._weights()[None, :]
        return {"RBP": Curves(_running(terms))}, {"terms": terms, "persistence": np.array(
            self.persistence)}

    def _rbpresid(self):
        run, p = self.run, self.persistence
        unknown = run.returned & ~run.repeat & ~(run.judged & (run.grade >= 0))
        terms = unknown * self._weights()[None, :]
        inside = _running(terms)
        length = self.list_length.astype(float)
        # the slots from the list's end to K: (1 - p)(p^n + ... + p^(K-1)) = p^n - p^K,
        # added in the order the Tail adds it past the width, so both agree to the bit
        residual = (inside + p ** np.minimum(length[:, None], self.cutoff[None, :])
                    - p ** self.cutoff[None, :])
        left = inside[:, -1] + p ** length
        return ({"RBPresid": Curves(residual, Tail("p^K", left, persistence=p))},
                {"terms": terms, "unknown": unknown, "persistence": np.array(p)})

    def _q(self):
        run, labels = self.run, self.labels
        gain = np.where(run.relevant, np.maximum(run.grade, 0), 0).astype(float)
        found = np.cumsum(gain, axis=1)  # cg(r)
        # the ideal's gains: the query's relevant grades, best first (ideal's first R columns)
        ideal = labels.ideal.astype(float)
        columns = np.arange(ideal.shape[1])
        ideal = np.where(columns[None, :] < labels.n_relevant[:, None], ideal, 0.0)
        best = np.cumsum(ideal, axis=1)
        if best.shape[1] == 0:
            best = np.zeros((len(ideal), 1))
        at = np.minimum(np.arange(self.width), best.shape[1] - 1)
        best = best[:, at]  # cg*(r), flat past the ideal's end
        ratio = (self.hits + self.beta * found) / (self.cutoff[None, :] + self.beta * best)
        terms = np.where(run.relevant, ratio, 0.0)
        total = _running(terms)
        r = labels.n_relevant
        clipped = not np.array_equal(self.denominator[:, -1], r)
        q = _per_count(total, self.denominator)
        tail = Tail("D", total[:, -1], r, clipped) if clipped else None
        return ({"Q": Curves(q, tail)},
                {"terms": terms, "gain": found, "ideal_gain": best, "denominator":
                 self.denominator, "beta": np.array(self.beta)})

    def _numret(self):
        return {"NumRet": _whole_list(self.list_length, self.width)}, {}

    def _numrel(self):
        return {"NumRel": _whole_list(self.labels.n_relevant, self.width)}, {}

    def _numrelret(self):
        return {"NumRelRet": _whole_list(self.hits[:, -1], self.width)}, {}


INFAP_EPSILON = 0.00001  # trec_eval 10.0's, which keeps infAP's judged rate off 0 / 0
