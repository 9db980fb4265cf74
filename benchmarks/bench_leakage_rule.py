"""Measure the leakage rule: its false alarms on keyword queries and its recall on copies.

    python benchmarks/bench_leakage_rule.py [--chunks 20000] [--keyword 6000] [--copies 600]

A measurement, not a test: it prints the figures and always exits 0 (the tests check the rule
on small cases; this says how it does at scale). The corpus is benchmarks/collection.py's:
chunks titled "API: Jira reminder downgrade" whose text names the same thing among common
words.

- False alarms: `--keyword` keyword and navigational queries written from chunk titles, as
  teams write them ("api jira reminder", "jira reminder downgrade", the whole title, "billing
  faq", "okta app docs"), each checked against the chunk it was written from and 20 others of
  its area (the retrieved scope: the chunks a run would return). A title's words are what a
  retriever should match, not a leak: every query flagged is a false alarm. The same queries
  under `every_query=True` (the rule before: every query checked) show what the sentence rule
  removes.
- Recall: `--copies` natural-language questions planted into chunks, each checked against its
  own chunk among 20 others: a third copied as they are, a third with case and punctuation
  changed, a third with one word in six changed (the 3-gram rule's work). And, reported apart,
  short questions of four words ("how do I login"): the sentence rule does not check them
  (under 5 words), so copies of them are missed by design.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.collection import AREAS, NAVIGATIONAL, QUESTION, make_chunks  # noqa: E402
from metrics import Corpus, Queries, find_leaks  # noqa: E402

SEED = 2024
OTHERS = 20  # chunks of the same area checked beside the query's own
SHORT_QUESTIONS = ["how do I {action}", "why is {thing} gone", "what is {thing}",
                   "can I {action} {thing}"]


def queries_of(pairs: list[tuple[str, str]]) -> Queries:
    ids = tuple(q for q, _ in pairs)
    return Queries("bench", "tsv", ids, tuple(t for _, t in pairs), {},
                   tuple(range(1, len(ids) + 1)))


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def keyword_queries(rng: random.Random, chunks: list[dict], n: int) -> list[tuple[str, str, int]]:
    """(query id, text, source chunk): keyword and navigational queries from titles."""
    out = []
    for i in range(n):
        source = rng.randrange(len(chunks))
        area, thing, action = chunks[source]["topic"]
        title = words(chunks[source]["title"])
        style = rng.random()
        if style < 0.25:
            text = " ".join(title)  # the whole title
        elif style < 0.6:
            text = " ".join(title[: rng.randint(2, len(title))])  # its first words
        elif style < 0.8:
            start = rng.randint(0, len(title) - 2)
            text = " ".join(title[start:start + rng.randint(2, 4)])  # a run of its words
        else:
            text = rng.choice(NAVIGATIONAL).format(area=area.lower(), thing=thing.lower())
        out.append((f"k{i}", text, source))
    return out


def planted(rng: random.Random, chunks: list[dict], n: int, templates: list[str],
            tag: str) -> tuple[list[tuple[str, str, int]], list[dict], list[str]]:
    """(query id, text, chunk) for n questions each planted in a chunk (a copy of the chunk
    list), and how each was planted."""
    chunks = [dict(chunk) for chunk in chunks]
    out, how = [], []
    for i in range(n):
        target = rng.randrange(len(chunks))
        area, thing, action = chunks[target]["topic"]
        question = rng.choice(templates).format(area=area.lower(), thing=thing.lower(),
                                                action=action)
        style = i % 3
        copy = question
        if style == 1:  # case and punctuation changed
            copy = question.upper().replace(" ", ", ", 1) + "?"
        elif style == 2:  # one word in six changed
            ws = question.split()
            for j in range(0, len(ws), 6):
                ws[j] = rng.choice(["our", "some", "their", "any"])
            copy = " ".join(ws)
        chunks[target]["text"] = f"{chunks[target]['text']} {copy} See the steps below."
        out.append((f"{tag}{i}", question, target))
        how.append(("verbatim", "case and punctuation", "one word in six changed")[style])
    return out, chunks, how


def candidates(rng: random.Random, chunks: list[dict], queries: list[tuple[str, str, int]],
               by_area: dict) -> dict[str, list[str]]:
    return {q: [chunks[source]["_id"]] + [chunks[j]["_id"] for j in
                                           rng.sample(by_area[chunks[source]["topic"][0]],
                                                      OTHERS)]
            for q, _, source in queries}


def corpus_of(chunks: list[dict]) -> Corpus:
    return Corpus("collection", tuple(c["_id"] for c in chunks),
                  tuple(c["title"] for c in chunks), tuple(c["text"] for c in chunks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--keyword", type=int, default=6_000)
    parser.add_argument("--copies", type=int, default=600)
    args = parser.parse_args()
    rng = random.Random(SEED)
    started = time.perf_counter()
    chunks = make_chunks(rng, args.chunks)
    by_area: dict[str, list[int]] = {}
    for i, chunk in enumerate(chunks):
        by_area.setdefault(chunk["topic"][0], []).append(i)
    print(f"{len(chunks):,} chunks in {len(AREAS)} areas (generated in "
          f"{time.perf_counter() - started:.1f} s)")

    keyword = keyword_queries(rng, chunks, args.keyword)
    queries = queries_of([(q, t) for q, t, _ in keyword])
    pool = candidates(rng, chunks, keyword, by_area)
    corpus = corpus_of(chunks)
    now = find_leaks(queries, corpus, candidates=pool)
    before = find_leaks(queries, corpus, candidates=pool, every_query=True)
    n = len(keyword)
    print(f"\nFalse alarms on {n:,} keyword and navigational queries written from titles "
          f"(each against its own chunk and {OTHERS} of its area):")
    print(f"  the sentence rule (default):        {len(now.leaked_queries):>5,} flagged "
          f"({len(now.leaked_queries) / n:.2%}); {now.not_sentences:,} not checked, "
          f"{now.queries_checked:,} checked")
    print(f"  every query checked (the old rule): {len(before.leaked_queries):>5,} flagged "
          f"({len(before.leaked_queries) / n:.2%})")
    if now.leaked_queries:
        texts = dict((q, t) for q, t, _ in keyword)
        print("  flagged, e.g.: " + "; ".join(repr(texts[q]) for q in now.leaked_queries[:5]))

    for templates, tag, label in ((QUESTION, "p", "natural-language questions"),
                                  (SHORT_QUESTIONS, "s", "short questions (4 words or less)")):
        copied, changed, how = planted(rng, chunks, args.copies, templates, tag)
        queries = queries_of([(q, t) for q, t, _ in copied])
        pool = candidates(rng, changed, copied, by_area)
        found = find_leaks(queries, corpus_of(changed), candidates=pool)
        own = {q: changed[target]["_id"] for q, _, target in copied}
        hit = {leak.query_id for leak in found.leaks if leak.doc_id == own[leak.query_id]}
        print(f"\nRecall on {len(copied):,} {label} planted into a chunk:")
        for style in ("verbatim", "case and punctuation", "one word in six changed"):
            ids = [q for (q, _, _), h in zip(copied, how, strict=True) if h == style]
            print(f"  {style:26} {sum(q in hit for q in ids):>4} of {len(ids)} found")
        print(f"  not checked (not a sentence): {found.not_sentences:,}")
    print(f"\n({time.perf_counter() - started:.1f} s in all)")


if __name__ == "__main__":
    main()
