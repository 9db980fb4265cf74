"""Fusion: runs merged into a new run (RRF, CombSUM, CombMNZ), written as TREC, and the weight
of two runs chosen by cross-fitting. The words, norms and rules are in
metrics.vocabulary.fusion.

Vectorised: every run's rows are pooled once, as (query, doc) integer keys, so one
normalisation pass (reduceat over each run's query blocks), one bincount and one sort fuse
every query at once. A weight search pools once and sums again for each weight.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.io import Qrels, Run
from metrics.io.arrow import from_numbers, index_in, numbers, strings
from metrics.io.codes import encode
from metrics.io.errors import show
from metrics.io.trec import unwritable
from metrics.stats.validate import check_rng, is_number
from metrics.vocabulary import fusion as words
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k
from metrics.vocabulary.format import trec_column_problem
from metrics.vocabulary.measures import MEASURE_BY_KEY

__all__ = ["CrossFit", "FusionPool", "FusionRecipe", "check_rrf_k", "check_weight_values",
           "cross_fitted_weights", "fuse", "fusion_pool", "recipe_from", "recipe_from_text",
           "trec_unwritable_row", "write_trec"]


@dataclass(frozen=True)
class FusionRecipe:
    """How a fused run was made: enough to make it again and to say so beside its figures."""

    name: str
    method: str
    norm: str | None  # None for RRF, which reads ranks only
    k: float | None  # RRF's constant; None for CombSUM and CombMNZ
    weights: tuple[float, ...] | None  # weighted CombSUM, one per run; None otherwise
    runs: tuple[str, ...]  # the input runs' names, in order
    unscored: tuple[str, ...]  # input runs without scores (normalised by rank when read)

    @property
    def sentence(self) -> str:
        return words.recipe_sentence(self.name, self.method, self.norm, self.runs, k=self.k,
                                     weights=self.weights, unscored=self.unscored)

    def as_dict(self) -> dict:
        return {"name": self.name, "method": self.method, "norm": self.norm, "k": self.k,
                "weights": None if self.weights is None else list(self.weights),
                "runs": list(self.runs), "unscored": list(self.unscored),
                "sentence": self.sentence}


@dataclass(frozen=True, eq=False)
class FusionPool:
    """Every run's first occurrences as pooled (query, doc) pairs, and where each row went:
    what fuse reads of its runs, whatever the method, norm, k or weights."""

    query_ids: np.ndarray  # union of the runs' queries, first-appearance order
    docs: pa.Array  # distinct doc ids, ascending as strings: a doc code is its string order
    pair_query: np.ndarray  # per distinct (query, doc) pair, sorted by (query, doc code)
    pair_doc: np.ndarray
    slots: tuple[np.ndarray, ...]  # per run: the pair of each kept row
    rank: tuple[np.ndarray, ...]  # per run: the rank slot of each kept row (1-based)
    length: tuple[np.ndarray, ...]  # per run: the slots of its list for that row's query
    score: tuple[np.ndarray | None, ...]  # per run: the score of each kept row, or None
    block: tuple[np.ndarray, ...]  # per run: start of each query block among its kept rows
    made_from: tuple[tuple[object, ...], ...] = ()  # per run: the arrays it was read from

    def pools(self, runs: Sequence[Run]) -> bool:
        """Whether it was made from these runs' rows (their arrays, not copies of them)."""
        return len(runs) == len(self.made_from) and all(
            all(a is b for a, b in zip(_rows_of(run), made, strict=True))
            for run, made in zip(runs, self.made_from, strict=True))


def _rows_of(run: Run) -> tuple[object, ...]:
    return (run.query_ids, run.query_code, run.doc_ids, run.score)


def fusion_pool(runs: Sequence[Run]) -> FusionPool:
    """The runs' rows pooled as fuse pools them (the string matching and sorting of every
    doc id, most of a fusion's time): given to fuse(pool=...), the same runs are fused
    again under another method, norm, k or weights without pooling them again."""
    runs = list(runs)
    _check_count(runs)  # names are not read: they may still be made distinct after
    return _pool(runs)


