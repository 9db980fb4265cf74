"""Entry point: `streamlit run dashboard/app.py` from the repository root.

The sidebar (data, runs, K and conventions) is drawn here on every run, so every page sees the
same Evaluation; each page in app_pages/ only lays it out. To add a page, add a module to
app_pages/ and a line to PAGES.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard.app_pages import present
from dashboard.data import progress
from dashboard.state import asked, link, saved, session, sidebar

OUT_OF_MEMORY = ("This server ran out of memory drawing the page: load smaller files (fewer "
                 "queries, runs or a shorter queries file), or fewer runs at once.")
ICON = str(Path(__file__).resolve().parent / "assets" / "icon.png")

# (page script relative to this file, title, icon): the navigation order; the first opens
PAGES = [
    ("app_pages/overview.py", "Overview", ":material/dashboard:"),
    ("app_pages/sweep.py", "K sweep", ":material/show_chart:"),
    ("app_pages/heatmap.py", "Per-query heatmap", ":material/grid_on:"),
    ("app_pages/drilldown.py", "Drill-down", ":material/search:"),
    ("app_pages/compare.py", "Compare", ":material/difference:"),
    ("app_pages/overlap.py", "Overlap", ":material/join_inner:"),
    ("app_pages/judge.py", "Judge labels", ":material/gavel:"),
    ("app_pages/drift.py", "Drift", ":material/timeline:"),
    ("app_pages/export.py", "Export", ":material/ios_share:"),
    ("app_pages/method_notes.py", "Method notes", ":material/menu_book:"),
]

st.set_page_config(
    page_title="Retriever comparison",
    page_icon=ICON,  # a local file: a Material or emoji icon is fetched from an outside host
    layout="wide",
    initial_sidebar_state="expanded",
)
saved.prepare()  # figures given on the command line open under My files
link.init()
link.publish()  # before st.navigation, which re-writes the URL when the run ends
# slides instead of the page chosen, without the sidebar (saved figures hold no lists to
# show the slides from: their pages as usual)
presenting = link.presenting() and not saved.active()
page = st.navigation(
    [st.Page(script, title=title, icon=icon, default=i == 0)
     for i, (script, title, icon) in enumerate(PAGES)],
    position="hidden" if presenting else "sidebar",
)
progress.main_area()  # a long load's status, in sight at the top of the page
try:
    if saved.active():  # saved figures: no lists to score, their own sidebar
        saved.draw()
    else:
        sidebar.draw()
    asked.publish(session.view())  # every choice, read once for the pages
    if presenting:
        present.draw()
    else:
        page.run()
    progress.run_over()  # the slow actions asked for by a click: done, or stopped
    if not saved.active():
        sidebar.decide_next_ks()  # a step of K then finds its figures made
except MemoryError:  # said in one line, never a traceback: the server stays up
    st.error(OUT_OF_MEMORY)
