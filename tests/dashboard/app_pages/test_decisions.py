"""The decisions in the dashboard: the headline on Compare, the leaderboard on the Overview,
every pair's letters, each the engine's figure; the headline metric in the URL."""

from __future__ import annotations

import json

from dashboard.views.frames import TABLE_CHAR_WIDTH
from metrics import all_pairs, headline_comparison, headlines, leaderboard, topic_set_sizes
from tests.dashboard.conftest import open_app, shown


def test_compare_opens_with_the_engine_s_headline_and_power(sample):
    app = open_app("compare")
    expected = headlines(headline_comparison(sample, "nDCG", rng=sample.conventions.seed),
                         "nDCG@5")
    said = shown(" ".join(m.value for m in app.markdown))
    assert all(sentence in said for sentence in expected)
    table = next(d.value for d in app.dataframe if "Detectable" in d.value.columns)
    assert table["Detectable"].notna().all()
    assert table["Reading"].str.contains("may not show: this set can detect").all()


def test_the_headline_metric_lives_in_the_url_and_moves_the_leaderboard(sample):
    app = open_app("compare", primary="RR")
    expected = headlines(headline_comparison(sample, "RR", rng=sample.conventions.seed),
                         "MRR@5")
    assert expected[0] in shown(" ".join(m.value for m in app.markdown))
    app.switch_page("app_pages/overview.py").run()
    assert all(s in shown(" ".join(m.value for m in app.markdown)) for s in expected)
    board = next(d.value for d in app.dataframe if "P(best)" in d.value.columns)
    standings = leaderboard(sample).standings("RR")
    assert list(board["Run"]) == [s.run for s in standings]
    assert list(board["P(best)"]) == [s.p_best for s in standings]
    assert list(board["Rank interval"]) == [f"{s.rank_low}–{s.rank_high}" for s in standings]


def test_every_pair_s_letters_are_the_engine_s(sample):
    assert not any("Group" in d.value.columns for d in open_app("compare").dataframe)
    app = open_app("compare", pairs="1")
    groups = next(d.value for d in app.dataframe if "Group" in d.value.columns)
    pairs = all_pairs(sample, ["nDCG"])
    assert dict(zip(groups["Run"], groups["Group"], strict=True)) == pairs.letters("nDCG@5")
    # the caption says what sharing a letter means once: the test's own sentence, then
    # what the letters are
    said = next(shown(c.value) for c in app.caption if "share a letter" in c.value)
    assert said.count("share a letter") == 1
    assert said.startswith(pairs.sentence())


def test_the_summary_marks_each_metric_s_best_run_when_asked(sample):
    from metrics import best_marks

    marks = best_marks(sample)
    app = open_app(best="1")
    table = app.dataframe[0].value.set_index("Metric")
    for label, runs in marks.marks.items():
        for run, mark in runs.items():
            assert table.loc[label, run].endswith(f" {mark}" if mark else "]"), (label, run)
    assert marks.sentence in shown(" ".join(c.value for c in app.caption))
    plain = open_app().dataframe[0].value.set_index("Metric")
    assert all(cell.endswith("]") for cell in plain.loc["nDCG@5", sample.run_names])


def test_a_difference_worth_detecting_adds_the_queries_it_needs(sample):
    from metrics import compare_evaluation, power_table

    app = open_app("compare", delta="0.05")
    table = next(d.value for d in app.dataframe if "Reading" in d.value.columns)
    figures = power_table(compare_evaluation(sample, rng=sample.conventions.seed), delta=0.05)
    reranked = [f for f in figures if f.candidate == "reranked"]
    for reading, figure in zip(table["Reading"], reranked, strict=True):
        assert reading.endswith(figure.sentence) and "queries would detect" in reading


def test_the_pairs_that_swap_are_as_wide_as_their_longest_list():
    """A table cell cuts what does not fit: six runs can swap fifteen pairs."""
    app = open_app("overview")
    table = next(d for d in app.dataframe if "Swapped" in d.value.columns)
    column = json.loads(table.proto.columns)["Swapped"]
    longest = max([column["label"], *table.value["Swapped"]], key=len)
    assert column["width"] >= len(longest) * TABLE_CHAR_WIDTH


def _board(app):
    return next(d.value for d in app.dataframe if "P(best)" in d.value.columns)


