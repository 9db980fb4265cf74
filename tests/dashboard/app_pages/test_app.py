"""AppTest: every page on the sample shows the engine's figures; K, a convention, the runs and
the selected query change what is shown; the URL reproduces a view; a bad upload is reported."""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from metrics import SUMMARY_MEASURES, Conventions, load_sample
from metrics.core.sample import SAMPLE_DIR
from metrics.vocabulary.format import interval as format_interval
from tests.dashboard.conftest import (
    PAGES,
    chart_nodes,
    chart_specs,
    open_app,
    shown,
    texts,
    upload,
    vega_lite_errors,
)

QRELS = (SAMPLE_DIR / "qrels.txt").read_bytes()
BASELINE = (SAMPLE_DIR / "baseline.run").read_bytes()


def summary_cells(app) -> dict[tuple[str, str], str]:
    """(run, metric label) -> the cell the overview shows."""
    table = app.dataframe[0].value
    runs = [c for c in table.columns if c not in ("Metric", "Interval", "Conventions")]
    return {(run, row["Metric"]): row[run] for _, row in table.iterrows() for run in runs}


def engine_cells(evaluation) -> dict[tuple[str, str], str]:
    return {
        (run.name, evaluation.label(m.key)): format_interval(
            run.summary[m.key].mean, run.summary[m.key].low, run.summary[m.key].high)
        for run in evaluation.runs
        for m in SUMMARY_MEASURES
    }


@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_runs_on_the_sample(page):
    app = open_app(page)
    assert app.title, f"{page} shows no title"
    assert "K = 5" in texts(app)
    assert not app.error
    for spec in chart_specs(app):  # sent unchecked: the schema is checked here
        assert not vega_lite_errors(spec), (page, vega_lite_errors(spec)[:3])


def test_the_chart_check_finds_a_broken_chart():
    spec = chart_specs(open_app("sweep"))[0]
    assert not vega_lite_errors(spec)
    assert vega_lite_errors({**spec, "mark": {"type": "no such mark"}})


def test_overview_shows_the_engines_summary(sample):
    app = open_app()
    cells = summary_cells(app)
    assert cells[("baseline", "Hit@5")] == "0.778 [0.453, 0.937]"
    assert cells == engine_cells(sample)


def test_overview_counts_and_diagnosis_match_the_engine(sample):
    app = open_app()
    counts = next(d.value for d in app.dataframe if "Scored" in d.value.columns).set_index("Run")
    for run in sample.runs:
        assert counts.loc[run.name, "Scored"] == 9
        assert counts.loc[run.name, "Excluded"] == 1
        assert counts.loc[run.name, "Repeats"] == run.repeats
        assert counts.loc[run.name, "Miss"] == int((run.classes == "miss").sum())
    shown = texts(app)
    for run in sample.runs:
        assert f"Suggested K = {run.suggestion.k}" in shown
        for finding in run.diagnosis:
            assert finding.sentence in shown
    assert "Excluded queries" in shown and "q08" in shown


def test_sweep_bands_do_not_break_the_page():
    app = open_app("sweep")
    app.toggle(key="sweep.bands").set_value(True).run()
    assert not app.exception


@pytest.mark.parametrize(
    ("page", "index", "engine_frame", "column"),
    [
        ("sweep", "k", lambda evaluation: evaluation.sweep(), "P"),
        ("heatmap", "query_id", lambda evaluation: evaluation.per_query(), "nDCG"),
    ],
)
def test_page_tables_hold_the_engines_figures(sample, page, index, engine_frame, column):
    table = open_app(page).dataframe[0].value.set_index(index)
    frame = engine_frame(sample)
    for run in sample.run_names:
        expected = frame[frame["run"] == run].set_index(index)[column]
        assert table[run].to_dict() == expected.to_dict()


def test_the_query_picked_on_the_heatmap_opens_in_the_drilldown():
    app = open_app("heatmap")
    app.selectbox(key="heatmap.query").select("q09").run()
    link = app.get("page_link")[0]
    assert link.proto.label == "Open q09 in the drill-down"
    assert link.proto.page.endswith("drilldown")
    app.switch_page(PAGES["drilldown"]).run()  # what following the link does
    assert not app.exception
    assert "### q09" in texts(app)
    assert app.query_params["query"] == "q09"


