"""Every word about the numbers, declared once (in the style of ir_measures' declarations).

A measure is declared by keyword: its keys, name, meaning, what it certifies and what it is
silent about, whether it reads the order, its interval, whether it is compared by default and
which conventions and rules change it. A convention is declared once too: its field, title,
command-line flag, URL name, what switching it changes, every choice with the label a control
shows, the sentence printed beside the numbers and the words of the one-line summary, and the
values the engine accepts; `Conventions`, the value carried through the engine, is built from
those declarations.

The command line's flags and help, the dashboard's widgets and tooltips, the method notes, the
report, snapshot comparability and the JSON all read from here. Adding a measure or a choice is
one declaration here plus its computation. Pure: no numpy, no pandas.

One module a kind of word: `measures` (the measures, their parameters and the query
classes), `names` (a measure's name as people type it, read into a Spec), `conventions` (the
choices, the rules and the sentences read from them), `cutoffs` (K's defaults and ceilings),
`columns` (what each column and control of the dashboard means: its tooltips),
`comparisons` (how a paired comparison is made: corrections, alpha, the win/tie/loss column),
`limits` (what no figure can say), `slices` (the facet rules and what a slice's figures say),
`format` (how every figure is written), and one module a feature's words (`budget`, `cost`,
`coverage`, `fragility`, `fusion`, `gates`, `headline`, `judge`, `labelling`, `leaderboard`,
`agreement`, `leakage`, `overlap`, `power`, `readings`, `report`, `risk`, `saved`,
`timings`: latency and cost per query, `tukey`: many runs at once), and `identifiers`
(how run names and ids are compared).
"""

from metrics.vocabulary import (
    agreement,
    budget,
    columns,
    comparisons,
    cost,
    coverage,
    cutoffs,
    format,
    fragility,
    fusion,
    gates,
    headline,
    identifiers,
    judge,
    labelling,
    leaderboard,
    names,
    overlap,
    power,
    readings,
    report,
    risk,
    saved,
    timings,
    tukey,
)
from metrics.vocabulary.comparisons import (
    CORRECTION_MEANING,
    CORRECTIONS,
    WIN_TIE_LOSS,
    WIN_TIE_LOSS_MEANING,
    comparison_method,
)
from metrics.vocabulary.conventions import (
    BOOTSTRAP_NAMES,
    CHOICES,
    CONVENTION_BY_FIELD,
    CONVENTIONS,
    IDEAL_RULE,
    RULES,
    SENTENCE_ORDER,
    Choice,
    Convention,
    Conventions,
    alternatives,
    flag,
    in_words,
    interval_methods,
    measure_help,
    sentences,
)
from metrics.vocabulary.leakage import LEAKAGE_RULE, LEAKAGE_RULES, SENTENCE_RULE
from metrics.vocabulary.limits import LIMITS
from metrics.vocabulary.measures import (
    CATALOGUE,
    CLASS_MEANING,
    COMPARED,
    INTERVAL_NAMES,
    MEASURE_BY_KEY,
    MEASURES,
    QUERY_CLASSES,
    STANDARD_RECALL,
    SUMMARY_MEASURES,
    IntervalMethod,
    Measure,
    Parameter,
)
from metrics.vocabulary.slices import FACET_RULES, SEARCH_RULE, SLICE_MIN_QUERIES

__all__ = [
    # measures and query classes
    "CATALOGUE", "CLASS_MEANING", "COMPARED", "INTERVAL_NAMES", "MEASURES", "MEASURE_BY_KEY",
    "QUERY_CLASSES", "STANDARD_RECALL", "SUMMARY_MEASURES", "IntervalMethod", "Measure",
    "Parameter",
    # conventions and the rules beside them
    "BOOTSTRAP_NAMES", "CHOICES", "CONVENTIONS", "CONVENTION_BY_FIELD", "IDEAL_RULE", "RULES",
    "SENTENCE_ORDER", "Choice", "Convention", "Conventions", "alternatives", "flag", "in_words",
    "interval_methods", "measure_help", "sentences",
    # comparisons, limits, slices, leakage
    "CORRECTIONS", "CORRECTION_MEANING", "WIN_TIE_LOSS", "WIN_TIE_LOSS_MEANING",
    "comparison_method", "LIMITS", "FACET_RULES", "SEARCH_RULE", "SLICE_MIN_QUERIES",
    "LEAKAGE_RULE", "LEAKAGE_RULES", "SENTENCE_RULE",
    # one module a kind of word
    "agreement", "budget", "columns", "comparisons", "cost", "coverage", "cutoffs", "format",
    "fragility", "fusion", "gates", "headline", "identifiers", "judge", "labelling",
    "leaderboard", "names", "overlap", "power", "readings", "report", "risk", "saved", "timings",
    "tukey",
]
