"""AppTest: the Compare page shows metrics.compare's figures on the sample (baseline against
reranked and bm25), says which test and correction it used, follows the correction and the
baseline picked, lists gains and losses, shows rank movement, and compares against a
snapshot; the Export page carries the same comparison."""

from __future__ import annotations

import pytest

from dashboard.report import exports
from metrics import baseline_comparison, load_queries, power_table, sample_qrels
from metrics import format as fmt
from metrics.core.compare import compare_evaluation
from tests.dashboard.conftest import PAGES, open_app, texts


@pytest.fixture(scope="module")
def engine(sample):
    """The comparison the page shows by default: the engine's defaults, the sample's seed."""
    return baseline_comparison(sample)


def table(app, candidate: str):
    """The comparison table shown under "<candidate> against ...", indexed by metric."""
    titles = [s.value for s in app.subheader]
    position = [i for i, t in enumerate(titles) if t.startswith(f"{candidate} against")]
    assert position, titles
    return app.dataframe[position[0]].value.set_index("Metric")


def test_the_table_holds_the_engines_figures(engine):
    app = open_app("compare")
    shown = table(app, "reranked")
    test = engine.test("reranked", "nDCG@5")
    row = shown.loc["nDCG@5"]
    assert row["Difference"] == test.difference
    assert (row["Before"], row["After"]) == (test.before_mean, test.after_mean)
    assert row["p adjusted"] == fmt.p_value(test.p_adjusted)
    assert row["p"] == fmt.p_value(test.p_randomization)
    assert row["Interval"] == f"[{test.low:+.3f}, {test.high:+.3f}]"
    assert row["Better / tie / worse"] == f"{test.wins} / {test.ties} / {test.losses}"
    assert row["Effect size"] == test.effect_size
    power = {(f.candidate, f.metric): f.sentence for f in power_table(engine)}
    for t in engine.tests:
        assert table(app, t.candidate).loc[t.metric, "Difference"] == t.difference
        reading = f"{engine.verdict(t)}; {power[t.candidate, t.metric]}"
        assert f"**{t.metric}**: {reading}." in texts(app)


def test_the_page_names_its_test_and_the_family_corrected():
    shown = texts(open_app("compare"))
    assert "Paired randomization (sign-flip) test" in shown
    assert "Smucker, Allan and Carterette 2007" in shown
    assert "Holm correction over the 16 comparisons (2 candidates × 8 metrics)" in shown


@pytest.mark.parametrize("correction", ["bh", "none"])
def test_changing_the_correction_changes_the_adjusted_p(sample, correction):
    # on nine queries Holm and Benjamini-Hochberg both reach 1 over 16 comparisons; over two
    # (reranked on MAP and CP: raw p 0.285 and 0.219) every correction differs
    app = open_app("compare")
    app.multiselect(key="compare.candidates").set_value(["reranked"]).run()
    app.multiselect(key="compare.metrics").set_value(["AP", "CP"]).run()
    holm = table(app, "reranked")["p adjusted"].to_dict()
    app.radio(key="compare.correction").set_value(correction).run()
    after = table(app, "reranked")
    assert after["p adjusted"].to_dict() != holm
    expected = compare_evaluation(sample, candidates=["reranked"], metrics=["AP", "CP"],
                                  correction=correction, rng=sample.conventions.seed)
    for t in expected.tests:
        assert after.loc[t.metric, "p adjusted"] == fmt.p_value(t.p_adjusted)
    assert app.query_params["correction"] == correction
    assert "2 comparisons (1 candidate × 2 metrics)" in texts(app)
    if correction == "none":
        assert (after["p adjusted"] == after["p"]).all()
        assert "not corrected over the 2 comparisons" in texts(app)


def test_the_choices_survive_a_page_switch_and_come_from_the_url():
    app = open_app("compare", correction="bh", alpha="0.1")
    assert "Benjamini-Hochberg correction over the 16 comparisons" in texts(app)
    assert "adjusted p is below 0.1" in texts(app)
    app.radio(key="compare.correction").set_value("none").run()
    app.switch_page(PAGES["heatmap"]).run()
    app.switch_page(PAGES["compare"]).run()
    assert app.radio(key="compare.correction").value == "none"


