from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.ranking import Judgments
from tests.metrics.builders import make_qrels

judgments = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(-1, 3), min_size=1),
    min_size=1,
)


@settings(max_examples=200, deadline=None)
@given(judgments, st.data())
def test_judgment_lookup_matches_a_dict(labels, data):
    """Ids judged for one query go through the per-doc table, the others through the
    binary search; both must give the qrels' grade, and nothing for an unjudged pair."""
    qrels = make_qrels(labels)
    table = Judgments.of(qrels)
    docs, queries = qrels.doc_names.to_pylist(), list(qrels.query_ids)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(queries) - 1),
                                         st.integers(0, len(docs) - 1)), max_size=30))
    query = np.array([q for q, _ in pairs], dtype=np.int64)
    doc = np.array([d for _, d in pairs], dtype=np.int64)
    judged, grade = table.lookup(query, doc)
    for i, (q, d) in enumerate(pairs):
        expected = labels[queries[q]].get(docs[d])
        assert bool(judged[i]) == (expected is not None)
        assert int(grade[i]) == (expected or 0)
