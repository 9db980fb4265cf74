"""The headline: one sentence per candidate on the primary metric, from the comparison's own
test and the power of its differences."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics import compare, load_sample, power_table
from metrics.cli import main
from metrics.decide.headline import (
    headline,
    headline_comparison,
    headlines,
    short_headline,
    short_headlines,
)
from metrics.vocabulary.format import difference


def comparison(after: np.ndarray, before: np.ndarray):
    ids = [f"q{i}" for i in range(len(after))]
    return compare("base", {"base": {"nDCG@10": before}, "new": {"nDCG@10": after}}, ids,
                   n_permutations=2000, rng=7)


@pytest.fixture
def rng():
    return np.random.default_rng(3)


def test_a_significant_gain_says_who_wins_by_how_much_and_what_the_set_detects(rng):
    before = rng.uniform(0.2, 0.6, 80)
    result = comparison(before + rng.normal(0.08, 0.05, 80).clip(-0.2, 0.4), before)
    test = result.tests[0]
    said = headline(result, test)
    assert test.significant and said.startswith("new beats base on nDCG@10 by +0.0")
    assert f"{test.wins} queries better, {test.losses} worse" in said
    assert "p < 0.001;" in said and "(paired bootstrap, 95%)" in said  # one test: no family
    assert power_table(result)[0].sentence in said  # "this query set detects ..."
    assert said.endswith("with 80% power.")


def test_a_significant_loss_and_no_difference_are_said_as_such(rng):
    before = rng.uniform(0.2, 0.6, 80)
    worse = comparison(before - 0.1, before)
    assert headline(worse, worse.tests[0]).startswith("new is worse than base on nDCG@10 by")
    noise = comparison(before + rng.normal(0, 0.1, 80), before)
    said = headline(noise, noise.tests[0])
    assert not noise.tests[0].significant
    assert said.startswith("new does not differ significantly from base on nDCG@10: ")
    assert "may not show: this set can detect" in said
    same = comparison(before, before)
    assert headline(same, same.tests[0]) == ("new scores as base does on nDCG@10: no query "
                                             "changed.")


def test_the_short_headline_is_the_verdict_and_the_difference_of_the_long_one(rng):
    """The first screen's sentence: the long sentence's verdict and difference with its
    interval, the level named, and nothing of the method, the counts, p or the power."""
    before = rng.uniform(0.2, 0.6, 80)
    cases = [comparison(before + rng.normal(0.08, 0.05, 80).clip(-0.2, 0.4), before),
             comparison(before - 0.1, before), comparison(before + rng.normal(0, 0.1, 80), before)]
    for result in cases:
        test = result.tests[0]
        short, long = short_headline(result, test), headline(result, test)
        written = difference(test.difference, test.low, test.high)
        assert short == f"{long.split(' (paired bootstrap')[0]} (95% interval)."
        assert written in short and "p " not in short and "power" not in short
        assert len(short) < len(long) / 2
    assert short_headline(cases[0], cases[0].tests[0]).startswith("new beats base on nDCG@10 by")
    assert short_headlines(cases[1], "nDCG@10") == [short_headline(cases[1], cases[1].tests[0])]
    same = comparison(before, before)
    assert short_headline(same, same.tests[0]) == headline(same, same.tests[0])
    with pytest.raises(ValueError, match="'MRR@10' is not compared"):
        short_headlines(same, "MRR@10")


def test_headlines_name_an_uncompared_metric(rng):
    before = rng.uniform(0, 1, 10)
    with pytest.raises(ValueError, match="'MRR@10' is not compared"):
        headlines(comparison(before, before), "MRR@10")


def test_compare_json_carries_the_headline_on_the_primary_metric(capsys):
    assert main(["compare", "--primary", "MRR", "--metric", "nDCG@5", "--permutations", "500",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr()[0])
    assert data["primary"] == "MRR@5" and "MRR@5" in data["metrics"]
    evaluation = load_sample(5)
    alone = headline_comparison(evaluation, "MRR", n_permutations=500,
                                rng=evaluation.conventions.seed)
    assert alone.metrics == ("MRR@5",) and alone.n_comparisons == 2  # two candidates
    expected = headlines(alone, "MRR@5")
    assert data["headlines"] == expected and data["headline"] == " ".join(expected)
    assert "after Holm over 2 comparisons" in expected[0]
    assert main(["compare", "--primary", "BLEU"]) == 2
