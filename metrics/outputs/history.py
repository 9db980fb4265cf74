"""A history's trend written out: the text `history show` prints, its JSON document and its CSV
rows (one a point, with the change from the run's previous point beside it)."""

from __future__ import annotations

import csv
import io
from typing import Any

from metrics.snapshot.history import Change, Point, Trend
from metrics.vocabulary import format as fmt
from metrics.vocabulary.format import terminal
from metrics.vocabulary.history import NO_COMMIT, PAIRED

__all__ = ["CSV_COLUMNS", "trend_csv", "trend_document", "trend_rows", "trend_text"]

CSV_COLUMNS = ("entry", "time", "commit", "label", "run", "metric", "figure", "mean", "low",
               "high", "interval", "change", "change_low", "change_high", "test", "p",
               "p_adjusted", "mark", "same_lists")


def _change(change: Change | None) -> dict[str, Any]:
    if change is None:
        return {"change": None, "change_low": None, "change_high": None, "test": None,
                "p": None, "p_adjusted": None, "mark": "", "same_lists": None}
    return {"change": change.difference, "change_low": change.low, "change_high": change.high,
            "test": change.test, "p": change.p, "p_adjusted": change.p_adjusted,
            "mark": change.mark, "same_lists": change.same_lists}


def trend_rows(trend: Trend) -> list[dict[str, Any]]:
    """One row a point (CSV_COLUMNS), by run, then metric, then time."""
    order = {p: i for i, p in enumerate(dict.fromkeys((p.run, p.metric) for p in trend.points))}
    points = sorted(trend.points, key=lambda p: order[(p.run, p.metric)])
    return [{"entry": p.entry, "time": p.time, "commit": p.commit, "label": p.label,
             "run": p.run, "metric": p.metric, "figure": p.label_at_k, "mean": p.mean,
             "low": p.low, "high": p.high, "interval": p.interval}
            | _change(trend.change_to(p)) for p in points]


def trend_document(trend: Trend) -> dict[str, Any]:
    """The JSON of `history show --format json`."""
    return {
        "store": trend.store,
        "k": trend.k,
        "scored_queries": trend.n_scored,
        "query_set": trend.query_set,
        "entries": [e.as_dict() | {"figures": status}
                    for e, status in zip(trend.entries, trend.verification, strict=True)],
        "points": trend_rows(trend),
        "correction": trend.correction,
        "alpha": trend.alpha,
        "n_changes": len(trend.changes),
        "method": trend.method,
    }


def trend_csv(trend: Trend) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in trend_rows(trend):
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return out.getvalue()


def _change_text(change: Change | None) -> str:
    if change is None:
        return ""
    mark = change.mark or "·"
    test = "paired" if change.test == PAIRED else "UNPAIRED (intervals only)"
    same = "; same ranked lists" if change.same_lists else ""
    return (f"{mark} {fmt.difference(change.difference, change.low, change.high)} "
            f"p {fmt.p_value(change.p)}, adjusted {fmt.p_value(change.p_adjusted)}, "
            f"{test}{same}")


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


def _verification(trend: Trend) -> str:
    """'4 verified', '3 verified, 1 unverified: written before figures fingerprints'."""
    counts: dict[str, int] = {}
    for status in trend.verification:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in counts.items())


def trend_text(trend: Trend) -> str:
    """Each run's figures over time, a block a (run, metric): the entry, its time, commit and
    label, the figure with its interval, and the change from the previous point with its mark
    (▲ / ▼ more than noise, · not), interval, p, adjusted p and the test."""
    entries = trend.entries
    scored = "?" if trend.n_scored is None else f"{trend.n_scored:,}"
    lines = [terminal(
        f"History of {trend.store}: {fmt.count(len(entries), 'entry', 'entries')} from "
        f"{entries[0].time} to {entries[-1].time}; K = {trend.k}, {scored} scored queries, "
        f"query set {trend.query_set.removeprefix('sha256:')[:12]}; figures "
        f"{_verification(trend)}."), ""]
    blocks: dict[tuple[str, str], list[Point]] = {}
    for point in trend.points:
        blocks.setdefault((point.run, point.metric), []).append(point)
    for (run, _), points in blocks.items():
        lines.append(terminal(f"{run} · {points[0].label_at_k}"))
        rows = [["entry", "time", "commit", "label", "figure", "change from the previous point"]]
        for p in points:
            rows.append([str(p.entry), p.time, (p.commit or NO_COMMIT)[:12],
                         terminal(fmt.shortened(p.label or "", 30)),
                         fmt.interval(p.mean, p.low, p.high), _change_text(trend.change_to(p))])
        lines += _table(rows)
        lines.append("")
    lines.append(trend.method)
    return "\n".join(lines) + "\n"
