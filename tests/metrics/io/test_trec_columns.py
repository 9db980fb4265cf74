"""A column of ids screened at once (`io.trec.unwritable`) gives the answer of the one rule of
every TREC column written, `format.trec_column_problem`, id by id."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.io.trec import unwritable
from metrics.vocabulary.format import trec_column_problem

# every kind of character the rule names (white space, NUL, controls, bidi overrides, line and
# paragraph separators, a byte-order mark, '#'), beside letters of several scripts
TRICKY = " \t\n\r\f\v\x00\x01\x1b\x7f\x85\u200b\u202e\u2028\u2029\ufeff#é中ß\U0001f600"
texts = st.lists(st.text(alphabet=st.sampled_from(TRICKY) | st.characters(codec="utf-8"),
                         max_size=6), max_size=30)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_column_rule_is_the_rule_of_each_id(ids):
    for first in (False, True):
        expected = [trec_column_problem(text, first=first) is not None for text in ids]
        assert unwritable(np.array(ids, dtype=object), first=first).tolist() == expected
        assert unwritable(pa.array(ids, pa.string()), first=first).tolist() == expected


def test_a_missing_id_cannot_be_written_and_a_first_column_cannot_start_a_comment():
    column = pa.array(["d1", None, "#d2", "\ufeffd3", "d 4", ""], pa.string())
    assert unwritable(column).tolist() == [False, True, False, True, True, True]  # U+FEFF is Cf
    assert unwritable(column, first=True).tolist() == [False, True, True, True, True, True]