def fuse(runs: Sequence[Run], *, method: str = words.DEFAULT_METHOD,
         norm: str = words.DEFAULT_NORM, rrf_k: float = words.RRF_K,
         weights: Sequence[float] | None = None, name: str | None = None,
         pool: FusionPool | None = None) -> tuple[Run, FusionRecipe]:
    """The runs fused into one, and its recipe: each query's ids ranked by fused score
    (descending, ties by doc id descending as a string), ranks 1..n, `score` at full
    precision. `norm` applies to CombSUM and CombMNZ (RRF reads ranks); `weights`, one per
    run, make CombSUM weighted. Every run's full list is read (metrics.vocabulary.fusion).
    `pool`: these runs' `fusion_pool`, made once for several fusions of them."""
    runs = list(runs)
    _check_runs(runs)
    _check_choice("method", method, words.METHODS)
    _check_choice("norm", norm, words.NORMS)
    k = check_rrf_k(rrf_k) if method == words.RRF else None
    weights = _check_weights(weights, runs, method)
    if pool is not None and not pool.pools(runs):
        raise ValueError("pool was not made from these runs: make it with "
                         "fusion_pool(runs) from the runs fused, in their order")
    pool = pool or _pool(runs)
    contributions = _contributions(pool, runs, method, norm, k)
    fused = _combined(pool, contributions, weights, method)
    norm_used = None if method == words.RRF else norm
    names = tuple(run.name for run in runs)
    name = name or words.fused_name(method, norm_used, names,
                                    k=words.RRF_K if k is None else k, weights=weights)
    recipe = FusionRecipe(name, method, norm_used, k, weights, names,
                          tuple(run.name for run in runs if run.score is None))
    return _ranked(pool, fused, name), recipe


# --- checks ----------------------------------------------------------------------------


def _check_count(runs: list[Run]) -> None:
    if len(runs) < 2:
        raise ValueError(f"fusion needs at least two runs, got {len(runs)}")


def _check_runs(runs: list[Run]) -> None:
    _check_count(runs)
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be distinct, got {names}")


def _check_choice(what: str, value: object, allowed: dict) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {show(value)}")


def _number(value: object) -> float | None:
    """A number as a float, or None: not a bool, not beyond float range (a 400-digit
    integer), not nan or infinite (``is_number``)."""
    return float(value) if is_number(value) else None


def check_rrf_k(k: object, what: str = "rrf_k", given: str | None = None) -> int | float:
    """RRF's k: a finite number from 0 to MAX_RRF_K, as a plain int or float. `given`, the
    text it was read from, is what a message quotes."""
    number = _number(k)
    if number is None or not 0 <= number <= words.MAX_RRF_K:
        raise ValueError(f"{what} must be a finite number >= 0 and at most "
                         f"{words.MAX_RRF_K:,}, got {show(k if given is None else given)}")
    return int(number) if number.is_integer() else number  # a plain number for the JSON


def check_weight_values(weights: Sequence[object], given: str | None = None
                        ) -> tuple[float, ...]:
    """Weights, one per run: finite numbers from 0 to MAX_WEIGHT, not all 0 (so no fused
    score can overflow). `given`, the text they were read from, is what a message quotes."""
    values = tuple(_number(w) for w in weights)
    if any(v is None or not 0 <= v <= words.MAX_WEIGHT for v in values) or not any(values):
        shown = show(list(weights), 80) if given is None else show(given, 80)
        raise ValueError(f"weights must be finite, >= 0, at most {words.MAX_WEIGHT:,} and not "
                         f"all 0, got {shown}")
    return values



def _check_weights(weights: Sequence[float] | None, runs: list[Run],
                   method: str) -> tuple[float, ...] | None:
    if weights is None:
        return None
    if method != words.COMBSUM:
        raise ValueError(f"weights apply to {words.COMBSUM} only (weighted CombSUM), not "
                         f"{method!r}")
    weights = list(weights)
    if len(weights) != len(runs):
        raise ValueError(f"weights must give one weight per run: {len(weights)} for "
                         f"{len(runs)} runs")
    return check_weight_values(weights)


# --- pooling ---------------------------------------------------------------------------


