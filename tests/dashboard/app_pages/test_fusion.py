"""Fused runs in the dashboard: a recipe in the link (or added from the sidebar) adds a run
every view shows like any other, scored as the engine scores the fused run; the Overlap
page's cross-fitted weight search is the engine's."""

from __future__ import annotations

import json

from dashboard.state import session
from metrics import cross_fitted_weights, evaluate, fuse
from metrics import format as fmt
from tests.dashboard.conftest import open_app, texts

RRF = json.dumps({"method": "rrf", "norm": "minmax", "k": 60, "weights": None,
                  "runs": ["bm25", "reranked"]}, separators=(",", ":"))


def test_a_fused_run_from_the_link_is_scored_like_any_other(sample):
    app = open_app(fuse=RRF)
    table = app.dataframe[0].value.set_index("Metric")
    fused, recipe = fuse([sample.run("bm25").run, sample.run("reranked").run], method="rrf")
    expected = evaluate(sample.qrels, [fused], sample.k).runs[0].summary["nDCG"]
    assert table.loc["nDCG@5", "rrf(bm25,reranked)"].startswith(fmt.figure(expected.mean))
    assert recipe.sentence.split(":")[0] in texts(app)  # its recipe, in its load report
    compare = open_app("compare", fuse=RRF)
    assert "rrf(bm25,reranked) against baseline" in texts(compare)


def test_a_recipe_naming_no_loaded_run_is_left_out_and_said(sample):
    app = open_app(fuse=json.dumps({"runs": ["nope", "bm25"]}))
    assert "no run named nope" in texts(app).replace("\\", "")
    assert "rrf(nope,bm25)" not in app.dataframe[0].value.columns


def test_the_sidebar_adds_a_fused_run_and_the_link_keeps_it(sample):
    app = open_app()
    app.multiselect(key="fuse.runs").set_value(["baseline", "bm25"]).run()
    app.radio(key="fuse.method").set_value("combmnz").run()
    app.button(key="fuse.add").click().run()
    assert "combmnz-minmax(baseline,bm25)" in app.dataframe[0].value.columns
    assert "combmnz" in str(app.query_params["fuse"])


def test_the_fused_run_s_remove_button_says_so_and_removes_it(sample):
    app = open_app()
    app.multiselect(key="fuse.runs").set_value(["baseline", "bm25"]).run()
    app.button(key="fuse.add").click().run()
    remove = app.button(key="fuse.remove.0")
    assert remove.label == "Remove"  # its name to a screen reader, not the icon's "close"
    remove.click().run()
    assert "rrf(baseline,bm25)" not in app.dataframe[0].value.columns
    assert "fuse" not in app.query_params


def test_the_weight_search_is_the_engine_s_cross_fitting_and_adds_its_run(sample):
    app = open_app("overlap")
    app.toggle(key="overlap.search").set_value(True).run()
    runs = [sample.run("baseline").run, sample.run("reranked").run]
    tuned = cross_fitted_weights(sample.qrels, runs, metric="nDCG", k=sample.k,
                                 conventions=sample.conventions)
    cards = {m.label: m.value for m in app.metric}
    assert cards["Cross-fitted nDCG@5"] == fmt.figure(tuned.mean)
    assert tuned.sentence.split(";")[0] in texts(app).replace("\\", "")
    # its button adds the run fused at the weight tuned on every query
    app.button(key="overlap.add").click().run()
    assert not app.exception
    _, recipe = fuse(runs, method="combsum",
                     weights=[tuned.in_sample_weight, 1 - tuned.in_sample_weight])
    assert recipe.name in app.multiselect(key=session.RUNS).options
    assert "combsum" in str(app.query_params["fuse"])


def test_a_run_fused_after_compare_was_opened_joins_its_candidates(sample):
    app = open_app("compare")
    app.multiselect(key="compare.candidates").set_value(["reranked"]).run()
    app.multiselect(key="fuse.runs").set_value(["bm25", "reranked"]).run()
    app.button(key="fuse.add").click().run()
    assert app.multiselect(key="compare.candidates").value == ["reranked", "rrf(bm25,reranked)"]
    assert "rrf(bm25,reranked) against baseline" in texts(app)


def test_a_second_recipe_of_the_same_runs_reuses_their_pooled_rows(monkeypatch):
    """Pooling the rows (every doc id matched and sorted as a string) is most of a fusion's
    time: another k of the same two runs fuses the pool made for the first."""
    import metrics
    from dashboard.data import cache, combine

    cache.store().clear()
    pooled = []
    pool = metrics.fusion_pool
    monkeypatch.setattr(metrics, "fusion_pool", lambda runs: (pooled.append(1), pool(runs))[1])
    inputs = cache.sample_inputs(metrics.Conventions())
    recipes = [{"method": "rrf", "norm": "minmax", "k": k, "weights": None,
                "runs": ["baseline", "bm25"]} for k in (60, 61)]
    fused, problems = combine.with_fused(inputs, recipes)
    assert not problems and len(pooled) == 1
    runs = {r.value.name: r.value for r in fused.runs}
    expected, _ = fuse([runs["baseline"], runs["bm25"]], method="rrf", rrf_k=61)
    assert runs[expected.name].doc.tolist() == expected.doc.tolist()
    cache.store().clear()
