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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
import pyarrow as pa

from metrics.vocabulary import MEASURE_BY_KEY, MEASURES, SUMMARY_MEASURES, Measure
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import MAX_K, check_k
from metrics.vocabulary.measures import (
    CWL_DEPTH,
    GOAL,
    MIN_REL,
    PERSISTENCE,
    Q_BETA,
    STANDARD_RECALL,
)
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

    denominator: str  # "K", "D", "D+K", "IDCG", "p^K" or "C/W/L"
    numerator: np.ndarray | None = None  # (n,) what the lists left: hits, 2 hits, DCG, ...
    relevant: np.ndarray | None = None  # (n,) R
    clipped: bool = False
    ideal: np.ndarray | None = None  # (n, P) IDCG at K = 1..P, flat past each query's grades
    persistence: float | None = None  # p, for "p^K"
    # for "C/W/L": numerator / (base + product f(K)), f(K) the sum of the products from rank
    # `after` + 1 (each query's own list length) to min(K, CWL_DEPTH): K - after (NERR8), or
    # (after + 1)(H_K - H_after) (NERR9, `harmonic`)
    base: np.ndarray | None = None
    product: np.ndarray | None = None
    after: np.ndarray | None = None
    harmonic: bool = False

    def __call__(self, k: np.ndarray) -> np.ndarray:
        """(n, len(k)) values at the cutoffs k (floats, each past the stored columns)."""
        if self.denominator == "C/W/L":
            return _cwl_tail(self.numerator, self.base, self.product, self.after,
                             self.harmonic, k)
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
            whole: Collection[str] = (), beta: float = Q_BETA.default,
            model: Mapping[str, object] = {}) -> Scores:
    """The kernel: every measure of each query of the block at K = 1..width from the arrays,
    and past it in closed form. The run's rows must be at least as wide as its longest list
    (align() and prepare() make them one column wider).

    The measures shown by default are always computed; `wanted` adds others by key ("Rprec",
    "ERR", "IPrec" for every level of `recall_levels`, "RBP" and "RBPresid" at
    `persistence`, the user-model measures with the parameters `model` gives: T, min_rel,
    max_rel). RR and AP are read over the full list by their conventions; `whole` names the
    measures read so by a parameter of their own ("nDCG": trec_eval's ndcg)."""
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
                  recall_levels=recall_levels, beta=beta, model=model)


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
           beta: float = Q_BETA.default, model: Mapping[str, object] = {}) -> Scores:
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
                      scores.recall_denominator.view(np.ndarray), beta, dict(model))
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
    model: Mapping[str, object] = field(default_factory=dict)  # T, min_rel, max_rel

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

    # ------------------------------------------- user-model measures (issue 51, section 2)

    def _cwl_gains(self) -> np.ndarray:
        """Each slot's gain in [0, 1] as cwl_eval reads it through ir_measures, over the
        first CWL_DEPTH ranks: the grade (0 below 0, and for an unjudged id, a repeat or an
        empty slot) clipped to [min_rel, max_rel] and scaled, max_rel by default the highest
        grade in the qrels."""
        low = float(self.model.get("min_rel", MIN_REL.default))
        high = self.model.get("max_rel")
        top = (self.labels.max_grade.astype(float)[:, None] if high is None
               else np.full((len(self.labels.max_grade), 1), float(high)))
        if len(top) and (top <= low).any():
            raise ValueError(f"min_rel = {low:g} must lie below max_rel (the highest grade "
                             f"in the qrels unless given), {float(top.min()):g}")
        grade = np.clip(np.maximum(self.run.grade[:, :CWL_DEPTH], 0), low, top)
        return (grade - low) / (top - low)

    def _cwl_rate(self, key: str, gain: np.ndarray, go_on: np.ndarray, tail):
        """A C/W/L measure's expected rate of gain over ranks 1..CWL_DEPTH: the sum of W_i
        g_i, W_i = C_1 ... C_(i-1) / the sum of those products over every rank, as cwl_eval
        computes it. `go_on` holds C_i at the stored ranks; each query's own list is read
        rank by rank, and past its end every slot is empty: `tail(P, m)` is the sum of the
        products at ranks m + 1..CWL_DEPTH given P, the product up to rank m (cwl_eval sums
        them one by one; here in closed form). Sums run in rank order and stop at the list's
        end, so a query's figure does not depend on how wide its block is."""
        n, width = gain.shape
        reached = np.concatenate([np.ones((n, 1)), np.cumprod(go_on[:, :-1], axis=1)], axis=1)
        own = np.minimum(self.list_length, width)  # each list, cut at CWL_DEPTH
        inside = np.arange(width)[None, :] < own[:, None]
        rows = np.arange(n)
        last = np.maximum(own - 1, 0)
        product = np.where(own > 0, reached[rows, last] * go_on[rows, last], 1.0)
        total = _running(np.where(inside, reached, 0.0))[:, -1]
        total = total + np.where(own < CWL_DEPTH, tail(product, own, last), 0.0)
        weights = np.where(inside, reached, 0.0) * (1.0 / total)[:, None]
        terms = weights * gain
        value = _running(terms)[:, -1]
        return ({key: _whole_list(value, self.width)},
                {"weights": weights, "gains": gain, "go_on": go_on, "terms": terms,
                 "depth": np.array(CWL_DEPTH)})

    @staticmethod
    def _inverse_squares(a: np.ndarray, m: np.ndarray) -> np.ndarray:
        """The sum of 1 / x^2 for x = m + a, m + 1 + a, ..., CWL_DEPTH - 1 + a (a + m > 0):
        trigamma(m + a) - trigamma(CWL_DEPTH + a)."""
        return _trigamma(m + a) - _trigamma(CWL_DEPTH + a)

    def _insq_tail(self, goal: float):
        """Past the list INSQ's C_j = ((j + 2T - 1) / (j + 2T))^2 telescopes: the product
        from rank m + 1 to i - 1 is ((m + 2T) / (i - 1 + 2T))^2."""
        def tail(product: np.ndarray, m: np.ndarray, last: np.ndarray) -> np.ndarray:
            a = np.full(len(product), 2 * goal)
            return product * (m + a) ** 2 * self._inverse_squares(a, m)
        return tail

    def _insq_continue(self, goal: float, m: int) -> np.ndarray:
        rank = np.arange(1, m + 1, dtype=float)
        return (((rank + 2.0 * goal) - 1.0) / (rank + 2.0 * goal)) ** 2.0

    def _inst(self):
        goal = float(self.model.get("T", GOAL.default))
        gain = self._cwl_gains()
        m = gain.shape[1]
        rank = np.arange(1, m + 1, dtype=float)[None, :]
        found = np.cumsum(gain, axis=1)
        wanted = goal - found  # T_i: the gain still wanted after rank i
        go_on = (((rank + goal + wanted) - 1.0) / (rank + goal + wanted)) ** 2.0

        def tail(product: np.ndarray, m: np.ndarray, last: np.ndarray) -> np.ndarray:
            # past the list the gain found stays: C_j = ((j + a - 1) / (j + a))^2
            kept = np.where(m > 0, found[np.arange(len(m)), last], 0.0)
            a = 2 * goal - kept
            return product * (m + a) ** 2 * self._inverse_squares(a, m)
        return self._cwl_rate("INST", gain, go_on, tail)

    def _insq(self):
        goal = float(self.model.get("T", GOAL.default))
        gain = self._cwl_gains()
        go_on = np.broadcast_to(self._insq_continue(goal, gain.shape[1]), gain.shape)
        return self._cwl_rate("INSQ", gain, go_on, self._insq_tail(goal))

    def _nerr11(self):
        goal = float(self.model.get("T", GOAL.default))
        gain = self._cwl_gains()
        go_on = self._insq_continue(goal, gain.shape[1])[None, :] * (1.0 - gain)
        return self._cwl_rate("NERR11", gain, go_on, self._insq_tail(goal))

    def _nerr10(self):
        p = self.persistence
        gain = self._cwl_gains()

        def tail(product: np.ndarray, m: np.ndarray, last: np.ndarray) -> np.ndarray:
            return product * (1 - p ** (CWL_DEPTH - m)) / (1 - p)
        return self._cwl_rate("NERR10", gain, p * (1.0 - gain), tail)

    def _nerr_at_k(self, key: str, gain: np.ndarray, go_on: np.ndarray, *, harmonic: bool):
        """NERR8 and NERR9 at every K: the C/W/L rate of gain with C_K = 0, read to rank K
        (and no further than CWL_DEPTH): the sums of P_(i-1) g_i and of P_(i-1) over ranks
        i up to K, P_(i-1) = C_1 ... C_(i-1). Rank by rank along each query's own list; from
        its end on (stored columns or not) in closed form, so that the figure does not
        depend on the block's width."""
        n, m = gain.shape
        reached = np.concatenate([np.ones((n, 1)), np.cumprod(go_on[:, :-1], axis=1)], axis=1)
        own = np.minimum(self.list_length, m)
        inside = np.arange(m)[None, :] < own[:, None]
        found = _running(np.where(inside, reached * gain, 0.0))
        read = _running(np.where(inside, reached, 0.0))
        rows, last = np.arange(n), np.maximum(own - 1, 0)
        product = np.where(own > 0, reached[rows, last] * go_on[rows, last], 1.0)
        base = np.where(own > 0, read[rows, last], 0.0)
        left = found[:, -1]
        columns = np.arange(1, self.width + 1, dtype=float)
        past = _cwl_tail(left, base, product, own, harmonic, columns)
        stored = np.concatenate([found / np.where(read > 0, read, 1.0),
                                 np.zeros((n, self.width - m))], axis=1)
        value = np.where(np.arange(self.width)[None, :] < own[:, None], stored, past)
        tail = Tail("C/W/L", left, base=base, product=product, after=own, harmonic=harmonic)
        return ({key: Curves(value, tail)},
                {"weights": np.where(inside, reached, 0.0), "gains": gain, "go_on": go_on,
                 "terms": np.where(inside, reached * gain, 0.0), "read": read})

    def _nerr8(self):
        gain = self._cwl_gains()
        return self._nerr_at_k("NERR8", gain, 1.0 - gain, harmonic=False)

    def _nerr9(self):
        gain = self._cwl_gains()
        rank = np.arange(1, gain.shape[1] + 1, dtype=float)
        return self._nerr_at_k("NERR9", gain, (rank / (rank + 1.0))[None, :] * (1.0 - gain),
                               harmonic=True)

    def _compat(self):
        """Clarke, Vtyurina and Smucker's compatibility: RBO of the list against the ideal
        list (every id graded above 0, best grade first, ties in the list's order, then the
        ids it did not return), over RBO of the ideal list against itself, to depth d =
        max(list length, ids graded above 0). A relevant id at rank r and at place i of the
        ideal list is in both prefixes from depth max(r, i) on: the overlap at each depth is
        a count of those depths, no loop over ids."""
        run, ideal, p = self.run, self.labels.ideal, self.persistence
        n = len(ideal)
        positive = run.grade > 0  # first occurrences graded above 0
        rows, columns = np.nonzero(positive)  # row-major: each row's ranks in order
        grade = run.grade[rows, columns]
        top = int(ideal.max()) if ideal.size else 0
        stride = top + 2
        # ideal ids graded above each one: its row's grades sorted best first
        flat = (np.arange(n)[:, None] * stride + (top - ideal)).ravel()
        keys = rows * stride + (top - grade)
        above = np.searchsorted(flat, keys, side="left") - rows * ideal.shape[1]
        # the ids of the same grade the list returned above it
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        earlier = np.empty(len(keys), dtype=np.int64)
        earlier[order] = np.arange(len(keys)) - np.searchsorted(ordered, ordered, side="left")
        place = above + earlier + 1  # in the ideal list
        both = np.maximum(columns + 1, place)  # the depth from which both prefixes hold it
        n_ideal = (ideal > 0).sum(axis=1)
        depth = np.maximum(self.list_length, n_ideal)
        width = max(int(depth.max()) if n else 0, 1)
        counts = np.zeros((n, width + 1), dtype=np.int64)
        np.add.at(counts, (rows, both), 1)
        overlap = np.cumsum(counts, axis=1)[:, 1:]  # depth 1..width
        d = np.arange(1, width + 1, dtype=float)
        weight = np.where(d[None, :] <= depth[:, None], p ** (d - 1) / d, 0.0)
        # in depth order, so that the depths past a query's own (0) add nothing to the bit
        score = _running(weight * overlap)[:, -1]
        best = _running(weight * np.minimum(d[None, :], n_ideal[:, None]))[:, -1]
        return ({"Compat": _whole_list(_ratio(score, best), self.width)},
                {"overlap": overlap, "ideal_place": _placed(place, rows, columns, run.grade),
                 "depth": depth, "best": best, "score": score, "persistence": np.array(p)})

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


