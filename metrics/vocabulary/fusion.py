"""Fusion's words: the methods that merge runs into one, how scores are normalised first, the
name a fused run gets, the sentence that says how it was made, the order of its ties, and the
honest way to choose a weight. Pure words and numbers; metrics/fusion.py applies them."""

from __future__ import annotations

from collections.abc import Sequence

RRF, COMBSUM, COMBMNZ = "rrf", "combsum", "combmnz"
DEFAULT_METHOD = RRF
# Cormack, Clarke and Büttcher fixed k = 60 on a pilot collection: a choice, not a law
RRF_K = 60
# past a million, 1/(k + rank) differs between ranks only in digits no fused order reads,
# and weights beyond it only scale the sum: both are refused, so no sum can overflow
MAX_RRF_K = 1_000_000
MAX_WEIGHT = 1_000_000
# a recipe as a link carries it: JSON of at most this many characters, an object holding
# lists (two levels), and at most this many runs
MAX_RECIPE_CHARS = 20_000
MAX_RECIPE_DEPTH = 2
MAX_RECIPE_RUNS = 50
RECIPE_FIELDS = ("method", "norm", "k", "weights", "runs")
RECIPE_SHAPE = ('a fusion recipe is a JSON object {"method", "norm", "k", "weights", '
                '"runs": [two or more run names]}')

METHODS = {
    RRF: "Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): an id's fused "
    "score is the sum, over the runs that return it, of 1 / (k + its rank there); a run that "
    "does not return it adds nothing. Scores are not read, so no normalisation applies.",
    COMBSUM: "CombSUM (Fox and Shaw, TREC-2 1994): an id's fused score is the sum of its "
    "normalised scores over the runs; a run that does not return it adds 0. Given weights, "
    "each run's normalised scores are multiplied by its weight first (weighted CombSUM).",
    COMBMNZ: "CombMNZ (Fox and Shaw, TREC-2 1994): CombSUM times the number of runs that "
    "return the id, which favours the ids several runs agree on.",
}
METHOD_NAMES = {RRF: "reciprocal rank fusion", COMBSUM: "CombSUM", COMBMNZ: "CombMNZ"}
WEIGHTED_NAME = "weighted CombSUM"

MINMAX, ZSCORE, RANK = "minmax", "zscore", "rank"
DEFAULT_NORM = MINMAX
NORMS = {
    MINMAX: "min-max: (score − min) / (max − min) over the run's list for the query, so its "
    "best id gets 1 and its worst 0; a list whose scores all tie (a single id included) gets "
    "1 throughout: every id is that run's best.",
    ZSCORE: "z-score: (score − mean) / standard deviation (ddof = 0) over the run's list for "
    "the query; a list whose scores all tie gets 0 throughout. An id a run does not return "
    "adds 0, the score of that run's average id.",
    RANK: "rank-based: 1 − (rank − 1) / n, with n the length of the run's list for the query "
    "(Renda and Straccia, SAC 2003; ranx's rank norm): 1 at rank 1, 1/n at the last rank, "
    "0 for an id not returned. Scores are not read.",
}
NORM_NAMES = {MINMAX: "min-max", ZSCORE: "z-score", RANK: "by rank"}

# a run read from JSONL, or from a CSV file without a score column, has ranks only
UNSCORED_NORM = RANK
UNSCORED_RULE = ("A run without scores (JSONL lists, a CSV file without a score column) is "
                 "normalised by rank, whatever the norm chosen: 1 − (rank − 1) / n.")

TIE_RULE = ("Ids whose fused scores tie are ordered by doc id descending as a string: "
            "trec_eval's tie rule, the project's, so that the fused run written as TREC and read "
            "back in score order keeps its order.")

RULES = {
    "lists": "Every run's full list is read, not only its top K: an id any run returns for a "
    "query is in the fused list for that query.",
    "ranks": "A rank is the id's place in the run's list as loaded (a TREC run in trec_eval's "
    "order unless the rank column was chosen); scores are read only by min-max and z-score.",
    "repeats": "An id a run lists twice counts once, at its first rank and with its first "
    "score; the repeat keeps its rank slot, so the ids below it keep their ranks, as the "
    "evaluation reads them.",
    "queries": "A query any run answers is in the fused run, in the order the runs first give "
    "it; a run silent on a query adds nothing to it.",
    "unscored": UNSCORED_RULE,
    "ties": TIE_RULE,
    "precision": "Fused scores are kept and written as doubles at full precision (Python's "
    "repr), so no two of them tie on the page that did not tie in the sum.",
}

# weight search for two runs: weighted CombSUM, the first run weighted w and the second 1 − w
# (rounded to 12 decimals, so that 1 − 0.7 is the 0.3 a reader would type)
WEIGHT_STEP = 0.1
WEIGHT_GRID = tuple(round(i * WEIGHT_STEP, 10) for i in range(11))  # 0, 0.1, ..., 1
TUNE_METRIC, TUNE_K = "nDCG", 10
TUNING_TIE_RULE = ("Weights whose means tie are settled toward equal weight (0.5), then toward "
                   "the lower weight on the first run.")
