"""Risk-sensitive review, in words: does a candidate that helps on average hurt some queries?

A mean difference hides the queries a change breaks. Beside it: URisk and TRisk, which weigh
each loss 1 + α times (Wang, Bennett and Collins-Thompson, SIGIR 2012; Dinçer, Macdonald and
Ounis, SIGIR 2014), the share of queries that lose more than δ with its Wilson interval, the
mean loss and the worst losses; and the harm gate, ``compare --max-harm``, that fails a
candidate harming too many queries. metrics/risk.py computes them; the command line, the
dashboard and the report print these words. Pure: no numpy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from metrics.vocabulary.format import (
    MISSING,
    confidence,
    count,
    figure,
    percent_of,
    signed,
    undefined,
)

HARM_DELTA = 0.05  # a query is harmed when it loses more than this (in the metric's units)
RISK_ALPHAS = (1, 5)  # risk aversions: a loss weighs 1 + α times a gain of the same size
TRISK_THRESHOLD = 2.0  # |TRisk| beyond this reads as reliable: about a two-sided 5% z-test
WORST_LOSSES = 10  # the worst losses kept per candidate and metric
MIN_QUERIES = 2  # TRisk divides by a sample standard deviation: one query has no spread

RISK_NAMES = {  # JSON key -> the name a table or a chart shows
    "urisk": "URisk",
    "trisk": "TRisk",
    "harm_share": "Harm share",
    "mean_loss": "Mean loss",
    "worst": "Worst losses",
}

RISK_MEANING = {  # JSON key -> one sentence
    "urisk": "URisk_α (Wang, Bennett and Collins-Thompson, SIGIR 2012): the mean over the "
    "queries of each difference (candidate − baseline), a loss counted 1 + α times; "
    "negative when the losses, so weighed, outweigh the gains.",
    "trisk": "TRisk_α (Dinçer, Macdonald and Ounis, SIGIR 2014): URisk_α over its standard "
    "error (the sample standard deviation, ddof = 1, of the weighed differences over √n); "
    f"above {TRISK_THRESHOLD:g} the candidate is reliably safer than the baseline, below "
    f"−{TRISK_THRESHOLD:g} reliably riskier.",
    "harm_share": "Harm share: the share of queries whose difference is below −δ (they lose "
    "more than δ; a loss of exactly δ is not harm), with its Wilson interval.",
    "mean_loss": "Mean loss: the mean size of the losses over the queries that lose anything "
    "(difference below 0, however small), so that it reads beside the count of losing "
    "queries; none when no query loses.",
    "worst": f"Worst losses: the queries that lose most, worst first (at most "
    f"{WORST_LOSSES} by default), ties in query-id order; only queries that lose are listed.",
}

RISK_METHOD = (
    "Risk: with d_i the difference (candidate − baseline) on query i of n, z_i = d_i for a "
    "gain or tie and (1 + α) d_i for a loss. URisk_α is the mean of z (Wang, Bennett and "
    "Collins-Thompson, SIGIR 2012); TRisk_α is URisk_α / (s_z / √n), with s_z the sample "
    "standard deviation (ddof = 1) of z (Dinçer, Macdonald and Ounis, SIGIR 2014). With "
    "α = 0 they are the mean difference and its paired t statistic. The harm share is the "
    "share of queries losing more than δ, with a Wilson interval; it is not corrected for "
    "multiple comparisons."
)

# TRisk read against the threshold; UNDEFINED when every query changed by the same non-zero
# amount (no spread: the ratio has no finite value, see metrics.risk.trisk)
SAFER = "reliably safer than the baseline"
RISKIER = "reliably riskier than the baseline"
NOT_DIFFERENT = "not reliably different in risk"
UNDEFINED = undefined("every query changed by the same amount")
READINGS = {
    SAFER: f"TRisk above {TRISK_THRESHOLD:g}: the gains outweigh the weighed losses by more "
    "than twice their standard error.",
    RISKIER: f"TRisk below −{TRISK_THRESHOLD:g}: the weighed losses outweigh the gains by more "
    "than twice their standard error.",
    NOT_DIFFERENT: f"TRisk between −{TRISK_THRESHOLD:g} and {TRISK_THRESHOLD:g}: the queries "
    "cannot tell the candidate's risk from the baseline's.",
    UNDEFINED: "Every query changed by the same non-zero amount, so the weighed differences "
    "have no spread and TRisk no value; URisk says which way.",
}


def trisk_reading(value: float | None) -> str:
    """A TRisk value in words: reliably safer above the threshold, reliably riskier below its
    negative, not reliably different on or between them; undefined for None or nan."""
    if value is None or math.isnan(value):
        return UNDEFINED
    if value > TRISK_THRESHOLD:
        return SAFER
    if value < -TRISK_THRESHOLD:
        return RISKIER
    return NOT_DIFFERENT


def alpha_key(alpha: float) -> str:
    """An α as a JSON key and as written: '1', '5', '2.5'."""
    return f"{alpha:g}"


def delta_words(delta: float) -> str:
    """δ as written on the command line and in the sentences: '0.05'."""
    return f"{delta:g}"


def share(value: float | None) -> str:
    """A share of queries as a percentage, one decimal: '12.0%'."""
    return MISSING if value is None or not math.isfinite(value) else f"{value * 100:.1f}%"


def limit_words(value: float) -> str:
    """A harm limit as written: '10%', '2.5%'."""
    return f"{round(value * 100, 6):g}%"


# sentence templates: {share}, {low} and {high} percentages (share), {delta} as delta_words,
# {harmed}, {n} and {losing} counts, {mean_loss} a figure
HARM_TEMPLATE = ("{candidate} loses more than {delta} {metric} on {share} of queries "
                 "[{low}, {high}] ({harmed} of {n})")
LOSS_TEMPLATE = "mean loss {mean_loss} over the {losing} that {verb}"
NO_LOSS = "no query loses"
RISK_TEMPLATE = "URisk α={alpha} {urisk}, TRisk {trisk}: {reading}"
WORST_TEMPLATE = "worst losses: {losses}"


def harm_sentence(*, candidate: str, metric: str, delta: float, harm_share: float,
                  low: float, high: float, harmed: int, n: int, losing: int,
                  mean_loss: float | None) -> str:
    """e.g. 'bm25+rerank loses more than 0.05 nDCG@10 on 12.0% of queries [9.4%, 15.1%]
    (60 of 500); mean loss 0.083 over the 71 queries that lose'."""
    first = HARM_TEMPLATE.format(candidate=candidate, delta=delta_words(delta), metric=metric,
                                 share=share(harm_share), low=share(low), high=share(high),
                                 harmed=f"{harmed:,}", n=f"{n:,}")
    if not losing:
        return f"{first}; {NO_LOSS}"
    loss = LOSS_TEMPLATE.format(mean_loss=figure(mean_loss), losing=count(losing, "query"),
                                verb="loses" if losing == 1 else "lose")
    return f"{first}; {loss}"