def _pool(runs: list[Run]) -> FusionPool:
    """Codes shared by every run: queries in first-appearance order, docs in string order
    (so that sorting codes sorts ids as trec_eval does), and one key per (query, doc) pair."""
    query_code, query_names = encode(np.concatenate([run.query_ids for run in runs]))
    starts = np.cumsum([0] + [len(run.query_ids) for run in runs])
    doc_code, names = encode(pa.concat_arrays([run.doc_ids.cast(pa.string()) for run in runs]))
    by_string = numbers(pc.sort_indices(names)).astype(np.int64)
    string_rank = np.empty(len(names), dtype=np.int64)
    string_rank[by_string] = np.arange(len(names))
    doc_code = string_rank[doc_code]
    width = max(len(names), 1)
    keys, kept, rank, length, score, block = [], [], [], [], [], []
    row = 0
    for r, run in enumerate(runs):  # a loop over the runs; every query at once inside
        n = len(run.doc_ids)
        query = query_code[starts[r]:starts[r + 1]][run.query_code]
        first = ~run.repeat
        run_rank, run_length = _slots(run.query_code)
        keys.append(query[first] * width + doc_code[row:row + n][first])
        rank.append(run_rank[first])
        length.append(run_length[first])
        score.append(None if run.score is None else run.score[first])
        block.append(_block_starts(run.query_code[first]))
        kept.append(len(keys[-1]))
        row += n
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    return FusionPool(strings(query_names), names.take(from_numbers(by_string)),
                      unique // width, unique % width,
                      tuple(np.split(inverse.ravel(), np.cumsum(kept)[:-1])), tuple(rank),
                      tuple(length), tuple(score), tuple(block), tuple(map(_rows_of, runs)))


def _block_starts(query_code: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.r_[True, query_code[1:] != query_code[:-1]]) if len(query_code) \
        else np.zeros(0, dtype=np.int64)


