"""The presentation mode: the evaluation as full-width slides a room can follow, the sidebar
and every page's controls hidden. app.py draws it instead of the page chosen while the mode
is on (the sidebar's toggle, or present=1 in the link; slide=4 reopens the fourth slide).

The slides are dashboard/data/slides.py's (the report's contents under the Compare page's
comparison, laid out by dashboard/views/slides.py): the same words and figures as the PDF and
PNGs the buttons below them download. Keys: → (or Page Down, or space) the next slide, ← (or
Page Up) the one before.
"""

from __future__ import annotations

import datetime as dt
import functools

import streamlit as st

from dashboard import safe
from dashboard.data import cache
from dashboard.data import slides as deck_data
from dashboard.layout import ui
from dashboard.state import asked, link, session
from dashboard.views import slides as built
from metrics import vocabulary

HELP = vocabulary.columns.CONTROL_HELP

# what the mode hides (the sidebar, its handle and the page's navigation) and how big its
# words are: a room reads them from the back
STYLE = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarNav"] { display: none !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 3.75rem 3rem 2rem 3rem; }
.st-key-present-keys { display: none !important; }
.st-key-present-slide h1 { font-size: 2.6rem; padding-top: 0; }
.st-key-present-slide [data-testid="stMarkdownContainer"] p { font-size: 1.45rem;
  line-height: 1.45; }
</style>"""
AXES_PX = 140  # what a stretched chart's axes take of its height on the page
NEXT_KEYS = ("pagedown", "space")  # besides →, on buttons the reader does not see
BACK_KEYS = ("pageup",)  # besides ←


def draw() -> None:
    view = ui.require_view()
    # in the page's flow: st.html puts a style alone in the event container, which a rerun
    # emptied (the sidebar came back while the slide stayed)
    st.markdown(STYLE, unsafe_allow_html=True)
    evaluation = view.evaluation
    snapshots = session.snapshots()
    chosen = asked.now()
    comparison = options = None
    if len(session.baseline_options(view, snapshots)) > 1:  # Compare's comparison
        options = session.compare_options(view, snapshots)
        if options.candidates and options.metrics:
            comparison = cache.compare(view, options, snapshots).comparison
    deck = deck_data.slides(
        view, session.inputs(), comparison, options if comparison is not None else None,
        primary=session.headline_metric(evaluation)[0], harm_delta=chosen.harm_delta,
        tokens_per_chunk=chosen.tokens_per_chunk, price=chosen.price)
    total = len(deck.slides)
    at = link.slide(total)
    _controls(view, deck, at, total)
    with st.container(key="present-slide"):
        _slide(deck.slides[at - 1])


def _controls(view: cache.View, deck: deck_data.Deck, at: int, total: int) -> None:
    """The row above the slide: back, where we are, on, the way out, the files."""
    step = link.step_slide
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button("Previous", key="present.back", icon=":material/arrow_back:",
                  disabled=at == 1, shortcut="left", on_click=step, args=(-1, total),
                  help=HELP["previous_slide"])
        st.markdown(f"**Slide {at} of {total}**")
        st.button("Next", key="present.next", icon=":material/arrow_forward:",
                  disabled=at == total, shortcut="right", on_click=step, args=(1, total),
                  help=HELP["next_slide"], type="primary")
        st.button("Leave the presentation", key="present.leave", icon=":material/close:",
                  on_click=link.leave_presentation, help=HELP["leave_present"],
                  type="tertiary")
        today = dt.date.today().isoformat()
        k = view.evaluation.k
        ui.download_button("Slides (PDF)", functools.partial(deck_data.pdf, view, deck),
                           f"slides-{today}-k{k}.pdf", "application/pdf",
                           key="present.pdf", help=HELP["slides_pdf"])
        ui.download_button("Slides (PNG)", functools.partial(deck_data.pngs, view, deck),
                           f"slides-{today}-k{k}.zip", "application/zip",
                           key="present.png", help=HELP["slides_png"])
    with st.container(key="present-keys"):  # the other keys: buttons nobody sees
        for key in NEXT_KEYS:
            st.button(f"Next ({key})", key=f"present.next.{key}", shortcut=key,
                      disabled=at == total, on_click=step, args=(1, total))
        for key in BACK_KEYS:
            st.button(f"Previous ({key})", key=f"present.back.{key}", shortcut=key,
                      disabled=at == 1, on_click=step, args=(-1, total))


def _slide(slide: built.Slide) -> None:
    """The slide's title, its lines (every one escaped: ids, names and questions come from
    files) and its chart, as wide as the page."""
    st.title(safe.md(slide.title), anchor=False)
    for line in slide.lines:
        st.markdown(safe.md(line))
    if slide.chart is not None:
        chart = slide.chart
        if isinstance(chart.height, int):  # stretched, the axes are fitted into the height
            chart = chart.properties(height=chart.height + AXES_PX)
        st.altair_chart(built.styled(chart), width="stretch")
