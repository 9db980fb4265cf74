"""The adapters of LangChain's and LlamaIndex's retrievers, on each package's real classes over
an index built here in memory (fake embeddings: no model, no download), with every socket
refused while they run: ids from the declared metadata field, scores where the framework
gives them, and the run evaluate_retriever makes of them equal to what the retriever
returns when asked directly."""

from __future__ import annotations

import socket

import pytest

from metrics.context.frameworks import langchain_retriever, llamaindex_retriever
from metrics.context.live import evaluate_retriever

TEXTS = ["open a file for reading", "parse a json document", "sort a list in place",
         "join path parts", "send an http request", "compress bytes with zlib",
         "format a date as text", "read a csv file row by row"]
QUERIES = {f"q{i}": text for i, text in enumerate(TEXTS)}


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every connection the frameworks try is refused, and noted: a framework that swallows
    the error (LlamaIndex prints an NLTK download's and goes on) still fails the test."""
    tried = []

    def refused(*args, **kwargs):
        tried.append(args)
        raise OSError(f"a network connection was tried: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    monkeypatch.setattr(socket, "getaddrinfo", refused)
    yield
    assert not tried, f"the frameworks tried the network: {tried}"


# --------------------------------------------------------------------------- LangChain


@pytest.fixture
def store():
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents([Document(page_content=text, metadata={"id": f"doc{i}", "n": i})
                         for i, text in enumerate(TEXTS)])
    return store


def test_a_langchain_vector_store_retriever_gives_ids_from_the_metadata(store):
    retriever = store.as_retriever(search_kwargs={"k": 3})
    ask = langchain_retriever(retriever)
    # a document's own text embeds as itself: its chunk comes first
    for i, text in enumerate(TEXTS):
        ids = ask(text)
        assert ids == [doc.metadata["id"] for doc in retriever.invoke(text)]
        assert ids[0] == f"doc{i}" and len(ids) == 3
    result = evaluate_retriever(ask, QUERIES, 3, run_name="lc")
    assert not result.failures
    assert all(result.ids[f"q{i}"][0] == f"doc{i}" for i in range(len(TEXTS)))
    assert all(scores is None for scores in result.scores.values())  # invoke gives none


def test_a_langchain_vector_store_searched_directly_gives_its_scores(store):
    ask = langchain_retriever(store, k=4)
    found = ask(TEXTS[2])
    want = store.similarity_search_with_score(TEXTS[2], k=4)
    assert found == [(doc.metadata["id"], score) for doc, score in want]
    assert found[0][0] == "doc2" and found[0][1] == pytest.approx(1.0)
    result = evaluate_retriever(ask, QUERIES, 4, qrels=b"".join(
        f"q{i} 0 doc{i} 1\n".encode() for i in range(len(TEXTS))))
    assert result.scores["q2"] == tuple(score for _, score in want)
    assert result.evaluation.runs[0].summary["RR"].mean == pytest.approx(1.0)


def test_a_langchain_base_retriever_subclass_with_scores_in_its_metadata():
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class WordOverlap(BaseRetriever):
        """Documents sharing words with the query, most first, the share as its score."""

        k: int = 3

        def _get_relevant_documents(self, query, *, run_manager):
            words = set(query.split())
            scored = sorted(((len(words & set(text.split())) / len(words), i)
                             for i, text in enumerate(TEXTS)), key=lambda p: (-p[0], p[1]))
            return [Document(page_content=TEXTS[i], metadata={"chunk": f"c{i}",
                                                              "relevance": share})
                    for share, i in scored[:self.k]]

    ask = langchain_retriever(WordOverlap(), id_field="chunk", score_field="relevance")
    assert ask("read a csv file") == [("c7", 1.0), ("c0", 0.5), ("c1", 0.25)]
    assert langchain_retriever(WordOverlap(), id_field="chunk")("read a csv file") == [
        "c7", "c0", "c1"]  # no "score" in the metadata: ids alone
    result = evaluate_retriever(ask, {"q": "read a csv file"}, 10)
    assert result.ids["q"] == ("c7", "c0", "c1") and result.scores["q"] == (1.0, 0.5, 0.25)


def test_a_langchain_document_without_the_id_field_is_its_querys_failure(store):
    ask = langchain_retriever(store.as_retriever(search_kwargs={"k": 2}), id_field="doc_id")
    result = evaluate_retriever(ask, {"q": "sort a list"}, 2)
    (failure,) = result.failures
    assert failure.kind == "ValueError"
    assert failure.message == ("rank 1: the document's metadata has no 'doc_id' (its keys: "
                               "'id', 'n'); name the field that holds the id with id_field")
    own = langchain_retriever(store.as_retriever(search_kwargs={"k": 2}), id_field=None)
    assert len(own("sort a list")) == 2  # the store's own ids


def test_the_langchain_adapter_refuses_what_it_cannot_ask(store):
    with pytest.raises(ValueError, match="expected a langchain_core BaseRetriever or "
                       "VectorStore, got builtins.function"):
        langchain_retriever(lambda text: [])
    with pytest.raises(ValueError, match="k must be an integer >= 1 to search a LangChain "
                       "vector store, got None"):
        langchain_retriever(store)
    with pytest.raises(ValueError, match="k applies to a vector store"):
        langchain_retriever(store.as_retriever(), k=3)
    with pytest.raises(ValueError, match="id_field must be a metadata key"):
        langchain_retriever(store, id_field="", k=3)


# --------------------------------------------------------------------------- LlamaIndex


def nodes():
    from llama_index.core.schema import TextNode

    return [TextNode(text=text, id_=f"node-{i}", metadata={"id": f"doc{i}"})
            for i, text in enumerate(TEXTS)]


def test_a_llamaindex_vector_index_retriever_with_mock_embeddings():
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    index = VectorStoreIndex(nodes(), embed_model=MockEmbedding(embed_dim=8))
    retriever = index.as_retriever(similarity_top_k=3)
    ask = llamaindex_retriever(retriever)
    direct = retriever.retrieve(TEXTS[0])
    assert ask(TEXTS[0]) == [(hit.node.metadata["id"], hit.score) for hit in direct]
    result = evaluate_retriever(ask, QUERIES, 3, run_name="li")
    assert not result.failures and all(len(ids) == 3 for ids in result.ids.values())
    assert {doc for ids in result.ids.values() for doc in ids} <= {f"doc{i}" for i in range(8)}
    # MockEmbedding gives every node one vector, so every score ties: the TREC file gets rank
    # scores, and reads back in the retriever's order
    assert set(result.rank_scored) == set(QUERIES)
    for query in QUERIES:
        rows = result.run.query == query
        assert tuple(result.run.doc[rows]) == result.ids[query]
    own = llamaindex_retriever(retriever, id_field=None)(TEXTS[0])
    assert own == [(hit.node.node_id, hit.score) for hit in direct]
    assert all(ident.startswith("node-") for ident, _ in own)


def test_a_llamaindex_index_ranks_by_its_embedding_scores():
    """A BaseEmbedding of the package's own, words hashed to a vector: a node's own text is
    its nearest, and the scores the framework gives are the run's."""
    import zlib

    from llama_index.core import VectorStoreIndex
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class HashedWords(BaseEmbedding):
        def _vector(self, text):
            vector = [0.0] * 64
            for word in text.split():
                vector[zlib.crc32(word.encode()) % 64] += 1.0
            return vector

        def _get_query_embedding(self, query):
            return self._vector(query)

        def _get_text_embedding(self, text):
            return self._vector(text)

        async def _aget_query_embedding(self, query):
            return self._vector(query)

    index = VectorStoreIndex(nodes(), embed_model=HashedWords(model_name="hashed"))
    retriever = index.as_retriever(similarity_top_k=4)
    ask = llamaindex_retriever(retriever)
    result = evaluate_retriever(ask, QUERIES, 4, qrels=b"".join(
        f"q{i} 0 doc{i} 1\n".encode() for i in range(len(TEXTS))))
    assert all(result.ids[f"q{i}"][0] == f"doc{i}" for i in range(len(TEXTS)))
    for query, text in QUERIES.items():
        assert result.scores[query] == tuple(hit.score for hit in retriever.retrieve(text))
        assert list(result.scores[query]) == sorted(result.scores[query], reverse=True)
    assert result.evaluation.runs[0].summary["RR"].mean == pytest.approx(1.0)


def test_the_llamaindex_adapter_refuses_what_it_cannot_ask():
    from langchain_core.vectorstores import InMemoryVectorStore

    with pytest.raises(ValueError, match="expected a llama_index.core BaseRetriever, got "
                       "langchain_core"):
        llamaindex_retriever(InMemoryVectorStore.__new__(InMemoryVectorStore))


def test_importing_metrics_loads_neither_framework():
    import subprocess
    import sys

    code = ("import sys, metrics; metrics.evaluate_retriever; metrics.langchain_retriever; "
            "print([m for m in ('langchain_core', 'llama_index') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
