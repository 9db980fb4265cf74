"""The retrievers RAG teams already have, as the callable `evaluate_retriever` calls (a query's
text -> ranked ids, or (id, score) pairs): LangChain's (`langchain-core`: a `BaseRetriever`,
or a `VectorStore` searched with its scores) and LlamaIndex's (`llama-index-core`: any
`BaseRetriever`, whose `NodeWithScore` carries a score).

Each document's id is read from a declared metadata field (`id_field`, "id" by default; None
reads the framework's own id, `Document.id` or `node.node_id`, which a vector store may have
made up). A document without the field is its query's failure, naming the field and the keys
the document has. Scores are kept when the framework gives one for every document of the
list: LlamaIndex's `NodeWithScore.score`, the score a LangChain vector store's
`similarity_search_with_score` returns, or a LangChain document's `metadata[score_field]`;
else the list is ids alone (its order is the ranking either way).

The frameworks are optional extras, imported only here and only when an adapter is made:
`import metrics` never loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from metrics.vocabulary.live import (
    DEFAULT_ID_FIELD,
    DEFAULT_SCORE_FIELD,
    LANGCHAIN_EXTRA,
    LLAMAINDEX_EXTRA,
)
from metrics.vocabulary.numeric import is_number

__all__ = ["langchain_retriever", "llamaindex_retriever"]

Answer = list[str] | list[tuple[str, float]]


def langchain_retriever(retriever: object, *, id_field: str | None = DEFAULT_ID_FIELD,
                        score_field: str | None = DEFAULT_SCORE_FIELD,
                        k: int | None = None) -> Callable[[str], Answer]:
    """A LangChain retriever as a callable: a `BaseRetriever` is asked by `invoke(text)` (its
    own settings, such as `search_kwargs={"k": ...}`, say how many it gives); a `VectorStore`
    by `similarity_search_with_score(text, k=k)` (`k` required), which gives each document's
    score as the store computes it (a similarity, or a distance: the run's order is the
    store's either way). Scores from a document's `metadata[score_field]` when every document
    of the list has one."""
    _check_fields(id_field, score_field)
    try:
        from langchain_core.retrievers import BaseRetriever
        from langchain_core.vectorstores import VectorStore
    except ImportError as error:
        raise ImportError(f"the LangChain adapter needs langchain-core: {LANGCHAIN_EXTRA} "
                          f"({error})") from None
    if isinstance(retriever, VectorStore):
        if not is_number(k, integer=True) or k < 1:
            raise ValueError(f"k must be an integer >= 1 to search a LangChain vector store, "
                             f"got {k!r}")

        def search(text: str) -> Answer:
            found = retriever.similarity_search_with_score(text, k=k)
            return [(_langchain_id(doc, id_field, rank), score)
                    for rank, (doc, score) in enumerate(found, 1)]

        return search
    if not isinstance(retriever, BaseRetriever):
        raise ValueError(f"expected a langchain_core BaseRetriever or VectorStore, got "
                         f"{type(retriever).__module__}.{type(retriever).__qualname__}")
    if k is not None:
        raise ValueError("k applies to a vector store; a retriever's own settings say how many "
                         "it gives (search_kwargs={'k': ...})")

    def ask(text: str) -> Answer:
        documents = retriever.invoke(text)
        ids = [_langchain_id(doc, id_field, rank) for rank, doc in enumerate(documents, 1)]
        scores = [_score(doc.metadata, score_field) for doc in documents]
        if ids and all(score is not None for score in scores):
            return list(zip(ids, scores, strict=True))
        return ids

    return ask


def llamaindex_retriever(retriever: object, *, id_field: str | None = DEFAULT_ID_FIELD
                         ) -> Callable[[str], Answer]:
    """A LlamaIndex retriever (`llama_index.core` `BaseRetriever`, such as
    `index.as_retriever(similarity_top_k=...)`) as a callable: `retrieve(text)`, each
    `NodeWithScore`'s id from `node.metadata[id_field]` (`node.node_id` when None), its score
    when every node of the list has one."""
    _check_fields(id_field, None)
    try:
        from llama_index.core.base.base_retriever import BaseRetriever
    except ImportError as error:
        raise ImportError(f"the LlamaIndex adapter needs llama-index-core: {LLAMAINDEX_EXTRA} "
                          f"({error})") from None
    if not isinstance(retriever, BaseRetriever):
        raise ValueError(f"expected a llama_index.core BaseRetriever, got "
                         f"{type(retriever).__module__}.{type(retriever).__qualname__}")

    def ask(text: str) -> Answer:
        found = retriever.retrieve(text)
        ids = [_field_id(hit.node.metadata, id_field, hit.node.node_id, rank, "node")
               for rank, hit in enumerate(found, 1)]
        scores = [hit.score for hit in found]
        if ids and all(_finite(score) for score in scores):
            return list(zip(ids, [float(s) for s in scores], strict=True))
        return ids

    return ask


def _check_fields(id_field: object, score_field: object) -> None:
    for name, value in (("id_field", id_field), ("score_field", score_field)):
        if value is not None and (not isinstance(value, str) or not value):
            raise ValueError(f"{name} must be a metadata key (a non-empty string) or None, "
                             f"got {value!r}")


def _langchain_id(doc: object, id_field: str | None, rank: int) -> object:
    return _field_id(doc.metadata, id_field, doc.id, rank, "document")


def _field_id(metadata: Mapping, id_field: str | None, own: object, rank: int,
              what: str) -> object:
    """The id in `metadata[id_field]` (the framework's own id `own` when id_field is None);
    a document without it is a ValueError naming the field and the keys it has."""
    if id_field is None:
        if own is None:
            raise ValueError(f"rank {rank}: the {what} has no id of its own (give id_field)")
        return own
    if id_field not in metadata:
        keys = ", ".join(repr(key) for key in list(metadata)[:10]) or "none"
        raise ValueError(f"rank {rank}: the {what}'s metadata has no {id_field!r} (its keys: "
                         f"{keys}); name the field that holds the id with id_field")
    return metadata[id_field]


def _score(metadata: Mapping, score_field: str | None) -> float | None:
    if score_field is None:
        return None
    value = metadata.get(score_field)
    return float(value) if _finite(value) else None


def _finite(value: object) -> bool:
    return is_number(value)
