"""The measures and the query classes, declared once.

A measure is one declaration: its keys, name, meaning, what it certifies and what it is
silent about, its interval, the conventions and rules behind it, the parameters a name may
give it (ir_measures' spelling: ``P(rel=2)@5``) and its names in trec_eval and ir_measures.
``MEASURES`` are the figures every view shows by default (today's short list); the others of
``CATALOGUE`` are scored when a view or ``--metric`` asks for them.

Two shapes of figure: a measure read at a cutoff (``at_k``: P@K, ERR@K, RBP@K...) and a
measure of the whole list, one figure per query whatever K is (Rprec, Bpref, infAP, the
interpolated precisions, the counts). Both are per-query curves over K to the engine; the
second is flat, and its label carries no K. A figure's label is made in one place,
`metrics.vocabulary.names.Spec.label`, under the conventions in force: RR and AP read over the
full list (and nDCG, by its name) carry no K either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from metrics.vocabulary.numeric import MAX_RELEVANCE_LEVEL

IntervalMethod = Literal["wilson", "bootstrap"]

# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Parameter:
    """What a measure's name may set for that measure alone: ``rel=2``, ``dcg=exp-log2``,
    ``judged_only=True``, ``p=0.8``, ``read=full``; ``recall`` is written after the @
    (``IPrec@0.5``). A parameter that stands for a convention (``convention``) defaults to
    the convention in force, and ``values`` maps its spellings to the convention's values;
    the others have a default of their own."""

    name: str
    meaning: str
    kind: type  # int, float, bool or str
    words: str  # what it says beside the figure, a template over {value}
    default: object = None  # None: the convention in force
    choices: tuple[str, ...] = ()  # a str parameter's spellings
    convention: str = ""  # the convention field it sets for this measure
    values: tuple[tuple[object, object], ...] = ()  # spelling -> the convention's value
    low: float | None = None
    high: float | None = None
    strict: bool = False  # the bounds themselves are refused
    # a default a name never states: nDCG's read=cutoff (RBP's p is stated at its default)
    unstated: bool = False

    def convention_value(self, value: object) -> object:
        """The convention's value a spelling stands for (itself when they agree)."""
        return dict(self.values).get(value, value)

    def spelling(self, convention_value: object) -> object:
        """The spelling of a convention's value (itself when they agree)."""
        return {v: k for k, v in self.values}.get(convention_value, convention_value)

    @property
    def accepted(self) -> str:
        """The values it takes, in words, for an error message."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is bool:
            return "True or False"
        noun = "an integer" if self.kind is int else "a number"
        shown = "{:,}" if self.kind is int else "{:g}"
        if self.low is None:
            return noun
        if self.high is None:
            return f"{noun} of at least {shown.format(self.low)}"
        word = "strictly between" if self.strict else "from"
        joint = "and" if self.strict else "to"
        return f"{noun} {word} {shown.format(self.low)} {joint} {shown.format(self.high)}"


REL = Parameter(
    "rel", "the lowest grade counted as relevant by this measure", int,
    "relevant from grade {value}", convention="relevance_level", low=1,
    high=MAX_RELEVANCE_LEVEL)
JUDGED_ONLY = Parameter(
    "judged_only", "score the judged ids only: unjudged ids removed before scoring", bool,
    "{value}", convention="unjudged", values=((True, "drop"), (False, "nonrelevant")))
DCG = Parameter(
    "dcg", "the DCG formulation: log2 (gain = the grade) or exp-log2 (gain = 2^grade - 1)",
    str, "DCG {value}", choices=("log2", "exp-log2"), convention="gain",
    values=(("log2", "linear"), ("exp-log2", "exponential")))
READ_AP = Parameter(
    "read", "where AP is read: at K (map_cut_K), or over the full list (trec_eval map)", str,
    "read {value}", choices=("cutoff", "full"), convention="ap")
READ_RR = Parameter(
    "read", "where RR is read: at K, or over the full list (trec_eval recip_rank)", str,
    "read {value}", choices=("cutoff", "full"), convention="rr")
# no convention stands behind nDCG's reading: at K unless its name reads the whole list
READ_NDCG = Parameter(
    "read", "where nDCG is read: at K (ndcg_cut_K), or over the full list with IDCG over "
    "every judged relevant id (trec_eval ndcg)", str, "read {value}", default="cutoff",
    choices=("cutoff", "full"), unstated=True)
READ = "read"  # the parameter that says where a figure is read: at K, or over the full list
PERSISTENCE = Parameter(
    "p", "persistence: the chance that a reader goes on from one rank to the next", float,
    "p = {value}", default=0.8, low=0, high=1, strict=True)
ALPHA = Parameter(
    "alpha", "redundancy intolerance: each id that covers a subtopic again gains (1 - alpha) "
    "times what the one before it gained there", float, "alpha = {value}", default=0.5, low=0,
    high=1)
BETA = Parameter(
    "beta", "patience: the chance that a reader goes on from one rank to the next (NRBP)",
    float, "beta = {value}", default=0.5, low=0, high=1)
Q_BETA = Parameter(
    "beta", "the blended ratio's weight of graded gain against rank (Q-measure; 1 as NTCIREVAL "
    "by default, 0 gives AP)", float, "beta = {value}", default=1.0, low=0)
RECALL = Parameter(
    "recall", "the recall level the interpolated precision is read at", float,
    "at recall {value}", low=0, high=1)
# ---- user-model measures (issue 51, section 2): the C/W/L family's parameters and Compat's
# cwl_eval reads a list to this depth (its max_n), empty slots gaining nothing: INST, INSQ and
# NERR10/11 weigh every rank up to it, so their figures depend on it
CWL_DEPTH = 1000
GOAL = Parameter(
    "T", "the total gain the reader sets out to find (gains scaled to [0, 1])", float,
    "T = {value}", default=1.0, low=0, high=CWL_DEPTH, strict=True)
MIN_REL = Parameter(
    "min_rel", "the grade scaled to gain 0 (grades at or below it gain nothing)", int,
    "gain 0 at grade {value}", default=0, low=0, high=MAX_RELEVANCE_LEVEL, unstated=True)
MAX_REL = Parameter(
    "max_rel", "the grade scaled to gain 1 (grades above it gain 1); by default the highest "
    "grade in the qrels", int, "gain 1 at grade {value}", low=1, high=MAX_RELEVANCE_LEVEL)
CWL_GAINS = (MIN_REL, MAX_REL)
NERR_PERSISTENCE = Parameter(
    "p", "persistence: the chance that a reader who found nothing at a rank goes on", float,
    "p = {value}", default=0.9, low=0, high=1, strict=True)
COMPAT_PERSISTENCE = Parameter(
    "p", "persistence: RBO's chance that a reader comparing the list with the ideal one goes "
    "on from one depth to the next", float, "p = {value}", default=0.95, low=0, high=1,
    strict=True)
# the parameters a reading passes to the kernel beside the conventions and the persistence
MODEL_PARAMETERS = ("T", "min_rel", "max_rel")
CWL_GAIN_RULE = (
    "gains are the grades scaled to [0, 1] as cwl_eval does through ir_measures: (g - "
    "min_rel) / (max_rel - min_rel), g clipped to [min_rel, max_rel] (a negative grade, an "
    "unjudged id, a repeat and an empty slot gain 0), max_rel by default the highest grade in "
    "the qrels")
CWL_NOTE = "gain 1 at grade {max_grade}, the highest in the qrels, unless max_rel says otherwise"
# ---- end of the user-model parameters

# the words of a judged_only value beside a figure
JUDGED_ONLY_WORDS = {True: "judged ids only", False: "unjudged ids not relevant"}
READ_WORDS = {"cutoff": "at K", "full": "over the full list"}

# trec_eval's 11 standard recall levels, 0.0 to 1.0: its iprec_at_recall and the P-R curve
STANDARD_RECALL = tuple(i / 10 for i in range(11))
PR_CURVE_RULE = ("The curve joins each run's mean interpolated precision at the 11 recall "
                 "levels 0, 0.1, ..., 1: at level x, the best precision at any rank at or "
                 "below the one where round(x R) relevant ids have come back (rounded half "
                 "away from 0, as trec_eval 10.0's iprec_at_recall), 0 when the list never "
                 "gets that far.")

# --------------------------------------------------------------------------- measures


@dataclass(frozen=True)
class Measure:
    key: str  # per-query key, e.g. "RR" -> "RR@5"
    summary_key: str  # key of the mean, e.g. "MRR" -> "MRR@5"
    name: str
    meaning: str  # one line: what the number is
    certifies: str  # what a good figure vouches for
    silent: str  # what it says nothing about
    rank_aware: bool
    interval: IntervalMethod
    depends_on: tuple[str, ...]  # keys of the sentences (conventions and rules) that change it
    in_summary: bool = True  # DCG and IDCG are per-query explanations, not suite figures
    compared: bool = True  # in a paired comparison unless the user picks the metrics
    shown: bool = True  # in every view by default; the others when a view asks for them
    at_k: bool = True  # read at a cutoff K; False: one figure per query, whatever K is
    bounded: bool = True  # lies in [0, 1] (the counts, DCG and IDCG do not: 0 or more)
    parameters: tuple[Parameter, ...] = ()
    rule: str = ""  # how it is computed, beyond the conventions it depends on
    trec_eval: str = ""  # trec_eval's name at K ("P_{k}"), or of the whole figure
    trec_eval_full: str = ""  # trec_eval's name when read over the full list ("map")
    trec_eval_needs: tuple[tuple[str, object], ...] = ()  # conventions its name holds under
    ir_measures: str = ""  # ir_measures' name ("P", "nDCG", "Success")
    aliases: tuple[str, ...] = ()  # other spellings a name may use
    total: bool = False  # trec_eval's "all" line sums it instead of averaging
    brings: tuple[str, ...] = ()  # keys of the figures asked with it (RBP: its residual)
    # what its reading of the data says beside it, a template over the evaluation's facts
    # ({max_grade}: the highest grade in the qrels)
    note: str = ""
    # read from the subtopic qrels (the diversity track's), which the evaluation must be given
    subtopics: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every name it is known by (keys, ir_measures' name, aliases), each once."""
        return tuple(dict.fromkeys(filter(None, (self.key, self.summary_key, self.ir_measures,
                                                 *self.aliases))))


