"""The conventions: every choice with its label, sentence and words; the rules that hold
under every choice; the sentences and help read from them; and ``Conventions``, the frozen
value that carries the choices in force through the engine, built from the declarations.

Defaults follow trec_eval 10 (seed 000) except where the seed rules otherwise (queries without
a relevant id).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from metrics.vocabulary.format import confidence as format_confidence
from metrics.vocabulary.measures import INTERVAL_NAMES, Measure
from metrics.vocabulary.numeric import MAX_RELEVANCE_LEVEL, is_number

# --------------------------------------------------------------------------- conventions


@dataclass(frozen=True)
class Choice:
    value: str
    label: str  # how a control names it
    sentence: str  # printed beside the numbers while this choice is in force
    words: str  # its part of the one-line summary of the conventions


@dataclass(frozen=True)
class Domain:
    """The values the engine accepts for a numeric convention, wherever it comes from (a
    flag, a link, Python, a file read back: the saved figures' metadata, a snapshot), so that
    a file cannot ask for what the command line refuses (a control's ``bounds`` may be
    narrower): a number of ``kind`` from ``low`` (excluded when ``strict``) up to ``high``
    (None: no ceiling; excluded when ``strict``). ``refusal`` is the message of a value out of
    range, a template over {field} and {value}."""

    kind: type  # int or float
    low: float
    refusal: str
    high: float | None = None
    strict: bool = False

    def check(self, field: str, value: object) -> int | float:
        """value in its kind (a numpy number as a plain one), or ValueError naming it."""
        if not is_number(value, integer=self.kind is int):
            if self.kind is int:
                raise ValueError(f"{field} must be an integer, got {value!r}")
            raise ValueError(self.refusal.format(field=field, value=value))
        below = value <= self.low if self.strict else value < self.low
        above = self.high is not None and (value >= self.high if self.strict
                                           else value > self.high)
        if below or above:
            raise ValueError(self.refusal.format(field=field, value=value))
        return self.kind(value)


@dataclass(frozen=True)
class Convention:
    """One switchable choice. Categorical when it has choices (the first is the default);
    otherwise a number within its ``domain``, whose sentence and words are templates over
    SentenceValues."""

    field: str
    title: str  # a control's label
    flag: str  # the command line's flag
    url: str  # the dashboard URL's parameter
    changes: str  # what switching it changes
    help: str  # the command line's one-line help
    choices: tuple[Choice, ...] = ()
    default: object = None
    sentence: str = ""  # numeric conventions: a template
    words: str = ""  # numeric conventions: a template
    bounds: tuple[float, float] | None = None  # numeric conventions: a control's, inclusive
    domain: Domain | None = None  # numeric conventions: what the engine accepts
    sentence_key: str = ""  # key of its sentence in Conventions.sentences() ("" = field)
    in_sidebar: bool = True  # seed and resamples are set from the command line only
    # the fragility check recomputes the verdicts under each of its other choices
    in_fragility: bool = False

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)

    @property
    def key(self) -> str:
        return self.sentence_key or self.field

    def choice(self, value: object) -> Choice:
        for choice in self.choices:
            if choice.value == value:
                return choice
        raise ValueError(f"{self.field} must be one of {', '.join(self.values)}, got {value!r}")

    def label(self, value: object) -> str:
        return self.choice(value).label if self.choices else str(value)


def _choices(*rows: tuple[str, str, str, str]) -> tuple[Choice, ...]:
    return tuple(Choice(*row) for row in rows)


# IDCG's rule, under either gain: part of both gain sentences, and the drill-down's ideal list
IDEAL_RULE = "IDCG ranks every judged relevant id, retrieved or not."

# the most an integer convention may be, for its flag and for the engine alike: a level past
# any grade (MAX_RELEVANCE_LEVEL, declared with the grades), the resamples a bootstrap draws in
# bounded memory, a seed numpy takes as int64
MAX_RESAMPLES = 100_000
MAX_SEED = 2**63 - 1

CONVENTIONS: tuple[Convention, ...] = (
    Convention(
        "recall_denominator", "Recall and AP divide by", "--recall-denominator", "recall",
        "Changes Recall@K, F1@K and AP (MAP).",
        "all: every relevant id R (trec_eval); min: min(R, K)",
        _choices(
            ("all", "every relevant id (R)",
             "Recall@K and AP@K divide by every relevant id R (trec_eval recall_K, map_cut_K): "
             "a query with more relevant ids than K cannot score 1.",
             "recall and AP ÷ every relevant id (R)"),
            ("min", "min(R, K)",
             "Recall@K and AP@K divide by min(R, K), the most relevant ids that fit in K "
             "(R-precision style); AP read over the full list divides by min(R, the length of "
             "the run's list for the query).",
             "recall and AP ÷ min(R, K)"),
        ),
        default="all",
        in_fragility=True,
    ),
    Convention(
        "gain", "DCG gain", "--gain", "gain",
        "Changes DCG, IDCG and nDCG; nothing changes for 0/1 labels.",
        "DCG gain: the grade (trec_eval) or 2^grade - 1 (Burges 2005)",
        _choices(
            ("linear", "linear (the grade)",
             "DCG gain is the grade itself (linear, as trec_eval and scikit-learn). "
             + IDEAL_RULE,
             "gain linear (the grade)"),
            ("exponential", "exponential (2^grade − 1)",
             "DCG gain is 2^grade - 1 (exponential, Burges et al. 2005). " + IDEAL_RULE,
             "gain exponential (2^grade − 1)"),
        ),
        default="linear",
        in_fragility=True,
    ),
    Convention(
        "rr", "Read RR", "--rr", "rr",
        "Changes RR (MRR).",
        "read RR at K, or over the full list (trec_eval recip_rank)",
        _choices(
            ("cutoff", "at K",
             "RR is read at K: a first relevant id below rank K scores 0.", "RR at K"),
            ("full", "over the full list",
             "RR is read over the full list (trec_eval recip_rank), whatever K is.",
             "RR over the full list"),
        ),
        default="cutoff",
        in_fragility=True,
    ),
    Convention(
        "ap", "Read AP", "--ap", "ap",
        "Changes AP (MAP).",
        "read AP at K (map_cut_K), or over the full list (trec_eval map)",
        _choices(
            ("cutoff", "at K", "AP is read at K (trec_eval map_cut_K).", "AP at K"),
            ("full", "over the full list",
             "AP is read over the full list (trec_eval map), whatever K is.",
             "AP over the full list"),
        ),
        default="cutoff",
        in_fragility=True,
    ),
    Convention(
        "relevance_level", "Relevant from grade", "--relevance-level", "level",
        "Changes every binary figure (P, R, F1, Hit, RR, AP, CP) and the query classes; nDCG "
        "keeps the raw grades.",
        "a grade >= N is relevant for binary metrics (default 1; at least 1: a grade of 0 or "
        "less is judged non-relevant)",
        default=1,
        sentence="A grade >= {relevance_level} counts as relevant for the binary metrics; "
        "nDCG uses the raw grades, and a grade <= 0 gives no gain.",
        words="relevant from grade {relevance_level}",
        bounds=(1, MAX_RELEVANCE_LEVEL),
        domain=Domain(int, 1, "{field} must be an integer from 1 to "
                      f"{MAX_RELEVANCE_LEVEL:,}, got {{value!r}}: a grade of 0 or less is "
                      "judged non-relevant", high=MAX_RELEVANCE_LEVEL),
        in_fragility=True,
    ),
    Convention(
        "order", "Order TREC runs by", "--order", "order",
        "Changes the order of TREC runs whose scores tie or disagree with their ranks, hence "
        "every figure of those runs.",
        "TREC run order: score desc then doc_id desc (trec_eval), or rank",
        _choices(
            ("score", "score, then doc id",
             "TREC runs are ordered by score descending, ties by doc_id descending (trec_eval).",
             "TREC runs by score"),
            ("rank", "rank column", "TREC runs are ordered by their rank column.",
             "TREC runs by rank"),
        ),
        default="score",
        in_fragility=True,
    ),
    Convention(
        "score_precision", "Compare scores as", "--score-precision", "scores",
        "Changes the order of runs ordered by score whose scores agree to about 7 significant "
        "digits (they tie as 32-bit floats), hence every figure of those runs.",
        "double: scores as read (trec_eval 10); float32: rounded to 32 bits first (trec_eval 9, "
        "pytrec_eval)",
        _choices(
            ("double", "double (trec_eval 10)",
             "Scores are compared as doubles when a run is ordered by score (trec_eval 10).",
             "scores as doubles"),
            ("float32", "float32 (trec_eval 9, pytrec_eval)",
             "Scores are rounded to 32-bit floats before a run is ordered by score, as trec_eval "
             "9 and pytrec_eval store them: scores that agree to about 7 digits tie.",
             "scores as float32"),
        ),
        default="double",
    ),
    Convention(
        "empty_queries", "Queries without a relevant id", "--empty-queries", "empty",
        "Changes every mean, interval and test when some query lists no relevant id.",
        "exclude: left out of every mean and counted (seed rule); zero: scored 0 and averaged "
        "(trec_eval -c)",
        _choices(
            ("exclude", "excluded and counted",
             "A query with no relevant id is excluded from every average and counted.",
             "queries without a relevant id excluded"),
            ("zero", "scored 0 (trec_eval)",
             "A query with no relevant id scores 0 on every figure (Judged@K aside) and counts "
             "in every mean, interval and test, as in trec_eval's \"all\" line with -c.",
             "queries without a relevant id scored 0"),
        ),
        default="exclude",
    ),
    Convention(
        "identical_ids", "A retrieved id equal to its query id", "--identical-ids", "identical",
        "Changes the runs that return a query's own id, and every figure of theirs: the ids "
        "below it move up a rank.",
        "keep: scored like any id (trec_eval); drop: removed before scoring, as BEIR's "
        "evaluator does by default (ArguAna, Quora)",
        _choices(
            ("keep", "kept (trec_eval)",
             "A retrieved id equal to its query id is scored like any other id (trec_eval).",
             "ids equal to the query id kept"),
            ("drop", "dropped (BEIR)",
             "A retrieved id equal to its query id is dropped before scoring and the ids below "
             "it move up a rank, as BEIR's evaluator does by default (ignore_identical_ids: "
             "ArguAna and Quora hold each query as a document); the load report counts them.",
             "ids equal to the query id dropped"),
        ),
        default="keep",
    ),
    Convention(
        "unjudged", "Unjudged retrieved ids", "--unjudged", "unjudged",
        "Changes every figure of runs that return ids nobody judged for the query: under "
        "'drop' the judged ids below them move up.",
        "nonrelevant: an unjudged id counts as not relevant (trec_eval); drop: removed before "
        "scoring, judged-only condensed lists (Sakai 2007, trec_eval -J)",
        _choices(
            ("nonrelevant", "count as not relevant (trec_eval)",
             "An id nobody judged for the query counts as not relevant (trec_eval).",
             "unjudged ids not relevant"),
            ("drop", "drop: judged only (trec_eval -J)",
             "Ids nobody judged for the query are removed before scoring and the judged ids "
             "below them move up (condensed lists, Sakai 2007; trec_eval -J); as in trec_eval, "
             "an id graded below 0 counts as pooled but unjudged and is removed too. Each run's "
             "load report counts the ids removed.",
             "judged ids only"),
        ),
        default="nonrelevant", in_fragility=True,
    ),
    Convention(
        "labels", "Labels", "--labels", "labels",
        "Changes every figure when a judge's labels (--judge-qrels) differ from the human "
        "ones; 'ppi' changes the means and intervals of the judge command and the headline.",
        "human: the --qrels labels (default); judge: the model judge's --judge-qrels; ppi: "
        "prediction-powered means that correct the judge's labels with the human ones "
        "(Angelopoulos et al. 2023)",
        _choices(
            ("human", "human (--qrels)",
             "Figures are scored against the human labels (--qrels).",
             "human labels"),
            ("judge", "the judge's (--judge-qrels)",
             "Figures are scored against the model judge's labels (--judge-qrels): the "
             "judge's errors go into every figure uncorrected.",
             "judge's labels"),
            ("ppi", "prediction-powered (judge corrected by humans)",
             "Means and intervals are prediction-powered (Angelopoulos et al. 2023, PPI++ "
             "weight by default): the judge's mean over the queries without human labels "
             "plus the mean human-minus-judge correction over the human-labelled ones, "
             "valid when those are a random sample of the queries.",
             "prediction-powered labels"),
        ),
        default="human",
        in_sidebar=False,
    ),
    Convention(
        "interval_method", "Bootstrap interval", "--interval", "interval",
        "Changes only the bootstrap intervals (every figure but Hit@K, and paired differences).",
        "percentile: the seed's percentile bootstrap; bca: bias-corrected and accelerated "
        "(Efron 1987, scipy.stats.bootstrap's default), which covers better on small query sets",
        _choices(
            ("percentile", "percentile (the seed's)",
             "Bootstrap intervals are percentile intervals: the middle share of the resampled "
             "means.",
             "percentile bootstrap"),
            ("bca", "BCa (bias-corrected, accelerated)",
             "Bootstrap intervals are BCa (bias-corrected and accelerated; Efron 1987, as "
             "scipy.stats.bootstrap): the resampled means' percentiles shifted for bias and "
             "skew. Where BCa is undefined (every resampled mean on one side of the estimate) "
             "the percentile interval is used.",
             "BCa bootstrap"),
        ),
        default="percentile",
    ),
    Convention(
        "confidence_level", "Confidence level", "--confidence-level", "confidence",
        "Changes only the width of the intervals.",
        "confidence level of every interval (default 0.95)",
        default=0.95,
        sentence="Intervals at {level}: Wilson score for Hit@K (the query is the trial); "
        "{bootstrap} over queries for the rest, {n_resamples} resamples, seed {seed}.",
        words="{level} intervals",
        bounds=(0.5, 0.99),
        domain=Domain(float, 0, "{field} must lie strictly between 0 and 1, got {value!r}",
                      high=1, strict=True),
        sentence_key="interval",
    ),
    Convention(
        "n_resamples", "Bootstrap resamples", "", "resamples",
        "Changes the intervals' last digits.",
        "bootstrap resamples (default 1000)",
        default=1_000, bounds=(1, MAX_RESAMPLES), sentence_key="interval", in_sidebar=False,
        domain=Domain(int, 1, f"{{field}} must be an integer from 1 to {MAX_RESAMPLES:,}, got "
                      "{value!r}", high=MAX_RESAMPLES),
    ),
    Convention(
        "seed", "Seed", "--seed", "seed",
        "Changes the intervals' and tests' last digits.",
        "seed of every bootstrap and randomization (default 20080101)",
        default=20_080_101, bounds=(0, MAX_SEED), sentence_key="interval", in_sidebar=False,
        domain=Domain(int, 0, "{field} must be an integer from 0 to 2**63 - 1, got {value!r}",
                      high=MAX_SEED),
    ),
)
CONVENTION_BY_FIELD: dict[str, Convention] = {c.field: c for c in CONVENTIONS}
# the bootstrap interval each interval_method choice names, in a sentence
BOOTSTRAP_NAMES: dict[str, str] = {
    c.value: c.words for c in CONVENTION_BY_FIELD["interval_method"].choices}
# categorical conventions: field -> their values, the default first
CHOICES: dict[str, tuple[str, ...]] = {c.field: c.values for c in CONVENTIONS if c.choices}
DEFAULT_SEED: int = CONVENTION_BY_FIELD["seed"].default
DEFAULT_RESAMPLES: int = CONVENTION_BY_FIELD["n_resamples"].default
DEFAULT_CONFIDENCE: float = CONVENTION_BY_FIELD["confidence_level"].default

# A convention of the verdicts, not of the figures: the smallest difference that matters. It
# changes no figure, so it is no field of Conventions (a snapshot scored under another one
# stays comparable, and the figures' fingerprints do not move); it changes what a difference
# is called. Default none: a significant difference is reported whatever its size.
MIN_EFFECT = Convention(
    "min_effect", "Minimum effect", "--min-effect", "min_effect",
    "Changes only the verdicts: a significant difference smaller than it is its own verdict, "
    "and two runs within it by the equivalence test are called the same.",
    "the smallest difference that matters, in each metric's units (e.g. 0.01): a significant "
    "difference below it is 'significant, but smaller than the minimum effect', and the "
    "equivalence test (TOST) says when two runs are the same within it; default none",
    default=None,
    sentence="The minimum effect is {min_effect} in each metric's units: a significant "
    "difference smaller than it is called significant, but smaller than the minimum effect, "
    "and two runs whose per-query differences the equivalence test (two one-sided paired "
    "t-tests, TOST, at alpha) places within ±{min_effect} are called the same within the "
    "minimum effect.",
    words="minimum effect {min_effect}",
    bounds=(0.0, 1.0),
    domain=Domain(float, 0, "{field} must be a number > 0 in the metric's units, got "
                  "{value!r}", strict=True),
    in_sidebar=False,
)
NO_MIN_EFFECT = ("No minimum effect is declared (--min-effect): a significant difference is "
                 "reported whatever its size; read it beside its effect size.")


# The draws of a randomization test (the paired test's sign flips, the randomized Tukey HSD's
# permutations): no convention of the figures (no field of Conventions: the test's p moves,
# not a figure), but bounded as the resamples are, for --permutations and the engine alike:
# each draw costs a pass over every query, so 10^12 of them held compare past any wait.
# A million resolves p to 1e-6, past any corrected alpha a query set supports.
MAX_PERMUTATIONS = 1_000_000
PERMUTATIONS = Domain(int, 1, f"{{field}} must be an integer from 1 to {MAX_PERMUTATIONS:,}, "
                      "got {value!r}", high=MAX_PERMUTATIONS)


def check_permutations(value: object) -> int:
    """The draws of a randomization test as an int within PERMUTATIONS; ValueError
    otherwise."""
    return PERMUTATIONS.check("n_permutations", value)


def check_min_effect(value: object) -> float | None:
    """The minimum effect as a float > 0, or None (none declared); ValueError otherwise."""
    return None if value is None else MIN_EFFECT.domain.check(MIN_EFFECT.field, value)


def min_effect_sentence(min_effect: float | None) -> str:
    """The minimum effect's sentence, stated beside the verdicts it changes."""
    if min_effect is None:
        return NO_MIN_EFFECT
    return MIN_EFFECT.sentence.format(min_effect=f"{min_effect:g}")

# fixed rules, stated beside the numbers like the conventions' sentences
RULES: dict[str, str] = {
    "precision": "Precision@K divides by K even when fewer than K ids came back "
    "(trec_eval P_K): an empty slot costs what a wrong id would.",
    "judged": "Judged@K is the share of the ids returned within the top K that carry a label "
    "(0 when none came back); a repeat is not counted as judged, and a grade of 0 or less "
    "(-1 included) is a label. Unlike trec_eval's 1 - unj_K, it divides by the ids returned, "
    "not by K.",
    "edge_rules": "A repeated id keeps its slot but only its first occurrence can score; a "
    "query the run never answered scores 0.",
}
# the order of Conventions.sentences(), which the JSON keeps
SENTENCE_ORDER = ("precision", "recall_denominator", "gain", "rr", "ap", "relevance_level",
                  "order", "score_precision", "interval", "interval_method", "judged",
                  "edge_rules", "empty_queries", "identical_ids", "unjudged", "labels")


def _values(conventions) -> dict[str, str]:
    """What a numeric convention's template may name, as it is printed."""
    return {
        "relevance_level": str(conventions.relevance_level),
        "level": format_confidence(conventions.confidence_level),
        "n_resamples": f"{conventions.n_resamples:,}",
        "seed": str(conventions.seed),
        "bootstrap": BOOTSTRAP_NAMES[conventions.interval_method],
    }


def sentences(conventions) -> dict[str, str]:
    """The sentence of every convention in force and every fixed rule, in SENTENCE_ORDER."""
    values = _values(conventions)
    found = dict(RULES)
    for c in CONVENTIONS:
        if c.choices:
            found[c.key] = c.choice(getattr(conventions, c.field)).sentence
        elif c.sentence:
            found[c.key] = c.sentence.format(**values)
    return {key: found[key] for key in SENTENCE_ORDER}


# what a short line says in place of the conventions when none is away from its default
ALL_DEFAULT = "default conventions"


def in_words(conventions, *, everything: bool = False, changed: bool = False) -> list[str]:
    """The conventions in force, a few words each, for a one-line summary. Only the sidebar's
    conventions unless `everything`, or one set elsewhere away from its default (the labels
    scored against); with `changed`, only those away from their default (a page's first
    line: the rest behind it)."""
    values = _values(conventions)
    words = []
    for c in CONVENTIONS:
        away = getattr(conventions, c.field) != c.default
        if not (away if changed else c.in_sidebar or everything or away):
            continue
        if c.choices:
            words.append(c.choice(getattr(conventions, c.field)).words)
        elif c.words:
            words.append(c.words.format(**values))
    return words


def alternatives(field: str) -> dict[str, str]:
    """Every choice of one categorical convention -> the sentence it would print."""
    return {choice.value: choice.sentence for choice in CONVENTION_BY_FIELD[field].choices}


def measure_help(measure: Measure, conventions, *, interval: bool = False) -> str:
    """A tooltip: what the figure is, how it is computed when a rule of its own says so, and
    the sentences of the conventions behind it."""
    said = sentences(conventions)
    parts = [f"{measure.name}: {measure.meaning}."]
    parts += [measure.rule] if measure.rule else []
    parts += [said[key] for key in measure.depends_on]
    if interval:
        parts.append(said["interval"])
    return " ".join(parts)


def interval_methods(figures: Sequence[tuple[str, str]],
                     interval_method: str = "percentile") -> str:
    """Which interval each figure of `figures` (its label, its interval) carries, in a few
    words: 'Wilson interval for Hit@5; percentile bootstrap interval for the others' (a
    sentence's start). The labels are the figures' own (`Spec.label` under the conventions
    in force)."""
    groups: dict[str, list[str]] = {}
    for label, method in figures:
        groups.setdefault(method, []).append(label)
    ordered = sorted(groups.items(), key=lambda item: len(item[1]))
    bootstrap = BOOTSTRAP_NAMES[interval_method]

    def name(method: str) -> str:
        return f"{bootstrap} interval" if method == "bootstrap" else INTERVAL_NAMES[method]

    parts = [f"{name(method)} for {', '.join(labels)}" for method, labels in ordered]
    if len(parts) > 1:
        parts[-1] = f"{name(ordered[-1][0])} for the others"
    return "; ".join(parts)


def flag(field: str) -> str:
    """The command-line flag that sets a convention, or K ("" when no flag sets it)."""
    return "--k" if field == "k" else CONVENTION_BY_FIELD[field].flag


# --------------------------------------------------------------------------- the value in force

# The order of Conventions' fields, hence of the "conventions" object of every JSON output and
# snapshot: the order the first snapshot format wrote; a convention declared since follows, in
# declaration order.
_FIRST_FORMAT = ("recall_denominator", "gain", "rr", "ap", "relevance_level", "order",
                 "confidence_level", "n_resamples", "seed", "score_precision", "empty_queries",
                 "identical_ids", "unjudged", "interval_method")
VALUE_ORDER: tuple[str, ...] = _FIRST_FORMAT + tuple(
    c.field for c in CONVENTIONS if c.field not in _FIRST_FORMAT)


def _field(convention: Convention) -> tuple[str, object, dataclasses.Field]:
    kind = Literal[convention.values] if convention.choices else convention.domain.kind
    return convention.field, kind, dataclasses.field(default=convention.default)


def _check(self) -> None:
    """Every choice against its declaration, so a bad value fails on construction."""
    for c in CONVENTIONS:
        value = getattr(self, c.field)
        if c.choices:
            if value not in c.values:
                raise ValueError(f"{c.field} must be one of {', '.join(c.values)}, "
                                 f"got {value!r}")
        else:  # a plain int or float, as the JSON and the sentences write it
            object.__setattr__(self, c.field, c.domain.check(c.field, value))


def _as_dict(self) -> dict:
    return dataclasses.asdict(self)


def _sentences(self) -> dict[str, str]:
    """One sentence per choice and rule, in the words printed beside the numbers."""
    return sentences(self)


def _in_words(self, *, everything: bool = False, changed: bool = False) -> list[str]:
    """The choices in force, a few words each, for a one-line summary."""
    return in_words(self, everything=everything, changed=changed)


Conventions = dataclasses.make_dataclass(
    "Conventions",
    [_field(CONVENTION_BY_FIELD[name]) for name in VALUE_ORDER],
    frozen=True,
    namespace={"__post_init__": _check, "as_dict": _as_dict, "sentences": _sentences,
               "in_words": _in_words, "__module__": __name__,
               "__doc__": "Every switchable choice, one field per declared convention, its "
                          "default the declaration's; validated on construction."},
)


# ------------------------------------------------ standardised scores (issue 51, section 3)
# Not a field of Conventions: a standardised evaluation is made from a scored one (its figures
# at K, against a file of standards or the runs loaded), and says so beside every number.
STANDARDISE_SCALES = ("z", "cdf")
STANDARDISE_RUNS = "runs"  # --standardise runs: against the runs loaded, not a file
STANDARDISE_FLAG = "--standardise"
STANDARDISE_SCALE_FLAG = "--standardise-scale"
STANDARDISE_HELP = (
    "score each query's figures as z-scores against a population of runs: FILE holds each "
    "query's and measure's mean and standard deviation in trec_eval -Z's format (query "
    "measure mean stddev, measures named as trec_eval names them); 'runs' standardises "
    "against the runs loaded (mean and sample standard deviation over them, per query and "
    "figure). Means, intervals and every comparison then read the standardised figures")
STANDARDISE_SCALE_HELP = (
    "z: the z-score itself (trec_eval -Z); cdf: the z-score mapped into [0, 1] by the standard "
    "normal CDF (Webber, Moffat and Zobel 2008)")
STANDARDISE_SENTENCES = {
    "z": "Standardised: each query's figure is a z-score, (figure - mean) / standard deviation "
    "of {source} for that query and figure (trec_eval -Z; undefined where there is none, or "
    "where the deviation is 0 and the figure is not the mean); means, intervals and "
    "comparisons read the z-scores.",
    "cdf": "Standardised: each query's figure is Phi(z), its z-score against {source} for that "
    "query and figure mapped into [0, 1] by the standard normal CDF (Webber, Moffat and Zobel "
    "2008); means, intervals and comparisons read these.",
}
STANDARDISE_WORDS = {"z": "z-score against {source}", "cdf": "Phi(z-score) against {source}"}
# the drill-down under standardised figures: one query's standardisation written out, and the
# arithmetic below it, which writes the raw figures
STANDARDISED_QUERY_TITLE = "How this query's figures were standardised"
STANDARDISED_QUERY = (
    "Each figure at K above is a {words}: z = (raw - mean) / standard deviation for this query "
    "and figure (undefined where there is no standard, or where the deviation is 0 and the "
    "figure is not the mean). The arithmetic further down (gains and discounts, DCG and "
    "IDCG, the steps of AP, the rank that gives RR) writes the raw figures."
)
STANDARDISE_SOURCES = {
    "runs": "the {n} runs loaded (mean and sample standard deviation over them)",
    "file": "the means and standard deviations of {name}",
}

# the dashboard's control of standardised scores (the sidebar's Conventions): its choices,
# their labels, the link's names and what the K sweep says of them
STANDARDISE_OFF = "off"
STANDARDISE_FILE = "file"
STANDARDISE_CHOICES = {
    STANDARDISE_OFF: "Raw figures",
    STANDARDISE_RUNS: "Against the runs loaded",
    STANDARDISE_FILE: "Against a trec_eval -Z mean file",
}
STANDARDISE_SCALE_LABELS = {"z": "z-score (trec_eval -Z)",
                            "cdf": "Phi(z), in [0, 1] (Webber et al.)"}
STANDARDISE_URL = "std"  # ?std=runs
STANDARDISE_SCALE_URL = "std_scale"  # ?std_scale=cdf
STANDARDISE_TITLE = "Standardised scores"
STANDARDISE_CONTROL_HELP = (
    "Show every figure at K as a z-score against a population of runs, per query and figure "
    "(trec_eval -Z; Webber, Moffat and Zobel 2008): against the runs loaded (their mean and "
    "sample standard deviation, every loaded run, shown or not), or against an uploaded "
    "trec_eval -Z mean file (query measure mean stddev). Means, intervals and comparisons "
    "then read the standardised figures, and the line under each page's title says so. "
    "Topics of different difficulty then weigh alike.")
STANDARDISE_SCALE_HELP_DASHBOARD = (
    "z: the z-score itself (0 is the population's mean, 1 one standard deviation above); "
    "Phi(z): the z-score mapped into [0, 1] by the standard normal CDF (0.5 is the mean)")
STANDARDISE_NEEDS_FILE = ("Standardised against a mean file: upload a trec_eval -Z mean file "
                          "(query measure mean stddev); until then the figures are raw")
STANDARDISE_SWEEP_NOTE = (
    "The K sweep is not standardised: the engine standardises the figures at one K (a "
    "standardised evaluation holds that K's figures alone), so the curves and the table "
    "below read the raw figures at every K. Every other page shows the standardised "
    "figures at K = {k}.")
STANDARDISE_SNAPSHOT_REFUSED = (
    "A snapshot holds raw figures and the live ones are standardised (the sidebar's "
    "Conventions, Standardised scores): the two cannot be compared. Set Standardised scores "
    "to Raw figures to compare against the snapshot, or pick a live run as the baseline.")