def risk_sentence(alpha: float, urisk: float | None, trisk: float | None) -> str:
    """One α's figures and their reading, e.g. 'URisk α=5 -0.012, TRisk -2.410: reliably
    riskier than the baseline'."""
    return RISK_TEMPLATE.format(alpha=alpha_key(alpha), urisk=signed(urisk), trisk=signed(trisk),
                                reading=trisk_reading(trisk))


def worst_sentence(worst: Iterable[tuple[str, float]]) -> str:
    """The worst losses, (query id, difference) pairs worst first: 'worst losses: q7 -0.412,
    q3 -0.380'; NO_LOSS when there are none."""
    pairs = list(worst)
    if not pairs:
        return NO_LOSS
    return WORST_TEMPLATE.format(losses=", ".join(f"{q} {signed(d)}" for q, d in pairs))


# --------------------------------------------------------------------------- the harm gate

HARM_FLAG = "--max-harm"
HARM_METAVAR = "METRIC=SHARE[:DELTA]"
HARM_HELP = (
    f"{HARM_METAVAR}: the largest share of queries a candidate may harm on a metric, e.g. "
    f"nDCG@10=0.10:0.05 or nDCG@10=10%:0.05 (a query is harmed when it loses more than DELTA, "
    f"in the metric's units; default {delta_words(HARM_DELTA)}); the K may be left out. A "
    "candidate fails when the share of queries it harms exceeds SHARE. Repeatable, one per "
    "metric."
)
HARM_GATE = (
    f"{HARM_FLAG} {HARM_METAVAR}: a candidate fails when the share of queries losing more "
    "than DELTA on METRIC (the point estimate; its Wilson interval is shown) exceeds SHARE."
)
HARM_GATE_METHOD = (
    "Harm gate: a candidate passes when the share of queries whose difference (candidate − "
    "baseline) is below −DELTA is at most SHARE. The point estimate is held to the limit, not "
    "the interval: the gate bounds how many of these queries were harmed, and the Wilson "
    "interval beside it says how far the share on new queries might lie from it."
)

