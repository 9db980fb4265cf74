"""AppTest: the measures the sidebar adds (or a link's m=) reach every page with the engine's
figures: the summary, the sweep, the precision-recall curve, the heatmap, Compare, the
drill-down's arithmetic, the LaTeX table; the Overview sets each figure's ordering of the runs
against the headline's; a bad name is named with the closest names and left out."""

from __future__ import annotations

from dashboard.safe import md
from metrics import geometric_difference_of, load_sample, measure_agreements
from metrics.vocabulary.agreement import tau_text
from metrics.vocabulary.format import difference
from metrics.vocabulary.format import interval as format_interval
from tests.dashboard.app_pages.test_app import summary_cells
from tests.dashboard.conftest import open_app, shown, texts

ADDED = ["Rprec", "ERR@10", "RBP(p=0.8)", "P(rel=2)"]


def test_the_measures_added_join_the_summary_with_the_engines_figures():
    app = open_app(m=ADDED)
    engine = load_sample(5).with_measures(ADDED)
    cells = summary_cells(app)
    for spec in engine.asked:
        for run in engine.runs:
            figure = run.summary[spec.key]
            assert cells[(run.name, engine.label(spec.key))] == format_interval(
                figure.mean, figure.low, figure.high)
    table = app.dataframe[0].value.set_index("Metric")
    assert table.loc["P(rel=2)@5", "Conventions"].endswith("relevant from grade 2")


# issue 51: the user-model measures, offered in More measures like the others
USER_MODELS = ["INST(T=2)", "INSQ", "NERR8@10", "NERR10", "NERR11", "Compat"]


def test_the_user_model_measures_join_the_summary_with_the_engines_figures():
    app = open_app(m=USER_MODELS)
    engine = load_sample(5).with_measures(USER_MODELS)
    cells = summary_cells(app)
    for spec in engine.asked:
        for run in engine.runs:
            figure = run.summary[spec.key]
            assert cells[(run.name, engine.label(spec.key))] == format_interval(
                figure.mean, figure.low, figure.high)
    table = app.dataframe[0].value.set_index("Metric")
    assert "T = 2" in table.loc["INST(T=2)", "Conventions"]


def test_the_overview_sets_every_ordering_against_the_headline():
    app = open_app(m=["Rprec"])
    table = next(d.value for d in app.dataframe if "tau_AP" in d.value.columns)
    engine = load_sample(5).with_measures(["Rprec"])
    keys = [s.key for s in engine.summary_specs if s.measure.compared]
    expected = measure_agreements(engine, keys, against="nDCG")
    assert list(table["Against"]) == [a.second for a in expected]
    assert list(table["tau"]) == [tau_text(a.tau, a.tau_undefined) for a in expected]
    assert "Do the metrics order the runs alike?" in texts(app)


def test_a_bad_name_in_a_link_is_named_and_the_default_kept():
    app = open_app(m=["nDGC@10"])
    said = [shown(w.value) for w in app.warning]
    assert any("m='nDGC@10' ignored: unknown metric 'nDGC@10'; did you mean nDCG@10?" in w
               for w in said)
    assert all("nDGC" not in label for _, label in summary_cells(app))


def test_a_name_typed_in_the_sidebar_is_checked_by_the_engine():
    app = open_app()
    app.multiselect(key="measures.added").set_value(["Bpref", "P(rel=0)"]).run()
    assert any("rel must be an integer from 1 to" in e.value for e in app.error)
    labels = {label for _, label in summary_cells(app)}
    assert "Bpref" in labels and not any(label.startswith("P(rel=0)") for label in labels)


def test_the_sweep_draws_the_precision_recall_curve_on_request():
    app = open_app("sweep", m=["ERR"])
    assert "ERR@K" in app.multiselect(key="sweep.metrics").value
    app.toggle(key="sweep.pr_curve").set_value(True).run()
    assert not app.exception
    levels = app.dataframe[-1].value
    engine = load_sample(5).with_measures([f"IPrec@{x / 10:g}" for x in range(11)])
    for run in engine.runs:
        assert list(levels[run.name]) == [run.summary[f"IPrec@{x / 10:g}"].mean
                                          for x in range(11)]


def test_the_drilldown_writes_the_measures_added_out():
    app = open_app("drilldown", m=["Bpref", "RBP(p=0.8)"], query="q04")
    said = texts(app)
    assert "**Bpref** = (1.000 + 0.000 + 0.000 + 0.000) / R = 1.000 / 4 = 0.250" in said
    assert "**RBP(p=0.8)@5** = (1 - p) × (the sum of p^(rank - 1)" in said


def test_heatmap_and_compare_offer_the_measures_added():
    app = open_app("heatmap", m=["Rprec", "NumRet"])
    options = app.selectbox(key="heatmap.metric").options
    assert any(o.startswith("Rprec") for o in options)
    assert not any(o.startswith("NumRet") for o in options)  # a count does not colour 0-1
    app = open_app("compare", m=["Rprec"])
    assert "Rprec" in app.multiselect(key="compare.metrics").options


def test_export_offers_the_latex_table():
    app = open_app("export", m=["Rprec"])
    code = next(c.value for c in app.code if "\\begin{tabular}" in c.value)
    assert "Rprec" in code and "\\toprule" in code
    assert any(b.proto.label == "Download table (LaTeX)" for b in app.get("download_button"))


def test_compare_shows_gm_map_against_its_baseline():
    app = open_app("compare", m=["gm_map"])
    evaluation = load_sample(5)
    baseline = evaluation.run_names[0]
    table = next(d.value for d in app.dataframe if "gm_map" in d.value.columns)
    candidates = [run for run in table["Run"] if run != baseline]
    assert list(table["Run"])[0] == baseline and candidates
    for run in candidates:
        paired = geometric_difference_of(evaluation, run, baseline)
        row = table[table["Run"] == run].iloc[0]
        assert row[f"Against {baseline}"] == difference(paired.difference, paired.low,
                                                        paired.high)
    assert f"{md('gm_map')}: geometric mean over the queries" in [h.value for h in app.subheader]
