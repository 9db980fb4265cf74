"""The words of many runs tested at once: the two-way ANOVA without replication (topic x
system), the randomized Tukey HSD with the classic p beside it, and what each figure of
theirs means. Pure words; metrics/stats/anova.py and metrics/stats/tukey.py compute.

Every figure is said with its method beside it: a p names its test, an effect size what it is
standardised by, a margin of error the variance and degrees of freedom it reads.
"""

from __future__ import annotations

from metrics.vocabulary.format import confidence, count

# the tests every pair of runs can be read by (all_pairs' `test`, the --test flag): key -> name
ALL_PAIRS_TESTS: dict[str, str] = {
    "paired": "paired randomization test of each pair, one correction over every pair and "
    "metric",
    "tukey": "randomized Tukey HSD over the pairs of each metric, the classic Tukey HSD p "
    "beside it",
}
DEFAULT_ALL_PAIRS_TEST = "paired"
# the same tests as a control names them, in a few words
ALL_PAIRS_TEST_NAMES = {"paired": "paired tests, one correction",
                        "tukey": "randomized Tukey HSD"}
TEST_HELP = ("how every pair of runs is tested: " + "; ".join(
    f"{key}: {name}" for key, name in ALL_PAIRS_TESTS.items()))

ANOVA_METHOD = (
    "Two-way ANOVA without replication (query x run; Sakai 2014, 2018): a query's score is the "
    "grand mean plus its run's effect plus its query's effect plus a residual. F and p of runs "
    "and of queries are read against the residual variance V_E, on (m − 1)(n − 1) degrees of "
    "freedom; omega² is Sakai's, (S_A − φ_A V_E) / (S_T + V_E), negative when F < 1; partial "
    "eta² is S_A / (S_A + S_E). The margin of error of a run's mean is t(φ_E) × √(V_E / n), half "
    "its interval's width.")

TUKEY_METHOD = (
    "Randomized Tukey HSD (Carterette 2012; Sakai 2014): each permutation shuffles every "
    "query's scores across the runs and keeps the largest minus the smallest run mean; a "
    "pair's p is (1 + permutations whose range reaches the pair's |difference|) / (1 + "
    "permutations), seeded. It controls the family-wise error over every pair of a metric "
    "without a correction. Beside it the classic Tukey HSD p: the studentized range of the "
    "runs' means with the ANOVA's residual variance and degrees of freedom (scipy). Effect "
    "size = difference ÷ √V_E (Sakai's, standardised by the residual variance).")

TUKEY_TERMS = {
    "p_randomized": "p of the randomized Tukey HSD: the share of permutations whose largest "
    "minus smallest run mean reaches this pair's difference.",
    "p_classic": "p of the classic Tukey HSD: the studentized range with the ANOVA's residual "
    "variance and degrees of freedom.",
    "effect_size": "Difference ÷ √V_E: the pair's difference in residual standard deviations.",
    "residual_variance": "V_E: the residual mean square of the two-way ANOVA.",
    "margin_of_error": "Half the width of a run mean's interval: t(φ_E) × √(V_E / n).",
    "omega_squared": "Omega² of runs (Sakai): the share of the score variance the runs "
    "explain, corrected for chance; negative when F < 1.",
    "partial_eta_squared": "Partial eta² of runs: S_runs / (S_runs + S_residual).",
    "null_ranges": "The permutations' largest minus smallest run mean: the distribution a "
    "pair's difference is read against.",
}

# the ANOVA table's lines and columns, as a table prints them
SOURCES = {"systems": "runs", "topics": "queries", "residual": "residual"}
ANOVA_HEADER = ["source", "sum of squares", "df", "mean square", "F", "p", "omega²",
                "partial eta²"]


def tukey_sentence(alpha: float, n_permutations: int, seed: int | None, runs: int) -> str:
    """What the letters of a Tukey reading say: 'Runs that share a letter do not differ
    significantly at alpha = 0.05 by the randomized Tukey HSD over the 10 pairs of each
    metric (10,000 permutations, seed 20080101).'"""
    pairs = runs * (runs - 1) // 2
    seeded = f", seed {seed}" if seed is not None else ""
    return (f"Runs that share a letter do not differ significantly at alpha = {alpha:g} by "
            f"the randomized Tukey HSD over the {count(pairs, 'pair')} of each metric "
            f"({count(n_permutations, 'permutation')}{seeded}).")


def margin_sentence(margin: float, level: float, residual_df: int, text: str) -> str:
    """'Each run's mean ± 0.021 (95%, from the residual variance on 1,996 df).' (`text` is
    the margin as format writes it)."""
    return (f"Each run's mean ± {text} ({confidence(level)} margin of error, from the "
            f"residual variance on {residual_df:,} df).")
