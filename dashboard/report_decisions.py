"""The report's opening for stakeholders (issue 15): the headline, one sentence per
candidate on the primary metric, and the leaderboard with rank intervals and P(best). Pure
HTML from the engine's figures and words; every text escaped once (safe.html)."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard import safe
from dashboard.report_texts import table
from metrics import HEADLINE_FAMILY, LEADERBOARD_TERMS, MEASURE_BY_KEY, Leaderboard, metric_key
from metrics import format as fmt


def headline_section(sentences: Sequence[str] | None) -> str:
    """The headline: who wins on the primary metric, by how much, how surely."""
    if not sentences:
        return ""
    items = "".join(f"<li>{safe.html(sentence)}</li>" for sentence in sentences)
    return (f'<section id="headline"><h2>The headline</h2><ul class="headline">{items}</ul>'
            f'<p class="note">{safe.html(HEADLINE_FAMILY)}</p></section>')


def leaderboard_section(board: Leaderboard | None, metric: str) -> str:
    """One metric's standings, best first: mean, rank, rank interval, P(best)."""
    if board is None:
        return ""
    level = fmt.confidence(board.confidence_level)
    standings = board.standings(metric)
    rows = [[s.run, fmt.figure(s.mean), str(s.rank), f"{s.rank_low}–{s.rank_high}",
             f"{s.p_best:.0%}"] for s in standings]
    label = MEASURE_BY_KEY[metric_key(metric, board.k)].label(board.k)
    sentences = "".join(f"<li>{safe.html(s)}</li>" for s in board.sentences(metric))
    return (f'<section id="leaderboard"><h2>Leaderboard on {safe.html(label)}</h2>'
            + table(["Run", "Mean", "Rank", f"{level} rank interval", "P(best)"], rows,
                    numeric=[False, True, True, False, True])
            + f"<ul>{sentences}</ul><p class=\"note\">"
            f"{safe.html(LEADERBOARD_TERMS['rank_interval'])} "
            f"{safe.html(LEADERBOARD_TERMS['p_best'])}</p></section>")
