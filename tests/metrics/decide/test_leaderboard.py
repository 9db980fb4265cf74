"""metrics.leaderboard: rank intervals and P(best) against a plain loop over the same
resamples; every pair against the pairwise comparison and statsmodels; the letters against a
brute-force enumeration of the maximal groups."""

from __future__ import annotations

import json
import math
from itertools import combinations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from metrics import Conventions, compare_evaluation, evaluate, label_of, load_sample
from metrics.decide.leaderboard import (
    all_pairs,
    compact_letters,
    leaderboard,
    rank_bounds,
    significance_groups,
)
from metrics.stats.bootstrap import resample_counts
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.leaderboard import (
    TIE_TOLERANCE,
    letters_sentence,
    share,
    standing_sentence,
)
from tests.metrics.builders import make_qrels, make_run

PERMUTATIONS = 500
KEYS = ("P", "Hit", "RR", "nDCG")


def collection(seed: int, n_queries: int = 25, n_runs: int = 4, copy: bool = False):
    """Graded judgments (some queries without a relevant id) and n_runs runs of 0-8 ids over
    a small pool, so resamples tie often; `copy` adds a run identical to the first."""
    rng = np.random.default_rng(seed)
    judgments = {
        f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(12, 4, replace=False)}
        for i in range(n_queries)
    }
    lists = [{q: [f"d{j}" for j in rng.choice(12, rng.integers(0, 8), replace=False)]
              for q in judgments if rng.random() > 0.1} for _ in range(n_runs)]
    runs = [make_run(ids, name=f"run{r}") for r, ids in enumerate(lists)]
    if copy:
        runs.append(make_run(lists[0], name="copy"))
    return judgments, runs


def ladder(n_queries: int = 12):
    """'perfect' puts the one relevant id first on every query, 'late' third, 'none' never:
    each run beats the next on every query for RR and nDCG."""
    judgments = {f"q{i}": {f"r{i}": 2, f"n{i}a": 0, f"n{i}b": 0} for i in range(n_queries)}
    perfect = {q: [f"r{q[1:]}", f"n{q[1:]}a"] for q in judgments}
    late = {q: [f"n{q[1:]}a", f"n{q[1:]}b", f"r{q[1:]}"] for q in judgments}
    none = {q: [f"n{q[1:]}a"] for q in judgments}
    runs = [make_run(late, name="late"), make_run(none, name="none"),
            make_run(perfect, name="perfect")]
    return evaluate(make_qrels(judgments), runs, 5)


# --------------------------------------------------------------------------- the loop


def looped(evaluation, key):
    """Standings of one measure by a plain loop over the same resamples, one at a time:
    {run: (mean, rank, rank_low, rank_high, p_best)}."""
    c = evaluation.conventions
    names = evaluation.run_names
    values = {name: [float(x) for x in evaluation.per_query_scores(name)[key]] for name in names}
    n = len(evaluation.scored_ids)
    counts = resample_counts(n, n_resamples=c.n_resamples, rng=np.random.default_rng(c.seed))

    def ranks_of(means):
        return {a: 1 + sum(1 for b in names if means[b] - means[a] > TIE_TOLERANCE)
                for a in names}

    ranks = {name: [] for name in names}
    credit = dict.fromkeys(names, 0.0)
    for row in counts:
        means = {name: sum(w * x for w, x in zip(row, values[name], strict=True)) / n
                 for name in names}
        resample = ranks_of(means)
        first = [name for name in names if resample[name] == 1]
        for name in names:
            ranks[name].append(resample[name])
        for name in first:
            credit[name] += 1 / len(first)
    tail = (1 - c.confidence_level) / 2
    b = c.n_resamples
    observed = ranks_of({name: sum(values[name]) / n for name in names})
    out = {}
    for name in names:
        ordered = sorted(ranks[name])
        low = ordered[math.ceil(round(tail * b, 9)) - 1]
        high = ordered[math.ceil(round((1 - tail) * b, 9)) - 1]
        out[name] = (sum(values[name]) / n, observed[name], low, high, credit[name] / b)
    return out


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("conventions", [
    Conventions(),
    Conventions(confidence_level=0.8, n_resamples=300, seed=7, gain="exponential"),
])
def test_standings_equal_a_plain_loop_over_the_same_resamples(seed, conventions):
    judgments, runs = collection(seed, n_queries=10, copy=True)
    evaluation = evaluate(make_qrels(judgments), runs, 5, conventions)
    board = leaderboard(evaluation, KEYS)
    for key in KEYS:
        expected = looped(evaluation, key)
        standings = board.standings(key)
        assert sorted(s.run for s in standings) == sorted(evaluation.run_names)
        for s in standings:
            mean, rank, low, high, p_best = expected[s.run]
            assert s.mean == pytest.approx(mean, abs=1e-12)
            assert (s.rank, s.rank_low, s.rank_high) == (rank, low, high), (key, s.run)
            assert s.p_best == pytest.approx(p_best, abs=1e-12), (key, s.run)
        # the run and its copy tie in every resample: the same standing
        by_run = {s.run: s for s in standings}
        assert by_run["copy"].p_best == by_run["run0"].p_best
        assert by_run["copy"].rank == by_run["run0"].rank


