"""Build a real retrieval collection from the docstrings of Python's standard library.

The way a team would bring its own: real text, real retrievers, graded labels, a model judge.

    python benchmarks/stdlib_collection.py [OUT_DIR] [--queries 1500] [--seed 44]

Needs the `bench` extra (bm25s, scikit-learn): `pip install -e ".[bench]"`.

OUT_DIR (default benchmarks/out/stdlib/, git-ignored) gets:

- corpus.jsonl (BEIR): `{"_id", "title", "text"}`, one chunk per documented public function,
  class and method of the running interpreter's standard library: the modules of
  sys.stdlib_module_names and their submodules (pkgutil), each imported with its output and
  warnings swallowed and any failure skipped; private names, test packages, idlelib,
  tkinter, turtle, turtledemo, lib2to3, antigravity, this, posix (os is its face) and the
  hundred codec tables under encodings left out. A class's methods are those help() lists,
  its own and the ones it inherits (an inherited method shows its base's docstring, as
  help() does). An object several modules expose is listed once, under its home or the
  public face of a private home (`functools.reduce`, not `_functools.reduce`). Id and title
  are the qualified name (`json.dumps`, `collections.OrderedDict.popitem`), the text the
  docstring (inspect.cleandoc, cut at a space before 1,500 characters). Python 3.11 gives
  10,669 chunks.
- queries.jsonl (BEIR, `{"_id", "text", "metadata": {"kind", "package"}}`) and queries.csv
  (query_id,text,kind,package): each written from a chunk drawn (seeded) among those not
  inherited whose docstring's first sentence has at least 5 words, the way a person asks,
  not copied: the sentence's content words less stopwords and the object's own name (the
  module's words stay), 3 to 7 of them in order, in base form ('formatted' format) and
  often a synonym ('deserialize' parse, 'directory' folder), as a keyword query ("parse str
  byte json document") or a question ("how do I parse str byte json document"). Facets:
  kind (keyword, question) and package (the top-level module).
- qrels.txt (TREC, graded): 2 for the chunk the query was written from; 1 for the other
  chunks of its module whose text holds at least half of the words it was written from; up
  to 3 judged 0 from its module that hold none. Some queries have one relevant id.
- bm25.run, tfidf.run, title_bm25.run, reranked.run (TREC, top 100 with scores, ties in
  corpus order; only ids scoring above 0, so a query nothing matches has no list): BM25
  (bm25s: Lucene's variant, k1 1.5, b 0.75, its English stopwords) over title + text;
  TF-IDF cosine (scikit-learn's TfidfVectorizer, sublinear tf, English stopwords) over
  title + text; BM25 over the titles only, split at dots and underscores; and bm25's list
  reordered by RERANK_MIX x min-max bm25 + (1 - RERANK_MIX) x min-max TF-IDF cosine, the
  two scores normalised over the query's list.
- judge.txt: a model judge's qrels over every query's judged ids and the unjudged ids in the
  top 10 of bm25 and tfidf. Its rule, seeded and noisy, reads the share of the query's words
  in the chunk's title and text: 2 or 1 (a coin toss) from JUDGE_HIGH, 1 above JUDGE_LOW,
  else 0; then a relevant grade lost with JUDGE_MISS and a 0 raised to 1 with JUDGE_FALSE.
  It misses relevant chunks that share only half the words and passes chunks of other
  modules that share most of them.
- human_sample.txt: the qrels.txt lines of a seeded sample of HUMAN_SAMPLE queries: human
  labels for a sample, beside the judge's (`python -m metrics judge`).

Same seed and same Python (its version and modules), same bytes. About 15 s on 2 cores.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import inspect
import io
import json
import pkgutil
import random
import re
import sys
import sysconfig
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

DEFAULT_OUT = Path(__file__).resolve().parent / "out" / "stdlib"
DEPTH = 100
TEXT_CHARS = 1_500
HUMAN_SAMPLE = 200
JUDGED_ZERO = 3  # non-relevant ids judged per query, from its own module
JUDGE_TOP = 10  # the judge also grades the unjudged ids in each of these runs' top 10
JUDGE_HIGH, JUDGE_LOW = 0.75, 0.5  # share of query words: grade 2 (or 1) from, grade 1 above
JUDGE_MISS, JUDGE_FALSE = 0.12, 0.03  # the judge's noise: a relevant grade lost, a 0 raised
RERANK_MIX = 0.5  # weight of normalised bm25 beside normalised TF-IDF in reranked.run
QUESTION_SHARE = 0.45
QUERY_WORDS = (3, 7)
SENTENCE_WORDS = 5  # a first sentence shorter than this gives no query

# Left out: packages of tests, the GUI and its demos (tkinter opens displays), lib2to3 (writes
# grammar pickles into the standard library on import), modules with side effects on import
# (antigravity opens a browser, this prints), and posix/nt, whose public face is os.
SKIPPED = {"idlelib", "tkinter", "turtle", "turtledemo", "lib2to3", "antigravity", "this",
           "posix", "nt", "test", "tests"}
# the packages walked without their submodules: encodings' hundred codec tables repeat the
# docstrings of the codecs module's classes, where they are documented
NOT_WALKED_INTO = {"encodings"}
FACES = {"posix": "os", "nt": "os"}  # the modules the documentation says to use instead
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing done down during each either
else etc even ever every few for from further given had has have having he her here hers how
however i if in into is it its itself just least less may me might more most must my no nor
not now of off on once one only or other otherwise our ours out over own per rather same
shall she should since so some such than that the their theirs them then there these they
this those though through thus to too under until up upon us use used uses using very via
was we were what when where whether which while who whom whose why will with within without
would yet you your
aren can couldn didn doesn don hasn haven isn shouldn wasn weren won wouldn
return returns returned new given true false none self cls args kwargs object objects
specified value values default optional argument arguments function method class instance
""".split())
QUESTIONS = ("how do I {words}", "how can I {words} in python", "what is the way to {words}",
             "is there a function to {words}", "which function should I use to {words}")
