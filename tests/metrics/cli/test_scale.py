"""Memory that does not grow with the queries past what they hold: the command line scores
a million queries within a cap the bootstrap's dense table alone would pass (8 GB)."""

from __future__ import annotations

import pytest

from tests.marks import THOROUGH
from tests.metrics.capped import one_id_collection, run_capped

pytestmark = THOROUGH


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    return one_id_collection(tmp_path_factory.mktemp("million"), 1_000_000)


def test_a_million_queries_score_within_a_4_gb_address_space(million):
    qrels, first, second = million
    done = run_capped(["--qrels", str(qrels), "--run", str(first), "--run", str(second),
                       "--k", "10"], cap_mb=4096)
    assert done.returncode == 0, done.stderr.decode()[-500:]
    table = done.stdout.decode()
    assert "over 1,000,000 scored queries" in table
    assert "0.500 [0.499, 0.501]" in table and "0.800 [0.799, 0.801]" in table