def test_means_are_the_summary_means():
    evaluation = load_sample(5)
    board = leaderboard(evaluation)
    for label, standings in board.metrics.items():
        key = next(m.key for m in SUMMARY_MEASURES if label_of(m, 5, Conventions()) == label)
        for s in standings:
            assert s.mean == pytest.approx(evaluation.run(s.run).summary[key].mean, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_p_best_sums_to_one_and_ranks_lie_in_their_intervals(seed):
    judgments, runs = collection(seed, n_queries=8, copy=True)
    board = leaderboard(evaluate(make_qrels(judgments), runs, 3),
                        [m.key for m in SUMMARY_MEASURES])
    for standings in board.metrics.values():
        assert sum(s.p_best for s in standings) == pytest.approx(1.0, abs=1e-12)
        for s in standings:
            assert 1 <= s.rank_low <= s.rank_high <= len(standings)
            assert 0 <= s.p_best <= 1
        # best mean first, ranks never fall as the means do
        assert [s.rank for s in standings] == sorted(s.rank for s in standings)
        assert all(a.mean >= b.mean - TIE_TOLERANCE
                   for a, b in zip(standings, standings[1:], strict=False))


def test_runs_that_tie_share_the_rank_and_split_the_credit():
    judgments = {f"q{i}": {f"r{i}": 1} for i in range(6)}
    top = {q: [f"r{q[1:]}"] for q in judgments}
    runs = [make_run({}, name="empty"), make_run(top, name="a"), make_run(top, name="b")]
    board = leaderboard(evaluate(make_qrels(judgments), runs, 5), ["RR"])
    standings = board.standings("MRR@5")
    assert [(s.run, s.rank, s.rank_low, s.rank_high, s.p_best) for s in standings] == [
        ("a", 1, 1, 1, 0.5), ("b", 1, 1, 1, 0.5), ("empty", 3, 3, 3, 0.0)]
    assert board.sentences("RR")[0] == "a ranks 1, tied (95% interval 1–1), first in 50% of " \
        "resamples"


def test_ties_at_the_top_of_some_resamples_split_that_resample_only():
    # x scores 1 on q0 only, y on q1 only: resamples drawing both equally often tie
    judgments = {"q0": {"d0": 1}, "q1": {"d1": 1}}
    runs = [make_run({"q0": ["d0"]}, name="x"), make_run({"q1": ["d1"]}, name="y")]
    evaluation = evaluate(make_qrels(judgments), runs, 5, Conventions(n_resamples=400))
    seed = evaluation.conventions.seed
    counts = resample_counts(2, n_resamples=400, rng=np.random.default_rng(seed))
    tied = (counts[:, 0] == counts[:, 1]).mean()
    x_wins = (counts[:, 0] > counts[:, 1]).mean()
    standings = {s.run: s for s in leaderboard(evaluation, ["Hit"]).standings("Hit")}
    assert 0 < tied < 1
    assert standings["x"].p_best == pytest.approx(x_wins + tied / 2, abs=1e-12)
    assert standings["x"].p_best + standings["y"].p_best == pytest.approx(1.0, abs=1e-12)


def test_a_run_better_on_every_query_is_first_in_every_resample():
    board = leaderboard(ladder(), ["RR", "nDCG@5"])
    for label in ("MRR@5", "nDCG@5"):
        standings = board.standings(label)
        assert [(s.run, s.rank, s.rank_low, s.rank_high, s.p_best) for s in standings] == [
            ("perfect", 1, 1, 1, 1.0), ("late", 2, 2, 2, 0.0), ("none", 3, 3, 3, 0.0)]


def test_the_same_seed_gives_the_same_board_and_another_seed_another():
    judgments, runs = collection(4, n_queries=12)
    qrels = make_qrels(judgments)
    first = leaderboard(evaluate(qrels, runs, 5)).as_dict()
    assert leaderboard(evaluate(qrels, runs, 5)).as_dict() == first
    other = leaderboard(evaluate(qrels, runs, 5, Conventions(seed=99))).as_dict()
    assert other != first
    assert [[s["mean"] for s in v] for v in other["metrics"].values()] == \
        [[s["mean"] for s in v] for v in first["metrics"].values()]


def test_as_dict_has_the_printed_shape():
    evaluation = load_sample(5)
    board = leaderboard(evaluation, ["nDCG", "MRR@5"])
    out = board.as_dict()
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    assert list(out) == ["k", "metrics"] and out["k"] == 5
    assert list(out["metrics"]) == ["nDCG@5", "MRR@5"]
    for rows in out["metrics"].values():
        assert [set(row) for row in rows] == [
            {"run", "mean", "rank", "rank_low", "rank_high", "p_best"}] * 3
        assert sorted(row["run"] for row in rows) == sorted(evaluation.run_names)
        assert [row["mean"] for row in rows] == sorted((row["mean"] for row in rows),
                                                      reverse=True)
        for row in rows:
            assert isinstance(row["run"], str) and isinstance(row["mean"], float)
            assert all(type(row[f]) is int for f in ("rank", "rank_low", "rank_high"))
            assert isinstance(row["p_best"], float)


def test_metrics_default_to_the_compared_family_and_unknown_ones_are_refused():
    evaluation = load_sample(5)
    assert list(leaderboard(evaluation).metrics) == [
        label_of(m, 5, Conventions()) for m in SUMMARY_MEASURES if m.compared]
    for bad in ("DCG", "nDCG@7", "nope"):
        with pytest.raises(ValueError):
            leaderboard(evaluation, [bad])


def test_rank_bounds_count_shares_without_float_noise():
    # 25 of 1,000 resamples at rank 1 reach 2.5% exactly: the lower bound is 1 (np.quantile's
    # inverted_cdf at 1 - 0.95 would read the 26th and say 2)
    ranks = np.array([1] * 25 + [2] * 950 + [3] * 25)[:, None].repeat(3, axis=1)
    low, high = rank_bounds(ranks, confidence_level=0.95)
    assert low.tolist() == [1, 1, 1] and high.tolist() == [2, 2, 2]
    low, high = rank_bounds(np.array([[3, 1, 1]]), confidence_level=0.95)
    assert low.tolist() == [3, 1, 1] and high.tolist() == [3, 1, 1]


# --------------------------------------------------------------------------- all pairs


@pytest.fixture(scope="module")
def four_runs():
    """Two random runs, and two that put the relevant ids first (one reversed on half the
    queries): the random pair and the good pair differ, within each pair they do not."""
    judgments, runs = collection(5, n_queries=20, n_runs=2)
    oracle = {q: sorted((d for d, g in docs.items() if g > 0), key=lambda d: -docs[d])
              for q, docs in judgments.items()}
    half = {q: ids if int(q[1:]) % 2 else [*ids[::-1], "zz"] for q, ids in oracle.items()}
    runs += [make_run(half, name="half"), make_run(oracle, name="oracle")]
    return evaluate(make_qrels(judgments), runs, 5)


@pytest.mark.parametrize("which", ["sample", "four"])
def test_all_pairs_p_values_are_those_of_each_pairwise_comparison(which, four_runs):
    evaluation = load_sample(5) if which == "sample" else four_runs
    pairs = all_pairs(evaluation, ["nDCG", "RR"], n_permutations=PERMUTATIONS, rng=3)
    names = evaluation.run_names
    assert pairs.runs == tuple(names) and pairs.metrics == ("nDCG@5", "MRR@5")
    for (i, a), (j, b) in combinations(enumerate(names), 2):
        alone = compare_evaluation(
            evaluation, baseline=a, candidates=[b], metrics=["nDCG", "RR"], correction="none",
            n_permutations=PERMUTATIONS, rng=3,
            confidence_level=evaluation.conventions.confidence_level,
            n_resamples=evaluation.conventions.n_resamples)
        for test in alone.tests:
            assert pairs.p_values[test.metric][i, j] == test.p_randomization
            assert pairs.p_values[test.metric][j, i] == test.p_randomization
            assert pairs.differences[test.metric][j, i] == test.difference
            assert pairs.differences[test.metric][i, j] == -test.difference
    for label in pairs.metrics:
        assert np.diag(pairs.p_adjusted[label]).tolist() == [1.0] * len(names)
        assert np.diag(pairs.differences[label]).tolist() == [0.0] * len(names)


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_one_correction_covers_every_pair_and_metric(four_runs, correction, method):
    pairs = all_pairs(four_runs, ["P", "nDCG", "AP"], correction=correction,
                      n_permutations=PERMUTATIONS)
    upper = np.triu_indices(4, 1)
    raw = np.concatenate([pairs.p_values[label][upper] for label in pairs.metrics])
    adjusted = np.concatenate([pairs.p_adjusted[label][upper] for label in pairs.metrics])
    assert pairs.n_comparisons == raw.size == 6 * 3
    np.testing.assert_allclose(adjusted, multipletests(raw, method=method)[1], rtol=0,
                               atol=1e-12)
    for label in pairs.metrics:
        np.testing.assert_array_equal(pairs.p_adjusted[label], pairs.p_adjusted[label].T)
    # switching the correction redoes only the adjustment
    other = pairs.adjusted("none")
    for label in pairs.metrics:
        np.testing.assert_array_equal(other.p_adjusted[label], pairs.p_values[label])
    assert other.adjusted(correction) == pairs
    assert all(c.n_comparisons == 18 for c in pairs.comparisons)


def test_all_pairs_default_to_the_conventions_seed_and_refuse_a_generator(four_runs):
    default = all_pairs(four_runs, ["nDCG"], n_permutations=PERMUTATIONS)
    seeded = all_pairs(four_runs, ["nDCG"], n_permutations=PERMUTATIONS,
                       rng=four_runs.conventions.seed)
    assert default == seeded and default.seed == four_runs.conventions.seed
    with pytest.raises(ValueError, match="Generator"):
        all_pairs(four_runs, n_permutations=PERMUTATIONS, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="two runs"):
        all_pairs(four_runs.select(["run0"]), n_permutations=PERMUTATIONS)
    with pytest.raises(ValueError):
        all_pairs(four_runs, ["nDCG"], correction="bonferroni", n_permutations=PERMUTATIONS)


def test_runs_better_on_every_query_get_letters_of_their_own():
    pairs = all_pairs(ladder(20), ["RR"], n_permutations=PERMUTATIONS)
    assert pairs.significant("RR")[np.triu_indices(3, 1)].all()
    assert pairs.letters("MRR@5") == {"perfect": "a", "late": "b", "none": "c"}
    assert pairs.groups("RR") == [("perfect",), ("late",), ("none",)]
    out = pairs.as_dict()
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    assert out["metrics"]["MRR@5"]["letters"] == {"perfect": "a", "late": "b", "none": "c"}
    assert set(out["metrics"]["MRR@5"]) == {"means", "difference", "p", "p_adjusted", "letters"}
    assert out["metrics"]["MRR@5"]["difference"]["perfect"]["none"] == 1.0
    assert pairs.sentence() == ("Runs that share a letter do not differ significantly at "
                                "alpha = 0.05 after the Holm correction over 3 comparisons.")


def test_letters_of_all_pairs_follow_its_significance(four_runs):
    pairs = all_pairs(four_runs, ["nDCG", "RR", "P"], n_permutations=PERMUTATIONS)
    for label in pairs.metrics:
        letters = pairs.letters(label)
        significant = pairs.significant(label)
        assert 0 < significant.sum() < significant.size - 4  # some pairs differ, some not
        assert {letters["run0"], letters["oracle"]} == {"a", "b"}
        for (i, a), (j, b) in combinations(enumerate(pairs.runs), 2):
            assert bool(set(letters[a]) & set(letters[b])) == (not significant[i, j])


# --------------------------------------------------------------------------- letters


def maximal_cliques(significant: np.ndarray) -> set[frozenset[int]]:
    """Brute force: every subset with no significant pair, kept when no larger one holds it."""
    runs = len(significant)
    cliques = [frozenset(s) for size in range(1, runs + 1) for s in combinations(range(runs), size)
               if not any(significant[i, j] for i, j in combinations(s, 2))]
    return {c for c in cliques if not any(c < other for other in cliques)}


def random_significance(rng, runs: int) -> np.ndarray:
    upper = np.triu(rng.random((runs, runs)) < rng.random(), 1)
    return upper | upper.T


@pytest.mark.parametrize("seed", range(4))
def test_groups_are_the_maximal_groups_of_a_brute_force_enumeration(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        runs = int(rng.integers(1, 8))
        significant = random_significance(rng, runs)
        groups = significance_groups(significant)
        assert {frozenset(g) for g in groups} == maximal_cliques(significant)
        assert len(set(groups)) == len(groups)


@pytest.mark.parametrize("seed", range(4))
def test_two_runs_share_a_letter_exactly_when_they_do_not_differ(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        runs = int(rng.integers(2, 9))
        significant = random_significance(rng, runs)
        names = [f"r{i}" for i in range(runs)]
        means = rng.integers(0, 4, runs) / 4  # ties among the means too
        letters = compact_letters(names, means, significant)
        assert list(letters) == [names[i] for i in np.lexsort((np.arange(runs), -means))]
        for i, j in combinations(range(runs), 2):
            assert bool(set(letters[names[i]]) & set(letters[names[j]])) == \
                (not significant[i, j])
        for value in letters.values():
            assert value and list(value) == sorted(value)


def test_letters_go_to_groups_in_the_order_of_their_best_run():
    names = ["w", "x", "y", "z"]  # means 0.6 < 0.7 < 0.8 < 0.9: z is the best
    means = [0.6, 0.7, 0.8, 0.9]
    significant = np.zeros((4, 4), dtype=bool)
    significant[0, 3] = significant[3, 0] = True  # only z and w differ
    assert compact_letters(names, means, significant) == {
        "z": "a", "y": "ab", "x": "ab", "w": "b"}
    everything = ~np.eye(4, dtype=bool)
    assert compact_letters(names, means, everything) == {"z": "a", "y": "b", "x": "c", "w": "d"}
    assert compact_letters(names, means, np.zeros((4, 4), dtype=bool)) == dict.fromkeys(
        ["z", "y", "x", "w"], "a")
    with pytest.raises(ValueError):
        significance_groups(np.triu(everything))


# --------------------------------------------------------------------------- words


def test_the_standing_sentence_and_its_shares():
    assert standing_sentence("reranked", 1, 1, 2, 0.71) == (
        "reranked ranks 1 (95% interval 1–2), first in 71% of resamples")
    assert standing_sentence("bm25", 2, 1, 3, 0.0, confidence_level=0.9, tied=True) == (
        "bm25 ranks 2, tied (90% interval 1–3), first in 0% of resamples")
    assert [share(p) for p in (0.0, 0.003, 0.5, 0.997, 1.0)] == [
        "0%", "under 1%", "50%", "over 99%", "100%"]
    assert letters_sentence(0.05, "none", 1) == (
        "Runs that share a letter do not differ significantly at alpha = 0.05 without "
        "correction over 1 comparison.")
    assert label_of("RR", 5, Conventions()) == "MRR@5"
