"""Every word about the numbers, declared once (in the style of ir_measures' declarations).

A measure is declared by keyword: its keys, name, meaning, what it certifies and what it is
silent about, whether it reads the order, its interval, whether it is compared by default and
which conventions and rules change it. A convention is declared once too: its field, title,
command-line flag, URL name, what switching it changes, and every choice with the label a
control shows, the sentence printed beside the numbers and the words of the one-line summary.

The command line's flags and help, the dashboard's widgets and tooltips, the method notes, the
report, snapshot comparability and the JSON all read from here. Adding a measure or a choice is
one declaration here plus its computation. Pure: no numpy, no pandas.

One module a kind of word: `measures` (the measures and query classes), `conventions` (the
choices, the rules and the sentences read from them), `comparisons` (how a paired comparison
is made), `limits` (what no figure can say), `slices` (the facet rules and what a slice's
figures say).
"""

from metrics.vocabulary import coverage, fragility, fusion, labelling, overlap, risk
from metrics.vocabulary.comparisons import CORRECTION_MEANING, comparison_method
from metrics.vocabulary.conventions import (
    BOOTSTRAP_NAMES,
    CHOICES,
    CONVENTION_BY_FIELD,
    CONVENTIONS,
    RULES,
    SENTENCE_ORDER,
    Choice,
    Convention,
    alternatives,
    flag,
    in_words,
    interval_methods,
    measure_help,
    sentences,
)
from metrics.vocabulary.leakage import LEAKAGE_RULE, LEAKAGE_RULES
from metrics.vocabulary.limits import LIMITS
from metrics.vocabulary.measures import (
    CLASS_MEANING,
    COMPARED,
    INTERVAL_NAMES,
    MEASURE_BY_KEY,
    MEASURES,
    QUERY_CLASSES,
    SUMMARY_MEASURES,
    IntervalMethod,
    Measure,
)
from metrics.vocabulary.slices import FACET_RULES, SEARCH_RULE, SLICE_MIN_QUERIES

__all__ = [
    "BOOTSTRAP_NAMES", "CHOICES", "CLASS_MEANING", "COMPARED", "CONVENTIONS", "CONVENTION_BY_FIELD",
    "CORRECTION_MEANING", "FACET_RULES", "LEAKAGE_RULE", "LEAKAGE_RULES", "INTERVAL_NAMES",
    "LIMITS", "MEASURES",
    "MEASURE_BY_KEY", "SEARCH_RULE", "SLICE_MIN_QUERIES",
    "QUERY_CLASSES", "RULES", "SENTENCE_ORDER", "SUMMARY_MEASURES", "Choice", "Convention",
    "IntervalMethod", "Measure", "alternatives", "comparison_method", "flag", "in_words",
    "interval_methods", "measure_help", "sentences", "coverage", "fragility", "fusion",
    "labelling", "overlap", "risk",
]
