"""Fusion: every method against a plain loop on random runs, the fused order and its tie rule,
the TREC round trip, the name and the recipe, and the cross-fitted weight search."""

from __future__ import annotations

import random
import re
import statistics

import numpy as np
import pytest

from metrics.context.fusion import cross_fitted_weights, fuse, write_trec
from metrics.io import Run, load_run
from metrics.vocabulary import fusion as words
from tests.metrics.builders import make_qrels

# --- a plain-loop reference, written from the declared words, one (query, doc) at a time ----


def reference(runs: list[tuple[dict, dict | None]], method: str, norm: str, k: float = 60,
              weights: list[float] | None = None) -> dict[tuple[str, str], float]:
    """{(query, doc): fused score} from [(lists, scores or None)], by a loop per id."""
    fused: dict[tuple[str, str], float] = {}
    returned_by: dict[tuple[str, str], int] = {}
    for r, (lists, scores) in enumerate(runs):
        weight = 1.0 if weights is None else weights[r]
        for query, docs in lists.items():
            n = len(docs)
            first = {}  # doc -> (rank slot, score) at its first occurrence
            for slot, doc in enumerate(docs, 1):
                if doc not in first:
                    first[doc] = (slot, None if scores is None else scores[query][slot - 1])
            values = [s for _, s in first.values()]
            for doc, (slot, score) in first.items():
                if method == "rrf":
                    value = 1 / (k + slot)
                elif scores is None or norm == "rank":
                    value = 1 - (slot - 1) / n
                elif norm == "minmax":
                    low, high = min(values), max(values)
                    value = 1.0 if low == high else (score - low) / (high - low)
                else:
                    low, high = min(values), max(values)
                    mean, std = statistics.fmean(values), statistics.pstdev(values)
                    value = 0.0 if low == high else (score - mean) / std
                key = (query, doc)
                fused[key] = fused.get(key, 0.0) + weight * value
                returned_by[key] = returned_by.get(key, 0) + 1
    if method == "combmnz":
        fused = {key: value * returned_by[key] for key, value in fused.items()}
    return fused


def random_run(rng: random.Random, *, scored: bool, depth: int):
    """Lists over 12 queries (some missing) from small pools, so that runs overlap; scores
    in steps of 0.25, so that they tie; some ids repeated; every list at most `depth` long."""
    lists, scores = {}, {}
    for q in range(12):
        if rng.random() < 0.2:
            continue  # this run is silent on the query
        pool = [f"d{q}-{i}" for i in range(10)]
        docs = rng.sample(pool, rng.randint(1, min(depth, 10)))
        if len(docs) > 2 and rng.random() < 0.4:
            docs.insert(rng.randint(1, len(docs)), docs[0])  # a repeat, below its first rank
        values = sorted((rng.randint(-8, 8) / 4 for _ in docs), reverse=True)
        lists[f"q{q:02d}"], scores[f"q{q:02d}"] = docs, values
    return lists, (scores if scored else None)


def fused_pairs(run: Run) -> dict[tuple[str, str], float]:
    pairs = list(zip(run.query.tolist(), run.doc.tolist(), run.score.tolist(), strict=True))
    assert len({(q, d) for q, d, _ in pairs}) == len(pairs), "an id listed twice"
    return {(q, d): s for q, d, s in pairs}


def as_run(name: str, lists: dict, scores: dict | None) -> Run:
    return Run.from_lists(name, lists, scores=scores)


CASES = [("rrf", "minmax", None), ("combsum", "minmax", None), ("combsum", "zscore", None),
         ("combsum", "rank", None), ("combmnz", "minmax", None), ("combmnz", "zscore", None),
         ("combmnz", "rank", None), ("combsum", "minmax", [0.3, 0.7, 1.5]),
         ("combsum", "zscore", [0.0, 2.0, 1.0])]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("method", "norm", "weights"), CASES)