def _slots(query_code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: its rank slot (1-based) in its query's list, and that list's length."""
    starts = _block_starts(query_code)
    sizes = np.diff(np.r_[starts, len(query_code)])
    block = np.repeat(np.arange(len(starts)), sizes)
    return np.arange(len(query_code)) - starts[block] + 1, sizes[block]


# --- fused scores ----------------------------------------------------------------------


def _contributions(pool: FusionPool, runs: list[Run], method: str, norm: str,
                   k: float | None) -> list[np.ndarray]:
    """What each kept row adds to its pair's fused score, run by run (before weights)."""
    if method == words.RRF:
        return [1.0 / (k + rank) for rank in pool.rank]
    out = []
    for run, rank, length, score, block in zip(runs, pool.rank, pool.length, pool.score,
                                               pool.block, strict=True):
        if score is None or norm == words.RANK:
            out.append(1.0 - (rank - 1) / length)
        else:
            _check_finite(run, score)
            out.append(_normalised(score, block, norm))
    return out


def _check_finite(run: Run, score: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(score))
    if len(bad):
        kept = np.flatnonzero(~run.repeat)[bad[0]]
        raise ValueError(f"run {run.name!r}, line {run.line[kept]}: score {score[bad[0]]} is "
                         "not finite; min-max and z-score need finite scores")


def _normalised(score: np.ndarray, starts: np.ndarray, norm: str) -> np.ndarray:
    """min-max or z-score over each query's block of rows, every block in one pass."""
    if not len(score):
        return score.astype(np.float64)
    sizes = np.diff(np.r_[starts, len(score)])
    low = np.repeat(np.minimum.reduceat(score, starts), sizes)
    high = np.repeat(np.maximum.reduceat(score, starts), sizes)
    tied = low == high  # told by min and max: a mean of equal doubles need not equal them
    if norm == words.MINMAX:
        return np.where(tied, 1.0, (score - low) / np.where(tied, 1.0, high - low))
    mean = np.repeat(np.add.reduceat(score, starts) / sizes, sizes)
    deviation = score - mean
    std = np.repeat(np.sqrt(np.add.reduceat(deviation * deviation, starts) / sizes), sizes)
    return np.where(tied, 0.0, deviation / np.where(tied, 1.0, std))


def _combined(pool: FusionPool, contributions: list[np.ndarray],
              weights: Sequence[float] | None, method: str) -> np.ndarray:
    """Per pooled pair: the (weighted) sum of its runs' contributions; CombMNZ times their
    count."""
    n = len(pool.pair_query)
    fused = np.zeros(n)
    for r, (slots, values) in enumerate(zip(pool.slots, contributions, strict=True)):
        weight = 1.0 if weights is None else weights[r]
        fused += np.bincount(slots, weights=values * weight, minlength=n)
    if method == words.COMBMNZ:
        fused *= sum(np.bincount(slots, minlength=n) for slots in pool.slots)
    return fused


def _ranked(pool: FusionPool, fused: np.ndarray, name: str, labelled: _Labelled | None = None
            ) -> Run:
    """The pooled pairs as a run: by query, fused score descending, doc id descending.
    With `labelled`, the run holds each row's position among the labels' doc ids and knows
    it repeats no id (a pooled pair is distinct), so that aligning it on those labels does
    not match its ids again (the weight search aligns a run per weight)."""
    # pairs come sorted by (query, doc code), a doc code being its id's string order: the
    # position breaks a tie of (query, fused score) by doc id descending. One arrow sort on
    # the three keys (a quarter of numpy's two stable sorts: the weight search sorts once
    # per weight); the scores are finite and never -0.0 (sums from +0.0), so they compare
    # as numpy compares them
    order = numbers(pc.sort_indices(
        pa.table({"query": pool.pair_query, "fused": fused,
                  "position": np.arange(len(fused))}),
        sort_keys=[("query", "ascending"), ("fused", "descending"),
                   ("position", "descending")])).astype(np.int64)
    query = pool.pair_query[order]
    new = np.r_[True, query[1:] != query[:-1]] if len(query) else np.zeros(0, dtype=bool)
    run = Run(name=name, source=name, query_ids=pool.query_ids[query[new]],  # those with rows
              query_code=np.cumsum(new) - 1,
              doc_ids=pool.docs.take(from_numbers(pool.pair_doc[order])),
              line=np.arange(1, len(order) + 1, dtype=np.int64), score=fused[order],
              **({} if labelled is None else
                 {"labels": labelled.labels, "label_code": labelled.code[order]}))
    if labelled is not None:  # Run's cached repeats: none
        none = np.zeros(0, dtype=np.int64)
        run.__dict__.update(repeats=(none, none), repeat=np.zeros(len(order), dtype=bool))
    return run


@dataclass(frozen=True, eq=False)
class _Labelled:
    """Each pooled pair's doc id's position among the labels' doc ids (-1: unlabelled)."""

    labels: pa.Array  # the Qrels.doc_names the codes point into
    code: np.ndarray  # per pooled pair


def _labelled(pool: FusionPool, qrels: Qrels) -> _Labelled:
    """Each distinct doc id matched to the labels once, for every pair and every weight."""
    return _Labelled(qrels.doc_names, index_in(pool.docs, qrels.doc_names)[pool.pair_doc])


# --- TREC ------------------------------------------------------------------------------



def trec_unwritable_row(run: Run) -> tuple[int, str, str] | None:
    """The first row of `run` whose query id or doc id one column of a TREC line cannot hold
    (`trec_column_problem`, the rule of every TREC file written): (the row, the id named
    ("doc id 'a b'"), why); None when every id can be written. The doc ids are screened as
    one column, the distinct query ids one by one."""
    found = []
    for code in np.flatnonzero(unwritable(run.query_ids, first=True))[:1].tolist():
        query = str(run.query_ids[code])
        row = int(np.searchsorted(run.query_code, code))  # codes do not decrease
        found.append((row, f"query id {show(query)}", trec_column_problem(query, first=True)))
    docs = run.doc_ids.cast(pa.string())
    for row in np.flatnonzero(unwritable(docs))[:1].tolist():
        doc = docs[row].as_py() or ""
        found.append((row, f"doc id {show(doc)}", trec_column_problem(doc)))
    return min(found) if found else None


def write_trec(run: Run, tag: str | None = None) -> str:
    """The run as TREC lines `qid Q0 doc rank score tag`, ranks 1..n per query in the run's
    order, scores as Python's repr (the shortest text that reads back as the same double),
    so that load_run's score order gives this order back when tied scores are listed by doc
    id descending, as fuse lists them. A run without scores is refused."""
    # the default tag is the run's name, white space made "_" (a file name may hold it)
    tag = "_".join(run.name.split()) if tag is None else tag
    if run.score is None:
        raise ValueError(f"run {run.name!r} has no scores to write")
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"tag must be one word without white space, got {tag!r}")
    found = trec_unwritable_row(run)
    if found is not None:
        _, what, why = found
        raise ValueError(f"{what} {why}: a TREC run cannot hold it")
    queries = pa.array(list(run.query_ids), pa.string()).take(from_numbers(run.query_code))
    docs = run.doc_ids.cast(pa.string())
    rank, _ = _slots(run.query_code)
    lines = pc.binary_join_element_wise(
        queries, "Q0", docs, pc.cast(from_numbers(rank), pa.string()),
        pa.array(list(map(repr, run.score.tolist())), pa.string()), tag, " ")
    return "".join(line + "\n" for line in lines.to_pylist())