# how people name what a docstring names: a synonym is used for SYNONYM_SHARE of the words
# that have one
SYNONYM_SHARE = 0.6
SYNONYMS = {
    "str": "string", "dict": "dictionary", "obj": "object", "int": "integer",
    "integer": "int", "directory": "folder", "remove": "delete", "delete": "remove",
    "create": "make", "retrieve": "get", "obtain": "get", "fetch": "get",
    "compute": "calculate", "calculate": "compute", "execute": "run", "invoke": "call",
    "terminate": "stop", "exception": "error", "raise": "throw", "coroutine": "async",
    "asynchronous": "async", "mapping": "dict", "attribute": "field", "determine": "check",
    "verify": "check", "validate": "check", "modify": "change", "append": "add",
    "insert": "add", "length": "size", "size": "length", "pathname": "path",
    "filename": "file", "deserialize": "parse", "serialize": "encode", "iterable": "list",
    "sequence": "list", "character": "char", "whitespace": "spaces", "initialize": "init",
    "establish": "open", "instantiate": "create", "construct": "build", "duplicate": "copy",
    "identical": "same", "equivalent": "same", "specify": "set", "contents": "content",
    "arbitrary": "any", "subsequent": "next", "previous": "last", "maximum": "max",
    "minimum": "min", "number": "count", "approximately": "about", "transmit": "send",
    "receive": "get", "acquire": "take", "release": "free", "indicate": "show",
    "display": "show", "print": "show", "output": "write", "input": "read",
    "convert": "turn", "type": "kind", "text": "string", "line": "row", "command": "cmd",
    "representation": "repr", "state": "status", "url": "link", "write": "save",
    "single": "one", "first": "initial", "named": "called", "call": "invoke", "end": "finish",
    "binary": "bytes", "item": "entry", "entry": "item", "start": "begin", "internal": "private",
    "position": "offset", "make": "create", "system": "os", "copy": "clone", "parse": "read",
    "header": "headers", "response": "reply", "id": "identifier", "element": "item",
    "package": "module", "order": "sort", "information": "info", "empty": "blank",
    "environment": "env", "result": "output", "database": "db", "extract": "pull",
    "document": "doc", "terminal": "console", "expression": "expr", "variable": "var",
    "run": "execute", "documentation": "docs", "add": "append", "perform": "do",
    "flag": "option", "load": "read", "absolute": "full", "parameter": "param",
    "record": "entry", "operation": "op", "encoding": "charset", "produce": "generate",
    "execution": "run", "separator": "delimiter", "next": "following", "hexadecimal": "hex",
    "program": "app", "implementation": "impl", "host": "server", "descriptor": "handle",
}
RUNS = ("bm25", "tfidf", "title_bm25", "reranked")
_WORD = re.compile(r"[a-z][a-z0-9]*")
_SIGNATURE = re.compile(r"^[\w.]+\(.*\)\s*(->.*)?$|^-+$")  # 'dumps(obj, ...) -> str', '--'
_MADE_UP = re.compile(r"^\w+\(.*\)$", re.S)  # dataclass and namedtuple docs: 'Point(x, y)'


