"""The headline: one sentence per comparison, for stakeholders, built from the engine's own
figures (the paired test of the primary metric and what the query set can detect). Pure."""

from __future__ import annotations

PRIMARY = "nDCG"  # the primary metric's default measure key; --primary and primary= change it
PRIMARY_MEANING = "the metric the headline is about"
PRIMARY_HELP = f"{PRIMARY_MEANING}, e.g. nDCG or nDCG@10 (K from --k); default {PRIMARY}"

# {candidate} {verb} {baseline} on {metric}...
BETTER = "{candidate} beats {baseline} on {metric} by {difference}"
WORSE = "{candidate} is worse than {baseline} on {metric} by {difference}"
NO_DIFFERENCE = ("{candidate} does not differ significantly from {baseline} on {metric}: "
                 "{difference}")
UNCHANGED = "{candidate} scores as {baseline} does on {metric}: no query changed"
# with a minimum effect declared (metrics.vocabulary.conventions.MIN_EFFECT)
BELOW_MIN_EFFECT = ("{candidate} differs from {baseline} on {metric} by {difference}: "
                    "significant, but smaller than the minimum effect ({min_effect})")
EQUIVALENT = ("{candidate} is the same as {baseline} on {metric} within the minimum effect "
              "(±{min_effect}; equivalence test p {p_equivalence}): {difference}")
# the first screen's sentence: the verdict and the difference with its interval alone (the
# method, the counts, p and the power are the long sentence's)
SHORT = "{opening} ({level} interval)"
EVIDENCE = "({method}), {better} better, {worse} worse, p {p}{correction}; {power}"
CORRECTED = " after {correction} over {n} comparisons"
UNCORRECTED = " (not corrected for {n} comparisons)"
FAMILY = ("The headline tests the primary metric alone, a metric chosen before looking: its "
          "correction covers the candidates on that metric, not every metric the Compare "
          "table shows, so its p may be smaller than the table's.")
METHOD = "paired bootstrap, {level}"