def test_drilldown_writes_out_the_engines_figures(sample):
    app = open_app("drilldown")
    app.selectbox(key="drilldown.query").select("q04").run()
    shown = texts(app)
    baseline = sample.run("baseline")
    q = list(sample.query_set.query_ids).index("q04")
    dcg, idcg, ndcg = (baseline.scores.values[key][q, 4] for key in ("DCG", "IDCG", "nDCG"))
    assert f"DCG@5 / IDCG@5 = {dcg:.3f} / {idcg:.3f} = {ndcg:.3f}" in shown
    assert "= 0.845" in shown
    assert f"{baseline.scores.values['AP'][q, 4]:.3f}" in shown


def test_changing_the_selected_query_changes_the_drilldown():
    app = open_app("drilldown")
    first = texts(app)
    app.selectbox(key="drilldown.query").select("q03").run()
    second = texts(app)
    assert first != second
    assert "### q03" in second
    assert "First relevant id at rank 6, below K = 5" in second


def test_method_notes_state_the_limits_and_every_metric():
    from metrics import CONVENTIONS, LIMITS

    shown = texts(open_app("method_notes"))
    for limit in LIMITS:
        assert limit in shown
    for measure in SUMMARY_MEASURES:
        assert measure.name in shown and measure.certifies in shown and measure.silent in shown
    for convention in CONVENTIONS:  # every choice's sentence, from the vocabulary
        for choice in convention.choices:
            assert choice.sentence in shown


def test_changing_k_changes_every_figure():
    app = open_app()
    app.number_input(key="settings.k").set_value(3).run()
    assert summary_cells(app) == engine_cells(load_sample(3))
    assert app.query_params["k"] == "3"


@pytest.mark.parametrize(
    ("widget", "value", "conventions"),
    [
        ("settings.gain", "exponential", Conventions(gain="exponential")),
        ("settings.recall_denominator", "min", Conventions(recall_denominator="min")),
        ("settings.rr", "full", Conventions(rr="full")),
        ("settings.empty_queries", "zero", Conventions(empty_queries="zero")),
    ],
)
def test_changing_a_convention_changes_the_figures(widget, value, conventions):
    app = open_app()
    before = summary_cells(app)
    app.radio(key=widget).set_value(value).run()
    after = summary_cells(app)
    assert after != before
    assert after == engine_cells(load_sample(5, conventions))


# a label claiming a cutoff for RR or AP (a generic "AP@K" in a sentence about the measure
# aside): under rr=full and ap=full, no figure read over the whole list may carry one
CUT_RR_OR_AP = re.compile(r"\b(?:M?RR@(?:\d+|K)|MAP@(?:\d+|K)|AP@\d+)\b")


def _everything_shown(app) -> str:
    """Every text, table cell, header and index, and every option of a picker, on the page."""
    parts = [texts(app)]
    for frame in app.dataframe:
        value = frame.value
        parts += [str(c) for c in value.columns] + [str(i) for i in value.index]
        parts += [str(cell) for cell in value.astype(str).to_numpy().ravel()]
    for picker in (*app.selectbox, *app.multiselect, *app.radio):
        parts += [str(option) for option in picker.options]
    return "\n".join(parts)


@pytest.mark.parametrize("page", list(PAGES))
def test_a_figure_read_over_the_full_list_is_named_without_a_cutoff(page):
    """RR and AP read over the full list (the sidebar's rr and ap): MRR and MAP on every page,
    in every table, picker and sentence, never MRR@5 or MAP@5."""
    app = open_app(page, rr="full", ap="full")
    assert not CUT_RR_OR_AP.findall(_everything_shown(app))
    if page == "overview":
        assert {"MRR", "MAP"} <= set(app.dataframe[0].value["Metric"])
        app.radio(key="settings.rr").set_value("cutoff").run()
        assert "MRR@5" in set(app.dataframe[0].value["Metric"])


def test_every_sidebar_convention_is_in_the_url_under_its_declared_name():
    from metrics import CONVENTIONS

    for convention in CONVENTIONS:
        if not convention.choices or not convention.in_sidebar:
            continue
        other = convention.values[1]
        app = open_app(**{convention.url: other})
        assert app.radio(key=f"settings.{convention.field}").value == other
        assert app.query_params[convention.url] == other
        labels = [c.label for c in convention.choices]
        assert app.radio(key=f"settings.{convention.field}").options == labels


