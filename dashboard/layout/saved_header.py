"""What every page says over saved figures (an evaluation opened from `--per-query-out`):
what is shown, from which file, at which K and conventions, what needs the runs and what to
give to get it; and what the main area says when the evaluation file was refused."""

from __future__ import annotations

import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.data.cache import SavedInputs, View
from metrics import format as fmt
from metrics import vocabulary

WORDS = vocabulary.saved


def banner(view: View) -> None:
    """Under every page's title: saved figures, from which file, at which K and conventions,
    and what needs the runs."""
    saved = view.evaluation
    runs = fmt.count(len(saved.run_names), "run") + f" ({fmt.listing(saved.run_names, 6)})"
    said = WORDS.SAVED_FROM.format(file=saved.source, k=saved.k,
                                   queries=f"{len(saved.scored_ids):,}", runs=runs,
                                   engine=saved.engine if saved.recorded else "an unrecorded")
    if saved.excluded:
        said += (f" {saved.excluded:,} of the qrels' {saved.queries:,} queries were excluded "
                 "(no relevant id) and are not in the file.")
    st.info(safe.md(said) + " " + WORDS.RECOMPUTED, icon=":material/inventory_2:")
    if not saved.recorded:
        st.warning(safe.md(WORDS.UNRECORDED.format(
            file=saved.source, k=saved.k,
            seed_words=saved.conventions.sentences()["interval"])), icon=":material/help:")
    with st.expander("What needs the runs", icon=":material/list:"):
        st.markdown("\n".join(f"- {item[:1].upper()}{item[1:]}."
                              for item in WORDS.NEEDS_LISTS.values()))
        st.markdown(WORDS.GIVE_RUNS)


def nothing_yet(inputs: SavedInputs) -> None:
    """The main area when the evaluation file was refused."""
    st.error(safe.md(WORDS.NO_FIGURES_YET.format(error=inputs.figures.error)),
             icon=":material/error:")
    st.markdown(safe.md(WORDS.OPEN_HELP))


def needs_lists(view: View | None, what: str, *, stop: bool = True) -> None:
    """A page (or a section, `stop=False`) that reads the ranked lists, over saved figures:
    say so, and stop the page."""
    if not cache.without_lists(view):
        return
    st.info(safe.md(f"This shows {WORDS.NEEDS_LISTS[what]}, which the saved figures do not "
                    f"hold. {WORDS.GIVE_RUNS}"), icon=":material/info:")
    if stop:
        st.stop()
