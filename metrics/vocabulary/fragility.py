"""The fragility check's words: which choices it tries, what a verdict is, and the sentences a
page, the report and the command line print about a verdict that flips or holds."""

from __future__ import annotations

# The paired test is not a scoring convention, but another reasonable reader would pick
# another one: the check reads each test's p under the comparison's own correction.
PAIRED_TESTS: dict[str, str] = {
    "randomization": "paired randomization (sign-flip) test",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
TEST_FIELD = "paired_test"  # the "convention" a flip names when the test is what changed
TEST_TITLE = "Paired test"
BEST_RUN = "best run"  # the "candidate" a flip names when the best run per metric changes

# a verdict: the sign of a candidate's difference on one metric when it is significant; a
# difference that could be noise has no sign worth a conclusion, so its direction flipping
# from one noise to another is not a flip
BETTER = "significantly better"
WORSE = "significantly worse"
UNCLEAR = "no significant difference"
VERDICTS = (BETTER, UNCLEAR, WORSE)

ROBUST = "robust"  # a verdict that holds under every alternative tried
FRAGILE = "fragile"

FRAGILITY_RULE = (
    "Each verdict (whether a candidate is significantly better, significantly worse or not "
    "significantly different from the baseline, and which run is best per metric) is "
    "recomputed under every other choice of each convention that can change it, one at a time,"
    " and under the other paired tests; the rest of the comparison "
    "(queries, flips, seed, correction, alpha) stays as it is. A verdict that holds under "
    "every one is robust."
)
NOT_APPLICABLE = {
    "order": "every run's order is its own (no TREC run, or the files cannot be read again)",
    "relevance_level": "no grade above 1: a higher relevance level would judge nothing "
    "relevant",
}
FRAGILITY_FLAG_HELP = ("recompute every verdict under each other choice of the conventions "
                       "that can change it and list those that flip")


def verdict(difference: float, significant: bool) -> str:
    """A test's verdict in the words above."""
    if not significant or difference == 0:
        return UNCLEAR
    return BETTER if difference > 0 else WORSE


def best_verdict(best: tuple[str, ...]) -> str:
    """The best run per metric as a verdict: 'bm25 best', or 'a and b tie for best'."""
    if len(best) == 1:
        return f"{best[0]} best"
    return f"{', '.join(best[:-1])} and {best[-1]} tie for best"


def flip_sentence(candidate: str, metric: str, title: str, choice: str, verdict: str,
                  under: str) -> str:
    """'dense on nDCG@10: significantly better, but no significant difference under DCG gain
    = exponential (2^grade − 1)'."""
    who = metric if candidate == BEST_RUN else f"{candidate} on {metric}"
    return f"{who}: {verdict}, but {under} under {title} = {choice}"


def summary_sentence(verdicts: int, flipped: int, alternatives: int) -> str:
    """'2 of 14 verdicts flip under at least one of 9 alternatives' or 'every one holds'."""
    if not flipped:
        return (f"Robust: all {verdicts} verdicts hold under each of {alternatives} "
                "alternative choices.")
    return (f"Fragile: {flipped} of {verdicts} verdicts flip under at least one of "
            f"{alternatives} alternative choices.")