def test_confidence_level_changes_only_the_intervals():
    app = open_app()
    app.number_input(key="settings.confidence_level").set_value(0.9).run()
    assert summary_cells(app) == engine_cells(load_sample(5, Conventions(confidence_level=0.9)))
    assert app.query_params["confidence"] == "0.9"


def test_the_url_reproduces_a_view():
    app = open_app("drilldown", k="3", gain="exponential", runs=["bm25", "baseline"],
                   query="q09")
    shown = texts(app)
    assert "**K = 3**" in shown and "### q09" in shown
    assert "baseline **bm25**" in shown
    app.switch_page(PAGES["overview"] or "app_pages/overview.py").run()
    expected = load_sample(3, Conventions(gain="exponential"))
    cells = summary_cells(app)
    assert list(app.dataframe[0].value.columns[1:3]) == ["bm25", "baseline"]
    assert cells[("bm25", "nDCG@3")] == engine_cells(expected)[("bm25", "nDCG@3")]


def test_a_bad_url_value_is_reported_and_ignored():
    app = open_app(k="zero", gain="cubic", confidence="2")
    warnings = " ".join(shown(w.value) for w in app.warning)
    assert "k='zero' ignored" in warnings and "gain='cubic' ignored" in warnings
    assert "confidence='2' ignored" in warnings
    assert "k='5000' ignored" in " ".join(shown(w.value) for w in open_app(k="5000").warning)
    assert summary_cells(app)[("baseline", "Hit@5")] == "0.778 [0.453, 0.937]"


def test_runs_can_be_hidden_reordered_and_renamed(sample):
    app = open_app()
    app.multiselect(key="runs.shown").set_value(["reranked", "baseline"]).run()
    table = app.dataframe[0].value
    assert list(table.columns[1:3]) == ["reranked", "baseline"] and "bm25" not in table
    app.text_input(key="runs.name.reranked").input("cross-encoder").run()
    cells = summary_cells(app)
    assert cells[("cross-encoder", "Hit@5")] == engine_cells(sample)[("reranked", "Hit@5")]
    assert "baseline **cross-encoder**" in texts(app)


def test_a_malformed_upload_shows_its_error_and_the_rest_works(sample):
    app = upload(open_app(), [("good.run", BASELINE), ("bad.run", b"q01 Q0 d01\n")], QRELS)
    assert not app.exception
    errors = [shown(e.value) for e in app.error]
    assert errors == ["bad.run, line 1: expected 6 columns (qid Q0 docid rank score tag), got 3"]
    cells = summary_cells(app)
    assert cells[("good", "Hit@10")] == engine_cells(load_sample(10))[("baseline", "Hit@10")]
    for page in ("sweep", "heatmap", "drilldown", "method_notes"):
        app.switch_page(PAGES[page]).run()
        assert not app.exception, page


def parquet_bytes(columns: dict) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue().to_pybytes()


def not_utf8(text: str) -> pa.Array:
    """One string starting with the byte 0x80 (no UTF-8 text holds it; Parquet stores it)."""
    raw = b"\x80" + text.encode()
    offsets = pa.py_buffer(np.array([0, len(raw)], np.int32).tobytes())
    return pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(raw)])


def test_uploads_with_ids_that_are_not_utf8_are_refused_naming_the_row():
    """Parquet uploads whose ids are not UTF-8 (the qrels' and a run's) were read, and every
    page then stopped on an exception: each is now refused as the command line refuses it,
    naming its file and row, and the pages stand."""
    ids = pa.concat_arrays([pa.array(["d1"]), not_utf8("d2")])
    qrels = parquet_bytes({"query_id": ["q01", "q01"], "doc_id": ids, "grade": [1, 1]})
    run = parquet_bytes({"query_id": ["q01", "q01"], "doc_id": ids, "rank": [1, 2]})
    app = open_app()
    app.radio(key="load.source").set_value("upload").run()
    app.file_uploader(key="load.qrels").set_value(("labels.parquet", qrels, "text/plain"))
    app.file_uploader(key="load.runs").set_value(
        [("good.run", BASELINE, "text/plain"), ("odd.parquet", run, "text/plain")]).run()
    assert not app.exception, [e.value for e in app.exception]
    shown_errors = " ".join(shown(e.value) for e in app.error)
    assert "labels.parquet, row 2: doc id b'\\x80d2' is not valid UTF-8" in shown_errors
    assert "odd.parquet, row 2: doc id b'\\x80d2' is not valid UTF-8" in shown_errors
    app.file_uploader(key="load.qrels").set_value(("qrels.txt", QRELS, "text/plain")).run()
    for page in PAGES:
        app.switch_page(PAGES[page] or "app_pages/overview.py").run()
        assert not app.exception, (page, [e.value for e in app.exception])
    assert "odd.parquet, row 2: doc id" in " ".join(shown(e.value) for e in app.error)