CROSS_FIT_RULE = (
    "A weight tuned and scored on the same queries reads high: it is the best of every weight "
    "tried on exactly those queries. Cross-fitting keeps the two apart: the scored queries are "
    "split at random (seeded) into two halves, the first holding the odd one out; the weight "
    "with the best mean on each half scores the queries of the other, so every query's figure "
    "comes from a weight it did not help choose. The mean of those figures, with a bootstrap "
    "interval on it, estimates what tuning the weight this way gives on new queries. The "
    "in-sample best weight's mean is shown beside it for contrast only: it is optimistic. "
    + TUNING_TIE_RULE
)

# command-line words, for a `fuse` command
FUSE_HELP = ("fuse two or more runs into one (reciprocal rank fusion, CombSUM or CombMNZ) and "
             "write it as a TREC run")
METHOD_FLAG = "--method"
METHOD_HELP = (f"how the runs are fused: '{RRF}' (reciprocal rank fusion, default), "
               f"'{COMBSUM}' or '{COMBMNZ}' (sums of normalised scores)")
NORM_FLAG = "--norm"
NORM_HELP = (f"how CombSUM and CombMNZ normalise each run's scores per query: '{MINMAX}' "
             f"(default), '{ZSCORE}' or '{RANK}' (1 − (rank − 1)/n); a run without scores is "
             "always normalised by rank")
RRF_K_FLAG = "--rrf-k"
RRF_K_HELP = (f"reciprocal rank fusion's constant k in 1/(k + rank), from 0 to {MAX_RRF_K:,} "
              f"(default {RRF_K})")
WEIGHTS_FLAG = "--weights"
WEIGHTS_HELP = ("weighted CombSUM: one weight per run, in the order of the runs, comma "
                f"separated (e.g. 0.3,0.7); each from 0 to {MAX_WEIGHT:,}, not all 0")
NAME_FLAG = "--name"
NAME_HELP = "name of the fused run (default from the recipe, e.g. rrf(bm25,dense))"
TAG_FLAG = "--tag"
TAG_HELP = "the TREC file's last column (default the fused run's name)"
TUNE_FLAG = "--tune-weight"
TUNE_HELP = ("for two runs: choose the first run's weight w (the second gets 1 − w) over "
             f"{WEIGHT_GRID[0]:g}..{WEIGHT_GRID[-1]:g} in steps of {WEIGHT_STEP:g} by 2-fold "
             f"cross-fitting on the metric at K (default {TUNE_METRIC}@{TUNE_K})")


def _weight(value: float) -> str:
    return f"{value:g}"


def fused_name(method: str, norm: str | None, names: Sequence[str], *, k: float = RRF_K,
               weights: Sequence[float] | None = None) -> str:
    """The fused run's default name, its recipe in short: 'rrf(bm25,dense)', 'rrf-k20(a,b)',
    'combsum-minmax(a,b)', 'wsum-minmax(a:0.3,b:0.7)'."""
    if weights is not None:
        parts = ",".join(f"{n}:{_weight(w)}" for n, w in zip(names, weights, strict=True))
        return f"wsum-{norm}({parts})"
    if method == RRF:
        head = "rrf" if k == RRF_K else f"rrf-k{_weight(k)}"
    else:
        head = f"{method}-{norm}"
    return f"{head}({','.join(names)})"


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def recipe_sentence(name: str, method: str, norm: str | None, names: Sequence[str], *,
                    k: float | None = None, weights: Sequence[float] | None = None,
                    unscored: Sequence[str] = ()) -> str:
    """How a fused run was made, in one paragraph: 'rrf(bm25,dense) fuses bm25 and dense by
    reciprocal rank fusion (Cormack, Clarke and Büttcher 2009), k = 60: ...'."""
    if method == RRF:
        how = (f"by reciprocal rank fusion (Cormack, Clarke and Büttcher 2009), k = "
               f"{_weight(k if k is not None else RRF_K)}: each id scores the sum of "
               "1/(k + rank) over the runs that return it")
    else:
        words = WEIGHTED_NAME if weights is not None else METHOD_NAMES[method]
        how = f"by {words} (Fox and Shaw 1994) of scores normalised {NORM_NAMES[norm]}"
        if weights is not None:
            how += " with weights " + ", ".join(
                f"{n} {_weight(w)}" for n, w in zip(names, weights, strict=True))
        if method == COMBMNZ:
            how += ", times the number of runs that return the id"
    text = f"{name} fuses {_listed(names)} {how}. Every run's full list is read."
    if unscored and method != RRF:
        verb = "has" if len(unscored) == 1 else "have"
        text += (f" {_listed(unscored)} {verb} no scores: normalised by rank instead, "
                 "1 − (rank − 1)/n.")
    return f"{text} {TIE_RULE}"


def cross_fit_sentence(label: str, chosen: Sequence[float], mean: float,
                       in_sample_weight: float, in_sample_mean: float, queries: int) -> str:
    """'Cross-fitted nDCG@10 over 5,000 queries: 0.512 (weights 0.3 and 0.4 chosen on the two
    halves); the in-sample best weight, 0.3, reads 0.519, optimistically.' (`label`: the
    figure's label, 'nDCG@10')"""
    return (f"Cross-fitted {label} over {queries:,} queries: {mean:.3f} (weight "
            f"{_weight(chosen[0])} chosen on the first half, {_weight(chosen[1])} on the second, "
            f"each scoring the other half); the in-sample best weight, "
            f"{_weight(in_sample_weight)}, reads {in_sample_mean:.3f}, tuned on the queries it "
            "is scored on.")
