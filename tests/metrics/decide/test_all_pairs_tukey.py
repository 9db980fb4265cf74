"""all_pairs(test="tukey"): every pair of an evaluation's runs by the randomized Tukey HSD of
each metric, against tukey_hsd on the per-query table read from the evaluation; the letters,
the rows, the minimum effect's decisions; the ANOVA tables and the topic-set sizes."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from metrics import evaluate, load_sample
from metrics.decide.leaderboard import all_pairs, anova_tables, compact_letters
from metrics.decide.power import topic_set_sizes
from metrics.stats.anova import two_way_anova
from metrics.stats.equivalence import tost
from metrics.stats.topic_set_size import topic_set_size
from metrics.stats.tukey import tukey_hsd
from tests.metrics.builders import make_qrels, make_run
from tests.metrics.decide.test_leaderboard import collection, ladder

PERMUTATIONS = 800


@pytest.fixture(scope="module")
def five_runs():
    """Three random runs, and two that put the relevant ids first (one reversed on half the
    queries): some pairs differ, some do not."""
    judgments, runs = collection(8, n_queries=40, n_runs=3)
    oracle = {q: sorted((d for d, g in docs.items() if g > 0), key=lambda d: -docs[d])
              for q, docs in judgments.items()}
    half = {q: ids if int(q[1:]) % 2 else [*ids[::-1], "zz"] for q, ids in oracle.items()}
    runs += [make_run(half, name="half"), make_run(oracle, name="oracle")]
    return evaluate(make_qrels(judgments), runs, 5)


def _table(evaluation, key: str) -> np.ndarray:
    """The per-query figures (scored queries, runs), read run by run."""
    return np.column_stack([evaluation.per_query_scores(name)[key]
                            for name in evaluation.run_names])


def test_the_tukey_reading_is_tukey_hsd_on_each_metric_s_table(five_runs):
    pairs = all_pairs(five_runs, ["nDCG", "RR"], test="tukey", n_permutations=PERMUTATIONS,
                      rng=4)
    assert pairs.test == "tukey" and pairs.comparisons == ()
    assert pairs.n_comparisons == 2 * 10
    for key, label in (("nDCG", "nDCG@5"), ("RR", "MRR@5")):
        alone = tukey_hsd(_table(five_runs, key), n_permutations=PERMUTATIONS, rng=4)
        assert pairs.tukey[label] == alone
        assert np.array_equal(pairs.p_adjusted[label], alone.p_randomized)
        assert np.array_equal(pairs.differences[label], alone.differences)
        assert pairs.letters(label) == compact_letters(
            pairs.runs, alone.means, alone.p_randomized < 0.05)
    assert "randomized Tukey HSD over the 10 pairs" in pairs.sentence()
    out = pairs.as_dict()
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    assert out["test"] == "tukey" and out["correction"] is None
    assert set(out["metrics"]["nDCG@5"]) == {"means", "difference", "p", "p_adjusted",
                                             "letters", "p_classic", "effect_size", "anova"}


def test_runs_better_on_every_query_are_told_apart_by_the_hsd():
    """RR 1, 1/3 and 0 on every query: the permuted ranges grow as the square root of the
    queries and the gaps as their number, so 100 queries tell every pair apart (20 do not
    tell 'late' from 'none': a permuted range reaches their gap of 1/3 often)."""
    pairs = all_pairs(ladder(100), ["RR"], test="tukey", n_permutations=PERMUTATIONS)
    assert pairs.letters("RR") == {"perfect": "a", "late": "b", "none": "c"}
    rows = pairs.pair_rows()
    assert [(r["baseline"], r["candidate"]) for r in rows] == list(
        combinations(pairs.runs, 2))
    for row in rows:
        assert row["significant"] and row["p_classic"] < 0.05
        assert row["decision"] in ("better", "worse")
        assert (row["decision"] == "better") == (row["difference"] > 0)


def test_the_minimum_effect_changes_the_decisions_not_the_figures(five_runs):
    plain = all_pairs(five_runs, ["nDCG"], test="tukey", n_permutations=PERMUTATIONS)
    big = all_pairs(five_runs, ["nDCG"], test="tukey", n_permutations=PERMUTATIONS,
                    min_effect=0.9)
    assert np.array_equal(plain.p_adjusted["nDCG@5"], big.p_adjusted["nDCG@5"])
    assert plain.letters("nDCG") == big.letters("nDCG")
    table = _table(five_runs, "nDCG")
    for row in big.pair_rows():
        i, j = big.runs.index(row["baseline"]), big.runs.index(row["candidate"])
        assert row["p_equivalence"] == pytest.approx(
            tost(table[:, j] - table[:, i], margin=0.9).p, rel=1e-9, abs=1e-15)
        if row["significant"]:  # every difference here is below 0.9
            assert row["decision"] == "below_min_effect"
    assert any(row["significant"] for row in big.pair_rows())
    # the paired reading carries the same equivalence p
    paired = all_pairs(five_runs, ["nDCG"], n_permutations=PERMUTATIONS, min_effect=0.9)
    assert np.allclose(paired.equivalence["nDCG@5"], big.equivalence["nDCG@5"], rtol=1e-12)
    assert all(t.p_equivalence is not None for c in paired.comparisons for t in c.tests)


def test_alpha_can_change_but_the_tukey_p_needs_no_correction(five_runs):
    pairs = all_pairs(five_runs, ["nDCG"], test="tukey", n_permutations=PERMUTATIONS)
    looser = pairs.adjusted("bh", alpha=0.2)
    assert looser.alpha == 0.2 and np.array_equal(looser.p_adjusted["nDCG@5"],
                                                  pairs.p_adjusted["nDCG@5"])
    with pytest.raises(ValueError, match="test"):
        all_pairs(five_runs, ["nDCG"], test="scheffe")


def test_the_anova_tables_and_topic_set_sizes_read_every_run(five_runs):
    tables = anova_tables(five_runs, ["nDCG", "AP"])
    assert list(tables) == [five_runs.label("nDCG"), five_runs.label("AP")]
    assert tables["nDCG@5"] == two_way_anova(_table(five_runs, "nDCG"))
    sizes = topic_set_sizes(five_runs, ["nDCG"], min_difference=0.05, ci_width=0.1)
    assert sizes["nDCG@5"] == topic_set_size(tables["nDCG@5"].residual_variance, 0.05, runs=5,
                                             ci_width=0.1)
    with pytest.raises(ValueError, match="two runs"):
        anova_tables(load_sample(5).select(["bm25"]))
