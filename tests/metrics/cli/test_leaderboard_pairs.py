"""python -m metrics leaderboard and compare --all-pairs: the engine's figures, as JSON and
as tables."""

from __future__ import annotations

import json

from metrics import all_pairs, leaderboard, load_sample
from metrics.cli import main


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr()[0]


def test_the_leaderboard_json_is_the_engine_s(capsys):
    code, out = run(capsys, "leaderboard", "--metric", "nDCG@5", "--metric", "MRR",
                    "--format", "json")
    assert code == 0
    expected = leaderboard(load_sample(5), ["nDCG", "RR"]).as_dict()
    assert json.loads(out) == expected
    assert list(expected["metrics"]) == ["nDCG@5", "MRR@5"]
    assert set(expected["metrics"]["nDCG@5"][0]) == {"run", "mean", "rank", "rank_low",
                                                     "rank_high", "p_best"}


def test_the_leaderboard_table_names_its_interval_and_p_best(capsys):
    code, out = run(capsys, "leaderboard", "--metric", "nDCG@5")
    board = leaderboard(load_sample(5), ["nDCG"])
    best = board.metrics["nDCG@5"][0]
    assert code == 0 and "95% rank interval" in out and "P(best)" in out
    assert f"{best.run}  {best.mean:.3f}" in out and f"{best.p_best:.1%}" in out


def test_all_pairs_adds_every_pair_adjusted_as_one_family(capsys):
    code, out = run(capsys, "compare", "--all-pairs", "--metric", "nDCG@5", "--metric",
                    "MRR@5", "--permutations", "1000", "--format", "json")
    assert code == 0
    data = json.loads(out)
    pairs = all_pairs(load_sample(5), ["nDCG", "RR"], n_permutations=1000)
    assert [(r["baseline"], r["candidate"], r["metric"], r["p_adjusted"])
            for r in data["comparisons"]] == [
        (c.baseline, t.candidate, t.metric, t.p_adjusted)
        for c in pairs.comparisons for t in c.tests]
    assert data["n_comparisons"] == 6 == pairs.n_comparisons  # 3 pairs x 2 metrics
    assert data["all_pairs"]["metrics"]["nDCG@5"]["letters"] == pairs.letters("nDCG@5")
    code, out = run(capsys, "compare", "--all-pairs", "--permutations", "500")
    assert code == 0 and "Significance letters (best first)" in out


def test_all_pairs_refuses_a_snapshot_baseline(capsys, tmp_path):
    snapshot = tmp_path / "s.json"
    assert main(["snapshot", "--out", str(snapshot)]) == 0
    assert main(["compare", "--all-pairs", "--snapshot", str(snapshot)]) == 2
    assert "--all-pairs compares live runs" in capsys.readouterr()[1]