INTERVAL_NAMES: dict[str, str] = {
    "wilson": "Wilson interval",
    "bootstrap": "percentile bootstrap interval",
}

_BINARY = (REL, JUDGED_ONLY)
# a count: on request, of the whole list, not a score in [0, 1], summed by trec_eval's all line
_COUNT = dict(shown=False, at_k=False, bounded=False, total=True)

CATALOGUE: tuple[Measure, ...] = (
    Measure(
        "P", "P", "Precision@K",
        "share of the top K slots holding a relevant id (empty slots count as misses)",
        "How much of the window the generator reads is relevant: every slot counts, an empty "
        "one as a miss.",
        "Which relevant ids they are, their order inside the top K, and anything below K.",
        False, "bootstrap", ("precision", "relevance_level"),
        parameters=_BINARY, trec_eval="P_{k}", ir_measures="P", aliases=("Precision",),
    ),
    Measure(
        "R", "R", "Recall@K",
        "share of the query's relevant ids found in the top K",
        "How much of the labelled evidence reaches the window.",
        "The order inside the top K, and evidence nobody labelled. By default a query with more "
        "relevant ids than K cannot reach 1.",
        False, "bootstrap", ("recall_denominator", "relevance_level"),
        parameters=_BINARY, trec_eval="recall_{k}",
        trec_eval_needs=(("recall_denominator", "all"),), ir_measures="R", aliases=("Recall",),
    ),
    Measure(
        "F1", "F1", "F1@K", "harmonic mean of Precision@K and Recall@K",
        "A balance of precision and recall at the same K.",
        "Which of the two moved, and the order inside the top K.",
        False, "bootstrap", ("precision", "recall_denominator", "relevance_level"),
        parameters=_BINARY,
    ),
    Measure(
        "Hit", "Hit", "Hit@K",
        "1 if at least one relevant id is in the top K; its mean is the share of queries "
        "with a hit",
        "The share of queries with at least one relevant id in the window: the coverage floor.",
        "How many relevant ids came back and where in the window they sit.",
        False, "wilson", ("relevance_level",),
        parameters=_BINARY, trec_eval="success_{k}",
    ),
    Measure(
        "RR", "MRR", "Reciprocal rank",
        "1 / rank of the first relevant id (0 if none); its mean is MRR",
        "How soon the first relevant id arrives; its mean is MRR.",
        "Every relevant id after the first: one hit at rank 1 and noise below still scores 1.",
        True, "bootstrap", ("rr", "relevance_level"),
        parameters=(*_BINARY, READ_RR), trec_eval_full="recip_rank", ir_measures="RR",
    ),
    Measure(
        "AP", "MAP", "Average precision",
        "mean of Precision@i over the relevant ranks i, missing relevant ids counting 0; its "
        "mean is MAP",
        "Whether all the relevant ids are packed near the top, charging for those never "
        "retrieved; its mean is MAP.",
        "Grades: it is binary at the relevance level.",
        True, "bootstrap", ("ap", "recall_denominator", "relevance_level"),
        parameters=(*_BINARY, READ_AP), trec_eval="map_cut_{k}", trec_eval_full="map",
        trec_eval_needs=(("recall_denominator", "all"),), ir_measures="AP",
    ),
    Measure(
        "DCG", "DCG", "DCG@K", "sum of gain / log2(rank + 1) over the top K",
        "The graded gain the top K collects, discounted by rank.",
        "Anything comparable across queries: it grows with the number of relevant ids.",
        True, "bootstrap", ("gain",), in_summary=False, compared=False, bounded=False,
        parameters=(DCG, JUDGED_ONLY),
    ),
    Measure(
        "IDCG", "IDCG", "IDCG@K", "DCG of the best possible order of every judged relevant id",
        "The most DCG the labels allow at K, retrieved or not.",
        "The run: it depends on the labels alone.",
        True, "bootstrap", ("gain",), in_summary=False, compared=False, bounded=False,
        parameters=(DCG,),
    ),
    Measure(
        "nDCG", "nDCG", "nDCG@K", "DCG@K / IDCG@K: graded ranking quality against the ideal order",
        "Graded ranking quality against the best order of every judged relevant id, retrieved "
        "or not.",
        "How much evidence there is in absolute terms (it is a ratio), and any error in the "
        "grades themselves.",
        True, "bootstrap", ("gain",),
        parameters=(DCG, JUDGED_ONLY, READ_NDCG), trec_eval="ndcg_cut_{k}",
        trec_eval_full="ndcg", trec_eval_needs=(("gain", "linear"),), ir_measures="nDCG",
        aliases=("NDCG",),
    ),
    Measure(
        "CP", "CP", "Context precision@K (RAGAS)",
        "AP normalised by the relevant ids returned in the top K instead of by R",
        "The RAGAS-style context precision: how well the relevant ids that were returned are "
        "ordered.",
        "Relevant ids that never came back: it can be 1 while recall is low. It equals AP@K "
        "only when every relevant id sits within K. A repeated id is credited once, at its "
        "first occurrence (RAGAS gives each occurrence its own verdict).",
        True, "bootstrap", ("relevance_level",),
        parameters=_BINARY,
    ),
    Measure(
        "Judged", "Judged", "Judged@K",
        "share of the ids returned in the top K that carry a label: how far the other figures "
        "can be trusted",
        "How much of the window carries a label, that is how far the other figures can be "
        "trusted.",
        "Quality itself: an unlabelled id scores as non-relevant, so a low Judged@K means the "
        "other figures undercount.",
        False, "bootstrap", ("judged",), compared=False,
        ir_measures="Judged",
    ),
    # ---------------------------------------------------------------- on request
    Measure(
        "Rprec", "Rprec", "R-precision",
        "precision at rank R: the share of the top R slots holding a relevant id, R the "
        "query's relevant ids",
        "How well the run fills as many slots as there are relevant ids: precision and recall "
        "meet at rank R.",
        "Everything below rank R, and the order inside the top R.",
        False, "bootstrap", ("relevance_level", "unjudged"), shown=False, at_k=False,
        parameters=_BINARY,
        rule="Rprec reads the top R ids whatever K is; a list shorter than R counts its empty "
        "slots as misses (trec_eval Rprec).",
        trec_eval="Rprec", ir_measures="Rprec", aliases=("RPrec",),
    ),
    Measure(
        "Bpref", "Bpref", "Bpref",
        "binary preference: for each relevant id retrieved, the share of judged non-relevant "
        "ids (at most R of them) it is ranked above, averaged over the R relevant ids",
        "That judged relevant ids come before judged non-relevant ones, without assuming "
        "anything about the ids nobody judged.",
        "Unjudged ids: it skips them, so a run can return many unjudged ids above its relevant "
        "ones and lose nothing.",
        True, "bootstrap", ("relevance_level",), shown=False, at_k=False,
        parameters=(REL,),
        rule="Bpref reads the whole list and only judged ids: each relevant id adds 1 - "
        "min(n, R) / min(N, R), n the judged non-relevant ids above it, N the query's judged "
        "non-relevant ids (grades from 0 to the level); the sum is divided by R. Unjudged ids, "
        "ids graded below 0 and repeats are skipped (trec_eval bpref, Buckley and Voorhees "
        "2004).",
        trec_eval="bpref", ir_measures="Bpref", aliases=("BPref", "bpref"),
    ),
    Measure(
        "infAP", "infAP", "Inferred AP",
        "average precision estimated from a sample of judged ids: unpooled ids count as "
        "non-relevant, pooled but unjudged ones are assumed relevant at the judged rate",
        "Average precision when only a random sample of the pool was judged.",
        "Relevant ids the pool never held, and the quality of the sample itself.",
        True, "bootstrap", ("relevance_level",), shown=False, at_k=False,
        parameters=(REL,),
        rule="infAP reads the whole list: at the relevant id at rank k it adds 1 / k + ((k - "
        "1) / k) (d / (k - 1)) (r + 0.00001) / (r + n + 0.00002), d the ids above it in the "
        "pool (judged or pooled but unjudged), r and n the judged relevant and non-relevant "
        "ids above it; the sum is divided by R. A grade below 0 marks an id pooled but "
        "unjudged, an id missing from the qrels one outside the pool (trec_eval 10.0 infAP, "
        "Yilmaz and Aslam 2006).",
        trec_eval="infAP", ir_measures="infAP", aliases=("InfAP",),
    ),
    Measure(
        "IPrec", "IPrec", "Interpolated precision",
        "the best precision at any rank that reaches the recall level: one point of the "
        "interpolated precision-recall curve",
        "How precise the list is once it has found a given share of the relevant ids.",
        "Grades, and what happens between the levels.",
        True, "bootstrap", ("relevance_level", "unjudged"), shown=False, at_k=False,
        parameters=(RECALL, *_BINARY),
        rule="IPrec at recall level x reads the whole list: the most precision at any rank at "
        "or below the one where round(x R) relevant ids have come back (half away from 0), 0 "
        "when the list never gets that far (trec_eval 10.0 iprec_at_recall).",
        trec_eval="iprec_at_recall_{recall:.2f}", ir_measures="IPrec",
        aliases=("iprec_at_recall",),
    ),
    Measure(
        "Success", "Success", "Success@K",
        "1 if at least one relevant id is in the top K (trec_eval success_K): the same number "
        "as Hit@K, under trec_eval's name",
        "The share of queries with at least one relevant id in the window.",
        "How many relevant ids came back and where in the window they sit.",
        False, "wilson", ("relevance_level", "unjudged"), shown=False,
        parameters=_BINARY, trec_eval="success_{k}", ir_measures="Success",
    ),
    Measure(
        "ERR", "ERR", "ERR@K",
        "expected reciprocal rank: a reader stops at each rank with a chance set by its "
        "grade; the figure is the expected 1 / rank where they stop",
        "Graded quality near the top, discounting what comes after a highly relevant id.",
        "Relevant ids below a highly relevant one; and its scale depends on the highest grade "
        "in the qrels.",
        True, "bootstrap", ("unjudged",), shown=False, parameters=(JUDGED_ONLY,),
        note="the highest grade in the qrels is {max_grade}: a grade g stops the reader with "
        "probability (2^g - 1) / 2^{max_grade}",
        rule="ERR@K sums over ranks i up to K: (1 / i) R_i times the product of (1 - R_j) "
        "above i, R_i = (2^grade - 1) / 2^g, g the highest grade in the qrels (Chapelle et "
        "al. 2009); a grade of 0 or less, an unjudged id and a repeat stop nobody.",
        ir_measures="ERR",
    ),
    Measure(
        "RBP", "RBP", "Rank-biased precision",
        "(1 - p) times the sum of p^(rank - 1) over the relevant ranks up to K: the rate of "
        "relevant ids a reader of persistence p meets",
        "Binary quality with a reader model: how much of the top a patient (large p) or "
        "impatient (small p) reader finds relevant.",
        "How far the unjudged ids could move it: read its residual beside it.",
        True, "bootstrap", ("relevance_level", "unjudged"), shown=False,
        parameters=(PERSISTENCE, *_BINARY),
        rule="RBP@K = (1 - p) times the sum of p^(i - 1) over the relevant ranks i up to K, "
        "binary at the relevance level (Moffat and Zobel 2008).",
        ir_measures="RBP", brings=("RBPresid",),
    ),
    Measure(
        "RBPresid", "RBPresid", "RBP residual",
        "the most RBP@K could still rise: every unjudged id in the top K, and every empty slot "
        "up to K, counted relevant",
        "How much of RBP is still unknown: a small residual means the labels settle the "
        "figure.",
        "Whether the unjudged ids are in fact relevant.",
        True, "bootstrap", ("unjudged",), shown=False, compared=False,
        parameters=(PERSISTENCE, JUDGED_ONLY),
        rule="The residual of RBP@K is (1 - p) times the sum of p^(i - 1) over the ranks i up "
        "to K that hold an id with no grade of 0 or more (a repeat excepted), plus p^n - p^K "
        "for a list of n < K ids (the slots past its end); over a list read whole it is the "
        "cwl_eval residual. RBP + residual is the most the figure could reach.",
        aliases=("rbp_resid", "RBP_resid"),
    ),
    # ------------------------------------------------ user-model measures (issue 51, section 2)
    Measure(
        "INST", "INST", "INST",
        "expected gain per id read by an adaptive reader (C/W/L): one who wants T of gain "
        "goes on less readily the nearer the goal, reading up to 1,000 ranks",
        "Graded quality for a reader who stops once T of gain is found: an easy query that "
        "meets its goal early is not penalised for what follows.",
        "What lies past where the reader stops; and its scale depends on max_rel (by default "
        "the highest grade in the qrels).",
        True, "bootstrap", ("unjudged",), shown=False, at_k=False,
        parameters=(GOAL, *CWL_GAINS), note=CWL_NOTE,
        rule="INST is the C/W/L expected rate of gain, the sum of W_i g_i over ranks i up to "
        "1,000 (cwl_eval's depth), W_i = C_1 ... C_(i-1) / the sum of those products, C_i = "
        "((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T minus the gain up to rank i (Moffat, "
        "Bailey, Scholer and Thomas 2015; cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="INST",
    ),
    Measure(
        "INSQ", "INSQ", "INSQ",
        "expected gain per id read by a reader who wants T of gain, whose chance of going on "
        "rises with depth but not with what was found (C/W/L), reading up to 1,000 ranks",
        "Graded quality near the top for a reader with a goal of T.",
        "What the reader has already found: unlike INST, it does not stop sooner once the goal "
        "is met.",
        True, "bootstrap", ("unjudged",), shown=False, at_k=False,
        parameters=(GOAL, *CWL_GAINS), note=CWL_NOTE,
        rule="INSQ is the C/W/L expected rate of gain over ranks up to 1,000 (cwl_eval's "
        "depth) with C_i = ((i + 2T - 1) / (i + 2T))^2 (Moffat, Scholer and Thomas 2012; "
        "cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="INSQ",
    ),
    Measure(
        "NERR8", "NERR8", "NERR@K (eq. 8)",
        "Not (but Nearly) ERR, equation 8: a C/W/L reader who stops at a rank with a chance "
        "set by its gain, and at rank K",
        "Graded quality in the top K, ERR's cascade as a C/W/L measure.",
        "Relevant ids below a highly relevant one, and anything below K; its scale depends on "
        "max_rel.",
        True, "bootstrap", ("unjudged",), shown=False,
        parameters=CWL_GAINS, note=CWL_NOTE,
        rule="NERR8@K is the C/W/L expected rate of gain with C_i = 1 - g_i above rank K and "
        "0 at K (at most 1,000, cwl_eval's depth): the sum over i up to K of P_i g_i over the "
        "sum of P_i, P_i = C_1 ... C_(i-1) (Azzopardi, Mackenzie and Moffat 2021, eq. 8; "
        "cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="NERR8",
    ),
    Measure(
        "NERR9", "NERR9", "NERR@K (eq. 9)",
        "Not (but Nearly) ERR, equation 9: as NERR8, with the reader also tiring by rank "
        "(i / (i + 1))",
        "Graded quality in the top K, ERR's cascade and discount as a C/W/L measure.",
        "Relevant ids below a highly relevant one, and anything below K; its scale depends on "
        "max_rel.",
        True, "bootstrap", ("unjudged",), shown=False,
        parameters=CWL_GAINS, note=CWL_NOTE,
        rule="NERR9@K is NERR8@K with C_i = (i / (i + 1)) (1 - g_i) above rank K "
        "(Azzopardi, Mackenzie and Moffat 2021, eq. 9; cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="NERR9",
    ),
    Measure(
        "NERR10", "NERR10", "NERR (eq. 10)",
        "Not (but Nearly) ERR, equation 10: a C/W/L reader who stops at a rank with a chance "
        "set by its gain and otherwise goes on with persistence p",
        "Graded quality near the top, ERR's cascade as a C/W/L measure (a rate of gain that "
        "can be compared with INST, RBP...).",
        "Relevant ids below a highly relevant one; its scale depends on max_rel.",
        True, "bootstrap", ("unjudged",), shown=False, at_k=False,
        parameters=(NERR_PERSISTENCE, *CWL_GAINS), note=CWL_NOTE,
        rule="NERR10 is the C/W/L expected rate of gain over ranks up to 1,000 (cwl_eval's "
        "depth) with C_i = p (1 - g_i) (Azzopardi, Mackenzie and Moffat 2021, eq. 10; "
        "cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="NERR10",
    ),
    Measure(
        "NERR11", "NERR11", "NERR (eq. 11)",
        "Not (but Nearly) ERR, equation 11: a C/W/L reader who stops at a rank with a chance "
        "set by its gain and otherwise goes on as INSQ's reader with goal T",
        "Graded quality near the top, ERR's cascade with INSQ's patience.",
        "Relevant ids below a highly relevant one; its scale depends on max_rel.",
        True, "bootstrap", ("unjudged",), shown=False, at_k=False,
        parameters=(GOAL, *CWL_GAINS), note=CWL_NOTE,
        rule="NERR11 is the C/W/L expected rate of gain over ranks up to 1,000 (cwl_eval's "
        "depth) with C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) (Azzopardi, Mackenzie and "
        "Moffat 2021, eq. 11; cwl_eval); " + CWL_GAIN_RULE + ".",
        ir_measures="NERR11",
    ),
    Measure(
        "Compat", "Compat", "Compatibility",
        "rank-biased overlap of the list with an ideal ranking of the query's relevant ids "
        "(best grade first), divided by the ideal ranking's overlap with itself",
        "How close the list comes to an ideal order of the graded relevant ids, with a "
        "top-weighted reader of persistence p.",
        "Differences between grades beyond their order: only the order of the ideal list "
        "counts, not how far apart its grades are.",
        True, "bootstrap", ("unjudged",), shown=False, at_k=False,
        parameters=(COMPAT_PERSISTENCE,),
        rule="Compat = RBO(list, ideal) / RBO(ideal, ideal) to depth d = max(list length, "
        "relevant ids), RBO = the sum over depths i up to d of p^(i - 1) |list_i & ideal_i| / "
        "i; the ideal list holds every id graded above 0, best grade first, ties in the order "
        "the list returned them, then those it did not (Clarke, Vtyurina and Smucker 2020; "
        "ir_measures' compat).",
        ir_measures="Compat",
    ),
    # ------------------------------------------------ end of the user-model measures
    Measure(
        "NumRet", "NumRet", "Ids returned",
        "how many ids the list returned (repeats included)",
        "How long the list is: what a reader or a generator would have to go through.",
        "Quality: it counts ids, relevant or not.",
        False, "bootstrap", ("unjudged",), compared=False, parameters=(JUDGED_ONLY,),
        trec_eval="num_ret", ir_measures="NumRet", **_COUNT,
    ),
    Measure(
        "NumRel", "NumRel", "Relevant ids",
        "how many relevant ids the query has, retrieved or not: R",
        "How much there is to find.",
        "The run: it depends on the labels alone.",
        False, "bootstrap", ("relevance_level",), compared=False, parameters=(REL,),
        trec_eval="num_rel", ir_measures="NumRel", **_COUNT,
    ),
    Measure(
        "NumRelRet", "NumRelRet", "Relevant ids returned",
        "how many relevant ids the list returned, anywhere in it",
        "How much of the labelled evidence the whole list holds.",
        "Where in the list they are.",
        False, "bootstrap", ("relevance_level", "unjudged"), parameters=_BINARY,
        trec_eval="num_rel_ret", ir_measures="NumRelRet", **_COUNT,
    ),
    Measure(
        "Q", "Q", "Q-measure@K",
        "graded average precision: at each relevant rank the blended ratio (relevant ids so far "
        "+ beta times their gain) / (rank + beta times the ideal's gain so far), summed and "
        "divided by R",
        "Whether the most relevant ids come first as well as whether relevant ids come early: "
        "AP with grades (beta = 0 gives AP).",
        "Relevant ids below K; and its scale depends on the gains, the grades themselves.",
        True, "bootstrap", ("recall_denominator", "relevance_level"), shown=False,
        parameters=(Q_BETA, REL),
        rule="Q@K = the sum over the relevant ranks r up to K of (C(r) + beta cg(r)) / (r + "
        "beta cg*(r)), over R (or min(R, K), as AP): C(r) the relevant ids to rank r, cg(r) the "
        "sum of their grades, cg*(r) the sum of the r highest relevant grades of the query "
        "(the ideal order; past its end, all of them). Gain = the grade of a relevant id "
        "(Sakai 2004; NTCIREVAL's Q-measure with gain = grade).",
        aliases=("Qmeasure", "Q_measure"),
    ),
    # ---------------------------------------------------------------- diversity (subtopic qrels)
    Measure(
        "alpha_nDCG", "alpha_nDCG", "alpha-nDCG@K",
        "nDCG over subtopics with a novelty discount: an id gains (1 - alpha)^c for each "
        "subtopic it covers, c the ids above it covering that subtopic, over the gain of a "
        "greedy ideal order",
        "That the top K covers the query's subtopics early, without repeating one.",
        "Subtopics nobody judged, and grades above the level: each judgment is binary. The "
        "ideal order is greedy (ndeval's), not the best possible.",
        True, "bootstrap", ("relevance_level",), shown=False, subtopics=True,
        parameters=(ALPHA, REL),
        rule="alpha-nDCG@K divides the sum over ranks i up to K of G_i / log2(i + 1), G_i the "
        "sum over the subtopics the id at i is relevant to of (1 - alpha)^c (c: the ids above "
        "it relevant to that subtopic), by the same sum over the ideal order ndeval builds "
        "greedily (at each rank the id of most gain, ties to the greater doc id) (Clarke et "
        "al. 2008; ndeval 4.5).",
        ir_measures="alpha_nDCG",
    ),
    Measure(
        "ERR_IA", "ERR_IA", "ERR-IA@K",
        "intent-aware expected reciprocal rank: the novelty gain at each rank over the rank, "
        "summed to K, over the most a list could collect (collection-independent)",
        "That each subtopic is met early, with a reader who stops once a subtopic is "
        "satisfied.",
        "Subtopics nobody judged, and grades above the level.",
        True, "bootstrap", ("relevance_level",), shown=False, subtopics=True,
        parameters=(REL,),
        rule="ERR-IA@K sums G_i / i over ranks i up to K (G_i alpha-nDCG's novelty gain at "
        "alpha = 0.5) and divides by S times the sum of 0.5^(r - 1) / r for r up to K, S the "
        "subtopics holding a relevant id (ndeval 4.5's ideal-ideal normalisation; Chapelle et "
        "al. 2009). ndeval leaves ERR-IA@1 undivided, so that it can exceed 1; here it is "
        "divided.",
        ir_measures="ERR_IA",
    ),
    Measure(
        "nERR_IA", "nERR_IA", "nERR-IA@K",
        "ERR-IA normalised by the ERR-IA of ndeval's greedy ideal order (collection-dependent)",
        "That each subtopic is met early, against the best the judgments allow.",
        "Subtopics nobody judged, and grades above the level.",
        True, "bootstrap", ("relevance_level",), shown=False, subtopics=True,
        parameters=(REL,),
        rule="nERR-IA@K divides ERR-IA's sum of G_i / i to K by the same sum over the greedy "
        "ideal order of alpha-nDCG (ndeval 4.5).",
        ir_measures="nERR_IA",
    ),
    Measure(
        "NRBP", "NRBP", "NRBP",
        "novelty- and rank-biased precision: the novelty gain at each rank weighted by "
        "beta^(rank - 1) over the whole list",
        "Diversity for a reader of patience beta who tolerates redundancy as alpha says.",
        "Where the list ends: it reads every rank, whatever K is.",
        True, "bootstrap", ("relevance_level",), shown=False, at_k=False, subtopics=True,
        parameters=(ALPHA, BETA, REL),
        rule="NRBP = (1 - (1 - alpha) beta) / S times the sum over every rank i of G_i "
        "beta^(i - 1) (Clarke, Kolla and Vechtomova 2009; ndeval 4.5).",
        ir_measures="NRBP",
    ),
    Measure(
        "P_IA", "P_IA", "P-IA@K",
        "intent-aware precision: the mean over subtopics of the share of the top K relevant "
        "to each",
        "How much of the window serves each subtopic, on average.",
        "Novelty: an id covering an already covered subtopic counts again.",
        False, "bootstrap", ("relevance_level",), shown=False, subtopics=True,
        parameters=(REL,),
        rule="P-IA@K = the (subtopic, rank) pairs up to K where the id is relevant to the "
        "subtopic, over K S (Agrawal et al. 2009; ndeval 4.5).",
        ir_measures="P_IA",
    ),
    Measure(
        "AP_IA", "AP_IA", "AP-IA",
        "intent-aware average precision: each subtopic's AP over the whole list, averaged "
        "over the subtopics",
        "That every subtopic's relevant ids are near the top.",
        "Novelty: redundancy is not charged.",
        True, "bootstrap", ("relevance_level",), shown=False, at_k=False, subtopics=True,
        parameters=(REL,),
        rule="AP-IA = the mean over the S subtopics of the subtopic's AP over the whole list "
        "(its relevant ranks' precisions over its relevant ids) (ndeval 4.5's MAP-IA).",
        ir_measures="AP_IA", aliases=("MAP_IA",),
    ),
    Measure(
        "StRecall", "StRecall", "S-recall@K",
        "subtopic recall: the share of the query's subtopics covered by the top K",
        "How many of the query's intents the window reaches at all.",
        "How well each is served, and the order inside the top K.",
        False, "bootstrap", ("relevance_level",), shown=False, subtopics=True,
        parameters=(REL,),
        rule="S-recall@K = the subtopics with a relevant id in the top K over S, the subtopics "
        "holding a relevant id (Zhai, Cohen and Lafferty 2003; ndeval 4.5's strec).",
        ir_measures="StRecall", aliases=("strec",),
    ),
)