# --- the corpus: the standard library's docstrings ------------------------------------------


def _private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def _skipped(name: str) -> bool:
    parts = name.split(".")
    if _private(name) or (parts[0] in NOT_WALKED_INTO and len(parts) > 1):
        return True
    return any(part in SKIPPED or part.startswith("test_") for part in parts)


def _import(name: str) -> ModuleType | None:
    """The module, or None when it fails to import; nothing it prints or warns is shown."""
    sink = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
                contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except KeyboardInterrupt:
        raise
    except BaseException:  # ImportError, SystemExit, OSError, ...: catch everything
        return None


def stdlib_modules() -> list[ModuleType]:
    """The importable public modules of this interpreter's standard library, by name."""
    base = Path(sysconfig.get_paths(vars={"base": sys.base_prefix,
                                          "platbase": sys.base_prefix})["stdlib"]).resolve()

    def in_stdlib(module: ModuleType) -> bool:
        file = getattr(module, "__file__", None)
        if file is None:  # built in or frozen
            return True
        path = Path(file).resolve()
        return path.is_relative_to(base) and "site-packages" not in path.parts

    found: dict[str, ModuleType] = {}

    def visit(name: str) -> None:
        if _skipped(name) or name in found:
            return
        module = _import(name)
        if module is None or not in_stdlib(module):
            return
        found[name] = module
        path = getattr(module, "__path__", None)
        if path is not None:  # a package: its submodules, found without importing them
            for sub in sorted(info.name for info in pkgutil.iter_modules(path)):
                visit(f"{name}.{sub}")

    for name in sorted(sys.stdlib_module_names):
        visit(name)
    return [found[name] for name in sorted(found)]


def _doc(obj: object) -> str | None:
    """The docstring a reader of help() sees, cleaned: a class's own (a subclass without one
    is not documented), a method's own or else that of the method it overrides."""
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else inspect.getdoc(obj)
    if not isinstance(doc, str):
        return None
    doc = inspect.cleandoc(doc)
    # a made-up signature is no documentation, and a memory address differs every run
    if not doc or _MADE_UP.match(doc) or " at 0x" in doc:
        return None
    return doc


def _cut(text: str) -> str:
    if len(text) <= TEXT_CHARS:
        return text
    return text[: text.rfind(" ", 0, TEXT_CHARS)].rstrip()


