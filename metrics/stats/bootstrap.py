"""The bootstrap's draws, shared by every interval and test: how often each query is drawn in
each resample (``Resamples``), and the resampled means and percentile bounds read from them.

The bootstrap resamples the query set; every metric (and both runs of a paired comparison)
is evaluated on the same resampled queries, drawn once from a seeded numpy Generator.

Memory. A resample's mean of a per-query vector v is counts @ v / n, so every consumer needs
only the products of the counts with its per-query values: the (resamples x queries) table
itself never has to exist. ``draw_resamples`` draws it in one of two ways:

- **dense**, up to DENSE_CELLS resample x query cells (134,217 queries at 1,000 resamples,
  1 GiB of counts): the whole table at once, exactly as this engine has always drawn it
  (``resample_counts``: each resample's n query indices, uniform, from the Generator), and
  the means as one product. Every figure a seed gave for such a collection keeps every
  digit, so saved snapshots and drift still meet the figures they were made with.
- **blocked**, beyond it: the queries fall in fixed blocks of BLOCK_QUERIES (0..4095,
  4096..8191, ...); the counts of one block are drawn from the draw's key and the block's
  place alone, and the means are summed block by block, so memory holds one block's counts
  (BLOCK_CELLS at most) whatever the number of queries. The draw is still the multinomial
  bootstrap, resample by resample: how many of a resample's n draws land in each block comes
  down a binary tree over the blocks (each node splits its draws between its two halves by a
  binomial draw in proportion to their queries, from a Generator of the node's own), and a
  block's draws are then placed uniformly on its queries (a Generator of the block's own).
  Each resample still draws exactly n queries, each with probability 1/n per draw.

Blocks for a driver that scores queries block by block: the counts of query i depend only on
the draw (n, resamples, key) and on i, never on how the caller cuts the queries:
``Resamples.counts(start, stop)`` gives any range's, and ``Resamples.blocks()`` names the
draw's own blocks, over which a driver summing ``counts(start, stop) @ values`` gets exactly
the floats ``means`` gives (another cut gives the same counts; its sums may differ in the last
bit, float addition being ordered).

A consumer with several groups of columns (one per run, one per metric) gives them to one
``means`` call: in the blocked draw each block's counts are then drawn once for all of them,
and each group's product is the one it would get alone, so a run's interval never depends on
which other runs came with it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from metrics.stats.validate import check_fraction

_DRAWS_PER_BLOCK = 1 << 18
DENSE_CELLS = 1 << 27  # resamples x queries drawn whole, as always, up to this many
BLOCK_QUERIES = 1 << 12  # queries in a block of the blocked draw
BLOCK_CELLS = 1 << 22  # resample x query counts held at once in the blocked draw (32 MB)
_PLACED_CELLS = 1 << 16  # cells a block's draws are placed on in one step (fits the cache)
_TREE, _BLOCK = 0, 1  # the two kinds of Generator a blocked draw keys
KEEP_BYTES = 1 << 28  # rows an Accumulator over the dense draw keeps to multiply at once


def resample_counts(n: int, *, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each of n queries is drawn in each resample: shape (n_resamples, n), the
    dense table (``draw_resamples`` draws it this way up to DENSE_CELLS cells).

    A resample's mean of any per-query vector v is then counts @ v / n, so all metrics share
    the same draws without materialising n_resamples x n x metrics values.
    """
    if n == 0:
        return np.zeros((n_resamples, 0))
    counts = np.empty((n_resamples, n))
    # Blocks of ~2 MB of draws: one (n_resamples, n) draw array costs a fresh process
    # 0.2 s of page faults (10,000 queries). The stream is the same as one draw of it all.
    block = max(1, _DRAWS_PER_BLOCK // n)
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        draws = rng.integers(0, n, size=(rows, n))
        draws += (np.arange(rows) * n)[:, None]
        counts[start : start + rows] = np.bincount(draws.ravel(), minlength=rows * n).reshape(
            rows, n
        )
    return counts


@dataclass(frozen=True, eq=False)
class Resamples:
    """The resampled queries of one bootstrap: how often each of ``n`` queries is drawn in
    each of ``n_resamples`` resamples, dense (the table) or blocked (drawn block by block
    from ``key``, when it is asked for). Build it with ``draw_resamples``."""

    n: int
    n_resamples: int
    dense: np.ndarray | None = None  # (n_resamples, n), the dense draw
    key: tuple[int, ...] | None = None  # the blocked draw's entropy

    @property
    def blocked(self) -> bool:
        return self.dense is None

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_resamples, self.n)

    def blocks(self) -> list[tuple[int, int]]:
        """The draw's blocks of queries, (start, stop): one block for the dense draw."""
        if not self.blocked:
            return [(0, self.n)] if self.n else []
        return [(start, min(start + BLOCK_QUERIES, self.n))
                for start in range(0, self.n, BLOCK_QUERIES)]

    def counts(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The counts of queries start..stop-1, (n_resamples, stop - start) float64: the
        same numbers whatever range they are asked in."""
        stop = self.n if stop is None else stop
        if not 0 <= start <= stop <= self.n:
            raise ValueError(f"queries {start}..{stop} are not within 0..{self.n}")
        if not self.blocked:
            return self.dense[:, start:stop]
        out = np.empty((self.n_resamples, stop - start))
        for first, last in self.blocks():
            if last <= start or first >= stop:
                continue
            a, b = max(first, start), min(last, stop)
            for rows, block in self._block_counts(first // BLOCK_QUERIES):
                out[rows, a - start:b - start] = block[:, a - first:b - first]
        return out

    def means(self, *groups: np.ndarray) -> list[np.ndarray]:
        """Each group's resampled column means: values (n, m) -> (n_resamples, m)."""
        groups = [np.asarray(values, dtype=float) for values in groups]
        for values in groups:
            if values.shape[0] != self.n:
                raise ValueError(f"values hold {values.shape[0]:,} queries; the resamples "
                                 f"draw {self.n:,}")
        if self.n == 0:
            return [np.zeros((self.n_resamples,) + values.shape[1:]) for values in groups]
        if not self.blocked:
            return [product / self.n for product in counts_products(self.dense, groups)]
        summed = self.accumulator([values.shape[1:] for values in groups])
        summed.add(*groups)
        return summed.finish()

    def accumulator(self, shapes: Sequence[tuple[int, ...]], *,
                    keep_bytes: int = KEEP_BYTES) -> Accumulator:
        """``means`` of groups of columns handed over a few queries at a time, in query order
        (``Accumulator``); `shapes` are each group's columns (``values.shape[1:]``)."""
        return Accumulator(self, [tuple(shape) for shape in shapes], keep_bytes)

    def _add_block(self, index: int, totals: list[np.ndarray], groups: list[np.ndarray]) -> None:
        """Block `index`'s products with each group's rows of that block, into the totals."""
        for rows, block in self._block_counts(index):
            for total, product in zip(totals, counts_products(block, groups), strict=True):
                total[rows] += product

    # --- the blocked draw ------------------------------------------------------------------

    def _generator(self, kind: int, *place: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(
            np.random.SeedSequence(entropy=self.key, spawn_key=(kind, *place))))

    def _queries_in(self, lo: int, hi: int) -> int:
        """Queries in blocks lo..hi-1."""
        return min(hi * BLOCK_QUERIES, self.n) - lo * BLOCK_QUERIES

    def _drawn_into(self, index: int) -> np.ndarray:
        """How many of each resample's n draws land in block `index`: down the binary tree
        over the blocks, each node splitting its draws between its halves by a binomial."""
        lo, hi = 0, len(self.blocks())
        drawn = np.full(self.n_resamples, self.n, dtype=np.int64)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            left = self._generator(_TREE, lo, hi).binomial(
                drawn, self._queries_in(lo, mid) / self._queries_in(lo, hi))
            if index < mid:
                hi, drawn = mid, left
            else:
                lo, drawn = mid, drawn - left
        return drawn

    def _block_counts(self, index: int) -> Iterator[tuple[slice, np.ndarray]]:
        """Block `index`'s counts, (resamples, its queries), a slice of resamples at a time
        (at most BLOCK_CELLS cells): its draws placed uniformly on its queries."""
        drawn = self._drawn_into(index)
        size = self._queries_in(index, index + 1)
        rng = self._generator(_BLOCK, index)
        rows = max(1, BLOCK_CELLS // size)
        step = max(1, _PLACED_CELLS // size)
        offsets = np.arange(step, dtype=np.int64) * size
        for start in range(0, self.n_resamples, rows):
            stop = min(start + rows, self.n_resamples)
            block = np.empty((stop - start, size))
            for a in range(start, stop, step):
                b = min(a + step, stop)
                places = np.repeat(offsets[: b - a], drawn[a:b])
                places += rng.integers(0, size, size=len(places), dtype=np.uint16)
                block[a - start:b - start] = np.bincount(
                    places, minlength=(b - a) * size).reshape(b - a, size)
            yield slice(start, stop), block


class Accumulator:
    """Resampled means of groups of columns whose rows (queries) come a few at a time, in
    query order: what a driver that scores queries block by block reads.

    The blocked draw multiplies each of its blocks as soon as its rows have all come, with
    the counts of that block alone, exactly as ``Resamples.means`` does on the whole tables:
    the same floats, however the caller cut the rows, and memory holds at most one block of
    rows. The dense draw keeps the rows and multiplies once at the end, as ``means`` does,
    while they take at most `keep_bytes`; past that it multiplies each BLOCK_QUERIES rows by
    their slice of the table as they come (the means then agree with ``means`` to the last
    bits only: a product summed in parts is rounded in parts), and ``exact`` says so.
    """

    def __init__(self, resamples: Resamples, shapes: list[tuple[int, ...]],
                 keep_bytes: int) -> None:
        self.resamples, self.shapes, self.keep_bytes = resamples, shapes, keep_bytes
        self.totals = [np.zeros((resamples.n_resamples, *shape)) for shape in shapes]
        self.pending: list[list[np.ndarray]] = [[] for _ in shapes]
        self.pending_rows = 0
        self.done = 0  # rows already multiplied
        self.exact = True
        self._row_bytes = 8 * sum(int(np.prod(shape)) for shape in shapes)

    def add(self, *pieces: np.ndarray) -> None:
        """The next rows of every group (each (rows, *its shape), the same rows)."""
        rows = {len(piece) for piece in pieces}
        if len(pieces) != len(self.shapes) or len(rows) != 1:
            raise ValueError("give every group's piece, each of the same rows")
        count = rows.pop()
        if self.done + self.pending_rows + count > self.resamples.n:
            raise ValueError(f"more than the {self.resamples.n:,} queries the resamples draw")
        for held, piece in zip(self.pending, pieces, strict=True):
            held.append(np.asarray(piece, dtype=float))
        self.pending_rows += count
        if self.resamples.blocked:
            while self.pending_rows and self._next_block_ready():
                self._multiply(min(BLOCK_QUERIES, self.resamples.n - self.done))
        elif (self.exact and self.pending_rows * self._row_bytes > self.keep_bytes):
            self.exact = False
        if not self.resamples.blocked and not self.exact:
            while self.pending_rows >= BLOCK_QUERIES:
                self._multiply(BLOCK_QUERIES)

    def _next_block_ready(self) -> bool:
        return self.pending_rows >= min(BLOCK_QUERIES, self.resamples.n - self.done)

    def _take(self, count: int) -> list[np.ndarray]:
        """The first `count` pending rows of every group (only the pieces that hold them
        are joined)."""
        taken = []
        for index, held in enumerate(self.pending):
            used, rows = 0, 0
            while rows < count:
                rows += len(held[used])
                used += 1
            last = held[used - 1]
            need = len(last) - (rows - count)  # rows of the last piece taken
            # only the rows taken are copied; the rest of the last piece stays a view of it
            joined = (last[:need] if used == 1
                      else np.concatenate([*held[:used - 1], last[:need]]))
            taken.append(joined)
            rest = [last[need:]] if need < len(last) else []
            self.pending[index] = rest + held[used:]
        self.pending_rows -= count
        return taken

    def _multiply(self, count: int) -> None:
        groups = self._take(count)
        start, self.done = self.done, self.done + count
        if self.resamples.blocked:
            self.resamples._add_block(start // BLOCK_QUERIES, self.totals, groups)
            return
        counts = self.resamples.dense[:, start:self.done]
        for total, product in zip(self.totals, counts_products(counts, groups), strict=True):
            total += product

    def finish(self) -> list[np.ndarray]:
        """Each group's resampled means, (n_resamples, *its shape), once every row came."""
        n = self.resamples.n
        if self.done + self.pending_rows != n:
            raise ValueError(f"{self.done + self.pending_rows:,} queries given; the resamples "
                             f"draw {n:,}")
        if n == 0:
            return self.totals
        if self.pending_rows and not self.resamples.blocked and self.exact:
            groups = self._take(self.pending_rows)
            return [product / n for product in counts_products(self.resamples.dense, groups)]
        if self.pending_rows:
            self._multiply(self.pending_rows)
        return [total / n for total in self.totals]


# OpenBLAS picks its kernel, and with it the order it sums in, by the product's shape (a small
# matrix takes kernels of its own): a column's resampled means then moved in the last digit
# with the number of columns beside it (a figure compared alone, as a headline is, against
# the same figure among nine). Every product is taken PRODUCT_COLUMNS wide, the last slice
# padded with zeros: one shape, one kernel, so each column gets the digits it gets alone.
PRODUCT_COLUMNS = 32


def counts_product(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """counts (r, n) @ values (n, ...), -> (r, ...), each column's floats those of a product
    with that column alone (PRODUCT_COLUMNS)."""
    flat = values.reshape(values.shape[0], -1)
    m = flat.shape[1]
    out = np.empty((counts.shape[0], m))
    for start in range(0, m, PRODUCT_COLUMNS):
        piece = flat[:, start:start + PRODUCT_COLUMNS]
        if piece.shape[1] < PRODUCT_COLUMNS:
            piece = np.concatenate(
                [piece, np.zeros((piece.shape[0], PRODUCT_COLUMNS - piece.shape[1]))], axis=1)
        out[:, start:start + PRODUCT_COLUMNS] = (counts @ piece)[:, :min(PRODUCT_COLUMNS,
                                                                        m - start)]
    return out.reshape((counts.shape[0],) + values.shape[1:])


def counts_products(counts: np.ndarray, groups: Sequence[np.ndarray]) -> list[np.ndarray]:
    """counts_product of each group, in one product over their columns side by side (each
    column's floats are its own whatever its neighbours, so none is padded alone)."""
    if len(groups) == 1:
        return [counts_product(counts, groups[0])]
    flat = [values.reshape(values.shape[0], -1) for values in groups]
    together = counts_product(counts, np.concatenate(flat, axis=1))
    edges = np.cumsum([0, *(f.shape[1] for f in flat)])
    return [together[:, a:b].reshape((counts.shape[0],) + values.shape[1:])
            for a, b, values in zip(edges[:-1], edges[1:], groups, strict=True)]


def draw_resamples(n: int, *, n_resamples: int, rng: np.random.Generator) -> Resamples:
    """The resampled queries of a bootstrap over n queries (see the module's docstring):
    the dense table up to DENSE_CELLS cells, drawn from `rng` as ``resample_counts`` draws
    it; beyond, a blocked draw keyed by two integers taken from `rng` (drawn when asked).

    The same draw from the same Generator state is handed out again (``_DRAWS``): every
    interval, comparison and ranking of one seed reads the same resamples, and a change of K
    must not draw them again. `rng` is left where the draw leaves it either way."""
    dense = n_resamples * n <= DENSE_CELLS
    key = (n, n_resamples, dense, _state_key(rng.bit_generator.state))
    kept = _DRAWS.get(key)
    if kept is not None:
        resamples, after = kept
        rng.bit_generator.state = after
        return resamples
    if dense:
        counts = resample_counts(n, n_resamples=n_resamples, rng=rng)
        counts.flags.writeable = False  # handed out to every caller of this draw
        resamples = Resamples(n, n_resamples, dense=counts)
    else:
        blocked = tuple(int(part) for part in rng.integers(0, 2**63, size=2, dtype=np.int64))
        resamples = Resamples(n, n_resamples, key=blocked)
    _DRAWS.put(key, (resamples, rng.bit_generator.state),
               0 if resamples.dense is None else resamples.dense.nbytes)
    return resamples


def resampled_queries(n: int, *, seed: int, n_resamples: int) -> Resamples:
    """The resampled queries of a bootstrap over n queries on `seed`: ``draw_resamples``
    from a fresh Generator on the seed. Every seeded bootstrap draws through here (the
    summary and its sweep, a restricted or sliced evaluation, the leaderboard, the overlap,
    a cross-fitted mean, the block and Spark drivers, a saved evaluation), and a comparison
    on a seed draws the same first from its own Generator on it, so one figure over the same
    queries, seed and resamples has one interval whichever path computes it."""
    return draw_resamples(n, n_resamples=n_resamples, rng=np.random.default_rng(seed))


def resamples_from(rng: np.random.Generator | int, n: int, *, n_resamples: int) -> Resamples:
    """The resampled queries of a function that takes scipy's `rng`: a Generator's draw (the
    Generator moves on) or an integer seed's (``resampled_queries``)."""
    if isinstance(rng, np.random.Generator):
        return draw_resamples(n, n_resamples=n_resamples, rng=rng)
    return resampled_queries(n, seed=rng, n_resamples=n_resamples)


def _state_key(state: object) -> object:
    """A Generator's state (nested dicts of ints and names) as a hashable key."""
    if isinstance(state, dict):
        return tuple((name, _state_key(value)) for name, value in sorted(state.items()))
    if isinstance(state, np.ndarray):  # MT19937 keeps its key as an array
        return (state.dtype.str, state.tobytes())
    return state


class _Kept:
    """The last draws, most recent last, within a byte budget (a draw larger than the
    budget is not kept). Sessions of the dashboard draw from threads: guarded by a lock."""

    def __init__(self, max_bytes: int, max_entries: int) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._entries: OrderedDict[object, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object) -> object | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key][0]

    def put(self, key: object, value: object, n_bytes: int) -> None:
        if n_bytes > self.max_bytes:
            return
        with self._lock:
            self._entries[key] = (value, n_bytes)
            self._entries.move_to_end(key)
            while (len(self._entries) > self.max_entries
                   or sum(size for _, size in self._entries.values()) > self.max_bytes):
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


# a few draws (the whole query set and a filter or two, at 10,000 queries 80 MB each)
KEPT_DRAW_BYTES = 1 << 28
_DRAWS = _Kept(KEPT_DRAW_BYTES, max_entries=4)


def as_resamples(counts: np.ndarray | Resamples) -> Resamples:
    """Resamples as they are, or a dense table of counts (n_resamples, n) as Resamples."""
    if isinstance(counts, Resamples):
        return counts
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2:
        raise ValueError(f"counts must be a (resamples, queries) table, got shape {counts.shape}")
    return Resamples(counts.shape[1], counts.shape[0], dense=counts)


def bootstrap_means(values: np.ndarray, counts: np.ndarray | Resamples) -> np.ndarray:
    """Resampled means of each column of values (n, m) -> (n_resamples, m), over Resamples
    or a dense table of counts (n_resamples, n)."""
    return as_resamples(counts).means(values)[0]


def percentile_bounds(
    distribution: np.ndarray, *, confidence_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of a bootstrap distribution along axis 0."""
    alpha = 1 - check_fraction("confidence_level", confidence_level)
    low, high = np.quantile(distribution, [alpha / 2, 1 - alpha / 2], axis=0)
    return low, high