# H_0..H_CWL_DEPTH, the harmonic numbers NERR9's closed form reads
_HARMONIC = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, CWL_DEPTH + 1))])


def _cwl_tail(left: np.ndarray, base: np.ndarray, product: np.ndarray, after: np.ndarray,
              harmonic: bool, k: np.ndarray) -> np.ndarray:
    """NERR8/9 at the cutoffs k from each query's list end (`after`) on: the gain found
    (`left`) over the products read up to it (`base`) and past it, every slot empty: from
    rank after + 1 to min(K, CWL_DEPTH), product each (NERR8), or product (after + 1) / i
    at rank i (NERR9)."""
    read = np.minimum(k, CWL_DEPTH)[None, :].astype(np.int64)
    after = after.astype(np.int64)[:, None]
    read = np.maximum(read, after)
    if harmonic:
        steps = (after + 1) * (_HARMONIC[read] - _HARMONIC[after])
    else:
        steps = (read - after).astype(float)
    denominator = base[:, None] + product[:, None] * steps
    return left[:, None] / np.where(denominator > 0, denominator, 1.0)


def _trigamma(x: np.ndarray) -> np.ndarray:
    """trigamma(x) = the sum of 1 / (x + k)^2 over k >= 0, for x > 0: 20 terms, then the
    asymptotic series at x + 20 (its error below 1e-17 there)."""
    x = np.asarray(x, dtype=float)
    near = sum(1.0 / (x + k) ** 2 for k in range(20))
    y = x + 20.0
    inverse = 1.0 / y
    square = inverse * inverse
    far = inverse + square / 2 + inverse * square * (
        1 / 6 - square * (1 / 30 - square * (1 / 42 - square * (1 / 30 - square * 5 / 66))))
    return near + far


def _placed(values: np.ndarray, rows: np.ndarray, columns: np.ndarray,
            like: np.ndarray) -> np.ndarray:
    """Values of some cells put back on the (n, width) grid of `like`, 0 elsewhere."""
    grid = np.zeros(like.shape, dtype=np.int64)
    grid[rows, columns] = values
    return grid


INFAP_EPSILON = 0.00001  # trec_eval 10.0's, which keeps infAP's judged rate off 0 / 0
