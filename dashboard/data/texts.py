"""What the corpus file adds, through the engine and the store: the texts of the ids the
labels and the runs mention, read once per corpus and set of loaded files, and only when a
page shows them (the Overview's leak count, the drill-down, the rank movement).
"""

from __future__ import annotations

from dataclasses import dataclass

import metrics
from dashboard.data.cache import View, spinner, store


@dataclass(frozen=True, eq=False)
class Chunks:
    """A corpus read for a view, or the engine's one-line error."""

    file_name: str
    corpus: metrics.Corpus | None = None
    report: metrics.CorpusReport | None = None
    error: str | None = None

    def text(self, doc_id: str) -> str | None:
        return None if self.corpus is None else self.corpus.text(doc_id)

    def title(self, doc_id: str) -> str | None:
        return None if self.corpus is None else self.corpus.title(doc_id)


def chunks(view: View) -> Chunks | None:
    """The texts of every id the labels judge or a loaded run returns (shown or not, so that
    showing another run reads nothing again); None without a corpus file."""
    given = view.corpus_file
    if given is None:
        return None
    key = (given.key, tuple(sorted(view.files)))
    return store().get("corpus", key, lambda: _read(view), files=view.files | {given.key},
                       on_miss=spinner(f"Reading the texts of the ids used from "
                                       f"{given.file_name}…"))


def _read(view: View) -> Chunks:
    given = view.corpus_file
    wanted = metrics.mentioned_doc_ids(view.qrels, view.loaded_runs)
    try:
        corpus, report = metrics.read_corpus(given.source(), wanted, file_name=given.file_name)
    except ValueError as exc:  # LoadError names the file and the line
        return Chunks(given.file_name, error=str(exc))
    return Chunks(given.file_name, corpus, report)


def corpus(view: View) -> metrics.Corpus | None:
    """The texts read for the view, None without a corpus or when it was refused (the
    sidebar shows why)."""
    read = chunks(view)
    return None if read is None else read.corpus


def leakage(view: View) -> metrics.Leakage | None:
    """The queries copied into the chunks they are scored against (the retrieved or judged
    chunks of every loaded run), once per queries file, corpus and files; None without both
    texts."""
    corpus = chunks(view)
    if view.queries is None or corpus is None or corpus.corpus is None:
        return None
    key = (view.queries_key, view.corpus_file.key, tuple(sorted(view.files)))
    return store().get(
        "leakage", key,
        lambda: metrics.find_leaks(view.queries, corpus.corpus, candidates=metrics.
                                   retrieved_or_judged(view.qrels, view.loaded_runs)),
        files=view.files | {view.queries_key, view.corpus_file.key},
        on_miss=spinner("Looking for queries copied into the corpus…"))
