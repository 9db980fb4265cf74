"""The report's opening for stakeholders: the headline, one sentence per
candidate on the primary metric, and the leaderboard with rank intervals and P(best). Pure
HTML from the engine's figures and words; every text escaped once (safe.html)."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard import safe
from dashboard.report.texts import table
from metrics import (
    HEADLINE_FAMILY,
    LEADERBOARD_TERMS,
    Comparison,
    Fragility,
    Leaderboard,
    Risk,
    ToLabel,
    to_label_summary,
    vocabulary,
)
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
             vocabulary.leaderboard.share(s.p_best)] for s in standings]
    label = board.label(metric)
    sentences = "".join(f"<li>{safe.html(s)}</li>" for s in board.sentences(metric))
    return (f'<section id="leaderboard"><h2>Leaderboard on {safe.html(label)}</h2>'
            + table(["Run", "Mean", "Rank", f"{level} rank interval", "P(best)"], rows,
                    numeric=[False, True, True, False, True])
            + f"<ul>{sentences}</ul><p class=\"note\">"
            f"{safe.html(LEADERBOARD_TERMS['rank_interval'])} "
            f"{safe.html(LEADERBOARD_TERMS['p_best'])}</p></section>")


def review_section(comparison: Comparison | None, risks: Sequence[Risk] | None,
                   found: Fragility | None, labelling: ToLabel | None, label: str) -> str:
    """Harm (every candidate and metric, the worst losses on the primary metric, labelled
    `label`), whether each verdict survives another convention, and what to label next."""
    if comparison is None or not risks:
        return ""
    words = vocabulary.risk
    alphas = words.RISK_ALPHAS
    header = ["Candidate", "Metric", "Harmed [interval]", "Mean loss",
              *(f"{name} α={words.alpha_key(a)}" for a in alphas for name in ("URisk", "TRisk"))]
    rows = [[r.candidate, r.metric,
             f"{words.share(r.harm_share)} [{words.share(r.harm_low)}, "
             f"{words.share(r.harm_high)}]",
             fmt.figure(r.mean_loss),  # — when no query loses (nan)
             *(value for a in alphas for value in (fmt.signed(r.urisk_at(a)),
                                                   _maybe(r.trisk_at(a))))]
            for r in risks]
    on_primary = [r for r in risks if r.metric == label]
    said = "".join(f"<li>{safe.html(r.sentence)}. {safe.html(r.risk_sentence(alphas[0]))}; "
                   f"{safe.html(words.worst_sentence(r.worst))}.</li>" for r in on_primary)
    parts = ['<section id="harm"><h2>Harm: which queries each change breaks</h2>',
             f"<ul>{said}</ul>", table(header, rows, numeric=[False, False] + [True] * 6),
             f'<p class="note">{safe.html(words.RISK_METHOD)}</p></section>']
    if found is not None:
        flips = "".join(f"<li>{safe.html(flip.sentence)}</li>" for flip in found.flips)
        skipped = " ".join(f"Not tried, {safe.html(c)}: {safe.html(why)}."
                           for c, why in found.skipped)
        parts.append(f'<section id="fragility"><h2>Would another convention change the '
                     f'verdict?</h2><p><b>{safe.html(found.summary)}</b></p>'
                     + (f"<ul>{flips}</ul>" if flips else "")
                     + f'<p class="note">{safe.html(vocabulary.fragility.FRAGILITY_RULE)} '
                     f"{skipped}</p></section>")
    if labelling is not None:
        parts.append(f'<section id="to-label"><h2>What to label next</h2>'
                     f"<p>{safe.html(to_label_summary(labelling))}</p>"
                     f'<p class="note">{safe.html(vocabulary.labelling.ORDER_RULE)}</p>'
                     "</section>")
    return "".join(parts)


def _maybe(value: float) -> str:
    return "undefined" if value != value else fmt.signed(value)