def _face(home: object, module: str) -> tuple:
    """How well `module` suits an object whose home is `home`, lowest first: the home itself,
    the public face of a private or hidden home (`_io` -> io, `posix` -> os), then the
    shallowest module that exposes it, then by the module's name."""
    home = str(home)
    face = FACES.get(home, home.lstrip("_"))
    return (module != home, module != face, module.count("."), module)


def stdlib_chunks() -> list[dict]:
    """One chunk per documented public function, class and method, by module then name; a
    class's methods are those help() lists, its own and those it inherits. An object that
    several modules expose is listed once, under the module `_face` prefers."""
    modules = stdlib_modules()
    walked = {module.__name__ for module in modules}
    where: dict[int, tuple[tuple, str, str, object]] = {}  # id -> (preference, module, name, obj)
    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            home = getattr(obj, "__module__", None)
            if home != module.__name__ and home in walked:
                continue  # imported from another public module: listed there
            preference = (*_face(home, module.__name__), name)  # an alias: the first name
            if id(obj) not in where or preference < where[id(obj)][0]:
                where[id(obj)] = (preference, module.__name__, name, obj)
    chunks = []

    def add(name: str, obj: object, module: str, inherited: bool = False) -> None:
        doc = _doc(obj)
        if doc is not None:
            chunks.append({"_id": name, "title": name, "text": _cut(doc), "full": doc,
                           "module": module, "package": module.split(".")[0],
                           "inherited": inherited})

    for _, module, name, obj in sorted(where.values(), key=lambda found: found[1:3]):
        qualified = f"{module}.{name}"
        add(qualified, obj, module)
        if inspect.isclass(obj):
            for attr in sorted(dir(obj)):
                member = inspect.getattr_static(obj, attr, None)
                member = getattr(member, "__func__", member)  # staticmethod, classmethod
                if not attr.startswith("_") and inspect.isroutine(member):
                    add(f"{qualified}.{attr}", member, module, attr not in vars(obj))
    return chunks


# --- queries written from the chunks --------------------------------------------------------


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, past a signature line."""
    lines = doc.splitlines()
    while lines and (_SIGNATURE.match(lines[0].strip()) or not lines[0].strip()):
        lines.pop(0)
    paragraph = []
    for line in lines:
        if not line.strip():
            break
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]


def name_tokens(name: str) -> set[str]:
    """The words of an object's own name, the last part of its qualified name: 'OrderedDict'
    gives ordereddict, ordered, dict; 'json.dumps' gives dumps (the module's words stay: a
    person says "json")."""
    own = name.rpartition(".")[2]
    tokens = {own.lower()}
    for part in own.split("_"):
        tokens.add(part.lower())
        tokens.update(p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", part))
    return tokens


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(sentence: str, name: str) -> list[str]:
    """The sentence's words a person would keep: no stopword, no one-letter word, none of
    the object's own name, each once, in order."""
    own = name_tokens(name)
    kept = [w for w in words_of(sentence) if len(w) > 1 and w not in STOPWORDS and w not in own]
    return list(dict.fromkeys(kept))


def base_form(word: str, vocabulary: set[str]) -> str:
    """The word as a person types it: 'strings' string, 'parsing' parse, 'formatted' format,
    'entries' entry; a form is taken only when the corpus has it as a word, else the word."""
    candidates = []
    for ending, replacements in (("ies", ("y",)), ("sses", ("ss",)), ("es", ("e", "")),
                                 ("s", ("",)), ("ing", ("e", "", "-")), ("ed", ("e", "", "-"))):
        if word.endswith(ending) and len(word) > len(ending) + 2 and not word.endswith("ss"):
            stem = word[: -len(ending)]
            for replacement in replacements:  # '-': a doubled last letter, 'formatted'
                if replacement != "-":
                    candidates.append(stem + replacement)
                elif len(stem) > 2 and stem[-1] == stem[-2]:
                    candidates.append(stem[:-1])
            break
    return next((c for c in candidates if c in vocabulary), word)


