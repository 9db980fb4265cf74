"""The headline: one sentence per comparison, for stakeholders, built from the engine's own
figures (the paired test of the primary metric and what the query set can detect). Pure."""

from __future__ import annotations

PRIMARY = "nDCG"  # the primary metric's default measure key; --primary and primary= change it
PRIMARY_HELP = ("the metric the headline is about, e.g. nDCG or nDCG@10 (K from --k); "
                "default nDCG")

# {candidate} {verb} {baseline} on {metric}...
BETTER = "{candidate} beats {baseline} on {metric} by {difference}"
WORSE = "{candidate} is worse than {baseline} on {metric} by {difference}"
NO_DIFFERENCE = ("{candidate} does not differ significantly from {baseline} on {metric}: "
                 "{difference}")
UNCHANGED = "{candidate} scores as {baseline} does on {metric}: no query changed"
EVIDENCE = "({method}), {better} better, {worse} worse, p {p} after {correction}; {power}"
METHOD = "paired bootstrap, {level}"
