"""A queries file in the dashboard: the text in the drill-down, escaped; figures by kind of
query on the Overview, equal to the engine's slices."""

from __future__ import annotations

from metrics import facets, load_queries, slice_evaluation
from metrics import format as fmt
from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import open_app, shown, texts, upload

HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](javascript:alert(1)) <!-- c -->"


def test_the_sample_s_overview_reads_each_slice_as_the_engine_does(sample):
    app = open_app()
    app.selectbox(key="overview.facet").select("intent").run()
    assert not app.exception
    table = next(d.value for d in app.dataframe if "Slice" in d.value.columns)
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    expected = slice_evaluation(sample, facets(queries, sample.scored_ids)["intent"])
    assert list(table["Slice"]) == [s.value for s in expected]
    assert list(table["Queries"]) == [s.queries for s in expected]
    for row, piece in zip(table.itertuples(index=False), expected, strict=True):
        for name in sample.run_names:
            nDCG = piece.summary[name]["nDCG"]
            assert getattr(row, name) == fmt.interval(nDCG.mean, nDCG.low, nDCG.high)
        assert row.Note == ("too few queries to read" if piece.too_small else "")
    assert "evaluating its scored queries alone" in texts(app)


def test_the_drilldown_quotes_the_query_text(sample):
    app = open_app("drilldown")
    app.selectbox(key="drilldown.query").select("q05").run()
    assert "why was my invoice charged twice" in texts(app)


def test_an_uploaded_queries_file_is_shown_escaped():
    app = upload(open_app(), [("baseline.run", (SAMPLE_DIR / "baseline.run").read_bytes())],
                 (SAMPLE_DIR / "qrels.txt").read_bytes(),
                 queries=("queries.tsv", f"q01\t{HOSTILE}\nq02\tplain\n".encode()))
    assert not app.exception
    assert "queries.tsv: 2 queries read; 2 qrels queries with a text" in texts(app)
    app.switch_page("app_pages/drilldown.py").run()
    app.selectbox(key="drilldown.query").select("q01").run()
    # the question stands beside the id in the query's heading
    quoted = [m.value for m in app.markdown if m.value.startswith("### q01 · ")]
    source = quoted[0].replace("\\<", "").replace("\\*", "").replace("\\[", "")
    assert "<" not in source and "*" not in source and "[" not in source  # all escaped
    assert texts(app).count(HOSTILE) == 1  # shown exactly, as characters


def test_the_heatmap_picker_and_the_gains_carry_the_question():
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    texts_by_id = dict(zip(queries.ids, queries.texts, strict=True))
    app = open_app("heatmap")
    options = app.selectbox(key="heatmap.query").options
    assert options
    for option in options:
        query_id, _, shown = option.partition(" · ")
        assert shown and texts_by_id[query_id].startswith(shown.rstrip("…"))
    app = open_app("compare")
    gains = next(d.value for d in app.dataframe if "text" in d.value.columns)
    assert list(gains["text"]) == [texts_by_id[q] for q in gains["query_id"]]


def test_the_facet_is_in_the_url_and_read_from_it():
    # the default is the file's own first facet (intent), not the length computed for any file
    assert open_app().selectbox(key="overview.facet").value == "intent"
    app = open_app(facet="source")
    assert app.selectbox(key="overview.facet").value == "source"
    app.selectbox(key="overview.facet").select("query length (words)").run()
    assert app.query_params["facet"] == "query length (words)"
    app.selectbox(key="overview.facet").select("intent").run()  # the default
    assert "facet" not in app.query_params
    stale = open_app(facet="no such facet")  # a link to other data: the first facet, said
    assert stale.selectbox(key="overview.facet").value == "intent"
    warnings = " ".join(shown(w.value) for w in stale.warning)
    assert "facet='no such facet' ignored: these queries have no such facet" in warnings
    assert "the default is used" in warnings


def test_compare_reads_each_slice_as_the_engine_does(sample):
    from metrics import compare_slices

    app = open_app("compare")
    app.selectbox(key="compare.facet").select("intent").run()
    assert not app.exception
    table = next(d.value for d in app.dataframe if "Slice" in d.value.columns)
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    expected = compare_slices(
        sample, facets(queries, sample.scored_ids)["intent"], baseline="baseline",
        candidates=[app.selectbox(key="compare.candidate").value], metrics=["nDCG"],
        confidence_level=0.95, n_resamples=sample.conventions.n_resamples,
        rng=sample.conventions.seed)
    assert list(table["Slice"]) == [label for label, _ in expected]
    for (_, row), (_, comparison) in zip(table.iterrows(), expected, strict=True):
        test = comparison.tests[0]
        assert (row["Difference"], row["Queries"]) == (test.difference,
                                                       len(comparison.query_ids))
        assert row["p adjusted"] == fmt.p_value(test.p_adjusted)  # over the slices shown
    assert "The correction covers every slice shown" in texts(app)