def reword(rng: random.Random, words: list[str], vocabulary: set[str]) -> list[str]:
    """A person's words for the docstring's (distinct base forms): the base forms, and often
    a synonym, unless it is one of the other words."""
    said = [base_form(word, vocabulary) for word in words]
    for i, word in enumerate(said):
        other = SYNONYMS.get(word)
        if other is not None and other not in said and rng.random() < SYNONYM_SHARE:
            said[i] = other
    return said


def make_queries(rng: random.Random, chunks: list[dict], n: int) -> list[dict]:
    """n queries, each written from one chunk drawn among those with a usable first sentence
    (not an inherited method: a query is written about where a docstring is defined)."""
    vocabulary = {word for chunk in chunks for word in words_of(chunk["text"])}
    usable = []
    for i, chunk in enumerate(chunks):
        sentence = first_sentence(chunk["full"])
        words = content_words(sentence, chunk["_id"])
        # one word per base form: 'parse' and 'parsing' are one word to a person
        forms = [base_form(word, vocabulary) for word in words]
        words = [word for j, word in enumerate(words) if forms[j] not in forms[:j]]
        if not chunk["inherited"] and len(sentence.split()) >= SENTENCE_WORDS and len(
            words
        ) >= QUERY_WORDS[0]:
            usable.append((i, words))
    if n > len(usable):
        raise ValueError(f"--queries {n}: only {len(usable)} chunks have a usable sentence")
    queries = []
    for number, (source, words) in enumerate(rng.sample(usable, n), 1):
        keep = rng.randint(QUERY_WORDS[0], min(QUERY_WORDS[1], len(words)))
        picked = [words[j] for j in sorted(rng.sample(range(len(words)), keep))]
        kind = "question" if rng.random() < QUESTION_SHARE else "keyword"
        text = " ".join(reword(rng, picked, vocabulary))
        if kind == "question":
            text = rng.choice(QUESTIONS).format(words=text)
        queries.append({"_id": f"q{number:04d}", "text": text, "words": picked,
                        "source": source,
                        "metadata": {"kind": kind, "package": chunks[source]["package"]}})
    return queries


# --- labels ---------------------------------------------------------------------------------


def label(rng: random.Random, queries: list[dict], chunks: list[dict],
          words: list[set[str]]) -> dict[str, dict[str, int]]:
    """Graded labels per query: 2 its source, 1 its module's chunks holding at least half of
    its words, a few 0 from its module holding none."""
    by_module: dict[str, list[int]] = {}
    for i, chunk in enumerate(chunks):
        by_module.setdefault(chunk["module"], []).append(i)
    qrels = {}
    for query in queries:
        source, asked = query["source"], query["words"]
        grades = {chunks[source]["_id"]: 2}
        unrelated = []
        for i in by_module[chunks[source]["module"]]:
            if i == source:
                continue
            shared = sum(w in words[i] for w in asked)
            if 2 * shared >= len(asked):
                grades[chunks[i]["_id"]] = 1
            elif shared == 0:
                unrelated.append(i)
        for i in rng.sample(unrelated, min(JUDGED_ZERO, len(unrelated))):
            grades[chunks[i]["_id"]] = 0
        qrels[query["_id"]] = grades
    return qrels


def judge(rng: random.Random, queries: list[dict], qrels: dict[str, dict[str, int]],
          runs: dict[str, dict[str, list[tuple[int, float]]]], chunks: list[dict],
          words: list[set[str]]) -> dict[str, dict[str, int]]:
    """A model judge's grades: the share of the query's words in the chunk, with noise."""
    index = {chunk["_id"]: i for i, chunk in enumerate(chunks)}
    graded = {}
    for query in queries:
        ids = list(qrels[query["_id"]])
        for run in ("bm25", "tfidf"):
            ids += [chunks[i]["_id"] for i, _ in runs[run][query["_id"]][:JUDGE_TOP]]
        grades = {}
        for doc in dict.fromkeys(ids):
            share = sum(w in words[index[doc]] for w in query["words"]) / len(query["words"])
            if share >= JUDGE_HIGH:
                grade = 2 if rng.random() < 0.5 else 1
            else:
                grade = 1 if share > JUDGE_LOW else 0
            if grade and rng.random() < JUDGE_MISS:
                grade = 0
            elif not grade and rng.random() < JUDGE_FALSE:
                grade = 1
            grades[doc] = grade
        graded[query["_id"]] = grades
    return graded


