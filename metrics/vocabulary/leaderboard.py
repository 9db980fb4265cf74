"""The leaderboard's words: what a rank, its interval and P(best) mean, how ties are read, and
what the significance letters say. Pure words; metrics/leaderboard.py computes the figures.

A mean alone orders the runs but hides how firmly: on another draw of queries the order could
change. The leaderboard says how often it does (the paired bootstrap over queries), and the
letters say which differences the paired test cannot tell from noise.
"""

from __future__ import annotations

from metrics.vocabulary.conventions import DEFAULT_CONFIDENCE
from metrics.vocabulary.format import confidence as format_confidence

# Means closer than this are float noise, not a difference: they tie. Scores lie in [0, 1], so
# two means of real differences are far apart at this scale (the paired tests use the same).
TIE_TOLERANCE = 1e-10

# what the letters are, after a sentence that says what sharing one means (letters_sentence,
# or the start of the "letters" term)
LETTER_GROUPS = ("Two runs without a common letter differ significantly. Each letter is a "
                 "largest group of runs no two of which differ significantly, and letters run "
                 "a, b, c, … in the order of each group's best run. A run can carry several "
                 "letters.")
LEADERBOARD_TERMS = {
    "rank": "A run's rank is 1 plus the number of runs whose mean is higher (higher is "
    "better for every summary measure); runs whose means tie share the better rank, and "
    "the next rank skips, as in a sports table: 1, 1, 3.",
    "ties": f"Two means tie when they differ by less than {TIE_TOLERANCE:g} (float noise); "
    "the same rule ranks the observed means and every resample's.",
    "resamples": "Each resample draws the scored queries with replacement, the same queries "
    "for every run (the draws the summary intervals use, from the conventions' seed), so a "
    "run's rank in a resample is paired with the others': a query that is hard for one run "
    "is drawn for all of them.",
    "rank_interval": "The rank interval holds a run's rank in at least the confidence "
    "level's share of resamples. Its bounds are percentiles of the run's ranks over the "
    "resamples, counted rather than interpolated so that they are whole ranks: with 95%, "
    "the lower bound is the best rank r that the run reaches (r or better) in at least "
    "2.5% of resamples, the upper bound the best rank it reaches in at least 97.5%.",
    "p_best": "P(best) is the share of resamples in which the run ranks first; when several "
    "runs tie for first in a resample they split its credit equally (two runs: a half "
    "each), so P(best) sums to 1 over the runs. It is a bootstrap share, not the "
    "probability that the run is truly best.",
    "order": "Runs are listed by mean, best first; runs that tie keep the order they were "
    "given in.",
    "pairs": "With three or more runs every pair is compared with the paired randomization "
    "test, the earlier run of each pair as the baseline; one correction covers every pair "
    "and every metric shown.",
    "matrix": "The matrix of a metric holds, for the run of a row against the run of a "
    "column, the difference of their means (row − column) and the adjusted p of their "
    "test; a run against itself shows a difference of 0 and p = 1.",
    "letters": "Runs that share a letter do not differ significantly at alpha after the "
    "correction. " + LETTER_GROUPS,
}

# a run's standing in one sentence: "reranked ranks 1 (95% interval 1–2), first in 71% of
# resamples"
STANDING_SENTENCE = "{run} ranks {rank}{tied} ({level} interval {low}–{high}), first in {share} " \
    "of resamples"
TIED = ", tied"  # after the rank when another run's mean ties it


def share(fraction: float) -> str:
    """A share of resamples as a whole percentage that never rounds to a certainty or to
    nothing: '71%', 'under 1%' for 0.3%, 'over 99%' for 99.7%, '0%' and '100%' only when
    exact."""
    if fraction <= 0:
        return "0%"
    if fraction >= 1:
        return "100%"
    if fraction < 0.005:
        return "under 1%"
    if fraction >= 0.995:
        return "over 99%"
    return f"{round(fraction * 100):d}%"


def standing_sentence(run: str, rank: int, rank_low: int, rank_high: int, p_best: float, *,
                      confidence_level: float = DEFAULT_CONFIDENCE, tied: bool = False) -> str:
    """One run's standing: "reranked ranks 1 (95% interval 1–2), first in 71% of
    resamples"; ", tied" follows the rank when another run's mean ties it."""
    return STANDING_SENTENCE.format(run=run, rank=rank, tied=TIED if tied else "",
                                    level=format_confidence(confidence_level), low=rank_low,
                                    high=rank_high, share=share(p_best))


def letters_sentence(alpha: float, correction: str, n_comparisons: int) -> str:
    """What the letters say, with the test's threshold and family: "Runs that share a letter
    do not differ significantly at alpha = 0.05 after the Holm correction over 24
    comparisons." `correction` is the correction's display name ("Holm", "none")."""
    family = f"{n_comparisons:,} comparison{'' if n_comparisons == 1 else 's'}"
    after = (f"without correction over {family}" if correction == "none"
             else f"after the {correction} correction over {family}")
    return (f"Runs that share a letter do not differ significantly at alpha = {alpha:g} "
            f"{after}.")

# the marks of summary tables (metrics/best.py): the best run per metric, and those not
# significantly worse than it
BEST_MARK = "★"
EVEN_MARK = "†"
MARKS_SENTENCE = ("{best} the best mean on the metric; {even} not significantly worse than it "
                  "(each run against the best by the paired randomization test, {correction} "
                  "over {n} comparisons, alpha {alpha}).")
