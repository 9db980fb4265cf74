"""Facets of the queries: each query's bin of one property (a category, a number cut into
quantile bins, its length in words), so that figures can be split into slices.

The bins of a facet partition the queries it covers: every query falls in exactly one bin,
a query without a value in the missing bin, and the counts sum to the queries covered.
A number facet with at most MAX_BINS distinct values gives each value a bin. Otherwise each
distinct value goes to the quarter its middle rank falls in: the plotting position
(r - 1/2) / n of its average rank r (Hazen's, numpy.quantile's method "hazen"), times
MAX_BINS, rounded down. Without ties this cuts at the quartiles; equal values always share
the bin their middle falls in, so a heavily tied value does not pull its neighbours on one
side into its bin, as cutting at repeated quantile edges would (pandas.qcut). Quarters that
hold no value are dropped: fewer bins when the values are few or heavily tied. A bin's
label states the range of the values it holds: "[3, 5]", or "3" when it holds one value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.io.queries import Queries, Value
from metrics.stats.validate import is_number
from metrics.vocabulary.format import figure, natural_key
from metrics.vocabulary.slices import LENGTH, MAX_BINS, MISSING, OTHER, TOP_CATEGORIES

KINDS = ("category", "number")


@dataclass(frozen=True, eq=False)
class Facet:
    """One property of the queries, binned: `labels` maps each query covered to its bin."""

    name: str
    kind: str  # one of KINDS
    bins: tuple[str, ...]  # labels in display order: numbers ascending, categories largest
    # first, then OTHER, then MISSING (each only when it holds a query)
    counts: tuple[int, ...]  # queries in each bin
    labels: dict[str, str]  # query id -> its bin's label
    ranges: tuple[tuple[float, float], ...] = ()  # a number facet: (lowest, highest) value
    # of each bin but the missing one
    missing: str = MISSING  # the missing bin's label ("(missing)" when a category is "missing")

    def label(self, query_id: str) -> str:
        """The bin of a query; the missing bin for a query the facet does not cover."""
        return self.labels.get(query_id, self.missing)

    def count(self, label: str) -> int:
        return dict(zip(self.bins, self.counts, strict=True)).get(label, 0)


def facets(queries: Queries, query_ids: Sequence[str] | None = None) -> dict[str, Facet]:
    """Every facet of the queries, the length in words first, then the file's in its order.

    Bins are cut over `query_ids` when given (e.g. the scored queries, so that each
    quantile bin holds a quarter of them), else over every query of the file; a given id
    the file does not hold has no value for any facet (the missing bin). A file column
    named LENGTH takes the place of the computed length.
    """
    ids = list(queries.ids) if query_ids is None else [str(q) for q in query_ids]
    rows = [queries.position.get(query) for query in ids]
    columns: dict[str, tuple[Value, ...]] = {}
    if queries.texts and LENGTH not in queries.facets:
        columns[LENGTH] = tuple(len(text.split()) for text in queries.texts)
    columns.update(queries.facets)
    return {
        name: facet(name, ids, [None if row is None else column[row] for row in rows])
        for name, column in columns.items()
    }


def facet(name: str, query_ids: Sequence[str], values: Sequence[Value]) -> Facet:
    """One facet from each query's value (None where missing): a number facet when every
    present value is a number, else a category facet."""
    present = [value for value in values if value is not None]
    if present and all(is_number(value) for value in present):
        return _number_facet(name, query_ids, values)
    return _category_facet(name, query_ids, values)


def _number_facet(name: str, query_ids: Sequence[str], values: Sequence[Value]) -> Facet:
    at = [i for i, value in enumerate(values) if value is not None]
    x = np.array([float(values[i]) for i in at], dtype=float)
    code = _quarters(x)
    n_bins = int(code.max()) + 1 if len(code) else 0
    ranges = tuple((float(x[code == b].min()), float(x[code == b].max())) for b in range(n_bins))
    bins = _range_labels(ranges)
    labels = dict.fromkeys(query_ids, MISSING)
    for i, b in zip(at, code.tolist(), strict=True):
        labels[query_ids[i]] = bins[b]
    counts = np.bincount(code, minlength=n_bins).tolist()
    return _with_missing(name, "number", bins, counts, labels, len(values) - len(at), MISSING,
                         ranges)


def _quarters(x: np.ndarray) -> np.ndarray:
    """Each value's bin, 0 up: its distinct value's rank when there are few, else the
    quarter of its middle rank; bins that hold nothing are skipped in the numbering."""
    distinct, inverse, sizes = np.unique(x, return_inverse=True, return_counts=True)
    if len(distinct) <= MAX_BINS:
        return inverse.reshape(-1)
    below = np.cumsum(sizes) - sizes  # values smaller than each distinct value
    # (r - 1/2) / n * MAX_BINS with the average rank r = below + (sizes + 1) / 2, in integers
    quarter = (MAX_BINS * (2 * below + sizes)) // (2 * len(x))
    _, numbered = np.unique(quarter, return_inverse=True)
    return numbered.reshape(-1)[inverse.reshape(-1)]


def _range_labels(ranges: tuple[tuple[float, float], ...]) -> list[str]:
    """'[3, 5]', or '3' for a bin of one value; more digits when three decimals would give
    two bins one label."""
    for write in (_number, _precise):
        labels = [write(low) if low == high else f"[{write(low)}, {write(high)}]"
                  for low, high in ranges]
        if len(set(labels)) == len(labels):
            return labels
    return labels


def _number(value: float) -> str:
    """A whole number as written (a count, a year); any other as every figure is shown."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else figure(value)