def test_a_malformed_qrels_upload_is_reported():
    app = upload(open_app(), [("good.run", BASELINE)], b"q01 0 d01 relevant\n")
    assert not app.exception
    assert any("qrels.txt, line 1" in shown(e.value) for e in app.error)
    assert any("The qrels file was refused" in shown(e.value) for e in app.main.error)


def test_a_jsonl_run_with_labels_stands_alone():
    records = [
        {"query_id": "a", "retrieved": ["x", "y", "z"], "relevant": ["y"]},
        {"query_id": "b", "retrieved": ["u", "v"], "relevant": ["w"]},
    ]
    data = "\n".join(json.dumps(r) for r in records).encode()
    app = upload(open_app(), [("labelled.jsonl", data)])
    assert not app.error
    cells = summary_cells(app)
    assert cells[("labelled", "Hit@10")].startswith("0.500 ")


def test_no_scored_query_is_said_plainly():
    app = open_app(level="9")  # no grade reaches 9
    assert any("No query of the qrels has a relevant id" in shown(w.value) for w in app.warning)


def test_a_trec_run_without_qrels_says_what_is_missing():
    app = upload(open_app(), [("good.run", BASELINE)])
    assert any(shown(e.value).startswith("No qrels file") for e in app.error)


def invalid_url_values() -> list[tuple[str, str]]:
    from dashboard.state import link

    values = {"source": "bogus", "k": "0", "level": "0", "confidence": "0.2",
              "correction": "x", "alpha": "2"}
    values |= {name: "not-a-choice" for name in link.PARAMS if name not in values}
    # names of data: see the tests below (facet and filter: tests/dashboard/app_pages/test_queries)
    for name in ("runs", "query", "files", "queries_file", "corpus_file", "baseline", "facet",
                 "where", "is", "find"):
        values.pop(name)
    return sorted(values.items())


@pytest.mark.parametrize(("name", "value"), invalid_url_values())
def test_every_invalid_url_value_gets_its_default_and_a_message(name, value):
    from dashboard.state import link, session

    app = open_app(**{name: value})
    warnings = " ".join(shown(w.value) for w in app.warning)
    assert f"{name}={value!r} ignored" in warnings and "the default is used" in warnings
    param = link.PARAMS[name]
    assert app.session_state[param.key] == session.defaults()[param.key]


def test_unknown_runs_and_queries_in_a_link_are_named_not_silently_dropped():
    app = open_app("drilldown", runs=["bm25", "bm25", "nope"], query="q99")
    warnings = " ".join(shown(w.value) for w in app.warning)
    assert "a run named more than once is shown once" in warnings
    assert "no run named nope" in warnings
    assert "Query q99 is not among the scored queries listed here" in warnings
    assert app.multiselect(key="runs.shown").value == ["bm25"]


def _init_and_show():
    import streamlit as st

    from dashboard.state import link, session

    link.init()
    st.text(repr(st.session_state[session.settings_key("relevance_level")]))


def test_a_setting_survives_a_run_that_dropped_its_widget_state():
    """Streamlit forgets a widget's value after a run that did not draw it; the sidebar
    must come back with the user's last drawn value, not the widget's minimum."""
    app = open_app()
    app.number_input(key="settings.relevance_level").set_value(2).run()
    assert app.session_state["kept.settings.relevance_level"] == 2
    fresh = AppTest.from_function(_init_and_show)
    fresh.session_state["kept.settings.relevance_level"] = 2  # the widget's own key is gone
    fresh.run()
    assert fresh.text[0].value == "2"


