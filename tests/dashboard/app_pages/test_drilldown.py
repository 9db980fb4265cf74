"""AppTest: the drill-down answers first (the query's figures at K for every run), steps to
the previous and next query, sets two runs side by side with what the query adds to their
difference, and takes grades for unjudged ids without touching the loaded qrels."""

from __future__ import annotations

import pytest

from metrics import query_contribution, query_figures, rescore
from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import open_app, texts, upload


def test_the_figures_at_k_come_first_and_are_the_engines(sample):
    app = open_app("drilldown", query="q03")
    table = app.dataframe[0].value
    assert list(table["Run"]) == sample.run_names
    engine = query_figures(sample, "q03").set_index("run")
    for _, row in table.iterrows():
        for key, label in (("nDCG", "nDCG@5"), ("P", "P@5"), ("Judged", "Judged@5")):
            assert row[label] == engine.loc[row["Run"], key]
    assert "q03 · " in texts(app)  # the question beside the id


def test_previous_and_next_step_through_the_listed_queries(sample):
    app = open_app("drilldown")
    first, second = sample.scored_ids[:2]
    assert app.selectbox(key="drilldown.query").value == first
    assert app.button(key="drilldown.previous").disabled
    app.button(key="drilldown.next").click().run()
    assert app.selectbox(key="drilldown.query").value == second
    app.button(key="drilldown.previous").click().run()
    assert app.selectbox(key="drilldown.query").value == first


def test_two_runs_side_by_side_and_what_the_query_adds(sample):
    app = open_app("drilldown", query="q03")
    assert app.selectbox(key="drilldown.a").value == "baseline"
    app.selectbox(key="drilldown.b").select("bm25").run()
    contribution = app.dataframe[1].value
    engine = query_contribution(sample, "baseline", "bm25", "q03")
    assert list(contribution["difference"]) == pytest.approx(list(engine["difference"]))
    assert "adds" in texts(app) and "to their mean difference" in texts(app)


def test_a_grade_given_inline_is_listed_downloadable_and_rescored(sample):
    app = open_app("drilldown", query="q03")
    assert "Grade the" in " ".join(e.label for e in app.expander)
    app.segmented_control(key="judge.q03.d90").set_value("2").run()
    assert "Your labels (1)" in texts(app)
    labels = [d for d in app.get("download_button") if "labels" in d.proto.label.lower()]
    assert labels, "no download of the labels"
    app.toggle(key="labels.rescore").set_value(True).run()
    expected = rescore(sample, {("q03", "d90"): 2})
    assert expected.sentence in texts(app)
    # the loaded qrels are as they were: the summary on the Overview reads them
    app.switch_page("app_pages/overview.py").run()
    summary = app.dataframe[0].value.set_index("Metric")
    assert summary.loc["Hit@5", "baseline"].startswith("0.778")  # 7 of 9, as loaded
    app.switch_page("app_pages/drilldown.py").run()
    app.segmented_control(key="judge.q03.d90").set_value(None).run()  # taken back
    assert "Your labels" not in texts(app)


def test_each_run_s_ranks_are_written_out_under_its_own_tab(sample):
    """The rank-by-rank part draws the chosen run alone (the first by default): the others'
    ranked lists are the page's heaviest part, drawn again on every change."""
    from metrics import explain_run

    sentences = {run.name: explain_run(sample, run, "q04").sentences["dcg"]
                 for run in sample.runs}
    assert len(set(sentences.values())) == len(sentences)  # each run's own words
    app = open_app("drilldown", query="q04")
    for chosen in (sample.run_names[0], sample.run_names[-1]):
        if chosen != sample.run_names[0]:
            app.session_state["drilldown.run_tab"] = chosen
            app.run()
        said = texts(app)
        assert [name for name, dcg in sentences.items() if dcg in said] == [chosen]


def test_an_empty_slot_is_not_offered_for_grading():
    """With unjudged ids dropped, q06's lists end before K: their empty slots (NaN in a
    pandas 3 str column) were offered as an unjudged id named "nan"."""
    app = open_app("drilldown", query="q06", unjudged="drop", k="3")
    grades = [c.key for c in app.get("button_group") if (c.key or "").startswith("judge.")]
    assert grades == []
    assert "nan" not in texts(app).split()


def test_a_grade_control_s_label_is_read_out_without_markdown_escapes():
    """The grade control's label is hidden and read out as written (Streamlit hands it to
    the aria-label): an id such as uuid.uuid1 is read as 'Grade of uuid.uuid1', not
    'Grade of uuid\\.uuid1'; Markup in an id is still escaped."""
    runs = [(name, (SAMPLE_DIR / name).read_bytes()) for name in ("baseline.run", "bm25.run")]
    extra = b"q03 Q0 uuid.uuid1 1 99.0 x\nq03 Q0 a*b 2 98.0 x\n"
    runs[0] = (runs[0][0], extra + runs[0][1])
    app = upload(open_app(), runs, (SAMPLE_DIR / "qrels.txt").read_bytes())
    app.switch_page("app_pages/drilldown.py").run()
    app.selectbox(key="drilldown.query").select("q03").run()
    assert not app.exception, [e.value for e in app.exception]
    labels = {c.key: c.label for c in app.segmented_control}
    assert labels["judge.q03.uuid.uuid1"] == "Grade of uuid.uuid1"
    assert labels["judge.q03.a*b"] == "Grade of a\\*b"
