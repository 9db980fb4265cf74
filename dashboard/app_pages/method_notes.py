"""Method notes: what each figure certifies and leaves unsaid, the conventions, the limits."""

import streamlit as st

from dashboard.data import cache
from dashboard.layout import saved, ui
from metrics import (
    CATALOGUE,
    CLASS_MEANING,
    CONVENTIONS,
    LIMITS,
    LOW_RECALL,
    MEASURE_BY_KEY,
    SUMMARY_MEASURES,
    label_of,
    vocabulary,
)

view = ui.page(
    "Method notes",
    "What each figure certifies and what it stays silent about, the conventions behind every "
    "number and their alternatives, and the limits no interval can show.",
)
evaluation = view.evaluation
conventions = evaluation.conventions

st.header("The metrics")
st.markdown(
    "Each query is a ranked list of ids scored against its labelled relevant ids at a cutoff "
    "K. The suite figures are macro-averages over the scored queries: each query weighs the "
    "same."
)
for measure in SUMMARY_MEASURES:
    kind = "rank-aware" if measure.rank_aware else "ignores the order inside the top K"
    interval = vocabulary.INTERVAL_NAMES[measure.interval]
    st.markdown(
        f"**{measure.name}** ({label_of(measure, 'K', conventions)}; {kind}; {interval}): "
        f"{measure.meaning}.  \n"
        f"*Certifies:* {measure.certifies}  \n*Silent about:* {measure.silent}"
    )
dcg, idcg = MEASURE_BY_KEY["DCG"], MEASURE_BY_KEY["IDCG"]
st.markdown(
    f"**{dcg.name}** and **{idcg.name}** are not averaged: they explain one query's nDCG in the "
    f"drill-down. {dcg.name}: {dcg.meaning}; {idcg.name}: {idcg.meaning}."
)

st.subheader("More measures, on request")
st.markdown(
    "Added in the sidebar (More measures) or by `--metric` on the command line, by any name "
    "ir_measures or trec_eval reads; a parameter in the name holds for that figure alone and "
    "is stated beside it. " + vocabulary.measures.PR_CURVE_RULE)
for measure in (m for m in CATALOGUE if not m.shown):
    kind = "reads the whole list" if not measure.at_k else "read at K"
    interval = vocabulary.INTERVAL_NAMES[measure.interval]
    names = ", ".join(f"`{name}`" for name in filter(None, (
        measure.ir_measures, measure.trec_eval.format(k="K", recall=0.5),
        *measure.aliases)))
    parameters = "; ".join(f"`{p.name}`: {p.meaning}" for p in measure.parameters)
    st.markdown(
        f"**{measure.name}** ({kind}; {interval}): {measure.meaning}. {measure.rule}  \n"
        f"*Certifies:* {measure.certifies}  \n*Silent about:* {measure.silent}  \n"
        f"*Names:* {names or '—'}" + (f"  \n*Parameters:* {parameters}" if parameters else ""))
for geometric in vocabulary.measures.GEOMETRIC_SUMMARIES:  # gm_map: a summary, not a mean
    names = ", ".join(f"`{name}`" for name in geometric.spellings)
    st.markdown(
        f"**{geometric.name}** (a summary over the queries, not a mean; shown in a table of "
        f"its own on the Overview): {geometric.meaning}. {geometric.rule}  \n"
        f"*Certifies:* {geometric.certifies}  \n*Silent about:* {geometric.silent}  \n"
        f"*Interval:* {geometric.interval}.  \n*Against the baseline:* {geometric.paired}  \n"
        f"*Names:* {names}")

st.header("Conventions")
st.markdown("Several figures have more than one accepted form. Each choice is a switch in the "
            "sidebar, and the sentence of the current choice is stated beside the numbers.")
for convention in CONVENTIONS:
    if not convention.choices:
        continue
    current = getattr(conventions, convention.field)
    lines = []
    for choice in convention.choices:
        now = choice.value == current
        label = f"**{choice.label}**" if now else choice.label
        lines.append(f"- {label}{' (default)' if choice.value == convention.default else ''}"
                     f"{' ← now' if now else ''}: {choice.sentence}")
    flag = f" (`{convention.flag}`)" if convention.flag else ""
    st.markdown(f"**{convention.title}**{flag}: {convention.changes}\n" + "\n".join(lines))
sentences = conventions.sentences()
fixed = [*vocabulary.RULES, *(c.key for c in CONVENTIONS if not c.choices)]
st.markdown("**Fixed rules and the current settings**\n"
            + "\n".join(f"- {sentences[key]}" for key in dict.fromkeys(fixed)))

st.header("Query classes")
st.markdown("\n".join(f"- **{name.replace('_', ' ')}**: {meaning}"
                      for name, meaning in CLASS_MEANING.items()))

st.header("The k suggestion and the diagnosis")
if cache.without_lists(view):  # saved figures: no suggestion or diagnosis was kept
    saved.needs_lists(view, "classes", stop=False)
else:
    baseline = evaluation.runs[0]
    st.markdown(
        f"- **Suggested K**: the {baseline.suggestion.rule}. Read it as a plateau detector: past "
        "it, extra chunks buy little recall and cost tokens.\n"
        f"- **Recall low at every k** (best recall below {LOW_RECALL}): the right chunks are not "
        "retrieved at all; look at chunking, the embedding model and query rewriting before K.\n"
        + "\n".join(f"- **{finding.failure.capitalize()}** is flagged when {finding.threshold}."
                    for finding in baseline.diagnosis)
    )

st.header("Honest limits")
st.markdown("\n".join(f"- {limit}" for limit in LIMITS))
