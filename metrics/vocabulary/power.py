"""Is the query set big enough? The words of the power figures, declared once.

Beside every paired comparison: the smallest difference the query set can detect (the minimum
detectable difference at its size) and, for a difference the user names, how many queries
would detect it, both with the two-sided paired t-test. metrics/stats/power.py computes them;
the command line, the dashboard and the report print these words. Pure: no numpy, no scipy.
"""

from __future__ import annotations

from metrics.vocabulary.format import confidence, count, figure

ALPHA = 0.05  # two-sided significance level of the t-test the power is computed for
POWER = 0.8  # chance of detecting a true difference of the size named (Cohen's convention)
MIN_QUERIES = 2  # a t-test needs two queries: one difference has no spread

FLAGS = {
    "delta": (
        "--delta",
        "A difference worth detecting (> 0, in the metric's units, e.g. 0.02): how many "
        "queries would detect it. Without it, the minimum detectable difference only.",
    ),
    "power": (
        "--power",
        f"Chance of detecting a true difference, strictly between alpha and 1 "
        f"(default {POWER:g}).",
    ),
    "alpha": (
        "--alpha",
        f"Two-sided significance level of the t-test, strictly between 0 and 1 "
        f"(default {ALPHA:g}).",
    ),
}

# topic-set-size design (metrics/stats/topic_set_size.py): its flags, beside FLAGS
TOPIC_SET_FLAGS = {
    "ci_width": (
        "--ci-width",
        "With --delta: also the queries with which the expected width of a paired "
        "difference's interval at 1 - alpha is at most this (> 0, in the metric's units).",
    ),
    "anova_runs": (
        "--anova-runs",
        "With --delta: the runs the one-way ANOVA design compares (at least 2; default the "
        "number of --run given).",
    ),
}
TOPIC_SET_METHOD = (
    "Topic-set-size design (Sakai, Information Retrieval Journal 2016), from this query set's "
    "residual variance V_E (the two-way ANOVA over every run: this set is the pilot): the "
    "queries a future set needs for the two-sided paired t-test to detect the difference "
    "named (the differences' variance taken as 2 V_E), for the one-way ANOVA over m runs to "
    "detect a best and a worst mean that far apart (the others between them, the least "
    "favourable spread; noncentral F), and for the expected width of a paired difference's "
    "interval at 1 − alpha to be at most the width named (E[s] from the chi distribution)."
)
TOPIC_SET_MEANING = {  # one sentence per JSON key of a metric's sizes
    "residual_variance": "V_E: the residual mean square of the two-way ANOVA over every run.",
    "paired_t": "Queries for the paired t-test to detect the difference with the power asked.",
    "anova": "Queries (per run) for the one-way ANOVA over the runs to detect a best and a "
    "worst mean the difference apart.",
    "ci": "Queries for the expected interval of a paired difference to be at most the width "
    "named.",
}

POWER_METHOD = (
    "Power of the two-sided paired t-test, computed exactly from the noncentral t "
    "distribution with the per-query differences' standard deviation (ddof = 1) of the runs at "
    "hand: the minimum detectable difference at the current number of queries, and the number "
    "of queries needed to detect a named difference, as in Sakai's topic-set-size design "
    "(Information Retrieval Journal, 2016). The level is per comparison (not corrected for "
    "multiple comparisons), and the differences of a new query set are assumed to spread as "
    "these do."
)

POWER_MEANING = {  # one sentence per JSON key of a pair
    "queries": "Queries: the scored queries both runs were compared on.",
    "sd_difference": "Standard deviation (ddof = 1) of the per-query differences, "
    "candidate − baseline.",
    "min_detectable_difference": "Minimum detectable difference: the smallest true mean "
    "difference the two-sided paired t-test detects at this many queries with the chosen power "
    "and alpha.",
    "queries_needed": "Queries needed: the fewest queries with which the two-sided paired "
    "t-test detects the named difference with the chosen power and alpha.",
}

# sentence templates; {mde} and {delta} are differences, {power} a percentage
UNDERPOWERED = ("underpowered for a difference of {delta}: this set can detect {mde} or more "
                "with {power} power")
# beside a verdict that is not significant, with no difference named: what could go unseen
# (whether that is underpowered depends on the difference that matters, which was not said)
UNSEEN = ("a true difference under {mde} may not show: this set can detect {mde} or more with "
          "{power} power")
DETECTS = "this query set detects differences of {mde} or more with {power} power"
ANY_DIFFERENCE = ("every query changed by the same amount, so any non-zero difference is "
                  "detectable")
TOO_FEW = f"fewer than {MIN_QUERIES} queries: no power can be said"
NEEDED = "{queries} would detect a difference of {delta} with {power} power (this set has {n})"


def difference(value: float) -> str:
    """A difference as the power sentences write it: three decimals ('0.043'), and two
    significant digits when three decimals would show nothing ('0.00031')."""
    if value != 0 and abs(value) < 0.0005:
        return f"{value:.2g}"
    return figure(value)


def power_sentence(
    *,
    queries: int,
    min_detectable_difference: float | None,
    power: float,
    significant: bool,
    queries_needed: int | None = None,
    delta: float | None = None,
) -> str:
    """What the query set can detect, said beside a verdict: the plain figure beside one
    that is significant or when the set detects the named difference; 'underpowered for' the
    named difference when it cannot; without one, what a verdict that is not significant may
    miss (a set that detects 0.0001 is not underpowered); then, with a named difference, how
    many queries would detect it.
    """
    level = confidence(power)
    if min_detectable_difference is None:
        first = TOO_FEW
    elif min_detectable_difference == 0:
        first = ANY_DIFFERENCE
    else:
        mde = difference(min_detectable_difference)
        if significant or (delta is not None and min_detectable_difference <= delta):
            first = DETECTS.format(mde=mde, power=level)
        elif delta is not None:
            first = UNDERPOWERED.format(mde=mde, power=level, delta=difference(delta))
        else:
            first = UNSEEN.format(mde=mde, power=level)
    if queries_needed is None or delta is None:
        return first
    needed = NEEDED.format(queries=count(queries_needed, "query"), delta=difference(delta),
                           power=level, n=f"{queries:,}")
    return f"{first}; {needed}"