def test_picking_another_baseline_compares_against_it(sample):
    app = open_app("compare")
    app.selectbox(key="compare.baseline").select("bm25").run()
    assert app.multiselect(key="compare.candidates").value == ["baseline", "reranked"]
    expected = compare_evaluation(sample, baseline="bm25", rng=sample.conventions.seed)
    shown = table(app, "reranked")
    assert shown.loc["MRR@5", "Difference"] == expected.test("reranked", "MRR@5").difference


def test_fewer_metrics_make_a_smaller_family():
    app = open_app("compare")
    app.multiselect(key="compare.metrics").set_value(["nDCG", "RR"]).run()
    assert "4 comparisons (2 candidates × 2 metrics)" in texts(app)
    assert list(table(app, "reranked").index) == ["MRR@5", "nDCG@5"]


def test_gains_losses_and_rank_movement(engine):
    app = open_app("compare")
    frames_shown = [d.value for d in app.dataframe
                    if {"query_id", "before", "difference"} <= set(d.value.columns)]
    first_gain, first_loss = frames_shown[0].iloc[0], frames_shown[1].iloc[0]
    test = engine.test("reranked", "nDCG@5")
    i = engine.query_ids.index("q03")
    assert first_gain["query_id"] == "q03" and first_gain["difference"] == test.differences[i]
    assert first_loss["query_id"] == "q05"
    # the largest gain is the query shown by default; its rank movement names the ids
    assert app.selectbox(key="compare.query").value == "q03"
    assert "reranked lifted 2 relevant ids (d21, d22) into the top 5" in texts(app)
    links = [link.proto.label for link in app.get("page_link")]
    assert "Open q03 in the drill-down" in links
    # the harm section's link opens its worst loss (q03 gained): one link per section
    assert "Open q05 in the drill-down" in links
    assert next(m.value for m in app.metric if m.label == "nDCG@5 of q03") == (
        f"{test.after[i]:.3f}")
    app.selectbox(key="compare.query").select("q05").run()
    assert "Open q05 in the drill-down" in [link.proto.label for link in app.get("page_link")]
    assert app.query_params["query"] == "q05"  # the link follows the section's choice


def test_one_run_asks_for_a_second():
    app = open_app("compare", runs=["baseline"])
    assert any("Comparing needs a second run" in i.value for i in app.info)


def test_a_snapshot_run_can_be_the_baseline(sample, engine):
    app = open_app("compare")
    app.file_uploader(key="snapshots.files").set_value(
        [("old.json", exports.snapshot_json(sample, "old").encode(), "application/json")]).run()
    options = app.selectbox(key="compare.baseline").options  # as shown
    assert any(o.startswith("baseline · snapshot") for o in options), options
    # AppTest cannot pick an option whose shown name differs from its value: set the value
    snapshot = app.session_state["state.snapshots"][0]
    app.session_state["compare.baseline"] = f"snapshot|{snapshot.key}|baseline"
    app.run()
    assert not app.exception and not app.error
    assert "reranked against baseline (snapshot " in texts(app)
    # the frozen baseline holds the live baseline's figures: the same differences
    shown = table(app, "reranked")
    for t in engine.tests:
        if t.candidate == "reranked":
            assert shown.loc[t.metric, "Difference"] == pytest.approx(t.difference, abs=1e-12)
    assert any("a snapshot keeps only its figures" in i.value for i in app.info)
    # the live baseline as a candidate: it is the snapshot's own run, and the page says so
    app.multiselect(key="compare.candidates").set_value(["baseline", "reranked"]).run()
    shown_text = texts(app)
    assert "Snapshot figures: verified." in shown_text
    assert "baseline is the same run as the snapshot's baseline" in shown_text


def test_export_page_carries_the_comparison(sample, engine):
    app = open_app("export")
    # the pull request's comment, with the sample's questions beside its worst queries
    queries = load_queries(sample_qrels().parent / "queries.csv")
    assert app.code[0].value == exports.summary_markdown(sample, engine,
                                                         queries=queries).rstrip("\n")
    labels = [b.proto.label for b in app.get("download_button")]
    for label in ("Download report (HTML)", "Summary", "Per query", "Comparison",
                  "Save snapshot"):
        assert label in labels
    assert "reranked, bm25 against baseline on 8 metrics, Holm correction" in texts(app)


