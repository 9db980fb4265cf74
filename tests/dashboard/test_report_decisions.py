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
