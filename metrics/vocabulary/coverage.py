"""What the coverage benchmark (benchmarks/coverage.py) found, in the words a page prints: the
query-set size below which the bootstrap intervals cover less than they claim."""

from __future__ import annotations

# The smallest query-set size measured at which every bootstrap interval (percentile and BCa,
# of a mean and of a paired difference) covered at least COVERAGE_FLOOR of 2,000 draws on
# every population shaped like real per-query figures; at 30 queries the percentile interval
# covered 0.907 on a mostly-zero nDCG-like population, BCa 0.926.
FEW_QUERIES = 100
COVERAGE_FLOOR = 0.93
FEW_QUERIES_NOTE = (
    "Few queries ({n:,} scored, under {few}): intervals are optimistic. On query sets this "
    "small the nominal 95% bootstrap intervals covered as little as {worst} of the time on "
    "skewed per-query figures (benchmarks/coverage.py); {advice}"
)
ADVICE = {
    "percentile": "BCa (--interval bca, the sidebar's Bootstrap interval) covered closer to "
    "the nominal level; more queries help most.",
    "bca": "BCa is in force, the better of the two here; more queries help most.",
}
WORST = {"percentile": "91%", "bca": "92%"}  # the worst cell at 30 queries, per method


def few_queries_note(n: int, interval_method: str) -> str | None:
    """The warning a page prints under FEW_QUERIES scored queries, else None."""
    if n >= FEW_QUERIES:
        return None
    return FEW_QUERIES_NOTE.format(n=n, few=FEW_QUERIES, worst=WORST[interval_method],
                                   advice=ADVICE[interval_method])
