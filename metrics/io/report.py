"""The load report: what a load read, and what it did not use."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

DROPPED_SHOWN = 5  # dropped lines quoted on standard error, a file; the rest are counted


@dataclass(frozen=True)
class ReportLine:
    line: int
    reason: str


@dataclass(frozen=True)
class LoadReport:
    """What a load read and what it did not use.

    `lines_read` counts non-blank data lines: a header line is not counted, nor a comment
    line, and a JSONL record is one line. Invariant: lines_read == lines_used + len(dropped);
    a repeat is used, since it keeps its rank slot.
    """

    source: str
    kind: str  # "qrels" or "run"
    format: str
    lines_read: int
    lines_used: int
    dropped: tuple[ReportLine, ...]
    repeats: tuple[ReportLine, ...]
    notes: tuple[str, ...] = ()
    comments: int = 0  # TREC lines whose first non-blank character is '#', skipped
    wide_lines: int = 0  # TREC run lines of more than six fields: the rest are ignored
    unit: str = "line"  # what `line` counts: "row" for a Parquet file or a table

    def with_dropped(self, extra: Iterable[ReportLine]) -> LoadReport:
        """A new report in which each of `extra` is one more used line now dropped."""
        extra = tuple(extra)
        if len(extra) > self.lines_used:
            raise ValueError(
                f"cannot drop {len(extra)} lines from {self.source}: only {self.lines_used} used"
            )
        dropped = tuple(sorted(self.dropped + extra, key=lambda r: r.line))
        return replace(self, dropped=dropped, lines_used=self.lines_used - len(extra))

    def summary(self) -> str:
        parts = [
            _count(self.lines_read, self.unit) + " read",
            f"{self.lines_used:,} used",
            f"{len(self.dropped):,} dropped",
        ]
        if self.kind == "run":
            parts.append(_count(len(self.repeats), "repeat"))
        if self.comments:
            parts.append(_count(self.comments, "comment line") + " skipped")
        if self.wide_lines:
            parts.append(f"fields after the sixth ignored on {_count(self.wide_lines, 'line')}")
        return f"{self.source}: " + ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n:,} {noun}s"