def test_the_slice_chart_draws_each_slice_s_difference_and_interval(sample):
    from dashboard.views import comparison_charts, frames
    from metrics import compare_slices

    queries = load_queries(SAMPLE_DIR / "queries.csv")
    pieces = compare_slices(sample, facets(queries, sample.scored_ids)["intent"],
                            baseline="baseline", candidates=["reranked"], metrics=["nDCG"],
                            n_permutations=200, n_resamples=200, rng=1)
    table = frames.slice_comparison_table(pieces)
    spec = comparison_charts.slice_differences(table, metric="nDCG@5", baseline="baseline",
                                               candidate="reranked", facet="intent",
                                               small=10).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert [r["Slice"] for r in rows] == [label for label, _ in pieces]
    for row, (_, comparison) in zip(rows, pieces, strict=True):
        test = comparison.tests[0]
        assert (row["Difference"], row["low"], row["high"]) == (test.difference, test.low,
                                                                test.high)
        assert row["sign"] == ("gain" if test.difference > 0 else
                               "loss" if test.difference < 0 else "no change")
        assert row["faint"] is (len(comparison.query_ids) < 10)
    assert {"datum": 0} in [layer["encoding"].get("x") for layer in spec["layer"]]
    assert "by intent" in spec["title"]["text"]


def test_a_slice_too_small_to_test_is_named_not_dropped():
    app = open_app("compare")
    # query length: the bin "7" holds one scored query
    app.selectbox(key="compare.facet").select("query length (words)").run()
    assert "Not compared, fewer than 2 scored queries: 7." in texts(app)


def test_a_filter_applies_to_every_page_and_lives_in_the_url(sample):
    from metrics import filter_evaluation

    queries = load_queries(SAMPLE_DIR / "queries.csv")
    intent = facets(queries, sample.scored_ids)["intent"]
    chosen = filter_evaluation(sample, intent, ["how-to"])
    app = open_app()
    app.selectbox(key="filter.facet").select("intent").run()
    app.multiselect(key="filter.values").select("how-to").run()
    assert not app.exception
    assert app.query_params["where"] in ("intent", ["intent"])
    assert app.query_params["is"] in ("how-to", ["how-to"])
    assert chosen.scope in texts(app)  # "over 4 of 10 scored queries: intent = how-to"
    summary = next(d.value for d in app.dataframe if "Metric" in d.value.columns)
    row = summary.set_index("Metric").loc["nDCG@5"]
    for run in chosen.runs:
        nDCG = run.summary["nDCG"]
        assert row[run.name] == fmt.interval(nDCG.mean, nDCG.low, nDCG.high), run.name
    for page in ("heatmap", "drilldown", "compare", "sweep", "export", "method_notes"):
        app.switch_page(f"app_pages/{page}.py").run()
        assert not app.exception and chosen.scope in texts(app), page
    app.switch_page("app_pages/drift.py").run()  # drift reads every query, and says so
    assert not app.exception and "Drift reads every query of the set" in texts(app)
    app.switch_page("app_pages/drilldown.py").run()
    options = app.selectbox(key="drilldown.query").options
    assert [option.split(" · ")[0] for option in options] == chosen.scored_ids


def test_a_link_carries_the_filter_and_names_what_it_cannot_use(sample):
    from metrics import filter_evaluation

    intent = facets(load_queries(SAMPLE_DIR / "queries.csv"), sample.scored_ids)["intent"]
    app = open_app(where="intent", **{"is": ["lookup", "nonsense"]})
    assert filter_evaluation(sample, intent, ["lookup"]).scope in texts(app)
    assert "is='nonsense' ignored: not a value of 'intent'" in texts(app)
    app = open_app(where="colour", **{"is": ["red"]})
    assert "where='colour' ignored" in texts(app) and " scored queries: " not in texts(app)


def test_the_drilldown_shows_each_chunk_with_the_question_s_words_marked():
    from metrics import read_corpus

    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl", ["d41"])
    app = open_app("drilldown")
    app.selectbox(key="drilldown.query").select("q05").run()
    ranks = next(d.value for d in app.dataframe if "DCG" in d.value.columns)
    assert ranks["chunk"].iloc[0].startswith(corpus.title(ranks["doc_id"].iloc[0]) or "")
    html = app.get("html")[0].proto.body
    assert "<mark>invoice</mark>" in html and "<mark>charged</mark>" in html
    assert "<mark>why</mark>" not in html  # a function word is not marked


def test_a_hostile_corpus_reaches_the_page_as_text():
    corpus = (b'{"_id": "d01", "title": "<script>alert(1)</script>", "text": "refund '
              b'<img src=x onerror=alert(2)> policy [x](javascript:alert(3))"}\n')
    app = upload(open_app(), [("baseline.run", (SAMPLE_DIR / "baseline.run").read_bytes())],
                 (SAMPLE_DIR / "qrels.txt").read_bytes(),
                 queries=("queries.csv", (SAMPLE_DIR / "queries.csv").read_bytes()),
                 corpus=("corpus.jsonl", corpus))
    assert not app.exception
    sidebar = shown(" ".join(c.value for c in app.sidebar.caption))
    assert "corpus.jsonl: 1 line read, 1 of 43 wanted ids found" in sidebar  # baseline's + qrels'
    assert "42 not in the corpus ('d02', " in sidebar
    app.switch_page("app_pages/drilldown.py").run()
    app.selectbox(key="drilldown.query").select("q01").run()
    html = app.get("html")[0].proto.body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script" not in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html and "<img" not in html
    assert "<mark>refund</mark>" in html and "<mark>policy</mark>" in html