MEASURE_BY_KEY: dict[str, Measure] = {m.key: m for m in CATALOGUE}
# the figures every view shows by default; the rest of the catalogue on request
MEASURES: tuple[Measure, ...] = tuple(m for m in CATALOGUE if m.shown)
SUMMARY_MEASURES: tuple[Measure, ...] = tuple(m for m in MEASURES if m.in_summary)
COMPARED: tuple[str, ...] = tuple(m.key for m in SUMMARY_MEASURES if m.compared)

# trec_eval's table of measures, in its order: the order of its output within a query
TREC_EVAL_ORDER = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                   "recip_rank", "iprec_at_recall", "P", "recall", "infAP", "ndcg", "ndcg_cut",
                   "map_cut", "success")

# --------------------------------------------------------------------------- query classes

QUERY_CLASSES = ("full", "partial", "late_hit", "miss")
CLASS_MEANING = {
    "full": "every relevant id is within the top K",
    "partial": "some but not all relevant ids are within the top K",
    "late_hit": "no relevant id within the top K, but one further down the list",
    "miss": "no relevant id anywhere in the list (or no list for the query)",
    "excluded": "the query has no relevant id, so it cannot be scored",
}

# --------------------------------------------------------------------------- summaries only
# A summary that is not the mean of a per-query figure (issue 51): trec_eval's gm_map, the
# geometric mean of AP over the queries. It has no per-query figure of its own (trec_eval -q
# prints none), so it is not a Measure: it is computed from the per-query AP read over the
# full list (trec_eval's map), with its own interval and its own paired comparison.