def test_every_method_matches_the_plain_loop(method, norm, weights, seed):
    rng = random.Random(seed)
    inputs = [random_run(rng, scored=True, depth=10), random_run(rng, scored=True, depth=4),
              random_run(rng, scored=False, depth=7)]
    runs = [as_run(f"r{i}", *pair) for i, pair in enumerate(inputs)]
    run, _ = fuse(runs, method=method, norm=norm, rrf_k=20 if seed % 2 else 60,
                  weights=weights)
    expected = reference(inputs, method, norm, 20 if seed % 2 else 60, weights)
    got = fused_pairs(run)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_the_random_runs_hold_what_the_comparison_must_cover():
    """The inputs above do hold ties, repeats, ids one run alone returns, queries one run
    is silent on, and lists of different lengths: else the comparison proves less."""
    rng = random.Random(0)
    (a, sa), (b, _), (c, _) = (random_run(rng, scored=True, depth=10),
                               random_run(rng, scored=True, depth=4),
                               random_run(rng, scored=False, depth=7))
    assert any(len(set(v)) < len(v) for v in sa.values())  # tied scores
    assert any(len(set(d)) < len(d) for run in (a, b, c) for d in run.values())  # repeats
    assert set(a) != set(b)  # a query one run is silent on
    only_a = {(q, d) for q, ds in a.items() for d in ds} - {(q, d) for q, ds in b.items()
                                                          for d in ds}
    assert only_a
    assert max(map(len, a.values())) > max(map(len, b.values()))


def test_a_repeat_counts_once_at_its_first_rank_and_keeps_its_slot():
    a = Run.from_lists("a", {"q": ["x", "y", "x", "z"]}, scores={"q": [4, 3, 2, 1]})
    b = Run.from_lists("b", {"q": ["z"]}, scores={"q": [1]})
    rrf, _ = fuse([a, b], rrf_k=0)
    assert fused_pairs(rrf) == {("q", "x"): 1, ("q", "y"): 1 / 2, ("q", "z"): 1 / 4 + 1}
    ranked, _ = fuse([a, b], method="combsum", norm="rank")
    assert fused_pairs(ranked) == {("q", "x"): 1, ("q", "y"): 0.75, ("q", "z"): 0.25 + 1}
    # min-max over the distinct ids' first scores: x 4, y 3, z 1 (the repeat's 2 is unread)
    minmax, _ = fuse([a, b], method="combsum")
    assert fused_pairs(minmax) == pytest.approx({("q", "x"): 1, ("q", "y"): 2 / 3,
                                                 ("q", "z"): 0 + 1})


def test_combmnz_multiplies_by_the_runs_that_return_the_id():
    a = Run.from_lists("a", {"q": ["x", "y"]}, scores={"q": [2, 1]})
    b = Run.from_lists("b", {"q": ["y", "x", "w"]}, scores={"q": [3, 2, 1]})
    run, _ = fuse([a, b], method="combmnz")
    assert fused_pairs(run) == {("q", "x"): (1 + 0.5) * 2, ("q", "y"): (0 + 1) * 2,
                                ("q", "w"): 0}


def test_normalisation_of_a_list_whose_scores_all_tie():
    a = Run.from_lists("a", {"q": ["x", "y"]}, scores={"q": [0.1, 0.1]})
    b = Run.from_lists("b", {"q": ["y"]}, scores={"q": [5]})
    assert fused_pairs(fuse([a, b], method="combsum")[0]) == {("q", "x"): 1, ("q", "y"): 2}
    assert fused_pairs(fuse([a, b], method="combsum", norm="zscore")[0]) == {
        ("q", "x"): 0, ("q", "y"): 0}
    # three equal doubles whose mean is not exactly them: still a tie, not ±1 from rounding
    c = Run.from_lists("c", {"q": ["x", "y", "z"]}, scores={"q": [0.1, 0.1, 0.1]})
    assert set(fused_pairs(fuse([c, b], method="combsum", norm="zscore")[0]).values()) == {0.0}


# --- the fused order ----------------------------------------------------------------------


def test_the_fused_order_is_score_descending_then_doc_id_descending():
    rng = random.Random(7)
    runs = [as_run(f"r{i}", *random_run(rng, scored=i != 1, depth=10)) for i in range(3)]
    for method in ("rrf", "combsum", "combmnz"):
        run, _ = fuse(runs, method=method)
        rows = list(zip(run.query.tolist(), run.doc.tolist(), run.score.tolist(), strict=True))
        ties = 0
        for query in dict.fromkeys(run.query.tolist()):
            mine = [(s, d) for q, d, s in rows if q == query]
            assert mine == sorted(mine, reverse=True)  # score descending, then doc descending
            ties += len(mine) - len({s for s, _ in mine})
        assert ties  # the rule was exercised
        assert run.line.tolist() == list(range(1, len(rows) + 1))


