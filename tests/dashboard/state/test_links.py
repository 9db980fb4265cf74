"""A link is hostile: no value it holds crashes a page, every value it loses is said, and
every message about it stays short."""

from __future__ import annotations

import json

import pytest

from metrics.vocabulary import fusion
from tests.dashboard.conftest import open_app, texts

GOOD = {"method": "rrf", "norm": "minmax", "k": 60, "weights": None, "runs": ["bm25", "reranked"]}


def _recipe(**fields) -> str:
    return json.dumps(GOOD | fields)


BAD_RECIPES = {
    "k 1e308": _recipe(k=1e308),
    "k 1e19": _recipe(k=1e19),
    "k of 400 digits": _recipe(k=int("9" * 400)),
    "k as text": _recipe(k="60"),
    "method a list": _recipe(method=["rrf"]),
    "method an object": _recipe(method={}),
    "norm a list": _recipe(norm=["minmax"]),
    "weights huge": _recipe(method="combsum", weights=[1e308, 1e308]),
    "an unknown field": _recipe(extra=1),
    "runs not a list": _recipe(runs="bm25"),
    "nested 5,000 deep": '{"runs": ' + "[" * 5_000 + "]" * 5_000 + "}",
    "nested 50,000 deep": "[" * 50_000,
    "not JSON": "{runs:",
}


@pytest.mark.parametrize("page", ["overview", "compare"])
def test_no_fusion_recipe_in_a_link_crashes_a_page(page):
    app = open_app(page, fuse=list(BAD_RECIPES.values()))
    warnings = texts(app)
    assert warnings.count("fuse=") == len(BAD_RECIPES)
    assert "the default is used" in warnings
    assert "rrf(bm25,reranked)" not in app.dataframe[0].value.columns


def test_each_recipe_field_is_named_in_one_line():
    said = texts(open_app(fuse=list(BAD_RECIPES.values())))
    for expected in ("a fusion recipe's k must be a finite number >= 0 and at most 1,000,000",
                     "a fusion recipe's method must be one of rrf, combsum, combmnz, got ['rrf']",
                     "a fusion recipe's norm must be one of minmax, zscore, rank",
                     "weights must be finite, >= 0, at most 1,000,000",
                     "a fusion recipe has no field 'extra'",
                     "nested 2 levels at most: this one nests 5,001",
                     "this one is not valid JSON"):
        assert expected in said, expected


def test_the_sidebar_s_k_is_bounded_and_a_recipe_at_the_bound_is_added():
    app = open_app()
    app.multiselect(key="fuse.runs").set_value(["baseline", "bm25"]).run()
    k = app.number_input(key="fuse.k")
    assert k.max == fusion.MAX_RRF_K
    k.set_value(float(fusion.MAX_RRF_K)).run()
    app.button(key="fuse.add").click().run()
    assert not app.exception
    assert f"rrf-k{fusion.MAX_RRF_K:g}(baseline,bm25)" in app.dataframe[0].value.columns


def test_an_unknown_baseline_is_said_and_the_first_run_takes_its_place():
    app = open_app("compare", baseline="no-such-run")
    assert "baseline='no-such-run' ignored" in texts(app)
    assert app.selectbox(key="compare.baseline").value == "baseline"


def test_a_query_string_streamlit_drops_for_its_length_is_said():
    app = open_app(**{f"p{i}": "1" for i in range(1_200)})
    assert "the whole link (1,200 parameters, over the 1,000 a link may hold) ignored" in texts(
        app)


@pytest.mark.parametrize("name", ["runs", "is"])
def test_a_link_naming_hundreds_of_values_gets_a_short_message(name):
    params = {name: [f"run-{i}-" + "x" * 200 for i in range(900)]}
    if name == "is":
        params["where"] = "intent"
    app = open_app(**params)
    longest = max(len(w.value) for w in app.warning)
    assert longest < 1_000
    assert "and 897 more" in texts(app)


def test_a_recipe_naming_thousands_of_runs_gets_a_short_message():
    app = open_app(fuse=[json.dumps({"runs": [f"r{i}" for i in range(1_500)]}),
                         json.dumps({"runs": ["bm25", "x" * 18_000]})])
    assert max(len(w.value) for w in app.warning) < 1_000
    said = texts(app)
    assert "from 2 to 50 distinct runs, got 1,500 names" in said
    assert "fuse: no run named " + "x" * 60 + "…; the fused run is left out" in said
