"""The words of a run's reading that depend on its lists: a run whose lists stop before K (what
the empty slots do to each figure), a run that scores nothing (no k advice), and a diagnosis
with no hit in the top K; and those of one query read across two runs (the drill-down's side
by side). Pure words; metrics/core/diagnosis.py decides when each applies.
"""

from __future__ import annotations

from metrics.vocabulary.format import count, figure, signed

SHORT_LISTS = "short lists"  # the finding of a run whose lists stop before K
NO_LIST = "no list"  # the finding of a run with no list for any scored query

# what the empty slots past a run's longest list do to each figure at K, by measure key
EMPTY_SLOTS = {
    "P": "divides by K, so each empty slot counts as a wrong id",
    "R": "cannot rise past the last rank",
    "F1": "follows precision down and recall flat",
    "Hit": "cannot rise past the last rank",
    "RR": "cannot rise past the last rank",
    "AP": "cannot rise past the last rank",
    "nDCG": "cannot rise past the last rank, while IDCG still ranks up to K relevant ids",
    "CP": "cannot rise past the last rank",
    "Judged": "counts the ids returned, not the empty slots",
}


def empty_slots_sentence(k: int, longest: int) -> str:
    """What the empty slots do to each figure at K when every list stops at `longest`."""
    return (f"Precision@{k} divides by {k}, so the {k - longest:,} empty slots past rank "
            f"{longest:,} count as wrong ids (at most {longest / k:.3f} whatever the ranking); "
            f"Recall, Hit, MRR, MAP, context precision and nDCG@{k} cannot rise past rank "
            f"{longest:,}; Judged@{k} counts only the ids returned")


def short_lists_sentence(run: str, k: int, longest: int) -> str:
    """The warning every page shows for a run whose lists all stop before K."""
    return (f"{run}'s lists stop at rank {longest:,} (its longest list), before K = {k:,}: "
            f"{empty_slots_sentence(k, longest)}. Read it at K = {longest:,} or below, or "
            f"retrieve {k:,} ids a query; against a run that returns {k:,}, it loses on "
            "precision for its empty slots alone.")


def cut_reading(k: int, longest: int) -> str:
    """The k reading of a run cut before K: no 'k looks well chosen', no 'lower k'."""
    return (f"Its lists stop at rank {longest:,}, before K = {k:,}: the figures at K = {k:,} "
            f"read the same {longest:,} ids as at K = {longest:,}, with "
            f"{k - longest:,} empty slots that precision counts as wrong. K cannot be judged "
            f"on this run: read it at K = {longest:,} or below, or retrieve {k:,} ids a query.")


def partly_short_reading(k: int, short: int, scored: int) -> str:
    """Some lists (not all) stop before K."""
    return (f"{count(short, 'scored query', 'scored queries')} of {scored:,} "
            f"{'has' if short == 1 else 'have'} fewer than {k:,} ids in this run's list: "
            f"Precision@{k} counts their empty slots as wrong ids.")


def no_list_sentence(scored: int) -> str:
    """A run that has no list for any scored query (its query ids are not the qrels')."""
    return (f"This run has no list for any of the {count(scored, 'scored query')}: every "
            "figure is 0 and says nothing about the retriever. Check that its query ids are "
            "the qrels' (a warning names the likely cause).")


def no_relevant_sentence() -> str:
    """A run whose lists hold no relevant id anywhere."""
    return ("No list of this run holds a relevant id anywhere: every figure is 0, and no k "
            "can be suggested from it.")


def no_advice(reason: str) -> str:
    """The suggestion's sentence when there is no k to suggest."""
    return f"No k to suggest. {reason}"


def buried_sentence(k: int, rr_given_hit: float, late: int, scored: int, *,
                    rr_below: float, late_share: float) -> str:
    """The 'buried' finding in words, each part of its rule read with its verdict, so that
    the sentence says what raised the flag: the first relevant id low in the top K (mean RR
    over the queries with one there below `rr_below`: rank 2 or lower on average), or below
    K altogether for at least `late_share` of the scored queries (a late hit: present in the
    list, never in the window)."""
    share = late / scored if scored else 0.0
    low_in_k = 0 < rr_given_hit < rr_below
    late_flag = share >= late_share
    if rr_given_hit > 0:
        where = (f"Where a relevant id is in the top {k:,}, the first one sits at rank "
                 f"{1 / rr_given_hit:.1f} on average (harmonic mean: mean RR "
                 f"{figure(rr_given_hit)}, ") + (
            f"below {figure(rr_below)}): buried in the window" if low_in_k else
            f"at least {figure(rr_below)}): near the top")
    else:
        where = f"No query has a relevant id in its top {k:,}, so none is buried there"
    joined = "; but " if late_flag and not low_in_k and rr_given_hit > 0 else "; "
    late_words = (f"{late:,} of {count(scored, 'query')} ({share:.0%}) "
                  f"{'finds its' if late == 1 else 'find their'} first relevant id only below "
                  f"rank {k:,} ({'a late hit' if late == 1 else 'late hits'}), ") + (
        f"at least {late_share:.0%}: buried below the window" if late_flag else
        f"under {late_share:.0%}")
    sentence = f"{where}{joined}{late_words}."
    if low_in_k or late_flag:
        sentence += " Relevant ids that are present but low are easy to lose: a reranker helps."
    return sentence


# --- one query, two runs side by side ------------------------------------------------------

NOT_RETRIEVED = "not retrieved"  # an id the other run's list does not hold


def where_in(other: str, rank: int | None) -> str:
    """Where an id sits in the other run's list: 'rank 7 in dense', 'not retrieved by dense'."""
    return f"{NOT_RETRIEVED} by {other}" if rank is None else f"rank {rank:,} in {other}"


def contribution_sentence(metric: str, a: str, b: str, difference: float, contribution: float,
                          mean: float, scored: int) -> str:
    """What one query adds to the mean difference of two runs on one measure."""
    share = "" if mean == 0 else f" ({contribution / mean:.1%} of it)"
    return (f"On {metric}, {b} scores {signed(difference)} against {a} on this query: it adds "
            f"{contribution:+.4f} to their mean difference of {signed(mean)} over "
            f"{count(scored, 'scored query', 'scored queries')}{share}.")
