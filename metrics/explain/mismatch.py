"""Ids that do not meet: a run whose query ids, or doc ids, miss the qrels' ones.

A run written with `query_1` where the qrels say `1` scores 0 on every query without any
error; so does a run whose doc ids carry a prefix the labels lack. These findings say so, a
sentence each, with a few ids from each side and the likely cause when one is visible:
surrounding whitespace, case, a prefix on one side, zero padding. The command line prints
them on standard error; the dashboard can show the same sentences.

A partial mismatch is looked for too, where the ids otherwise meet: ids that match only once
both sides are read in Unicode NFC (an accented letter written as one code point on one
side, as a letter and a combining accent on the other), counted per run and kind. Only the
ids that did not match and hold a non-ASCII character are normalised, so an ASCII collection
costs one pass over its unmatched ids.
"""

from __future__ import annotations

import itertools
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pyarrow as pa
import pyarrow.compute as pc

from metrics.core.evaluate import Evaluation
from metrics.io import Qrels, Run
from metrics.vocabulary import identifiers as words
from metrics.vocabulary.format import listing

SHARED_SHARE = 0.5  # warn when a run answers fewer than this share of the qrels' queries
EXAMPLES = 3  # ids quoted from each side
SAMPLE = 2_000  # ids of the run tried against the qrels' when looking for the cause
LABELS = 50_000  # ids of the qrels they are tried against
STEPS = ("whitespace", "case", "prefix", "zero padding")  # the causes looked for, in order
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class IdMismatch:
    run: str
    kind: Literal["query", "doc", "query nfc", "doc nfc"]  # nfc: they meet only after NFC
    shared: int  # query: ids both sides hold; doc: the run's rows whose id carries a label;
    # nfc kinds: the ids (query) or rows (doc) that meet the qrels' only in NFC
    total: int  # query: the qrels' queries; doc: the run's rows
    run_examples: tuple[str, ...]  # ids of the run the qrels lack
    qrels_examples: tuple[str, ...]  # ids of the qrels the run lacks
    causes: tuple[str, ...]  # the likely causes, one clause each (none when nothing shows)
    sentence: str


def id_mismatches(evaluation: Evaluation) -> tuple[IdMismatch, ...]:
    """run_mismatches for every run of an evaluation, in run order (a run with a judged id
    in its aligned rows skips the doc check's pass over its ids)."""
    return tuple(
        finding
        for run in evaluation.runs
        for finding in run_mismatches(evaluation.qrels, run.run,
                                      labelled=bool(run.aligned.judged.any()))
    )


def run_mismatches(qrels: Qrels, run: Run, *, labelled: bool = False) -> tuple[IdMismatch, ...]:
    """A query finding when the run shares no query id with the qrels, or fewer than
    SHARED_SHARE of them; a doc finding when none of the run's ids carries a label (not
    looked for when the caller knows one does: `labelled`)."""
    docs = None if labelled else _docs(qrels, run)
    return tuple(filter(None, (_queries(qrels, run), docs, *_after_nfc(qrels, run))))


def _after_nfc(qrels: Qrels, run: Run) -> tuple[IdMismatch | None, IdMismatch | None]:
    """The run's query ids, then its doc ids (rows), that meet the qrels' only in NFC."""
    # only non-ASCII ids can differ in NFC alone: an ASCII query set costs one pass
    labelled = {q for q in map(str, qrels.query_ids) if not q.isascii()}
    accented = {_nfc(q) for q in labelled}
    queries = [q for q in map(str, run.query_ids) if not q.isascii()
               and q not in labelled and _nfc(q) in accented] if accented else []
    found = _nfc_finding(run, "query", len(queries), queries[:1], len(run.query_ids))
    if not len(run.doc_ids) or not len(qrels.doc_names):
        return found, None
    ids = run.doc_ids.cast(pa.string())
    # only a non-ASCII id can meet the qrels in NFC alone: an ASCII run costs one pass
    accented_ids = ids.filter(pc.invert(pc.string_is_ascii(ids)))
    if not len(accented_ids):
        return found, None
    theirs = qrels.doc_names.cast(pa.string())
    unmatched = pc.is_null(pc.index_in(accented_ids, value_set=theirs))  # arrow: no pandas
    candidates = accented_ids.filter(unmatched)
    if not len(candidates):
        return found, None
    forms = pc.utf8_normalize(theirs.filter(pc.invert(pc.string_is_ascii(theirs))), form="NFC")
    met = candidates.filter(pc.is_in(pc.utf8_normalize(candidates, form="NFC"),
                                     value_set=forms))
    return found, _nfc_finding(run, "doc", len(met), met.slice(0, 1).to_pylist(),
                               len(run.doc_ids))


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _nfc_finding(run: Run, kind: str, count: int, first: Sequence[str],
                 total: int) -> IdMismatch | None:
    """The finding for `count` of `total` ids meeting only in NFC, `first` quoted."""
    if not count:
        return None
    example = first[0]
    sentence = words.NFC_ONLY.format(count=count, run=run.name, total=total, kind=kind,
                                     example=example, effect=words.NFC_EFFECT[kind]) + "."
    return IdMismatch(run.name, f"{kind} nfc", count, total, (example,),
                      (), ("Unicode normalisation",), sentence)