# --- choosing a weight by cross-fitting ------------------------------------------------


@dataclass(frozen=True, eq=False)
class CrossFit:
    """The first run's weight w (the second's 1 − w) chosen by 2-fold cross-fitting, and what
    a plot or an interval needs: every query's figure at every weight, its half, and each
    query's cross-fitted figure (scored at the weight its other half chose)."""

    metric: str
    k: int
    norm: str
    runs: tuple[str, str]
    grid: np.ndarray  # the weights tried (the first run's)
    query_ids: np.ndarray  # the scored queries, query-set order
    fold: np.ndarray  # 0 or 1 per query: its half
    table: np.ndarray  # (queries, weights): each query's figure at each weight
    chosen: tuple[float, float]  # the weight tuned on half 0, on half 1
    per_query: np.ndarray  # each query's figure at the weight its other half chose
    in_sample_weight: float  # tuned on every query: for contrast only
    in_sample: np.ndarray  # each query's figure at in_sample_weight
    label: str  # the figure's per-query label at k under the conventions ("nDCG@10")

    @property
    def mean(self) -> float:
        return float(self.per_query.mean())

    @property
    def in_sample_mean(self) -> float:
        return float(self.in_sample.mean())

    @property
    def sentence(self) -> str:
        return words.cross_fit_sentence(self.label, self.chosen, self.mean,
                                        self.in_sample_weight, self.in_sample_mean,
                                        len(self.per_query))


