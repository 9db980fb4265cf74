"""The words of rank agreement: what Kendall's tau and tau_AP say about two orderings of the
runs (two measures, two K, two label sets), and how a pair of runs that swaps is named. Pure
words; metrics.decide.agreement computes the figures."""

from __future__ import annotations

from metrics.vocabulary.format import figure, undefined

AGREEMENT_TERMS = {
    "tau": "Kendall's tau (tau-b) between the two orderings of the runs: 1 when they agree on "
    "every pair, -1 when every pair is reversed; pairs tied in either ordering count neither "
    "way.",
    "tau_ap": "tau_AP (Yilmaz, Aslam and Robertson 2008): as tau, but a swap near the top "
    "costs more than one near the bottom; the first ordering is the reference, and runs that "
    "tie are ordered as listed.",
    "swapped": "The pairs of runs the two orderings put in opposite orders.",
    "order": "Runs best first by their mean; runs that tie keep the order they were given in.",
}
AGREEMENT_HELP = ("do two measures, two K or two label sets rank the runs the same? Kendall's "
                  "tau and tau_AP between the orderings, and the pairs that swap")
SWAP = "{a} > {b}"  # a pair as the first ordering puts it
NO_SWAP = "no pair of runs swaps"
UNDEFINED = "an ordering of fewer than two runs has no pair to agree on"
# tau-b divides by the pairs each ordering puts in a strict order: none when one ordering ties
# every run (two runs both at Hit@10 = 1.000), so tau has no value (tau_AP orders ties as given)
TAU_ALL_TIED = "{ordering} ties every run, so it orders no pair"


def tau_text(tau: float, why: str = "") -> str:
    """tau or tau_AP as written: '0.333', or 'undefined (why)'."""
    return undefined(why) if why else figure(tau)


def agreement_sentence(first: str, second: str, tau: float, tau_ap: float,
                       swapped: int, pairs: int, *, tau_why: str = "") -> str:
    """'nDCG@10 and MRR@10 order the 3 runs with tau 0.333 and tau_AP 0.111: 1 of 3 pairs
    swaps.'; `tau_why` the reason tau has no value."""
    if pairs == 0:
        return f"{first} and {second}: {UNDEFINED}."
    swaps = NO_SWAP if not swapped else (
        f"{swapped} of {pairs} pairs swap" if swapped > 1 else f"1 of {pairs} pairs swaps")
    return (f"{first} and {second} order the runs with tau {tau_text(tau, tau_why)} and "
            f"tau_AP {tau_text(tau_ap)}: {swaps}.")


# --- Cohen's kappa between two raters' categories (metrics.stats.kappa): when it has no value

# kappa = (observed - chance) / (1 - chance): a rater who gives every item one category makes
# the observed agreement equal to chance whatever the other does, so kappa would read 0 (or
# 0/0) without measuring anything
KAPPA_NO_ITEM = "no {item} is graded by both raters"
KAPPA_ONE_CATEGORY = ("{raters} gave every {item} the same category: kappa needs two categories "
                      "from each rater")
KAPPA_FULL_CREDIT = ("the agreement weights give full credit to every pair of categories the "
                     "raters used: chance agreement is already complete")