def _queries(qrels: Qrels, run: Run) -> IdMismatch | None:
    ours = [str(q) for q in run.query_ids]
    theirs = [str(q) for q in qrels.query_ids]
    labelled = set(theirs)
    shared = sum(q in labelled for q in ours)
    if not theirs or shared >= SHARED_SHARE * len(theirs):
        return None
    answered = set(ours)
    run_only = [q for q in ours if q not in labelled]
    qrels_only = [q for q in theirs if q not in answered]
    causes, example = _likely_cause(run_only[:SAMPLE], qrels_only[:LABELS])
    if shared:
        opening = (f"run {run.name!r} shares only {shared:,} of the qrels' {len(theirs):,} "
                   f"query ids (the other {len(theirs) - shared:,} score 0)")
    else:
        opening = f"run {run.name!r} shares no query id with the qrels"
    sentence = _sentence(opening, "query", run_only, qrels_only, causes, example)
    return IdMismatch(run.name, "query", shared, len(theirs), _examples(run_only),
                      _examples(qrels_only), causes, sentence)


def _docs(qrels: Qrels, run: Run) -> IdMismatch | None:
    if not len(run.doc_ids) or not len(qrels.doc_names):
        return None
    if (run.codes_in(qrels.doc_names) >= 0).any():
        return None
    ours = list(dict.fromkeys(run.doc_ids.slice(0, 4 * SAMPLE).to_pylist()))[:SAMPLE]
    theirs = qrels.doc_names.slice(0, LABELS).to_pylist()  # distinct already
    causes, example = _likely_cause(ours, theirs)
    opening = f"none of the {len(run.doc_ids):,} doc ids of run {run.name!r} carries a label"
    sentence = _sentence(opening, "doc", ours, theirs, causes, example)
    return IdMismatch(run.name, "doc", 0, len(run.doc_ids), _examples(ours), _examples(theirs),
                      causes, sentence)


def _examples(ids: Sequence[str]) -> tuple[str, ...]:
    return tuple(ids[:EXAMPLES])


def _sentence(opening: str, kind: str, run_only: Sequence[str], qrels_only: Sequence[str],
              causes: tuple[str, ...], example: tuple[str, str] | None) -> str:
    def quoted(ids: Sequence[str]) -> str:
        more = ", ..." if len(ids) > EXAMPLES else ""
        return listing([repr(i) for i in ids[:EXAMPLES]]) + more if ids else "none"

    text = (f"{opening} ({kind} ids of the run missing from the qrels: {quoted(run_only)}; "
            f"of the qrels missing from the run: {quoted(qrels_only)}).")
    if causes:
        text += f" Likely cause: {'; '.join(causes)}"
        if example:
            text += f" (the run's {example[0]!r} would be the qrels' {example[1]!r})"
        text += "."
    return text


def _likely_cause(ours: Sequence[str], theirs: Sequence[str]
                  ) -> tuple[tuple[str, ...], tuple[str, str] | None]:
    """The fewest normalisations (of STEPS; a prefix last, since stripping one hides a case
    difference) that bring the two sides together as far as all of them do, each as a
    clause, and one pair of ids they bring together; ((), None) when none does."""
    full = len(_meeting(ours, theirs, STEPS))
    if not full:
        return (), None
    subsets = sorted(
        (subset for size in range(1, len(STEPS) + 1)
         for subset in itertools.combinations(STEPS, size)),
        key=lambda subset: (len(subset), "prefix" in subset),
    )
    for subset in subsets:
        met = _meeting(ours, theirs, subset)
        if len(met) == full:
            return tuple(_clause(step, ours, theirs) for step in subset), met[0]
    return (), None


def _meeting(ours: Sequence[str], theirs: Sequence[str], steps: Sequence[str]
             ) -> list[tuple[str, str]]:
    """(run id, qrels id) pairs that become equal under the steps."""
    labelled = dict(zip(_normalise(theirs, steps), theirs, strict=True))
    return [(mine, labelled[key]) for mine, key in zip(ours, _normalise(ours, steps), strict=True)
            if key in labelled]


def _normalise(ids: Sequence[str], steps: Sequence[str]) -> list[str]:
    ids = list(ids)
    if "whitespace" in steps:
        ids = [i.strip() for i in ids]
    if "case" in steps:
        ids = [i.casefold() for i in ids]
    if "prefix" in steps:
        cut = len(_prefix(ids))
        ids = [i[cut:] for i in ids]
    if "zero padding" in steps:
        ids = [_DIGITS.sub(lambda m: m.group().lstrip("0") or "0", i) for i in ids]
    return ids


def _prefix(ids: Sequence[str]) -> str:
    """The leading characters, digits excluded, that every id shares and none is made of
    alone ('query_', 'Q', '')."""
    if not ids:
        return ""
    prefix = re.match(r"\D*", os.path.commonprefix(list(ids))).group()
    return "" if any(len(i) == len(prefix) for i in ids) else prefix


def _clause(step: str, ours: Sequence[str], theirs: Sequence[str]) -> str:
    if step == "whitespace":
        side = "run's" if any(i != i.strip() for i in ours) else "qrels'"
        return f"the {side} ids carry surrounding whitespace"
    if step == "case":
        return "the ids differ in case"
    if step == "zero padding":
        return "the ids differ in zero padding"
    mine, labelled = _prefix(_normalise(ours, STEPS[:1])), _prefix(_normalise(theirs, STEPS[:1]))
    return (f"the run's ids start with {_named(mine)} where the qrels' start with "
            f"{_named(labelled)}")


def _named(prefix: str) -> str:
    return repr(prefix) if prefix else "no prefix"


__all__ = ["IdMismatch", "id_mismatches", "run_mismatches"]
