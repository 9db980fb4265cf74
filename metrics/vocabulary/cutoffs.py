"""K, the cutoff every figure is read at, declared once: its defaults (on the bundled sample and
on the user's files), the ceilings (the engine's and the dashboard's), the sweep's ceiling, and
the one check of a K and of a sweep that the engine, the command line and the dashboard share.
"""

from __future__ import annotations

from metrics.vocabulary.numeric import is_number

SAMPLE_K = 5  # the bundled sample of seed 000 is read at K = 5
DEFAULT_K = 10  # on the user's files, in the command line and the dashboard
# the largest K any figure is read at: past every list a figure is closed form in K, so no
# array grows with K, but a K past every list and label says nothing more
MAX_K = 1_000_000
# the largest K the dashboard's K box takes: its sweep and heatmap draw every K up to it
DASHBOARD_MAX_K = 1_000
MAX_SWEEP = 10_000  # the most cutoffs one sweep covers

K_MEANING = ("Every figure is read in the top K ids of each list, so changing K changes every "
             "number shown. The K sweep shows all K at once.")


def is_cutoff(k: object, *, ceiling: int = MAX_K) -> bool:
    """Whether k is an integer (not a bool) from 1 to the ceiling."""
    return is_number(k, integer=True) and 1 <= k <= ceiling


def check_k(k: object, *, name: str = "k") -> int:
    """k as an int when it is a cutoff from 1 to MAX_K; ValueError naming it otherwise."""
    if not is_cutoff(k):
        raise ValueError(f"{name} must be an integer from 1 to {MAX_K:,} (MAX_K), got {k!r}")
    return int(k)


def check_sweep(lo: int, hi: int) -> tuple[int, int]:
    """A sweep FROM:TO: 1 <= FROM <= TO <= MAX_K, at most MAX_SWEEP cutoffs."""
    if not 1 <= lo <= hi <= MAX_K:
        raise ValueError(
            f"sweep must be FROM:TO with 1 <= FROM <= TO <= {MAX_K:,} (MAX_K), got {lo}:{hi}"
        )
    if hi - lo + 1 > MAX_SWEEP:
        raise ValueError(
            f"sweep {lo}:{hi} covers {hi - lo + 1:,} cutoffs; at most {MAX_SWEEP:,} (MAX_SWEEP)"
        )
    return int(lo), int(hi)
