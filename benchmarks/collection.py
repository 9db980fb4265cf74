"""Write a realistic, seeded collection the way a team would bring its own: BEIR-style files
for a help centre and its developer docs, and four retrievers' TREC runs.

    python benchmarks/collection.py [OUT_DIR] [--chunks 20000] [--queries 1500] [--seed 24]

OUT_DIR (default benchmarks/out/collection/, git-ignored) gets:

- corpus.jsonl: `{"_id", "title", "text"}` per chunk. Each chunk is about one topic: an area
  of the product ("Billing", "API", "SSO", ...), a thing in it ("Jira reminder", "Okta
  app") and an action ("downgrade", "rotate", "export"); its title names them ("API: Jira
  reminder downgrade") and its two to four sentences say them again among common words.
- queries.jsonl (BEIR): `{"_id", "text", "metadata": {"kind", "area"}}`, two facets. Kinds:
  keyword ("api jira reminder", written from a title: what a retriever should match),
  question ("how do I downgrade a jira reminder in the api"), navigational ("billing faq")
  and without ("export reports without the header row": a negation).
- qrels/test.tsv (BEIR TSV, `query-id corpus-id score`): grade 3 for the chunk the query was
  written from, 2 for the chunks about the same thing and action, 1 for the same thing, and
  a few judged 0 from the same area.
- runs/bm25.trec, dense.trec, hybrid.trec, reranker.trec: 100 ids a query, scored. bm25 is
  strong on keyword and navigational queries, dense on questions, hybrid is their reciprocal
  rank fusion, and the reranker reorders hybrid's top 100: better everywhere except on the
  queries with "without", where it lifts the chunks about the thing *with* the negated part
  (it ignores the negation), so it hurts one kind of query.

With `--extras`, runs_extra/ gets two runs a user meets too: bm25_top10.trec (bm25 cut to its
top 10, to be read at K = 20) and prefixed.trec (dense with query ids written `query_<id>`,
meeting no query of the qrels).

Same seed, same bytes. About 5 s for the defaults.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parent / "out" / "collection"
DEPTH = 100
AREAS = {
    "Billing": ["invoice", "refund", "card", "plan", "proration credit", "tax receipt",
                "payment method", "seat license", "annual plan", "coupon"],
    "API": ["Jira reminder", "rate limit", "access token", "webhook secret", "pagination cursor",
            "bulk endpoint", "SDK client", "API key", "OAuth scope", "sandbox project"],
    "SSO": ["Okta app", "SAML assertion", "SCIM group", "Azure AD tenant", "login policy",
            "session timeout", "MFA device", "domain claim", "IdP metadata", "guest account"],
    "Exports": ["CSV report", "PDF summary", "scheduled export", "header row", "date range",
                "column filter", "Excel sheet", "audit extract", "usage report", "data dump"],
    "Webhooks": ["delivery retry", "signature check", "event filter", "endpoint URL",
                 "payload schema", "failure alert", "replay queue", "timeout window",
                 "batch event", "test ping"],
    "Workspace": ["region migration", "member role", "project archive", "storage quota",
                  "custom domain", "workspace name", "trash bin", "team folder",
                  "activity feed", "default language"],
    "Mobile": ["push notification", "offline mode", "app passcode", "photo upload",
               "widget layout", "dark theme", "sync conflict", "battery saver",
               "tablet view", "share sheet"],
    "Audit": ["log retention", "access review", "event export", "admin action",
              "compliance report", "IP allowlist", "data residency", "legal hold",
              "change history", "security alert"],
}
ACTIONS = ["downgrade", "rotate", "export", "enable", "disable", "reset", "migrate", "delete",
           "configure", "troubleshoot", "limit", "schedule", "verify", "renew", "share"]
FILLER = ("the a your this that each every when after before then with from into on for of "
          "and or to can will must is are be it you we team admin settings page option step "
          "field button menu panel account workspace user owner member click open choose save "
          "confirm select check change update new old current first next last other same "
          "only also usually often always never within days hours minutes").split()
QUESTION = ["how do I {action} the {thing} in {area}", "why can't I {action} a {thing}",
            "what happens when I {action} the {thing}",
            "how can my team {action} {thing} settings in {area}",
            "is it possible to {action} a {thing} from the {area} page"]
WITHOUT = ["{action} {thing} without the {other}", "how to {action} the {thing} without "
           "losing the {other}", "{thing} {action} without {other}"]
NAVIGATIONAL = ["{area} faq", "{area} {thing} page", "{thing} docs", "{area} settings"]
KINDS = ("keyword", "question", "navigational", "without")
KIND_WEIGHTS = (0.4, 0.3, 0.15, 0.15)
RUNS = ("bm25", "dense", "hybrid", "reranker")


def words_of(text: str) -> list[str]:
    return text.lower().replace(":", " ").split()


def make_chunks(rng: random.Random, n: int) -> list[dict]:
    """n chunks, each about one (area, thing, action); several chunks share a topic."""
    topics = [(area, thing, action) for area, things in AREAS.items() for thing in things
              for action in ACTIONS]
    chunks = []
    for i in range(n):
        area, thing, action = topics[i % len(topics)] if i < len(topics) else rng.choice(topics)
        title = f"{area}: {thing.title() if rng.random() < 0.5 else thing} {action}"
        sentences = []
        for _ in range(rng.randint(2, 4)):
            words = rng.sample(FILLER, rng.randint(6, 12))
            words.insert(rng.randrange(len(words)), thing)
            if rng.random() < 0.6:
                words.insert(rng.randrange(len(words)), action)
            sentences.append(" ".join(words).capitalize() + ".")
        chunks.append({"_id": f"c{i:05d}", "title": title, "text": " ".join(sentences),
                       "topic": (area, thing, action)})
    return chunks


def make_queries(rng: random.Random, chunks: list[dict], n: int) -> list[dict]:
    """n queries, each written from one chunk (its source), with two facets."""
    queries = []
    sources = rng.sample(range(len(chunks)), n)
    for i, source in enumerate(sources):
        area, thing, action = chunks[source]["topic"]
        kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
        others = [t for t in AREAS[area] if t != thing]
        fill = {"area": area.lower(), "thing": thing.lower(), "action": action,
                "other": rng.choice(others).lower()}
        if kind == "keyword":
            title = words_of(chunks[source]["title"])
            text = " ".join(title[: rng.randint(2, len(title))])
        elif kind == "question":
            text = rng.choice(QUESTION).format(**fill)
        elif kind == "navigational":
            text = rng.choice(NAVIGATIONAL).format(**fill)
        else:
            text = rng.choice(WITHOUT).format(**fill)
        queries.append({"_id": f"{1001 + i}", "text": text,
                        "metadata": {"kind": kind, "area": area}, "source": source,
                        "topic": (area, thing, action), "other": fill["other"]})
    return queries


def judge(rng: random.Random, query: dict, chunks: list[dict], by_topic: dict,
          by_thing: dict, by_area: dict) -> dict[str, int]:
    area, thing, action = query["topic"]
    grades = {chunks[query["source"]]["_id"]: 3}
    for i in by_topic[area, thing, action]:
        grades.setdefault(chunks[i]["_id"], 2)
    for i in rng.sample(by_thing[area, thing], min(4, len(by_thing[area, thing]))):
        grades.setdefault(chunks[i]["_id"], 1)
    for i in rng.sample(by_area[area], 4):
        grades.setdefault(chunks[i]["_id"], 0)
    return grades


def run_lists(rng: random.Random, query: dict, grades: dict[str, int], chunks: list[dict],
              by_area: dict, by_thing: dict) -> dict[str, list[tuple[str, float]]]:
    """Each run's 100 scored ids for one query."""
    area, thing, _ = query["topic"]
    kind = query["metadata"]["kind"]
    pool = list(dict.fromkeys(
        list(grades) + [chunks[i]["_id"] for i in rng.sample(by_area[area], 120)]
        + [chunks[rng.randrange(len(chunks))]["_id"] for _ in range(60)]))
    other = query["other"]
    # the chunks about the thing the query says it does *not* want: what the reranker lifts
    trap = {chunks[i]["_id"] for i in by_thing.get((area, _title_case(other)), [])} | {
        chunks[i]["_id"] for i in by_thing.get((area, other), [])}
    strength = {"bm25": {"keyword": 1.6, "navigational": 1.4, "question": 0.6, "without": 0.9},
                "dense": {"keyword": 0.8, "navigational": 0.7, "question": 1.5, "without": 1.1}}
    scored = {}
    for run in ("bm25", "dense"):
        gain = strength[run][kind]
        scores = {doc: gain * grades.get(doc, 0) + rng.gauss(0, 1.1) for doc in pool}
        scored[run] = sorted(scores.items(), key=lambda item: -item[1])[:DEPTH]
    ranks = {run: {doc: r for r, (doc, _) in enumerate(scored[run], 1)} for run in scored}
    fused = {doc: sum(1 / (60 + ranks[run].get(doc, 1000)) for run in ranks)
             for doc in set(ranks["bm25"]) | set(ranks["dense"])}
    scored["hybrid"] = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:DEPTH]
    rerank = {}
    for doc, _ in scored["hybrid"]:
        score = 2.2 * grades.get(doc, 0) + rng.gauss(0, 0.8)
        if kind == "without":  # ignores the negation: the negated thing looks like the answer
            score = 0.6 * grades.get(doc, 0) + (5.0 if doc in trap else 0) + rng.gauss(0, 1.2)
        rerank[doc] = score
    scored["reranker"] = sorted(rerank.items(), key=lambda item: -item[1])
    return scored