def test_ties_go_to_the_larger_doc_id_as_a_string():
    a = Run.from_lists("a", {"q": ["d9", "d10"]})
    b = Run.from_lists("b", {"q": ["d10", "d9"]})
    run, _ = fuse([a, b])
    assert run.doc.tolist() == ["d9", "d10"]  # "d9" > "d10" as strings
    c = Run.from_lists("c", {"q": ["Z", "a", "é"]})
    d = Run.from_lists("d", {"q": ["é", "a", "Z"]})
    # Z and é tie (1/61 + 1/63, a 2/62): é first, in byte order as trec_eval's strcmp
    assert fuse([c, d])[0].doc.tolist() == ["é", "Z", "a"]


def test_queries_in_the_order_the_runs_first_give_them():
    a = Run.from_lists("a", {"q2": ["x"], "q1": ["y"]})
    b = Run.from_lists("b", {"q3": ["x"], "q1": ["z"], "q0": ["w"]})
    run, _ = fuse([a, b])
    assert list(dict.fromkeys(run.query.tolist())) == ["q2", "q1", "q3", "q0"]
    assert run.query_code.tolist() == [0, 1, 1, 2, 3]
    assert run.query_ids.tolist() == ["q2", "q1", "q3", "q0"]


def test_a_query_left_without_rows_is_not_listed():
    a = Run.from_lists("a", {"q1": ["q1"], "q2": ["x"]}).without_identical_ids()[0]
    b = Run.from_lists("b", {"q2": ["y"]})
    assert a.query_ids.tolist() == ["q1", "q2"]  # q1's only row is gone, its id stays
    run, _ = fuse([a, b])
    assert run.query_ids.tolist() == ["q2"]


# --- TREC ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["rrf", "combsum", "combmnz"])
def test_written_trec_reads_back_in_the_same_order(method):
    rng = random.Random(3)
    runs = [as_run(f"r{i}", *random_run(rng, scored=True, depth=10)) for i in range(3)]
    run, _ = fuse(runs, method=method, norm="zscore")
    assert len(set(run.score.tolist())) < len(run.score)  # ties the file must keep in order
    text = write_trec(run, "fused")
    back, report = load_run(text.encode(), file_name="fused.run")
    assert not report.dropped and not report.notes
    assert back.query.tolist() == run.query.tolist()
    assert back.doc.tolist() == run.doc.tolist()
    assert back.score.tolist() == run.score.tolist()  # to the last bit
    ranks = [int(line.split()[3]) for line in text.splitlines()]
    assert ranks[:3] == [1, 2, 3] and len(ranks) == len(run.doc)


def test_write_trec_uses_reprs_and_refuses_what_a_line_cannot_carry():
    run = Run.from_lists("a b", {"q": ["x"]}, scores={"q": [0.1 + 0.2]})
    assert write_trec(run, "t") == "q Q0 x 1 0.30000000000000004 t\n"
    assert write_trec(run).endswith(" a_b\n")  # the name's white space made "_"
    with pytest.raises(ValueError, match="tag must be one word"):
        write_trec(run, "a b")
    with pytest.raises(ValueError, match="no scores"):
        write_trec(Run.from_lists("a", {"q": ["x"]}), "t")
    with pytest.raises(ValueError, match="doc id 'x y' holds white space"):
        write_trec(Run.from_lists("a", {"q": ["x y"]}, scores={"q": [1]}), "t")


# --- names, recipes, checks -----------------------------------------------------------------