def test_every_chart_has_its_image_downloads():
    # Compare: each metric's difference (the first screen's), scatter, differences, losses,
    # slices (the sample has a queries file), rank movement; the Overview's headline picture
    # has none (the interval bars below it have theirs); the K sweep: its curves and, the
    # sample having a corpus, each K's figure against its tokens
    for page, charts_shown in (("overview", 1), ("sweep", 2), ("heatmap", 1), ("compare", 6)):
        labels = [b.proto.label for b in open_app(page).get("download_button")]
        assert labels.count("PNG") == labels.count("SVG") == charts_shown, page


def test_the_harm_section_says_what_the_harmed_queries_share_and_offers_every_loss():
    app = open_app("compare")
    said = texts(app)
    assert "What the queries reranked harms share" in said
    labels = [d.proto.label for d in app.get("download_button")]
    assert "Every loss, with the question and top chunks (CSV)" in labels


def test_the_overview_shows_every_run_against_the_baseline(sample):
    from metrics import compare_evaluation, run_table

    app = open_app()
    tables = [d.value for d in app.dataframe if list(d.value.columns)[:2] == ["Metric",
                                                                             "baseline"]]
    expected = run_table(sample, compare_evaluation(sample)).by_metric()
    assert any(t.equals(expected) for t in tables)
    assert "Holm correction over the 16 comparisons" in texts(app)


def test_rank_movement_opens_on_a_query_that_moved(sample):
    # q06, a complete miss for both, selected on the drill-down: nothing moves on it
    app = open_app("drilldown", query="q06")
    app.switch_page(PAGES["compare"]).run()
    chosen = app.selectbox(key="compare.query").value
    paired = compare_evaluation(sample)
    test = paired.test("reranked", "nDCG@5")
    moved = dict(zip(paired.query_ids, test.differences, strict=True))
    assert moved["q06"] == 0 and moved[chosen] != 0


def test_a_minimum_effect_changes_the_verdicts_and_is_stated(sample):
    """Issue 48: a significant difference smaller than the minimum effect is its own verdict,
    stated with the effect beside every verdict; the engine's comparison decides it."""
    from metrics import min_effect_sentence

    app = open_app("compare", min_effect="0.5")
    assert not app.exception, [e.value for e in app.exception]
    said = texts(app)
    assert min_effect_sentence(0.5) in said
    engine = compare_evaluation(sample, min_effect=0.5)
    readings = [row for row in said.split("\n") if row.startswith("- ")]
    for t in engine.tests:
        if t.candidate == engine.candidates[0]:
            assert any(engine.verdict(t) in line for line in readings), engine.verdict(t)


def test_every_pair_by_the_randomized_tukey_hsd_shows_the_engine_s_figures(sample):
    from metrics import all_pairs, anova_rows

    app = open_app("compare")
    app.toggle(key="compare.all_pairs").set_value(True).run()
    app.radio(key="compare.pairs_test").set_value("tukey").run()
    assert not app.exception, [e.value for e in app.exception]
    engine = all_pairs(sample, ["nDCG"], test="tukey")
    label = engine.label("nDCG")
    anova = next(d.value for d in app.dataframe if "sum of squares" in d.value.columns)
    assert anova.values.tolist() == anova_rows(engine.tukey[label].anova)
    pairs = next(d.value for d in app.dataframe if "p classic" in d.value.columns)
    rows = [r for r in engine.pair_rows() if r["metric"] == label]
    assert list(pairs["p"]) == [fmt.p_value(r["p"]) for r in rows]
    assert list(pairs["p classic"]) == [fmt.p_value(r["p_classic"]) for r in rows]
    assert "Randomized Tukey HSD" in texts(app)


def test_a_difference_worth_detecting_gives_the_queries_a_future_set_needs(sample):
    from metrics import topic_set_sizes

    app = open_app("compare")
    app.number_input(key="compare.delta").set_value(0.05).run()
    assert not app.exception, [e.value for e in app.exception]
    table = next(d.value for d in app.dataframe if "Paired t-test" in d.value.columns)
    keys = app.session_state["compare.metrics"]
    engine = topic_set_sizes(sample, list(keys), min_difference=0.05)
    assert list(table["Paired t-test"]) == [s.paired_t for s in engine.values()]
    assert list(table["ANOVA over the runs"]) == [s.anova for s in engine.values()]