def _title_case(thing: str) -> str:
    return next((t for things in AREAS.values() for t in things if t.lower() == thing), thing)


def write_collection(out: Path, *, chunks: int = 20_000, queries: int = 1_500,
                     seed: int = 24, extras: bool = False) -> dict[str, Path]:
    """Write the collection; return the paths by name (corpus, queries, qrels, each run)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "qrels").mkdir(exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    made = make_chunks(rng, chunks)
    asked = make_queries(rng, made, queries)
    by_topic, by_thing, by_area = {}, {}, {}
    for i, chunk in enumerate(made):
        area, thing, action = chunk["topic"]
        by_topic.setdefault((area, thing, action), []).append(i)
        by_thing.setdefault((area, thing), []).append(i)
        by_area.setdefault(area, []).append(i)
    paths = {"corpus": out / "corpus.jsonl", "queries": out / "queries.jsonl",
             "qrels": out / "qrels" / "test.tsv"}
    with paths["corpus"].open("w") as f:
        for chunk in made:
            f.write(json.dumps({k: chunk[k] for k in ("_id", "title", "text")}) + "\n")
    with paths["queries"].open("w") as f:
        for query in asked:
            f.write(json.dumps({k: query[k] for k in ("_id", "text", "metadata")}) + "\n")
    lines = {run: [] for run in RUNS}
    with paths["qrels"].open("w") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for query in asked:
            grades = judge(rng, query, made, by_topic, by_thing, by_area)
            f.writelines(f"{query['_id']}\t{doc}\t{g}\n" for doc, g in grades.items())
            for run, scored in run_lists(rng, query, grades, made, by_area, by_thing).items():
                lines[run] += [f"{query['_id']} Q0 {doc} {r} {score:.4f} {run}\n"
                               for r, (doc, score) in enumerate(scored, 1)]
    for run in RUNS:
        paths[run] = out / "runs" / f"{run}.trec"
        paths[run].write_text("".join(lines[run]))
    if extras:
        (out / "runs_extra").mkdir(exist_ok=True)
        paths["bm25_top10"] = out / "runs_extra" / "bm25_top10.trec"
        paths["bm25_top10"].write_text("".join(
            line for line in lines["bm25"] if int(line.split()[3]) <= 10))
        paths["prefixed"] = out / "runs_extra" / "prefixed.trec"
        paths["prefixed"].write_text("".join(f"query_{line}" for line in lines["dense"]))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=1_500)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--extras", action="store_true",
                        help="also a run cut to its top 10 and one whose query ids meet none")
    args = parser.parse_args()
    paths = write_collection(args.out, chunks=args.chunks, queries=args.queries,
                             seed=args.seed, extras=args.extras)
    for name, path in paths.items():
        print(f"{name:12} {path}")


if __name__ == "__main__":
    main()
