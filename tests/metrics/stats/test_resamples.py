"""The bootstrap's resampled queries: the dense table as it was always drawn (every digit a
seed gave stays), the blocked draw beyond it (bounded memory, counts that do not depend on
how the queries are cut), and every consumer of the counts reading them through
``Resamples``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import metrics
from metrics.stats import bootstrap
from metrics.stats.bootstrap import (
    BLOCK_QUERIES,
    Resamples,
    bootstrap_means,
    counts_product,
    counts_products,
    draw_resamples,
    resample_counts,
    resampled_queries,
)
from tests.metrics.builders import make_qrels, make_run

DIGITS = Path(__file__).parent / "data" / "bootstrap_digits.json"


def collection(n: int = 300, seed: int = 5):
    """A seeded collection: n queries, 6 graded judgments each, three runs of 8 ids."""
    rng = np.random.default_rng(seed)
    judgments = {f"q{i}": {f"d{d}": int(g) for d, g in zip(
        rng.choice(30, 6, replace=False), rng.choice(4, 6, p=[.5, .3, .15, .05]), strict=True)}
        for i in range(n)}
    runs = [make_run({f"q{i}": [f"d{d}" for d in rng.permutation(30)[:8]] for i in range(n)},
                     name=f"r{r}") for r in range(3)]
    return make_qrels(judgments), runs


def figures(interval_method: str = "percentile") -> dict:
    """Every figure the bootstrap feeds: summary, leaderboard, comparison, overlap, sweep
    bands, a restricted evaluation."""
    qrels, runs = collection()
    ev = metrics.evaluate(qrels, runs, 5, metrics.Conventions(interval_method=interval_method))
    out = {"summary": {r.name: {k: [v.mean, v.low, v.high] for k, v in r.summary.items()}
                       for r in ev.runs}}
    board = metrics.leaderboard(ev)
    out["leaderboard"] = {m: [[s.run, s.rank_low, s.rank_high, s.p_best] for s in rows]
                          for m, rows in board.metrics.items()}
    c = metrics.compare_evaluation(ev, baseline="r0")
    out["compare"] = [[t.candidate, t.metric, t.low, t.high, t.p_randomization] for t in c.tests]
    o = metrics.overlap(ev)
    out["overlap"] = [[p.a, p.b, {k: [i.low, i.high] for k, i in p.intervals.items()}]
                      for p in o.by_pair]
    out["sweep"] = [list(row) for row in ev.sweep_intervals()][:60]
    half = ev.restricted(np.arange(len(ev.scored)) % 2 == 0, "even")
    out["restricted"] = {r.name: {k: [v.low, v.high] for k, v in r.summary.items()}
                         for r in half.runs}
    return out


def _same(found, expected, where="") -> None:
    if isinstance(expected, dict):
        assert found.keys() == expected.keys(), where
        for key in expected:
            _same(found[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(found) == len(expected), where
        for i, (a, b) in enumerate(zip(found, expected, strict=True)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(expected, float):
        # the same draw and arithmetic: equal on this machine to the bit; another CPU's BLAS
        # kernels may round a sum's last bit differently, never a digit a draw decides
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-15), where
    else:
        assert found == expected, where


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_every_figure_keeps_the_digits_the_engine_gave_before_the_blocked_draw(method):
    """The file holds what the engine computed before the resamples could be drawn in
    blocks (the same function, run on the earlier code): a collection that fits the dense
    draw keeps every figure."""
    _same(figures(method), json.loads(DIGITS.read_text())[method])


@pytest.mark.parametrize("n", [1, 7, 3_000])
def test_the_dense_draw_is_the_table_and_leaves_the_generator_where_it_did(n):
    first, second = np.random.default_rng(3), np.random.default_rng(3)
    drawn = draw_resamples(n, n_resamples=200, rng=first)
    assert not drawn.blocked
    np.testing.assert_array_equal(drawn.counts(), resample_counts(n, n_resamples=200,
                                                                   rng=second))
    assert first.random() == second.random()  # what is drawn next (the sign flips) is too
    values = np.random.default_rng(4).random((n, 3))
    table = resample_counts(n, n_resamples=200, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(drawn.means(values)[0], table @ values / n)


def test_the_draw_turns_blocked_past_the_dense_cells(monkeypatch):
    monkeypatch.setattr(bootstrap, "DENSE_CELLS", 1_000)
    assert not draw_resamples(100, n_resamples=10, rng=np.random.default_rng(1)).blocked
    assert draw_resamples(101, n_resamples=10, rng=np.random.default_rng(1)).blocked


def test_a_billion_queries_draw_in_bounded_memory():
    """Only the blocks asked for are drawn: the first queries' counts of a billion-query
    draw come from one block (the dense table would be 8 TB)."""
    drawn = draw_resamples(10**9, n_resamples=1_000, rng=np.random.default_rng(2))
    assert drawn.blocked
    counts = drawn.counts(0, 10)
    assert counts.shape == (1_000, 10)
    assert 0.8 < counts.mean() < 1.2


@pytest.fixture
def blocked() -> Resamples:
    """A blocked draw over 2.5 blocks of queries."""
    return draw_resamples(2 * BLOCK_QUERIES + BLOCK_QUERIES // 2, n_resamples=300,
                          rng=np.random.default_rng(7))


def test_each_resample_of_the_blocked_draw_draws_n_queries(blocked):
    counts = blocked.counts()
    assert counts.shape == (300, blocked.n)
    assert (counts.sum(axis=1) == blocked.n).all()
    assert (counts >= 0).all() and (counts == np.round(counts)).all()


def test_a_query_s_counts_do_not_depend_on_how_the_queries_are_cut(blocked):
    whole = blocked.counts()
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = sorted(rng.integers(0, blocked.n + 1, size=2))
        np.testing.assert_array_equal(blocked.counts(a, b), whole[:, a:b])
    again = draw_resamples(blocked.n, n_resamples=300, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(again.counts(), whole)  # the seed reproduces them
    other = draw_resamples(blocked.n, n_resamples=300, rng=np.random.default_rng(8))
    assert not np.array_equal(other.counts(), whole)


def test_the_blocked_means_are_the_counts_summed_block_by_block(blocked):
    values = np.random.default_rng(1).random((blocked.n, 4))
    means = blocked.means(values)[0]
    by_block = sum(blocked.counts(a, b) @ values[a:b] for a, b in blocked.blocks()) / blocked.n
    np.testing.assert_array_equal(means, by_block)  # a driver on the draw's blocks: same bits
    np.testing.assert_allclose(means, blocked.counts() @ values / blocked.n, rtol=1e-12)
    other = np.random.default_rng(2).random((blocked.n, 2))
    together = blocked.means(values, other)
    np.testing.assert_array_equal(together[0], means)  # a group does not see the others
    np.testing.assert_array_equal(bootstrap_means(other, blocked), together[1])


def test_the_blocked_draw_is_the_multinomial_bootstrap():
    """Each query's count is Binomial(n, 1/n) and two queries' counts covary by -1/n, in a
    block or across blocks (simulated: 4,000 resamples)."""
    n = BLOCK_QUERIES + 904
    counts = draw_resamples(n, n_resamples=4_000, rng=np.random.default_rng(5)).counts()
    assert counts.mean() == pytest.approx(1.0)
    assert counts.var(axis=0).mean() == pytest.approx(1 - 1 / n, abs=0.02)
    assert (counts == 0).mean() == pytest.approx((1 - 1 / n) ** n, abs=0.005)
    # how many draws land in the last block: Binomial(n, size / n)
    tail = counts[:, BLOCK_QUERIES:].sum(axis=1)
    p = (n - BLOCK_QUERIES) / n
    assert tail.mean() == pytest.approx(n * p, rel=0.01)
    assert tail.var() == pytest.approx(n * p * (1 - p), rel=0.1)
    across = np.cov(counts[:, BLOCK_QUERIES - 1], counts[:, BLOCK_QUERIES])[0, 1]
    assert abs(across) < 0.06


def test_every_consumer_reads_the_counts_through_the_blocked_draw(monkeypatch):
    """Past the dense cells no consumer builds the table: summary, sweep bands, a restricted
    evaluation, leaderboard, comparison (and fragility), all pairs, overlap, slices and BCa
    all read the blocked draw, and their intervals hold their means."""
    monkeypatch.setattr(bootstrap, "DENSE_CELLS", 0)

    def no_table(*args, **kwargs):
        raise AssertionError("the dense table was drawn")

    monkeypatch.setattr(bootstrap, "resample_counts", no_table)
    qrels, runs = collection(200)
    for method in ("percentile", "bca"):
        ev = metrics.evaluate(qrels, runs, 5, metrics.Conventions(interval_method=method))
        for run in ev.runs:
            for interval in run.summary.values():
                assert interval.low <= interval.mean + 1e-12
                assert interval.mean <= interval.high + 1e-12
    assert ev.sweep_intervals()
    ev.restricted(np.arange(len(ev.scored)) % 2 == 0, "even")
    board = metrics.leaderboard(ev)
    assert all(abs(sum(s.p_best for s in rows) - 1) < 1e-9 for rows in board.metrics.values())
    comparison = metrics.compare_evaluation(ev, baseline="r0")
    assert all(t.low <= t.difference <= t.high for t in comparison.tests)
    metrics.fragility(ev, comparison)
    metrics.all_pairs(ev)
    metrics.overlap(ev)
    queries = metrics.load_queries(
        ("query_id,text,kind\n" + "".join(f"q{i},text {i},{'ab'[i % 2]}\n"
                                          for i in range(200))).encode(), file_name="q.csv")
    facet = metrics.facets(queries, ev.scored_ids)["kind"]
    assert len(metrics.slice_evaluation(ev, facet)) == 2


def test_blocked_intervals_agree_with_the_dense_ones(monkeypatch):
    """Another draw of the same bootstrap: the bounds move by Monte Carlo noise only."""
    qrels, runs = collection(2_000)
    dense = metrics.evaluate(qrels, runs, 5)
    monkeypatch.setattr(bootstrap, "DENSE_CELLS", 0)
    blocked = metrics.evaluate(qrels, runs, 5)
    for a, b in zip(dense.runs, blocked.runs, strict=True):
        for key, interval in a.summary.items():
            other = b.summary[key]
            assert other.mean == interval.mean
            width = interval.high - interval.low
            assert abs(other.low - interval.low) < 0.1 * width + 1e-9
            assert abs(other.high - interval.high) < 0.1 * width + 1e-9


@pytest.mark.parametrize("n", [1, 700, 9000])
@pytest.mark.parametrize("blocked", [False, True])
def test_an_accumulator_fed_in_any_pieces_gives_the_floats_of_means(monkeypatch, n, blocked):
    """Rows handed over a few at a time, cut anywhere, give exactly what means() gives on
    the whole tables, in both draws (the blocked one forced below its size)."""
    if blocked:
        monkeypatch.setattr(bootstrap, "DENSE_CELLS", 1)
    resamples = draw_resamples(n, n_resamples=40, rng=np.random.default_rng(5))
    assert resamples.blocked == (blocked and n > 0)
    rng = np.random.default_rng(n)
    groups = [rng.random((n, 3)), rng.integers(0, 3, (n, 2)).astype(float)]
    summed = resamples.accumulator([(3,), (2,)])
    start = 0
    while start < n:
        stop = min(n, start + int(rng.integers(1, 5000)))
        summed.add(*(values[start:stop] for values in groups))
        start = stop
    for got, want in zip(summed.finish(), resamples.means(*groups), strict=True):
        np.testing.assert_array_equal(got, want)
    assert summed.exact


def test_an_accumulator_refuses_too_many_or_too_few_rows():
    resamples = draw_resamples(10, n_resamples=5, rng=np.random.default_rng(0))
    summed = resamples.accumulator([(1,)])
    with pytest.raises(ValueError, match="more than the 10 queries"):
        summed.add(np.zeros((11, 1)))
    summed.add(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="4 queries given; the resamples draw 10"):
        summed.finish()


def test_the_same_draw_is_handed_out_again_and_leaves_the_generator_where_drawing_would():
    bootstrap._DRAWS.clear()
    first_rng = np.random.default_rng(42)
    first = draw_resamples(500, n_resamples=200, rng=first_rng)
    again_rng = np.random.default_rng(42)
    again = draw_resamples(500, n_resamples=200, rng=again_rng)
    assert again is first  # not drawn twice
    assert again_rng.random() == first_rng.random()  # the Generator moved on as a draw moves it
    bootstrap._DRAWS.clear()
    fresh_rng = np.random.default_rng(42)
    fresh = draw_resamples(500, n_resamples=200, rng=fresh_rng)
    np.testing.assert_array_equal(fresh.dense, first.dense)  # the same counts a draw gives
    after_fresh, after_first = np.random.default_rng(42), np.random.default_rng(42)
    draw_resamples(500, n_resamples=200, rng=after_first)  # handed out
    bootstrap.resample_counts(500, n_resamples=200, rng=after_fresh)  # drawn
    assert after_first.random() == after_fresh.random()
    with pytest.raises(ValueError):  # handed out read-only: no caller can change another's
        first.dense[0, 0] = 5


def test_the_draws_kept_stay_within_their_bound(monkeypatch):
    monkeypatch.setattr(bootstrap, "_DRAWS", bootstrap._Kept(3 * 8 * 100 * 50, max_entries=4))
    for seed in range(5):
        draw_resamples(50, n_resamples=100, rng=np.random.default_rng(seed))
    kept = bootstrap._DRAWS._entries
    assert len(kept) == 3  # three tables of 40 kB fit the 120 kB
    assert sum(size for _, size in kept.values()) <= 3 * 8 * 100 * 50
    draw_resamples(400, n_resamples=100, rng=np.random.default_rng(9))  # larger than the bound
    assert len(kept) == 3  # not kept


@pytest.mark.parametrize("n", [0, 7, 3_000])
def test_the_seeded_draw_is_the_dense_table_drawn_on_the_seed(n):
    """resampled_queries(n, seed) is the draw every interval read before it had one home:
    the dense table from a fresh Generator on the seed."""
    drawn = resampled_queries(n, seed=11, n_resamples=120)
    np.testing.assert_array_equal(
        drawn.counts(), resample_counts(n, n_resamples=120, rng=np.random.default_rng(11)))
    assert not np.array_equal(drawn.counts(), resampled_queries(
        n, seed=12, n_resamples=120).counts()) or n == 0


# conventions no default matches: a path that reads a default instead of them shows
UNUSUAL = {"seed": 7, "n_resamples": 300, "confidence_level": 0.9}


def one_bin(evaluation) -> metrics.Facet:
    """A facet whose one bin holds every scored query."""
    queries = metrics.load_queries(("query_id,text,kind\n" + "".join(
        f"{q},text,all\n" for q in evaluation.scored_ids)).encode(), file_name="q.csv")
    return metrics.facets(queries, evaluation.scored_ids)["kind"]


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_a_mean_has_one_interval_whichever_path_computes_it(method):
    """A run's mean over every scored query: the summary's interval, a slice's that holds
    every query, the evaluation restricted to every query, and the sweep's band at K (the
    same draw; its product over every K's column may round a last bit differently)."""
    qrels, runs = collection(150)
    evaluation = metrics.evaluate(qrels, runs, 5,
                                  metrics.Conventions(interval_method=method, **UNUSUAL))
    (whole,) = metrics.slice_evaluation(evaluation, one_bin(evaluation))
    every = evaluation.restricted(np.ones(len(evaluation.scored), dtype=bool), "every query")
    bands = {(run, key): (low, high) for run, k, key, low, high in evaluation.sweep_intervals()
             if k == 5}
    for run in evaluation.runs:
        for key, interval in run.summary.items():
            assert interval.confidence_level == 0.9
            assert whole.summary[run.name][key] == interval
            assert every.run(run.name).summary[key] == interval
            band = bands[run.name, metrics.MEASURE_BY_KEY[key].summary_key]
            assert band == pytest.approx((interval.low, interval.high),
                                                         rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_a_difference_has_one_interval_and_p_whichever_path_computes_it(method):
    """A candidate's difference from the baseline: compare_evaluation as the command line
    (the level and the seed), the dashboard (the level, the resamples and the seed) and a
    script (nothing) call it, every pair's, the headline's, a slice holding every query, a
    snapshot of the baseline: one interval and one p, drawn on the conventions' seed and
    resamples. (A comparison without options once drew on the default seed and 1,000
    resamples, and one with the level and seed alone on 1,000 resamples.)"""
    qrels, runs = collection(150)
    c = metrics.Conventions(interval_method=method, **UNUSUAL)
    evaluation = metrics.evaluate(qrels, runs, 5, c)
    plain = metrics.compare_evaluation(evaluation)
    assert (plain.seed, plain.n_resamples, plain.confidence_level) == (7, 300, 0.9)
    paths = {
        "command line": metrics.compare_evaluation(
            evaluation, confidence_level=c.confidence_level, rng=c.seed),
        "dashboard": metrics.compare_evaluation(
            evaluation, confidence_level=c.confidence_level, n_resamples=c.n_resamples,
            rng=c.seed),
        "every pair": metrics.all_pairs(evaluation).comparisons[0],
        "slice": metrics.compare_slices(evaluation, one_bin(evaluation))[0][1],
        "snapshot": metrics.compare_with_snapshot(
            evaluation, metrics.to_snapshot(evaluation), run="r0", candidates=["r1", "r2"]),
    }
    for test in plain.tests:
        label = test.metric
        headline = metrics.headline_comparison(evaluation, label, baseline="r0")
        for name, comparison in [*paths.items(), ("headline", headline)]:
            other = comparison.test(test.candidate, label)
            assert (other.low, other.high, other.p_randomization) == (
                test.low, test.high, test.p_randomization), (name, test.candidate, label)


def test_a_column_s_resampled_sums_do_not_depend_on_the_columns_beside_it():
    # OpenBLAS sums a small product in another order than a large one: the same column
    # came out different in the last digit alone and among others (a headline's comparison
    # against the table's, at 150 queries) before every product took one width
    rng = np.random.default_rng(8)
    for _ in range(40):
        n, r, m = int(rng.integers(1, 600)), int(rng.choice([50, 300, 1000])), \
            int(rng.integers(2, 70))
        counts = rng.integers(0, 4, size=(r, n)).astype(float)
        values = rng.random((n, m))
        together = counts_product(counts, values)
        j = int(rng.integers(0, m))
        assert np.array_equal(together[:, j], counts_product(counts, values[:, j]))
        assert np.array_equal(together[:, j:], counts_product(counts, values[:, j:]))
        np.testing.assert_allclose(together, counts @ values, rtol=1e-12)
        # groups side by side in one product: each the floats it gets alone
        cut = int(rng.integers(0, m + 1))
        groups = [values[:, :cut], values[:, cut:], values[:, j]]
        for product, group in zip(counts_products(counts, groups), groups, strict=True):
            assert np.array_equal(product, counts_product(counts, group))