# --- runs -----------------------------------------------------------------------------------


def top(scores: np.ndarray, depth: int = DEPTH) -> list[tuple[int, float]]:
    """The `depth` best (chunk, score) above 0, by score (4 decimals) then corpus order."""
    scores = np.round(np.asarray(scores, dtype=np.float64), 4)
    hits = np.flatnonzero(scores > 0)
    if len(hits) > depth:
        hits = hits[scores[hits] >= np.partition(scores[hits], -depth)[-depth]]
    hits = hits[np.lexsort((hits, -scores[hits]))][:depth]
    return [(int(i), float(scores[i])) for i in hits]


def bm25_index(documents: list[list[str]]) -> Callable[[list[str]], np.ndarray]:
    """BM25 (bm25s) over the tokenised documents: a query's tokens to every document's score."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(documents, show_progress=False)

    def scores(tokens: list[str]) -> np.ndarray:
        known = [t for t in tokens if t in retriever.vocab_dict]
        if not known:
            return np.zeros(len(documents))
        return retriever.get_scores(known).astype(np.float64)

    return scores


def retrieve(chunks: list[dict], queries: list[dict]) -> dict[str, dict[str, list]]:
    """Each run's top DEPTH (chunk index, score) per query id."""
    import bm25s
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [f"{chunk['title']} {chunk['text']}" for chunk in chunks]
    asked = [query["text"] for query in queries]

    def tokens(strings: list[str]) -> list[list[str]]:
        return bm25s.tokenize(strings, stopwords="en", return_ids=False, show_progress=False)

    asked_tokens = tokens(asked)
    bm25 = bm25_index(tokens(texts))
    title_bm25 = bm25_index([[t for t in re.split(r"[._]+", chunk["title"].lower()) if t]
                             for chunk in chunks])
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    documents = vectorizer.fit_transform(texts)
    tfidf = (vectorizer.transform(asked) @ documents.T).tocsr()  # rows are unit length: cosine

    runs: dict[str, dict[str, list]] = {run: {} for run in RUNS}
    for q, query in enumerate(queries):
        qid = query["_id"]
        lexical, cosine = bm25(asked_tokens[q]), tfidf[q].toarray().ravel()
        runs["bm25"][qid] = top(lexical)
        runs["tfidf"][qid] = top(cosine)
        runs["title_bm25"][qid] = top(title_bm25(asked_tokens[q]))
        ids = np.array([i for i, _ in runs["bm25"][qid]], dtype=np.int64)
        mixed = np.zeros(len(chunks))
        if len(ids):  # + 1e-4: every id of the list stays above 0, so in it
            mixed[ids] = (RERANK_MIX * _min_max(lexical[ids])
                          + (1 - RERANK_MIX) * _min_max(cosine[ids])) + 1e-4
        runs["reranked"][qid] = top(mixed)
    return runs


def _min_max(values: np.ndarray) -> np.ndarray:
    """Scaled to [0, 1] over the list; all 1 when they are equal."""
    low, high = values.min(), values.max()
    return (values - low) / (high - low) if high > low else np.ones_like(values)


# --- writing --------------------------------------------------------------------------------


def _qrels_lines(qrels: dict[str, dict[str, int]], only: set[str] | None = None) -> str:
    return "".join(f"{qid} 0 {doc} {grade}\n" for qid, grades in qrels.items()
                   if only is None or qid in only for doc, grade in grades.items())


