"""How a paired comparison is made, in sentences, and what each correction controls."""

from __future__ import annotations

from metrics.vocabulary.conventions import BOOTSTRAP_NAMES
from metrics.vocabulary.format import confidence as format_confidence
from metrics.vocabulary.format import count

# --------------------------------------------------------------------------- comparisons

# the multiple-comparison corrections: key (the choice a flag and a URL take) -> the name shown
# to people ("Holm correction"); metrics.stats.corrections computes each
CORRECTIONS: dict[str, str] = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "none"}
DEFAULT_CORRECTION = "holm"
ALPHA = 0.05  # a difference is called unlikely to be noise when its adjusted p is below this
# when a difference counts as unlikely to be noise: the method's sentence and the alpha control
SIGNIFICANCE_RULE = "a difference is called unlikely to be noise when its adjusted p is below"
ALPHA_RANGE = (0.001, 0.5)  # the levels a control offers
DEFAULT_PERMUTATIONS = 10_000  # sign flips of the paired randomization test
# the column of the queries a candidate scored higher on, the same and lower (format.win_tie_loss)
WIN_TIE_LOSS = "Better / tie / worse"
WIN_TIE_LOSS_MEANING = "Queries the candidate scored higher on, the same, lower."
CORRECTION_MEANING = {
    "holm": "Holm controls the chance of any false alarm among the comparisons shown",
    "bh": "Benjamini-Hochberg controls the share of false alarms among those called "
    "significant",
    "none": "none adjusts nothing: with many comparisons some look significant by chance alone",
}


def comparison_method(comparison) -> dict[str, str]:
    """How a paired comparison was made, in sentences: "test", "interval", "effect",
    "reference". `comparison` is a metrics.Comparison (read by attribute)."""
    n = comparison.n_comparisons
    family = (f"{n} comparisons ({count(len(comparison.candidates), 'candidate')} × "
              f"{count(len(comparison.metrics), 'metric')})")
    corrected = (f"{CORRECTIONS[comparison.correction]} correction over the {family}"
                 if comparison.correction != "none"
                 else f"not corrected over the {family}: some may look significant by chance")
    return {
        "test": "Paired randomization (sign-flip) test on the mean difference, "
        f"{comparison.n_permutations:,} sign flips with a fixed seed (Smucker, Allan and "
        f"Carterette 2007); {corrected}; {SIGNIFICANCE_RULE} {comparison.alpha:g}.",
        "interval": f"Difference = candidate − baseline over the {len(comparison.query_ids):,} "
        f"scored queries, with a paired {BOOTSTRAP_NAMES[comparison.interval_method]} interval "
        f"({comparison.n_resamples:,} resamples, "
        f"{format_confidence(comparison.confidence_level)}).",
        "effect": "Effect size = mean difference ÷ standard deviation of the differences "
        "(ddof = 1): with many queries a tiny difference can be significant, so read both.",
        "reference": "The paired t-test and the Wilcoxon signed-rank test (two-sided) are shown "
        "for reference and are not corrected.",
    }


# --------------------------------------------------------------------------- the run x metric table

BETTER_MARK = "▲"  # significantly better than the baseline (adjusted p below alpha)
WORSE_MARK = "▼"  # significantly worse
NOT_COMPARED = "not compared"  # a measure the comparison left out (Judged@K by default)


def run_table_note(baseline: str, method: str, uncompared: list[str]) -> str:
    """The sentence under the run x metric table: what a cell holds, what its mark says and
    which test and correction gave it. `method` is comparison_method(...)['test']."""
    left = (f" {', '.join(uncompared)}: the mean alone ({NOT_COMPARED})." if uncompared
            else "")
    return (f"Each cell: the run's mean at K, then its difference from the baseline's "
            f"({baseline}); {BETTER_MARK} significantly better, {WORSE_MARK} significantly "
            f"worse, no mark: could be noise. {method}{left}")
