"""Facets and slices: the rules that cut the queries into kinds, and what a slice's figures
can and cannot say. Pure words and numbers; metrics/facets.py and metrics/slices.py apply
them."""

from __future__ import annotations

MAX_BINS = 4  # quartiles: few enough to read as a trend, each bin a quarter of the queries
TOP_CATEGORIES = 10  # categories shown by name; more would crowd a chart's legend
OTHER = "other"  # the bin of every smaller category, so that the bins still partition
MISSING = "missing"  # queries without a value: a bin of their own, counted, never dropped
LENGTH = "query length (words)"  # the facet every queries file has (its texts' word counts)
SLICE_MIN_QUERIES = 10  # below this a slice is shown but marked too small to read

# what the figures say when a filter chose the queries: "over 312 of 1,946 scored queries:
# intent = navigational"
FILTER_SENTENCE = "over {queries:,} of {of:,} scored queries: {description}"
FILTER_JOIN = " or "  # between the values a filter keeps: "intent = navigational or local"

SEARCH_RULE = ("Each word of the search must be found in the query's id, or at the start of a "
               "word of its text, whatever the case: 'invoice' finds 'invoices', and a second "
               "word narrows.")

FACET_RULES = {
    "numbers": f"A number facet is cut into at most {MAX_BINS} bins by rank (quartiles when no "
    "two queries share a value; equal values always share a bin), each labelled with the "
    "range of values it holds.",
    "categories": f"A category facet shows its {TOP_CATEGORIES} largest values by name and "
    f"gathers the rest in '{OTHER}'.",
    "missing": f"A query without a value for the facet falls in '{MISSING}': the bins "
    "partition the queries, none is dropped.",
    "length": f"'{LENGTH}' counts the words of each query's text (split on white space).",
    "small": f"A slice of fewer than {SLICE_MIN_QUERIES} scored queries is shown but marked "
    "too small to read: its interval is wide and one query moves its mean.",
    "filter": "A filter keeps the queries whose value of one facet is among those chosen; "
    "every figure, chart and test then runs over those queries alone, as if the query set "
    "held only them, and says so beside it.",
    "figures": "A slice's figures are those of evaluating its scored queries alone: the same "
    "per-query values, the same seed for the bootstrap, so its interval is what a run over "
    "those queries would print.",
}