def write_collection(out: Path, *, queries: int = 1_500,
                     seed: int = 44) -> dict[str, tuple[Path, str]]:
    """Write the collection into `out`; return each file's path and what it holds, by name."""
    rng = random.Random(seed)
    chunks = stdlib_chunks()
    asked = make_queries(rng, chunks, queries)
    qrels = label(rng, asked, chunks, [set(words_of(chunk["text"])) for chunk in chunks])
    runs = retrieve(chunks, asked)
    judged = judge(random.Random(f"{seed}-judge"), asked, qrels, runs, chunks,
                   [set(words_of(f"{chunk['title']} {chunk['text']}")) for chunk in chunks])
    sample = set(random.Random(f"{seed}-sample").sample(list(qrels), min(HUMAN_SAMPLE,
                                                                          len(qrels))))
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, tuple[Path, str]] = {}

    def write(name: str, text: str, what: str) -> None:
        (out / name).write_text(text, encoding="utf-8")
        written[name] = (out / name, what)

    write("corpus.jsonl", "".join(
        json.dumps({k: chunk[k] for k in ("_id", "title", "text")}) + "\n" for chunk in chunks),
        f"{len(chunks):,} chunks from {len({c['module'] for c in chunks}):,} modules, "
        f"{sum(c['inherited'] for c in chunks):,} of them inherited methods")
    kinds = {kind: sum(q["metadata"]["kind"] == kind for q in asked)
             for kind in ("keyword", "question")}
    what = (f"{len(asked):,} queries ({kinds['keyword']:,} keyword, {kinds['question']:,} "
            f"question) from {len({q['metadata']['package'] for q in asked}):,} packages")
    write("queries.jsonl", "".join(
        json.dumps({k: q[k] for k in ("_id", "text", "metadata")}) + "\n" for q in asked), what)
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["query_id", "text", "kind", "package"])
    writer.writerows([q["_id"], q["text"], q["metadata"]["kind"], q["metadata"]["package"]]
                     for q in asked)
    write("queries.csv", table.getvalue(), what)
    relevant = [sum(g > 0 for g in grades.values()) for grades in qrels.values()]
    write("qrels.txt", _qrels_lines(qrels),
          f"{sum(map(len, qrels.values())):,} labels, {sum(relevant):,} relevant "
          f"({sum(r == 1 for r in relevant):,} queries with one relevant id)")
    write("judge.txt", _qrels_lines(judged),
          f"{sum(map(len, judged.values())):,} judge labels, "
          f"{sum(g > 0 for grades in judged.values() for g in grades.values()):,} relevant")
    write("human_sample.txt", _qrels_lines(qrels, sample),
          f"the human labels of {len(sample):,} queries")
    for run, lists in runs.items():
        write(f"{run}.run", "".join(
            f"{qid} Q0 {chunks[i]['_id']} {rank} {score:.4f} {run}\n"
            for qid, ranked in lists.items() for rank, (i, score) in enumerate(ranked, 1)),
            f"{sum(map(len, lists.values())):,} lines, "
            f"{sum(bool(ranked) for ranked in lists.values()):,} queries answered")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, metavar="OUT_DIR",
                        help="where the files go (default benchmarks/out/stdlib/)")
    parser.add_argument("--queries", type=int, default=1_500, help="queries to write (1500)")
    parser.add_argument("--seed", type=int, default=44,
                        help="seed of the queries, labels, judge and sample (44)")
    args = parser.parse_args()
    # Python puts this folder first on sys.path, where coverage.py would pass for the coverage
    # package (numba, which bm25s uses when present, imports it) and any script for a module
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    started = time.perf_counter()
    written = write_collection(args.out, queries=args.queries, seed=args.seed)
    for path, what in written.values():
        print(f"{str(path):{max(len(str(p)) for p, _ in written.values())}}  {what}")
    print(f"written in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