HARM_PARSE_ERRORS = {  # what a harm limit's text must look like, said when it does not
    "form": "a harm limit is METRIC=SHARE or METRIC=SHARE:DELTA, e.g. nDCG@10=0.10:0.05 or "
    "nDCG@10=10%",
    "share": "SHARE must be a number from 0 to 1, or a percentage from 0% to 100% such as 10%",
    "delta": "DELTA must be a number from 0 to 1 in the metric's units, such as 0.05 (not a "
    "percentage)",
}

HARM_PASSED = "within the harm limit"
HARM_FAILED = "harms too many queries"
HARM_VERDICTS = {
    HARM_PASSED: "The share of queries losing more than DELTA is at most the limit. The gate "
    "passes.",
    HARM_FAILED: "The share of queries losing more than DELTA exceeds the limit. The gate "
    "fails.",
}
# {verdict}; {share}, {low}, {high}, {limit} percentages; {harmed}, {n} counts; {delta}, {metric}
HARM_GATE_TEMPLATE = ("{verdict}: {share} of queries [{low}, {high}] ({harmed} of {n}) lose "
                      "more than {delta} {metric}; the limit is {limit}{interval}")


def harm_gate_sentence(*, passed: bool, metric: str, delta: float, harm_share: float,
                       low: float, high: float, harmed: int, n: int, limit: float,
                       confidence_level: float | None = None) -> str:
    """One harm verdict in words, e.g. 'harms too many queries: 12.0% of queries [9.4%, 15.1%]
    (60 of 500) lose more than 0.05 nDCG@10; the limit is 10% (95% Wilson interval)'."""
    interval = ("" if confidence_level is None
                else f" ({confidence(confidence_level)} Wilson interval)")
    return HARM_GATE_TEMPLATE.format(
        verdict=HARM_PASSED if passed else HARM_FAILED, share=share(harm_share), low=share(low),
        high=share(high), harmed=f"{harmed:,}", n=f"{n:,}", delta=delta_words(delta),
        metric=metric, limit=limit_words(limit), interval=interval,
    )


def harm_failure(candidate: str, metric: str, baseline: str, sentence: str) -> str:
    """The line a failed harm gate prints on standard error, in the shape of the other gates'
    (metrics.vocabulary.gates.gate_failure)."""
    return f"harm: {candidate} on {metric} against {baseline}: {sentence}"


# --- what the harmed queries share ---------------------------------------------------------

SHARED_MIN_QUERIES = 3  # a word or facet value is weighed only when this many queries hold it
SHARED_SHOWN = 10  # the most over-represented features listed
SHARED_METHOD = (
    "What the harmed queries share: each word of the queries' texts (lower case, function "
    "words left out) and each facet value, counted among the queries the candidate harms and "
    "among the rest; a feature is over-represented when the share of harmed queries holding "
    f"it is higher than among the rest. Only features held by {SHARED_MIN_QUERIES} queries or "
    "more are weighed. Each is tested by the one-sided hypergeometric test (Fisher's exact "
    "test: could this many harmed queries hold it by chance?), Benjamini-Hochberg over every "
    "feature weighed; listed most significant first."
)
FEATURE_KINDS = {"word": "word", "facet": "facet value"}
# a feature's lift (its share among the harmed over its share among the others) has no value
# when none of the others holds it: the counts beside it say how it stands
NO_OTHER_HOLDS = "none of the other queries holds it"
LIFT_DECIMALS = 1


def times(lift: float, why: str = "") -> str:
    """How many times as common among the harmed: '12.5'; 'undefined (why)' without a
    value."""
    return undefined(why) if why else f"{lift:.{LIFT_DECIMALS}f}"


def shared_sentence(kind: str, value: str, harmed_with: int, harmed: int, rest_with: int,
                    rest: int) -> str:
    """'"without": in 244 of 270 harmed queries (90.4%) against 1 of 1,230 others (0.1%)'."""
    return (f"{FEATURE_KINDS[kind]} {value!r}: in {harmed_with:,} of {harmed:,} harmed queries "
            f"({percent_of(harmed_with, harmed)}) against {rest_with:,} of {rest:,} others "
            f"({percent_of(rest_with, rest)})")
