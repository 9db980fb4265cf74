"""Seeded random walks over the dashboard (tests/dashboard/walking.py): what users do, in
sequences, with every invariant checked after every step. The default run walks 80 steps
(the sample, and a collection with texts and a judge's labels, humans labelling every query
or a sample of them); the thorough run walks 3,300 more, those seeds longer and others."""

from __future__ import annotations

import pytest

from tests.dashboard.walk_collection import write_collection
from tests.dashboard.walking import walk
from tests.marks import THOROUGH

# (seed, steps, data): data None is the bundled sample; "all" and "sample" a collection whose
# human labels cover every query or half of them, beside a judge's labels on every query
DEFAULT = [(1, 30, None), (11, 25, "all"), (12, 25, "sample")]  # ~0.4 s a step
MORE = [(1, 80, None), (2, 80, None), (11, 70, "all"), (12, 70, "sample")] + [
    (seed, 250, (None, "all", "sample")[seed % 3]) for seed in range(100, 112)]


def _walk(seed: int, steps: int, data: str | None, tmp_path) -> None:
    collection = None if data is None else write_collection(
        tmp_path / "collection", seed=seed, human_everywhere=data == "all")
    walker = walk(seed, steps, collection)
    assert len(walker.trail) >= steps


@pytest.mark.parametrize(("seed", "steps", "data"), DEFAULT)
def test_a_random_walk_keeps_every_invariant(seed, steps, data, tmp_path):
    _walk(seed, steps, data, tmp_path)


@THOROUGH
@pytest.mark.parametrize(("seed", "steps", "data"), MORE)
def test_longer_random_walks_keep_every_invariant(seed, steps, data, tmp_path):
    _walk(seed, steps, data, tmp_path)
