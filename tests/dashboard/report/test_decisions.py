"""The report opens with the headline and the leaderboard; its basis (the query set and the
fingerprints) closes it."""

from __future__ import annotations

from dashboard.__main__ import main
from metrics import headline_comparison, headlines, leaderboard


def test_the_report_opens_with_the_headline_and_the_leaderboard(sample, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", "--out", str(out), "--primary", "MRR"]) == 0
    html = out.read_text()
    alone = headline_comparison(sample, "RR", rng=sample.conventions.seed)
    for sentence in headlines(alone, "MRR@5"):
        assert sentence.replace("'", "&#x27;") in html
    best = leaderboard(sample).standings("RR")[0]
    order = [html.index(f'id="{part}"') for part in
             ("headline", "leaderboard", "summary", "basis", "limits")]
    assert order == sorted(order), order  # findings first, the reviewer's basis last
    assert f"<td>{best.run}</td>" in html and "Leaderboard on MRR@5" in html
    assert "<b>0.732 [0.499, 0.937] ★</b>" in html  # the best nDCG@5 in the summary, bold


def test_a_bad_primary_metric_is_a_usage_error(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.html"), "--primary", "BLEU"]) == 2
    assert "--primary" in capsys.readouterr()[1]


def test_the_report_says_what_each_change_harms_and_whether_its_verdicts_hold(sample,
                                                                             tmp_path):
    import html as html_lib

    from metrics import baseline_comparison, fragility, risks, to_label, to_label_summary
    from metrics.core.files import rereader
    from metrics.core.sample import sample_runs

    out = tmp_path / "r.html"
    assert main(["report", "--out", str(out)]) == 0
    page = html_lib.unescape(out.read_text())
    comparison = baseline_comparison(sample)
    for risk in risks(comparison):
        if risk.metric == "nDCG@5":
            assert risk.sentence in page
    found = fragility(sample, comparison, reread=rereader(sample_runs(), sample))
    assert found.summary in page and found.flips
    assert all(flip.sentence in page for flip in found.flips)
    assert to_label_summary(to_label(sample)) in page
    order = [page.index(f'id="{part}"') for part in
             ("comparison", "harm", "fragility", "to-label", "basis")]
    assert order == sorted(order), order
