"""How a paired comparison is made, in sentences, and what each correction controls."""

from __future__ import annotations

from metrics.vocabulary.conventions import BOOTSTRAP_NAMES, min_effect_sentence
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
    "reference"; "min_effect" when one is declared, "scale" over thousands of queries.
    `comparison` is a metrics.Comparison (read by attribute)."""
    n = comparison.n_comparisons
    family = (f"{n} comparisons ({count(len(comparison.candidates), 'candidate')} × "
              f"{count(len(comparison.metrics), 'metric')})")
    corrected = (f"{CORRECTIONS[comparison.correction]} correction over the {family}"
                 if comparison.correction != "none"
                 else f"not corrected over the {family}: some may look significant by chance")
    method = {
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
    min_effect = getattr(comparison, "min_effect", None)
    if min_effect is not None:
        method["min_effect"] = f"{min_effect_sentence(min_effect)} {EQUIVALENCE_METHOD}"
    if len(comparison.query_ids) >= MANY_QUERIES:
        method["scale"] = scale_sentence(len(comparison.query_ids), min_effect)
    return method


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


# ----------------------------------------------------------------- what a difference is called

# A test's decision (the JSON's "decision") -> its words. "below_min_effect" and "equivalent"
# need a declared minimum effect (metrics.vocabulary.conventions.MIN_EFFECT): significant but
# smaller than it is a verdict of its own, and the equivalence test (TOST) says when two runs
# are the same within it.
DECISIONS: dict[str, str] = {
    "better": "significantly better",
    "worse": "significantly worse",
    "below_min_effect": "significant, but smaller than the minimum effect",
    "equivalent": "the same within the minimum effect",
    "no_difference": "no significant difference",
}
EQUIVALENCE_METHOD = ("Equivalence: two one-sided paired t-tests (TOST, Schuirmann 1987) "
                      "against ±the minimum effect, at alpha, not corrected; both must reject.")


def decision(difference: float, significant: bool, min_effect: float | None,
             p_equivalence: float | None, alpha: float) -> str:
    """A test's decision, a key of DECISIONS: a significant difference is better or worse,
    or below the minimum effect when one is declared and |difference| is smaller; one that
    is not significant is equivalent when the equivalence test's p is below alpha."""
    if significant and difference != 0:
        if min_effect is not None and abs(difference) < min_effect:
            return "below_min_effect"
        return "better" if difference > 0 else "worse"
    if min_effect is not None and p_equivalence is not None and p_equivalence < alpha:
        return "equivalent"
    return "no_difference"


def min_effect_clause(key: str, min_effect: float, p_equivalence: float | None,
                      p_text: str) -> str:
    """The part of a verdict the minimum effect adds ('significant, but smaller than the
    minimum effect (0.01)'); `p_text` is the equivalence p as format.p_equals writes it."""
    if key == "below_min_effect":
        return f"{DECISIONS[key]} ({min_effect:g})"
    if key in ("better", "worse"):
        return f"at least the minimum effect ({min_effect:g})"
    if key == "equivalent":
        return f"{DECISIONS[key]} (±{min_effect:g}; equivalence test p {p_text})"
    return f"not shown to lie within the minimum effect (±{min_effect:g}; equivalence test p " \
        f"{p_text})"


# From this many queries on, the Wilcoxon signed-rank and sign tests reject for shifts too
# small to matter (Ihemelandu and Ekstrand, SIGIR 2023): a verdict beside them says so.
MANY_QUERIES = 1_000


def rank_tests_note(n: int, min_effect: float | None) -> str:
    """What a Wilcoxon (or sign) test's rejection is worth over thousands of queries: 'over
    5,000 queries the Wilcoxon signed-rank and sign tests reject for tiny shifts (...): judge
    by the effect size and the minimum effect (0.01)'."""
    minimum = (f"the minimum effect ({min_effect:g})" if min_effect is not None
               else "a minimum effect declared with --min-effect")
    return (f"over {n:,} queries the Wilcoxon signed-rank and sign tests reject for tiny "
            f"shifts (Ihemelandu and Ekstrand, SIGIR 2023): judge by the effect size and "
            f"{minimum}")


def scale_sentence(n: int, min_effect: float | None) -> str:
    """Beside a comparison over thousands of queries: what the rank tests' p is worth."""
    note = rank_tests_note(n, min_effect)
    return f"{note[0].upper()}{note[1:]}."


def rank_tests_at_scale(n: int, p_text: str, min_effect: float | None) -> str:
    """The warning beside a Wilcoxon p that rejects over thousands of queries (`p_text` as
    format.p_equals writes it)."""
    return (f"the Wilcoxon signed-rank test rejects (p {p_text}), but "
            f"{rank_tests_note(n, min_effect)}")
