"""The overlap and fuse commands (metrics/cli/combine.py)."""

from __future__ import annotations

import json

from metrics import load_sample, overlap
from metrics.cli import main
from metrics.vocabulary.gates import EXIT_OK, EXIT_USAGE


def test_overlap_json_is_the_engine_s(capsys):
    assert main(["overlap", "--format", "json", "--p", "0.8"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    expected = overlap(load_sample(5), p=0.8).as_dict()
    assert data == expected
    assert set(data["pairs"][0]) >= {"a", "b", "jaccard", "rbo", "unique_relevant_a",
                                     "unique_relevant_b", "hybrid_ceiling", "rbo_low",
                                     "hybrid_ceiling_high"}


def test_overlap_table_and_a_bad_persistence(capsys):
    assert main(["overlap"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "RBO@5" in out and "At p = 0.9 the first 5 ranks carry 67% of RBO's weight" in out
    assert main(["overlap", "--p", "1"]) == EXIT_USAGE
    assert "must lie strictly between 0 and 1" in capsys.readouterr().err
