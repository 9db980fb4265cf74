"""A history of evaluations (``retrieval-compare history``): the store's names and limits, and
the words its trend is read with. The store and the trend are ``metrics.snapshot.history``."""

from __future__ import annotations

from typing import Final

FORMAT: Final = "retrieval-compare history"  # the index's first line names it
VERSION: Final = 1
INDEX: Final = "index.jsonl"  # in the store's directory: one line a header, then one an entry
SNAPSHOTS: Final = "snapshots"  # the folder of the entries' snapshot files
# an entry's file: snapshots/000001.json, numbered in the order appended
FILE_PATTERN: Final = r"snapshots/[0-9]{6,9}\.json"
MAX_ENTRIES: Final = 100_000  # an index of more is refused: a history is not a log
MAX_LINE_BYTES: Final = 16_384  # an index line of more is refused, read no further
MAX_COMMIT: Final = 200  # characters of a commit (a hash, a tag, a ref)
MAX_LABEL: Final = 500  # characters of a label
NO_COMMIT: Final = "no commit"  # an entry appended outside a git repository without --commit

# how the change between two consecutive points was tested
PAIRED: Final = "paired"
UNPAIRED: Final = "unpaired"
TEST_WORDS: Final = {
    PAIRED: "paired randomization (sign-flip) test on the per-query figures",
    UNPAIRED: "unpaired: a normal approximation of the difference of the two means from "
    "their intervals (the per-query figures of one point are not stored)",
}
UP, DOWN = "▲", "▼"  # a change more than noise (adjusted p below alpha), up or down


def method_sentence(correction_name: str, n_tests: int, alpha: float, n_permutations: int
                    ) -> str:
    """How the marks were decided, for the foot of `history show` and the Drift page."""
    corrected = (f"{correction_name} correction over the {n_tests:,} changes shown (every "
                 "run, metric and consecutive pair)" if correction_name != "none"
                 else f"not corrected over the {n_tests:,} changes shown")
    return (f"Each change is tested between consecutive points of a run: a {TEST_WORDS[PAIRED]} "
            f"({n_permutations:,} sign flips, fixed seed) where both points store them, else "
            f"{TEST_WORDS[UNPAIRED]}, said beside the mark; {corrected}; {UP} / {DOWN}: "
            f"adjusted p below {alpha:g}, more than noise.")


# how the trend chart writes an entry's time (Vega's time formats, UTC): the axis by day, or
# by the minute when two entries share a day; the tooltip in full
TIME_AXIS_DAYS = "%b %d"
TIME_AXIS_MINUTES = "%b %d %H:%M"
TIME_TOOLTIP = "%Y-%m-%d %H:%M"
