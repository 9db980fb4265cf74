"""What each accepted file looks like: a few lines of every format and what its columns
mean, for the people choosing what to upload: the labels, the runs, and the optional queries
and corpus files (the dashboard's empty "My files" screen shows them; the loaders are the
rule, and a test reads every example back through them, and finds an example of every text
format each reader accepts: Parquet, a binary table, is named in the words instead)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FormatExample:
    kind: str  # "qrels", "run", "queries" or "corpus"
    name: str
    columns: str  # what each column means
    text: str  # a few lines of a valid file
    file_name: str  # a name the example loads under (the extension hints nothing: content rules)


FORMAT_EXAMPLES: tuple[FormatExample, ...] = (
    FormatExample(
        "qrels", "TREC qrels",
        "query id, an unused iteration column (0), doc id, grade (an integer; 0 or less is "
        "judged non-relevant). Three columns, without the iteration, are read too.",
        "q01 0 d01 3\nq01 0 d07 1\nq02 0 d11 0\n", "qrels.txt",
    ),
    FormatExample(
        "qrels", "BEIR qrels (TSV)",
        "a header query-id, corpus-id, score, then one judgment a line, tab-separated: BEIR's "
        "qrels/test.tsv as it ships.",
        "query-id\tcorpus-id\tscore\nq01\td01\t3\nq01\td07\t1\n", "test.tsv",
    ),
    FormatExample(
        "qrels", "CSV/TSV with a header",
        "query_id (or qid), doc_id (or docid, pid), grade (or relevance, label).",
        "query_id,doc_id,grade\nq01,d01,3\nq01,d07,1\n", "qrels.csv",
    ),
    FormatExample(
        "qrels", "JSONL",
        "one record per query: relevant as a list of ids (grade 1) or an {id: grade} object.",
        '{"query_id": "q01", "relevant": {"d01": 3, "d07": 1}}\n'
        '{"query_id": "q02", "relevant": ["d11"]}\n', "qrels.jsonl",
    ),
    FormatExample(
        "run", "TREC run",
        "query id, Q0, doc id, rank, score, run tag. Ordered by score (ties by doc id, as "
        "trec_eval), or by rank with the run-order convention.",
        "q01 Q0 d01 1 12.5 bm25\nq01 Q0 d09 2 11.0 bm25\nq02 Q0 d11 1 9.75 bm25\n", "bm25.run",
    ),
    FormatExample(
        "run", "CSV/TSV with a header",
        "query_id, doc_id, and rank or score (a rank orders the list; scores alone are "
        "ordered like a TREC run).",
        "query_id,doc_id,rank\nq01,d01,1\nq01,d09,2\n", "dense.csv",
    ),
    FormatExample(
        "run", "JSONL",
        "one record per query: retrieved, the ids in rank order. A record may also carry "
        "relevant, so that one file holds the labels and the run.",
        '{"query_id": "q01", "retrieved": ["d01", "d09", "d03"]}\n', "hybrid.jsonl",
    ),
    FormatExample(
        "queries", "BEIR queries.jsonl",
        "one query a line: _id, text, and metadata, whose every key is a facet to slice by.",
        '{"_id": "q01", "text": "why was my invoice charged twice", '
        '"metadata": {"intent": "troubleshooting"}}\n', "queries.jsonl",
    ),
    FormatExample(
        "queries", "JSONL",
        "one query a line: query_id, text, and any other key is a facet (a metadata object's "
        "keys too).",
        '{"query_id": "q01", "text": "why was my invoice charged twice", '
        '"intent": "troubleshooting"}\n', "queries.jsonl",
    ),
    FormatExample(
        "queries", "CSV/TSV with a header",
        "query_id (or qid) and text (or query); every other column is a facet.",
        "query_id,text,intent\nq01,why was my invoice charged twice,troubleshooting\n",
        "queries.csv",
    ),
    FormatExample(
        "queries", "TSV without a header",
        "query_id, a tab, the text: MS MARCO's queries.tsv.",
        "q01\twhy was my invoice charged twice\n", "queries.tsv",
    ),
    FormatExample(
        "corpus", "BEIR corpus.jsonl",
        "one chunk a line: _id, title (may be empty) and text. Only the ids the qrels and "
        "the runs mention are kept.",
        '{"_id": "d41", "title": "Billing FAQ", "text": "Why was my invoice charged twice? '
        'Usually it was not."}\n', "corpus.jsonl",
    ),
    FormatExample(
        "corpus", "JSONL",
        "one chunk a line: doc_id, text, and title (may be absent). Only the ids the qrels and "
        "the runs mention are kept.",
        '{"doc_id": "d41", "text": "Why was my invoice charged twice? Usually it was not."}\n',
        "chunks.jsonl",
    ),
    FormatExample(
        "corpus", "TSV without a header",
        "doc_id, a tab, the text: MS MARCO's collection.tsv.",
        "d41\tWhy was my invoice charged twice? Usually it was not.\n", "collection.tsv",
    ),
)
