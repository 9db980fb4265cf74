"""What the harmed queries share, as the Compare page's table lays it out: every cell is
the engine's words, and a lift with no value (no other query holds the feature) reads
undefined with its reason, never None."""

from __future__ import annotations

from dashboard.data import review
from metrics import harm_profile
from metrics.vocabulary.risk import NO_OTHER_HOLDS, times
from tests.dashboard.unshown import FORBIDDEN
from tests.metrics.explain.test_harmed import comparison_of, queries_of


def test_times_as_common_is_a_number_or_undefined_with_why():
    texts = {f"q{i}": ("without header" if i < 4 else "as csv") + (" csv" * (i == 3))
             for i in range(12)}
    differences = {q: -0.5 if i < 4 else 0.1 for i, q in enumerate(texts)}
    profile = harm_profile(comparison_of(differences), "cand", "m@5",
                           queries_of(texts, {q: "k" for q in texts}), delta=0.05)
    table = review.shared_table(profile).set_index("Feature")
    assert table.loc["word: without", "Times as common"] == f"undefined ({NO_OTHER_HOLDS})"
    for shared in profile.shared:
        cell = table.loc[f"word: {shared.value}", "Times as common"]
        assert cell == times(shared.lift, shared.lift_undefined)
    assert not any(FORBIDDEN.search(str(cell)) for cell in table.to_numpy().ravel())