def test_the_overview_s_leaderboard_reads_the_randomized_tukey_hsd_when_chosen(sample):
    """Issue 48: by the randomized Tukey HSD the leaderboard carries each run's letters and
    names its test beside them (the engine's groups and sentence); by the paired tests it
    stays the bootstrap's ranks alone."""
    from metrics.vocabulary.tukey import tukey_sentence

    app = open_app()
    assert "Group" not in _board(app).columns
    assert app.radio(key="compare.pairs_test").value == "paired"
    app.radio(key="compare.pairs_test").set_value("tukey").run()
    assert not app.exception, [e.value for e in app.exception]
    board = _board(app)
    engine = all_pairs(sample, ["nDCG"], test="tukey")
    assert dict(zip(board["Run"], board["Group"], strict=True)) == engine.letters("nDCG@5")
    assert list(board["Run"]) == [s.run for s in leaderboard(sample).standings("nDCG")]
    said = shown(" ".join(c.value for c in app.caption))
    assert tukey_sentence(engine.alpha, engine.n_permutations, engine.seed,
                          len(sample.runs)) in said
    app.radio(key="compare.pairs_test").set_value("paired").run()
    assert "Group" not in _board(app).columns
    assert "randomized Tukey HSD over" not in shown(" ".join(c.value for c in app.caption))


def test_the_test_chosen_on_compare_holds_on_the_overview_and_in_the_export(
        sample, monkeypatch):
    """One home for the test of every pair: chosen on Compare, the Overview reads its
    leaderboard by it, and the Export page's LaTeX table and report carry it (the report
    with the queries a future set needs, asked on Compare); chosen back on the Overview,
    Compare shows it."""
    import metrics
    from dashboard.data import cache

    made = []

    def spy(*args, **kwargs):
        made.append(kwargs)
        return report_contents(*args, **kwargs)

    report_contents = metrics.report_contents
    monkeypatch.setattr(metrics, "report_contents", spy)
    cache.store().clear()  # the report's contents made again, under the spy
    app = open_app("compare")
    app.number_input(key="compare.delta").set_value(0.05).run()
    app.toggle(key="compare.all_pairs").set_value(True).run()
    app.radio(key="compare.pairs_test").set_value("tukey").run()
    app.switch_page("app_pages/overview.py").run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.radio(key="compare.pairs_test").value == "tukey"
    engine = all_pairs(sample, ["nDCG"], test="tukey")
    board = _board(app)
    assert dict(zip(board["Run"], board["Group"], strict=True)) == engine.letters("nDCG@5")
    app.switch_page("app_pages/export.py").run()
    assert not app.exception, [e.value for e in app.exception]
    latex = next(c.value for c in app.code if c.language == "latex")
    assert "randomized Tukey HSD" in latex and "\\textsuperscript{a}" in latex
    assert app.query_params["pairs_test"] == "tukey"  # the link carries it too
    assert made[-1]["pairs"] == engine
    keys = app.session_state["compare.metrics"]
    assert made[-1]["topic_sets"] == topic_set_sizes(sample, list(keys), min_difference=0.05)
    app.switch_page("app_pages/overview.py").run()
    app.radio(key="compare.pairs_test").set_value("paired").run()
    app.switch_page("app_pages/compare.py").run()
    app.toggle(key="compare.all_pairs").set_value(True).run()
    assert app.radio(key="compare.pairs_test").value == "paired"
    assert not any("p classic" in d.value.columns for d in app.dataframe)


def test_the_export_s_latex_table_carries_the_tukey_letters_of_the_headline_metric(sample):
    """The command line's writer (metrics.latex_table) with the pairs the leaderboard is read
    by: each run's letters on the headline metric's column only, which the caption names
    with the test; by the paired tests, no letters."""
    import re

    engine = all_pairs(sample, ["nDCG"], test="tukey")
    latex = next(c.value for c in open_app("export", pairs_test="tukey").code
                 if c.language == "latex")
    lines = latex.splitlines()
    labels = [cell.strip(" \\") for cell in lines[lines.index("\\toprule") + 1].split(" & ")]
    body = lines[lines.index("\\midrule") + 1:lines.index("\\bottomrule")]
    for line in body:
        cells = dict(zip(labels, line.split(" & "), strict=True))
        for label, cell in cells.items():
            found = re.findall(r"\\textsuperscript\{(\w+)\}", cell)
            assert found == ([engine.letters("nDCG@5")[cells["Run"]]] if label == "nDCG@5"
                             else []), (cells["Run"], label)
    caption = re.search(r"\\caption\{(.*)\}\n", latex)[1]
    assert "Superscript letters (on nDCG@5 only): Runs that share a letter" in caption
    assert "randomized Tukey HSD" in caption
    plain = next(c.value for c in open_app("export").code if c.language == "latex")
    assert "textsuperscript" not in plain