def test_a_run_whose_query_ids_meet_none_of_the_labels_is_named_where_the_figures_are():
    renamed = b"".join(b"query_" + line for line in BASELINE.splitlines(keepends=True))
    app = upload(open_app(), [("good.run", BASELINE), ("renamed.run", renamed)],
                 (SAMPLE_DIR / "qrels.txt").read_bytes())
    warnings = " ".join(shown(w.value) for w in app.warning)
    assert "run 'renamed' shares no query id with the qrels" in warnings
    assert "Likely cause: the run's ids start with 'query_q'" in warnings
    assert "good" not in warnings and "Link parameter" not in warnings
    # the sidebar counts lines as the load report does: none of renamed's lines was used
    sidebar = " ".join(shown(c.value) for c in app.sidebar.caption)
    overview = " ".join(e.label for e in app.expander)
    assert "renamed.run: 100 lines read, 0 used, 100 dropped" in sidebar
    assert "renamed.run: 100 lines read, 0 used, 100 dropped" in shown(overview)


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.dictionaries(st.sampled_from(["k", "gain", "level", "confidence", "runs", "query",
                                        "recall", "scores", "empty", "alpha", "source"]),
                       st.text(max_size=40), min_size=1, max_size=4))
def test_random_url_values_give_a_page_or_a_message_never_a_traceback(params):
    app = open_app("overview", **params)  # open_app asserts no exception
    assert app.dataframe or app.warning or app.info


def test_an_empty_my_files_screen_shows_every_format_and_the_sample_files():
    from metrics import FORMAT_EXAMPLES

    app = open_app(source="upload")
    assert "What to upload" in texts(app)
    shown_code = [c.value for c in app.code]
    for example in FORMAT_EXAMPLES:
        assert example.text.rstrip("\n") in shown_code
    assert "Upload a qrels file and at least one run." in texts(app)


def test_a_refused_qrels_file_is_said_where_the_figures_would_be():
    app = upload(open_app(), [("good.run", BASELINE)], (SAMPLE_DIR / "bm25.run").read_bytes())
    main = " ".join(shown(e.value) for e in app.main.error)
    assert "The qrels file was refused, so nothing can be scored" in main
    assert "it looks like a run file" in main


def test_a_link_to_uploaded_files_names_the_files_to_upload_again():
    app = open_app(source="upload", files=["qrels.txt", "bm25.run", "dense.run"],
                   names=["bm25=BM25 (tuned)"], k="7")
    info = " ".join(shown(i.value) for i in app.info)
    assert "upload them again" in info and "qrels.txt, bm25.run, dense.run" in info
    assert app.session_state["runs.name.bm25"] == "BM25 (tuned)"


def test_run_names_and_the_compare_baseline_are_in_the_url():
    app = open_app()
    app.text_input(key="runs.name.reranked").input("cross encoder").run()
    app.switch_page(PAGES["compare"]).run()
    app.selectbox(key="compare.baseline").select("bm25").run()
    # the baseline is the first run shown: the link carries it in the runs' order
    assert app.query_params["runs"][0] == "bm25" and "baseline" not in app.query_params
    assert app.query_params["names"] == "reranked=cross encoder"
    again = open_app("compare", baseline="bm25", names=["reranked=cross encoder"])
    assert again.selectbox(key="compare.baseline").value == "bm25"
    assert "cross encoder against bm25" in texts(again)


def _chart_query_ids(app) -> set[str]:
    """The query ids in the data the page's first chart sends (its Arrow datasets)."""
    chart = chart_nodes(app)[0]
    ids = set()
    for dataset in chart.proto.datasets:
        table = pa.ipc.open_stream(dataset.data.data).read_all()
        if "query_id" in table.column_names:
            ids |= set(table.column("query_id").to_pylist())
    return ids


def test_the_heatmap_pages_through_the_queries_in_the_chosen_order():
    app = open_app("heatmap")
    app.number_input(key="heatmap.rows").set_value(3).run()
    every = list(app.dataframe[-1].value["query_id"])  # the table view: every scored query
    assert _chart_query_ids(app) == set(every[:3])
    app.number_input(key="heatmap.page").set_value(2).run()
    assert not app.exception
    assert _chart_query_ids(app) == set(every[3:6])
    assert any(f"Showing queries 4–6 of {len(every)} scored queries (page 2 of "
               f"{-(-len(every) // 3)})" in c.value for c in app.caption)
    app.number_input(key="heatmap.rows").set_value(len(every)).run()  # one page: back to 1
    assert app.number_input(key="heatmap.page").value == 1
    assert _chart_query_ids(app) == set(every)
