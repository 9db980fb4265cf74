"""A run given as the qrels, or the qrels as a run, is named as the likely mix-up."""

from __future__ import annotations

import pytest

from metrics import SAMPLE_DIR, load_qrels, load_run


def test_a_run_given_as_the_qrels_says_it_looks_like_a_run():
    with pytest.raises(ValueError, match=r"x\.txt, line 1: expected 4 columns .* got 6: it "
                       r"looks like a run file .*give it as a run, not as the qrels"):
        load_qrels((SAMPLE_DIR / "bm25.run").read_bytes(), file_name="x.txt")


def test_qrels_given_as_a_run_say_they_look_like_qrels():
    with pytest.raises(ValueError, match=r"got 4: it looks like a qrels file"):
        load_run((SAMPLE_DIR / "qrels.txt").read_bytes(), file_name="q.run")


def test_a_ragged_line_further_down_gets_no_such_guess():
    text = b"q1 0 d1 1\nq1 0 d2 1\nq1 Q0 d3 1 2.0 tag\n"
    with pytest.raises(ValueError, match=r"line 3: expected 4 columns \(qid iter docid grade\)"
                       r", got 6$"):
        load_qrels(text, file_name="q.txt")


def test_every_format_example_loads_as_its_kind():
    from metrics import FORMAT_EXAMPLES, load_queries, read_corpus

    for example in FORMAT_EXAMPLES:
        data = example.text.encode()
        if example.kind == "queries":  # the optional texts: their own readers
            assert len(load_queries(data, file_name=example.file_name)) >= 1, example.name
            continue
        if example.kind == "corpus":
            corpus, _ = read_corpus(data, ["d41"], file_name=example.file_name)
            assert corpus.text("d41"), example.name
            continue
        load = load_qrels if example.kind == "qrels" else load_run
        loaded, report = load(data, file_name=example.file_name)
        assert report.lines_used >= 1 and not report.dropped, example.name


def test_every_text_format_a_reader_accepts_has_an_example():
    """The empty My files screen lists FORMAT_EXAMPLES: a format the readers accept but no
    example shows (queries as {"query_id", "text"} JSONL was one) is one a newcomer never
    learns of. Parquet, a binary table, cannot be shown as lines."""
    from metrics import FORMAT_EXAMPLES, load_queries, read_corpus
    from metrics.io.corpus import CORPUS_FORMATS
    from metrics.io.loaders import QRELS_FORMATS, RUN_FORMATS
    from metrics.io.queries import QUERIES_FORMATS

    def format_of(example) -> str:
        data = example.text.encode()
        if example.kind == "queries":
            return load_queries(data, file_name=example.file_name).format
        if example.kind == "corpus":
            return read_corpus(data, ["d41"], file_name=example.file_name)[1].format
        load = load_qrels if example.kind == "qrels" else load_run
        return load(data, file_name=example.file_name)[1].format

    shown = {(e.kind, format_of(e)) for e in FORMAT_EXAMPLES}
    accepted = {(kind, f) for kind, formats in (("qrels", QRELS_FORMATS), ("run", RUN_FORMATS),
                                                ("queries", QUERIES_FORMATS),
                                                ("corpus", CORPUS_FORMATS))
                for f in formats if f != "parquet"}
    assert accepted - shown == set()