def test_names_and_recipes():
    bm25 = Run.from_lists("bm25", {"q": ["x", "y"]}, scores={"q": [2, 1]})
    dense = Run.from_lists("dense", {"q": ["y"]})
    run, recipe = fuse([bm25, dense])
    assert run.name == recipe.name == "rrf(bm25,dense)"
    assert (recipe.method, recipe.norm, recipe.k, recipe.weights) == ("rrf", None, 60, None)
    assert recipe.runs == ("bm25", "dense") and recipe.unscored == ("dense",)
    assert "k = 60" in recipe.sentence and "no scores" not in recipe.sentence
    assert words.TIE_RULE in recipe.sentence
    assert fuse([bm25, dense], rrf_k=20)[1].name == "rrf-k20(bm25,dense)"
    _, recipe = fuse([bm25, dense], method="combsum")
    assert recipe.name == "combsum-minmax(bm25,dense)" and recipe.k is None
    assert "dense has no scores: normalised by rank instead" in recipe.sentence
    _, recipe = fuse([bm25, dense], method="combmnz", norm="zscore")
    assert recipe.name == "combmnz-zscore(bm25,dense)" and "z-score" in recipe.sentence
    run, recipe = fuse([bm25, dense], method="combsum", weights=[0.3, 0.7])
    assert recipe.name == "wsum-minmax(bm25:0.3,dense:0.7)" and recipe.weights == (0.3, 0.7)
    assert "weighted CombSUM" in recipe.sentence and "bm25 0.3, dense 0.7" in recipe.sentence
    assert recipe.as_dict()["weights"] == [0.3, 0.7]
    assert fuse([bm25, dense], name="mine")[0].name == "mine"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "borda"}, "method must be one of rrf, combsum, combmnz, got 'borda'"),
    ({"norm": "max"}, "norm must be one of minmax, zscore, rank, got 'max'"),
    ({"rrf_k": -1}, "rrf_k must be a finite number >= 0"),
    ({"rrf_k": True}, "rrf_k must be a finite number >= 0"),
    ({"weights": [1, 1]}, "weights apply to combsum only"),
    ({"method": "combsum", "weights": [1]}, "one weight per run: 1 for 2 runs"),
    ({"method": "combsum", "weights": [0, 0]}, "not all 0"),
    ({"method": "combsum", "weights": [-1, 2]}, ">= 0"),
])
def test_bad_options_are_named(kwargs, message):
    runs = [Run.from_lists(n, {"q": ["x"]}) for n in "ab"]
    with pytest.raises(ValueError, match=message):
        fuse(runs, **kwargs)


def test_bad_runs_are_named():
    a = Run.from_lists("a", {"q": ["x"]}, scores={"q": [float("inf")]})
    with pytest.raises(ValueError, match="at least two runs"):
        fuse([a])
    with pytest.raises(ValueError, match="run names must be distinct"):
        fuse([a, a])
    b = Run.from_lists("b", {"q": ["x"]})
    with pytest.raises(ValueError, match="run 'a', line 1: score inf is not finite"):
        fuse([a, b], method="combsum")
    fuse([a, b])  # RRF reads ranks only
    fuse([a, b], method="combsum", norm="rank")


# --- cross-fitting --------------------------------------------------------------------------

QUERIES = [f"q{i:02d}" for i in range(21)]
QRELS = make_qrels({q: {"rel": 1} for q in QUERIES})


def opposed_runs(prefers_a: set[str]) -> list[Run]:
    """Run a puts 'rel' first on the queries in prefers_a, run b on the others. Fused with
    weight w on a, 'rel' leads on the first kind when w > 0.5 and on the second when w < 0.5
    (at 0.5 the tie goes to 'zzz', the larger id)."""
    good, bad = ["rel", "zzz"], ["zzz", "rel"]
    a = {q: good if q in prefers_a else bad for q in QUERIES}
    b = {q: bad if q in prefers_a else good for q in QUERIES}
    scores = {q: [1.0, 0.0] for q in QUERIES}
    return [Run.from_lists("a", a, scores=scores), Run.from_lists("b", b, scores=scores)]


def test_each_query_is_scored_at_the_weight_its_other_half_chose():
    fold = cross_fitted_weights(QRELS, opposed_runs(set()), rng=5).fold
    first_half = {q for q, f in zip(QUERIES, fold, strict=True) if f == 0}
    fit = cross_fitted_weights(QRELS, opposed_runs(first_half), rng=5)
    assert fit.fold.tolist() == fold.tolist()  # the split does not read the runs
    assert fit.chosen == (0.6, 0.4)  # each half's best, ties settled toward 0.5
    grid = fit.grid.tolist()
    own = fit.table[np.arange(len(QUERIES)), [grid.index(fit.chosen[f]) for f in fit.fold]]
    other = fit.table[np.arange(len(QUERIES)),
                      [grid.index(fit.chosen[1 - f]) for f in fit.fold]]
    assert fit.per_query.tolist() == other.tolist()
    assert (own == 1).all() and (other < 1).all()  # each half's weight is wrong for the other
    # in-sample: w > 0.5 puts 'rel' first on the 11 queries of the first half, w < 0.5 on
    # the 10 of the second; tuned and scored on the same queries, it reads higher
    assert fit.in_sample_weight == 0.6 and fit.in_sample_mean > fit.mean
    assert fit.query_ids.tolist() == QUERIES and fit.per_query.shape == (21,)
    assert "Cross-fitted nDCG@10 over 21 queries" in fit.sentence