def cross_fitted_weights(qrels: Qrels, runs: Sequence[Run], *, metric: str = words.TUNE_METRIC,
                         k: int = words.TUNE_K, norm: str = words.DEFAULT_NORM,
                         grid: Sequence[float] = words.WEIGHT_GRID,
                         conventions: Conventions | None = None,
                         rng: np.random.Generator | int | None = None) -> CrossFit:
    """Weighted CombSUM of two runs, the first weighted w and the second 1 − w, w tuned on
    `metric`@k by 2-fold cross-fitting (words.CROSS_FIT_RULE): the scored queries are split
    at random into halves (`rng`, a Generator or a seed, by default the conventions' seed),
    w is tuned on each half and each query is scored at the other half's w. Every weight's
    fused run is scored as metrics.evaluate scores it under `conventions`, the one figure read
    (metrics.core.evaluate.figure_by_query)."""
    # evaluate imports much; fuse() alone needs none
    from metrics.core.evaluate import figure_by_query

    runs = list(runs)
    if len(runs) != 2:
        raise ValueError(f"the weight search fuses two runs, got {len(runs)}")
    _check_runs(runs)
    _check_choice("metric", metric, MEASURE_BY_KEY)
    _check_choice("norm", norm, words.NORMS)
    grid = np.asarray(grid, dtype=np.float64)
    if grid.ndim != 1 or not len(grid) or not ((grid >= 0) & (grid <= 1)).all() \
            or len(np.unique(grid)) != len(grid):
        raise ValueError(f"grid must hold distinct weights in [0, 1], got {grid.tolist()}")
    k = check_k(k)
    conventions = conventions or Conventions()
    rng, _ = check_rng(conventions.seed if rng is None else rng)

    pool = _pool(runs)
    contributions = _contributions(pool, runs, words.COMBSUM, norm, None)
    labelled = _labelled(pool, qrels)
    names = tuple(run.name for run in runs)
    fused = []
    for w in grid:  # a loop over the weights; each fuses every query at once
        weights = (float(w), round(1.0 - float(w), 12))  # 0.3, not 0.30000000000000004
        fused.append(_ranked(pool, _combined(pool, contributions, weights, words.COMBSUM),
                             words.fused_name(words.COMBSUM, norm, names, weights=weights),
                             labelled))
    table, scored_ids, label = figure_by_query(qrels, fused, k, metric, conventions)
    n = len(table)
    if n < 2:
        raise ValueError(f"cross-fitting needs at least 2 scored queries, got {n}")
    fold = np.ones(n, dtype=np.int64)
    fold[rng.permutation(n)[:(n + 1) // 2]] = 0  # the first half holds the odd one out
    best = [_best(table[fold == half].mean(axis=0), grid) for half in (0, 1)]
    per_query = table[np.arange(n), np.asarray(best)[1 - fold]]
    overall = _best(table.mean(axis=0), grid)
    return CrossFit(metric, k, norm, names, grid, np.asarray(scored_ids, dtype=object),
                    fold, table, (float(grid[best[0]]), float(grid[best[1]])), per_query,
                    float(grid[overall]), table[:, overall], label)


def _best(means: np.ndarray, grid: np.ndarray) -> int:
    """The index of the best mean; ties toward 0.5, then the lower weight (TUNING_TIE_RULE)."""
    tied = np.flatnonzero(means == means.max())
    distance = np.round(np.abs(grid[tied] - 0.5), 12)
    return int(tied[np.lexsort((grid[tied], distance))[0]])


def recipe_from_text(text: object) -> dict:
    """A fusion recipe from the JSON text a link carries: at most MAX_RECIPE_CHARS, nested
    at most MAX_RECIPE_DEPTH levels (told before it is parsed, so no nesting can exhaust
    the parser), then checked field by field (``recipe_from``)."""
    if not isinstance(text, str):
        raise ValueError(words.RECIPE_SHAPE)
    if len(text) > words.MAX_RECIPE_CHARS:
        raise ValueError(f"{words.RECIPE_SHAPE}, at most {words.MAX_RECIPE_CHARS:,} "
                         f"characters: this one has {len(text):,}")
    depth = _nesting(text)
    if depth > words.MAX_RECIPE_DEPTH:
        raise ValueError(f"{words.RECIPE_SHAPE}, nested {words.MAX_RECIPE_DEPTH} levels at "
                         f"most: this one nests {depth:,}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"{words.RECIPE_SHAPE}: this one is not valid JSON") from None
    return recipe_from(data)


def _nesting(text: str) -> int:
    """How deep JSON text nests its arrays and objects (brackets inside strings aside)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def recipe_from(data: object) -> dict:
    """A fusion recipe as a link carries it ({"method", "norm", "k", "weights", "runs"}),
    checked field by field (its type, then its range): a ValueError says which field is
    wrong and how, in one line. Run names are checked against the runs loaded by the
    caller."""
    if not isinstance(data, dict):
        raise ValueError(words.RECIPE_SHAPE)
    unknown = [key for key in data if key not in words.RECIPE_FIELDS]
    if unknown:
        raise ValueError(f"a fusion recipe has no field {show(unknown[0])}: its fields are "
                         f"{', '.join(words.RECIPE_FIELDS)}")
    runs = data.get("runs")
    if not isinstance(runs, list) or not all(isinstance(r, str) and r for r in runs):
        raise ValueError(f"a fusion recipe's runs are a list of run names, got {show(runs)}")
    if not 2 <= len(runs) <= words.MAX_RECIPE_RUNS or len(set(runs)) < len(runs):
        raise ValueError(f"a fusion recipe names from 2 to {words.MAX_RECIPE_RUNS} distinct "
                         f"runs, got {len(runs):,} names ({len(set(runs)):,} distinct)")
    method = data.get("method", words.DEFAULT_METHOD)
    norm = data.get("norm", words.DEFAULT_NORM)
    _check_choice("a fusion recipe's method", method, words.METHODS)
    _check_choice("a fusion recipe's norm", norm, words.NORMS)
    k = check_rrf_k(data.get("k", words.RRF_K), "a fusion recipe's k")
    weights = data.get("weights")
    if weights is not None:
        if not isinstance(weights, list) or len(weights) != len(runs):
            raise ValueError(f"a fusion recipe's weights are one number per run ({len(runs)}), "
                             f"got {show(weights)}")
        weights = list(check_weight_values(weights))
        method = words.COMBSUM
    return {"method": method, "norm": norm, "k": k, "weights": weights, "runs": list(runs)}
