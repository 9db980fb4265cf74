"""The report's opening for stakeholders: the headline, one sentence per
candidate on the primary metric, and the leaderboard with rank intervals and P(best) (and,
read by the randomized Tukey HSD, each run's letters); every pair of runs as the leaderboard
is read, the queries a future set needs, and the review (harm, fragility, what to label).
Pure HTML from the engine's figures and words, the tables Compare shows (views.frames); every
text escaped once (safe.html)."""

from __future__ import annotations

from collections.abc import Sequence

from dashboard import safe
from dashboard.report.texts import table
from dashboard.views import frames
from metrics import (
    ANOVA_METHOD,
    HEADLINE_FAMILY,
    LEADERBOARD_TERMS,
    TOPIC_SET_METHOD,
    TUKEY_METHOD,
    AllPairs,
    Comparison,
    Fragility,
    Leaderboard,
    Risk,
    ToLabel,
    TopicSetSize,
    min_effect_sentence,
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


def leaderboard_section(board: Leaderboard | None, metric: str,
                        pairs: AllPairs | None = None) -> str:
    """One metric's standings, best first: mean, rank, rank interval, P(best); with every
    pair tested (`pairs`), each run's letters and the test that drew them."""
    if board is None:
        return ""
    level = fmt.confidence(board.confidence_level)
    standings = board.standings(metric)
    letters = {} if pairs is None else pairs.letters(metric)
    rows = [[s.run, fmt.figure(s.mean), str(s.rank), f"{s.rank_low}–{s.rank_high}",
             vocabulary.leaderboard.share(s.p_best), *([letters[s.run]] if letters else [])]
            for s in standings]
    label = board.label(metric)
    sentences = "".join(f"<li>{safe.html(s)}</li>" for s in board.sentences(metric))
    grouped = (f'<p class="note">{safe.html(pairs.sentence())} '
               f"{safe.html(vocabulary.leaderboard.LETTER_GROUPS)}</p>" if letters else "")
    return (f'<section id="leaderboard"><h2>Leaderboard on {safe.html(label)}</h2>'
            + table(["Run", "Mean", "Rank", f"{level} rank interval", "P(best)",
                     *(["Group"] if letters else [])], rows,
                    numeric=[False, True, True, False, True, False])
            + f"{grouped}<ul>{sentences}</ul><p class=\"note\">"
            f"{safe.html(LEADERBOARD_TERMS['rank_interval'])} "
            f"{safe.html(LEADERBOARD_TERMS['p_best'])}</p></section>")


def pairs_section(pairs: AllPairs | None, metric: str) -> str:
    """Every pair of runs on one metric as Compare's every-pair view reads it
    (frames.pair_table): each pair's difference, the p it is judged by, with the randomized
    Tukey HSD the classic p and the effect size, then the two-way ANOVA's table and a run
    mean's margin of error, each method named; with a minimum effect, the equivalence p."""
    if pairs is None:
        return ""
    label = pairs.label(metric)
    found = frames.pair_table(pairs, metric)
    rows = [[fmt.signed(value) if column == "Difference" else str(value)
             for column, value in row.items()] for _, row in found.iterrows()]
    numeric = [column not in ("Baseline", "Candidate", "Verdict") for column in found.columns]
    tukey = pairs.test == "tukey"
    said = [pairs.sentence(), *([TUKEY_METHOD] if tukey else []),
            *([min_effect_sentence(pairs.min_effect)] if pairs.min_effect is not None else [])]
    parts = [f'<section id="every-pair"><h2>All runs against all runs, on {safe.html(label)}'
             "</h2>", table(list(found.columns), rows, numeric),
             f'<p class="note">{safe.html(" ".join(said))}</p>']
    if tukey:  # the residual variance the classic p and the effect sizes read
        anova, margin = frames.anova_table(pairs.tukey[label].anova)
        parts += [f"<h3>Two-way ANOVA of {safe.html(label)} (queries x runs)</h3>",
                  table(list(anova.columns), anova.values.tolist(),
                        [False] + [True] * (len(anova.columns) - 1)),
                  f'<p class="note">{safe.html(margin)} {safe.html(ANOVA_METHOD)}</p>']
    parts.append("</section>")
    return "".join(parts)


def topic_set_section(sizes: dict[str, TopicSetSize] | None) -> str:
    """The queries a future query set needs to detect a difference, per metric (the
    paired t-test and the one-way ANOVA over the runs, Sakai 2016), as Compare shows them."""
    if not sizes:
        return ""
    wanted = next(iter(sizes.values())).min_difference
    found = frames.topic_set_table(sizes)
    rows = [[str(row["Metric"]), f"{row['Paired t-test']:,}", f"{row['ANOVA over the runs']:,}"]
            for _, row in found.iterrows()]
    return (f'<section id="topic-set-sizes"><h2>Queries a future query set needs to detect '
            f"{safe.html(fmt.figure(wanted))}</h2>"
            + table(list(found.columns), rows, [False, True, True])
            + f'<p class="note">{safe.html(TOPIC_SET_METHOD)}</p></section>')


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