def test_the_split_is_a_seeded_half():
    runs = opposed_runs(set(QUERIES[:7]))
    first = cross_fitted_weights(QRELS, runs, rng=11)
    assert first.fold.tolist() == cross_fitted_weights(QRELS, runs, rng=11).fold.tolist()
    assert first.fold.tolist() == cross_fitted_weights(
        QRELS, runs, rng=np.random.default_rng(11)).fold.tolist()
    assert first.fold.tolist() != cross_fitted_weights(QRELS, runs, rng=12).fold.tolist()
    assert sorted(np.bincount(first.fold).tolist()) == [10, 11]
    assert np.bincount(first.fold)[0] == 11  # the first half holds the odd one out


def test_the_table_is_the_evaluation_of_each_weighted_fusion():
    from metrics import evaluate

    runs = opposed_runs(set(QUERIES[::3]))
    fit = cross_fitted_weights(QRELS, runs, metric="RR", k=1, grid=[0.2, 0.9])
    for column, w in enumerate((0.2, 0.9)):
        fused, _ = fuse(runs, method="combsum", weights=[w, round(1 - w, 12)])
        expected = evaluate(QRELS, [fused], 1).per_query_scores(fused.name)["RR"]
        assert fit.table[:, column].tolist() == expected.tolist()


def test_cross_fitting_checks():
    runs = opposed_runs(set())
    with pytest.raises(ValueError, match="two runs, got 3"):
        cross_fitted_weights(QRELS, [*runs, Run.from_lists("c", {"q": ["x"]})])
    with pytest.raises(ValueError, match="metric must be one of"):
        cross_fitted_weights(QRELS, runs, metric="ndcg")
    with pytest.raises(ValueError, match=r"grid must hold distinct weights in \[0, 1\]"):
        cross_fitted_weights(QRELS, runs, grid=[0.5, 1.5])
    with pytest.raises(ValueError, match="at least 2 scored queries, got 1"):
        cross_fitted_weights(make_qrels({"q00": {"rel": 1}}), runs)


def test_the_default_tag_is_the_name_with_its_white_space_made_underscores():
    runs = [Run.from_lists("my run", {"q": ["a", "b"]}, scores={"q": [2.0, 1.0]}),
            Run.from_lists("other", {"q": ["b", "c"]}, scores={"q": [3.0, 1.0]})]
    fused, _ = fuse(runs, name="rrf(my run,other)")
    assert write_trec(fused).splitlines()[0].endswith(" rrf(my_run,other)")
    with pytest.raises(ValueError, match="tag must be one word"):
        write_trec(fused, "two words")


@pytest.mark.parametrize(("text", "message"), [
    ('{"runs": ["a", "b"], "k": 1e400}', "recipe's k must be a finite number >= 0 and at most"),
    ('{"runs": ["a", "b"], "k": ' + "9" * 400 + "}", "recipe's k must be a finite number"),
    ('{"runs": ["a", "b"], "k": 1e19}', "at most 1,000,000, got 1e+19"),
    ('{"runs": ["a", "b"], "method": ["rrf"]}', "method must be one of rrf, combsum, combmnz"),
    ('{"runs": ["a", "b"], "method": {}}', "method must be one of rrf, combsum, combmnz, got {}"),
    ('{"runs": ["a", "b"], "norm": ["minmax"]}', "norm must be one of minmax, zscore, rank"),
    ('{"runs": ["a", "b"], "weights": [1e308, 1e308]}', "weights must be finite, >= 0, at most"),
    ('{"runs": ["a", "b"], "weights": [1]}', "weights are one number per run (2)"),
    ('{"runs": ["a", "a"]}', "from 2 to 50 distinct runs, got 2 names (1 distinct)"),
    ('{"runs": ["a", 1]}', "runs are a list of run names"),
    ('{"runs": ["a", "b"], "x": 1}', "has no field 'x'"),
    ('["a", "b"]', "a fusion recipe is a JSON object"),
    ("[" * 3_000 + "]" * 3_000, "nested 2 levels at most: this one nests 3,000"),
    ('{"runs": ["[[[", "b"]}', None),  # brackets inside a string do not nest
    ("x" * 20_001, "at most 20,000 characters: this one has 20,001"),
])
def test_a_recipe_from_a_link_is_checked_field_by_field(text, message):
    from metrics import recipe_from_text

    if message is None:
        assert recipe_from_text(text)["runs"] == ["[[[", "b"]
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        recipe_from_text(text)