@dataclass(frozen=True)
class GeometricSummary:
    key: str  # its name in every output ("gm_map", trec_eval's)
    name: str
    of: str  # the per-query figure it summarises, by name ("AP(read=full)": trec_eval's map)
    floor: float  # each figure is raised to at least this before its log is taken
    meaning: str
    certifies: str
    silent: str
    rule: str
    interval: str  # how its interval is made, in words
    paired: str  # how a paired comparison of two runs reads it, in words
    trec_eval: str = ""
    aliases: tuple[str, ...] = ()  # other spellings a name may use

    @property
    def spellings(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.key, self.trec_eval, *self.aliases)))


# trec_eval 10.0's MIN_GEO_MEAN (trec_eval.h): AP of 0 counts as 0.00001 in the log
GEOMETRIC_FLOOR = 0.00001

GM_MAP = GeometricSummary(
    "gm_map", "Geometric mean AP", "AP(read=full)", GEOMETRIC_FLOOR,
    "the geometric mean of AP (read over the full list, trec_eval's map) over the scored "
    "queries, each AP raised to at least 0.00001",
    "That a run does well on every query: a few very poor queries pull it down far more than "
    "they pull MAP down (the robust track's measure).",
    "Queries' relative weight beyond AP itself; near 0 it is set by the floor 0.00001, so a "
    "query with AP 0 and one with AP 0.00001 weigh the same.",
    "gm_map = exp(mean over the scored queries of log(max(AP, 0.00001))), AP over the full "
    "list (trec_eval 10.0 gm_map, its MIN_GEO_MEAN; Robertson 2006). Under --empty-queries "
    "zero a query with no list scores AP 0, as trec_eval -c.",
    "percentile bootstrap over queries: gm_map of each resample of the scored queries (the "
    "seed's resamples, the same the means read), the interval between its quantiles",
    "the difference of the two runs' gm_map, with a paired percentile bootstrap interval: "
    "both runs' gm_map on the same resampled queries, the interval between the quantiles of "
    "their difference. Chosen over a t interval on the mean of the log-AP differences "
    "because that interval is of the ratio of the geometric means, not of the difference "
    "reported, and because the log-AP differences of queries at the floor are far from "
    "normal (log 0.00001 = -11.5).",
    trec_eval="gm_map", aliases=("GM_MAP", "GMAP", "gmap"),
)
GEOMETRIC_SUMMARIES: tuple[GeometricSummary, ...] = (GM_MAP,)


def geometric_summary(name: str) -> GeometricSummary | None:
    """The summary a name stands for ('gm_map', 'GM_MAP', 'GMAP'), or None."""
    written = name.strip() if isinstance(name, str) else ""
    for summary in GEOMETRIC_SUMMARIES:
        if written in summary.spellings:
            return summary
    return None


def split_summaries(names: Sequence[str]) -> tuple[tuple[GeometricSummary, ...], list[str]]:
    """The geometric summaries `names` asks for (each once, in order) and the other names,
    the measures: what a command or a view computes apart and what it scores."""
    found = [(name, geometric_summary(name)) for name in names]
    summaries = tuple(dict.fromkeys(summary for _, summary in found if summary is not None))
    return summaries, [name for name, summary in found if summary is None]
