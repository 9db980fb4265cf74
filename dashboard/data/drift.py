"""Drift through the engine: which loaded snapshots can be set beside the live figures (same
query set, labels, K and conventions), and each metric over them, oldest first, then live."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

import metrics
from dashboard.data.cache import Snapshot, View, derived, live_snapshot
from dashboard.views import frames

LIVE = "live (now)"  # the live figures' point on the drift chart


@dataclass(frozen=True, eq=False)
class Drift:
    live: metrics.Snapshot  # the live evaluation, frozen as the snapshots are
    comparable: tuple[Snapshot, ...]  # oldest first
    refused: tuple[tuple[Snapshot, str], ...]  # each with the engine's reason
    frame: pd.DataFrame | None = None  # every figure at every point (None: none comparable)
    points: tuple[str, ...] = ()  # the chart's points: each snapshot's title, then LIVE
    error: str | None = None  # the engine's refusal, should two snapshots disagree


def drift(view: View, loaded: Sequence[Snapshot]) -> Drift:
    """The loaded snapshots beside the view's live figures (every query: a snapshot freezes
    the whole query set, whatever the filter)."""
    def build() -> Drift:
        live = live_snapshot(view)
        comparable, refused = [], []
        for snapshot in sorted(loaded, key=lambda s: s.data.header.created):
            try:
                snapshot.data.check_comparable(view.unfiltered, flags=False)
                comparable.append(snapshot)
            except ValueError as exc:
                refused.append((snapshot, str(exc)))
        if not comparable:
            return Drift(live, (), tuple(refused))
        try:
            rows = metrics.drift_rows([s.data for s in comparable] + [live])
        except ValueError as exc:
            return Drift(live, tuple(comparable), tuple(refused), error=str(exc))
        points = metrics.distinct_names([s.title for s in comparable] + [LIVE])
        return Drift(live, tuple(comparable), tuple(refused), frames.drift_frame(rows, points),
                     tuple(points))
    return derived(view, "drift", tuple(s.key for s in loaded), build)