def _precise(value: float) -> str:
    return f"{value:.17g}"


def _category_facet(name: str, query_ids: Sequence[str], values: Sequence[Value]) -> Facet:
    text = [None if value is None else str(value) for value in values]
    sizes = Counter(value for value in text if value is not None)
    # largest first; ties in natural order (q2 before q10), then as strings
    ranked = sorted(sizes, key=lambda value: (-sizes[value], natural_key(value), value))
    shown, rest = ranked[:TOP_CATEGORIES], ranked[TOP_CATEGORIES:]
    other, missing = _reserved(OTHER, sizes), _reserved(MISSING, sizes)
    label_of = dict.fromkeys(rest, other) | {value: value for value in shown}
    labels = {query: missing if value is None else label_of[value]
              for query, value in zip(query_ids, text, strict=True)}
    bins, counts = list(shown), [sizes[value] for value in shown]
    if rest:
        bins.append(other)
        counts.append(sum(sizes[value] for value in rest))
    return _with_missing(name, "category", bins, counts, labels, text.count(None), missing)


def _reserved(word: str, taken: Counter) -> str:
    """A bin's own label that no category holds: 'other', else '(other)', '((other))'..."""
    while word in taken:
        word = f"({word})"
    return word


def _with_missing(
    name: str, kind: str, bins: list[str], counts: list[int], labels: dict[str, str],
    n_missing: int, missing: str, ranges: tuple[tuple[float, float], ...] = (),
) -> Facet:
    if n_missing:
        bins, counts = [*bins, missing], [*counts, n_missing]
    return Facet(name, kind, tuple(bins), tuple(int(c) for c in counts), labels, ranges, missing)


def slice_masks(facet: Facet, query_ids: Sequence[str]) -> list[tuple[str, np.ndarray]]:
    """(label, bool mask over `query_ids`) for each bin holding one of them, in the facet's
    order: the masks partition the ids (e.g. `Evaluation.scored_ids` or
    `query_set.query_ids`). An id the facet does not cover falls in the missing slice."""
    order = list(facet.bins)
    if facet.missing not in order:
        order.append(facet.missing)
    index = {label: i for i, label in enumerate(order)}
    codes = np.fromiter((index[facet.label(str(query))] for query in query_ids),
                        dtype=np.int64, count=len(query_ids))
    masks = [(label, codes == i) for i, label in enumerate(order)]
    return [(label, mask) for label, mask in masks if mask.any()]


def default_facet(found: dict[str, Facet]) -> str | None:
    """The facet a view opens on: the file's own first one, the length in words only when the
    file has none (it is computed for every file, so it says least about this one)."""
    own = [name for name in found if name != LENGTH]
    return own[0] if own else next(iter(found), None)