@pytest.mark.parametrize("seed", range(3))
def test_a_fused_run_lists_each_query_by_score_then_doc_id_descending(seed):
    """The order trec_eval reads a run in: score descending, ties by doc id descending as a
    string ("9" after "10"), checked against a plain sort of the fused pairs."""
    rng = random.Random(seed)
    inputs = [random_run(rng, scored=True, depth=10), random_run(rng, scored=False, depth=7)]
    runs = [as_run(f"r{i}", *pair) for i, pair in enumerate(inputs)]
    for method, norm in (("rrf", "minmax"), ("combsum", "rank"), ("combmnz", "zscore")):
        run, _ = fuse(runs, method=method, norm=norm)
        rows = list(zip(run.query.tolist(), run.doc.tolist(), run.score.tolist(), strict=True))
        order = {q: i for i, q in enumerate(dict.fromkeys(q for q, _, _ in rows))}
        expected = sorted(sorted(rows, key=lambda row: row[1], reverse=True),
                          key=lambda row: (order[row[0]], -row[2]))
        assert rows == expected


def test_the_weight_search_scores_each_weight_as_evaluate_scores_its_fused_run():
    """Graded labels, ids no label names, repeats in the inputs, a query no run answers:
    each weight's column is the evaluation of that weight's fused run, whatever the weight
    search skips (it matches each id to the labels once, not once per weight)."""
    from metrics import evaluate

    rng = random.Random(3)
    inputs = [random_run(rng, scored=True, depth=10), random_run(rng, scored=True, depth=6)]
    runs = [as_run(f"r{i}", *pair) for i, pair in enumerate(inputs)]
    judged = {f"q{q:02d}": {f"d{q}-{i}": rng.choice([0, 1, 2, 3]) for i in range(0, 10, 2)}
              for q in range(12)}
    judged["q99"] = {"x": 1}
    qrels = make_qrels(judged)
    for metric, k in (("nDCG", 5), ("AP", 10), ("RR", 3)):
        fit = cross_fitted_weights(qrels, runs, metric=metric, k=k)
        for column, w in enumerate(fit.grid.tolist()):
            fused, _ = fuse(runs, method="combsum", weights=[w, round(1 - w, 12)])
            expected = evaluate(qrels, [fused], k).per_query_scores(fused.name)[metric]
            assert fit.table[:, column].tolist() == expected.tolist(), (metric, w)


def test_a_pool_made_once_fuses_the_runs_as_fuse_pools_them():
    """fusion_pool: the rows pooled once for several recipes (the dashboard's fused runs
    of the same two runs at another k), each fused run the same as fuse alone makes it."""
    from metrics.context.fusion import fusion_pool

    rng = random.Random(7)
    inputs = [random_run(rng, scored=True, depth=10), random_run(rng, scored=True, depth=6)]
    runs = [as_run(f"r{i}", *pair) for i, pair in enumerate(inputs)]
    pool = fusion_pool(runs)
    renamed = [run.renamed(f"shown {i}") for i, run in enumerate(runs)]  # the same rows
    for method, norm, k, weights in (("rrf", "minmax", 61, None), ("rrf", "minmax", 7, None),
                                     ("combmnz", "zscore", 60, None),
                                     ("combsum", "minmax", 60, [0.3, 0.7])):
        alone, recipe = fuse(renamed, method=method, norm=norm, rrf_k=k, weights=weights)
        pooled, same = fuse(renamed, method=method, norm=norm, rrf_k=k, weights=weights,
                            pool=pool)
        assert same == recipe
        assert write_trec(pooled) == write_trec(alone)
    with pytest.raises(ValueError, match="pool was not made from these runs"):
        fuse(runs[::-1], pool=pool)
