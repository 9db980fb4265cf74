"""What these figures cannot say, whatever the conventions."""

from __future__ import annotations

# --------------------------------------------------------------------------- honest limits

LIMITS = (
    "Every figure trusts the relevance labels. An incomplete judged pool undercounts recall "
    "and can misplace IDCG; labels written by a model judge carry that judge's error rate into "
    "the score.",
    "A figure is tied to its K, its label set, its query set and the day it was run. "
    "Re-scoring one frozen query set later is how retrieval drift is read; a single run cannot "
    "show drift.",
    "Under the default denominator recall never falls as K grows while precision tends to, so "
    "a gain quoted without its K is not evidence. Compare runs only on the same queries at the "
    "same K.",
    "The averages weigh every query equally: a suite dominated by queries with a single "
    "relevant id reads differently from one with many relevant ids per query.",
    "Intervals widen fast below a few dozen queries; nine queries certify very little, which "
    "is why every mean is shown with its band.",
    "A multi-hop or agentic retriever has no single top K: score the union of what it pulled "
    "and say so.",
    "These are ranked-list figures of the retrieval step only: they say nothing about the "
    "answer a model writes from the window.",
)

# --------------------------------------------------------------------------- bounds

# The most runs a file of saved figures (--per-query-out) may name: every page lays out each
# run (a file of 10,000 one-line runs held the dashboard past 90 s); refused beyond, saying so.
MAX_SAVED_RUNS = 100

# The longest comment GitHub takes on a pull request or an issue (its API refuses a body of
# more characters): `compare --format markdown` cuts its comment to fit, counting what it left
COMMENT_LIMIT = 65_536
