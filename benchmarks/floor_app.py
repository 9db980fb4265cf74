"""The floor: the dashboard's pages drawn again with nothing to compute.

    streamlit run benchmarks/floor_app.py -- RECORDING

Part of the browser benchmark: benchmarks/browser.py records the dashboard's pages with
benchmarks/floor_record.py, serves this app on a port of its own beside the dashboard, and
times every change on both, alternately. What a change costs here is Streamlit's rerun, the
transfer and the browser's drawing of a page whose content is the dashboard's, element for
element: the floor a change of the dashboard can come near.

RECORDING holds, for each page and each state of a small grid (floor_record.py), every
element and block the dashboard sent, where it sent it and from which fragment. A run of
this app sends them again, byte for byte, in the same places (the sidebar and the page's
main area), in fragments where the dashboard has fragments (a change inside one reruns it
alone, as there). The controls the benchmark uses are live widgets drawn in the recorded
one's place, with its label, options and help ("K (cutoff)", "DCG gain", "Runs shown ...",
the drill-down's "Query" and Next, Compare's "Baseline (before)" and "Candidates (after)");
every other widget is sent as recorded and does nothing. The live controls pick the state
drawn: the runs shown (and on Compare the candidates) its shape; K, the gain, the query and
the baseline, each the recorded value whose index is the control's modulo their number (K
counted from the first recorded), so that a change here changes what the same change
changes on the dashboard, with figures of the same kind and size (the query: the next
recorded one at each pick or Next, see turn_query). The page states the recorded K, not the
one typed: the floor's figures are the right size, not the right values. Except on a page
recorded at every K the benchmark types there (floor_record.py's `--k`: the drill-down and
Compare, whose tables, side-by-side lists and grading rows have as many rows as K asks
for), where a K typed draws that K: at K = 95 the drill-down lists 95 ranks and grades some
70 unjudged ids, where the state at K = 11 lists 11 ranks and grades 5. The few things
the live controls show differently (the candidates are not reset when the baseline
changes, the runs shown not reordered) cost nothing to draw.

Streamlit sends an element the browser already holds as a reference to it (its message
cache): so do both apps, but a new K here is one of the recorded K, drawn before, where the
dashboard's figures at a new K are new. At these sizes that is a few milliseconds of
transfer in the floor's favour.
"""

from __future__ import annotations

import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st
from streamlit.delta_generator_singletons import context_dg_stack
from streamlit.proto.Block_pb2 import Block
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Navigation_pb2 import Navigation
from streamlit.runtime.scriptrunner import enqueue_message
from streamlit.runtime.state.common import user_key_from_element_id

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.state import session  # noqa: E402

MAIN, SIDEBAR = 0, 1  # the delta paths' root containers
COMPARE = "Compare"
QUERY, NEXT = "drilldown.query", "drilldown.next"  # the drill-down's picker and Next button
K, GAIN, RUNS = session.K, session.settings_key("gain"), session.RUNS
BASELINE, CANDIDATES = session.BASELINE, session.CANDIDATES
LIVE = (K, GAIN, RUNS, QUERY, NEXT, BASELINE, CANDIDATES)  # the dashboard's widget keys
APP_RERUN = "floor.app_rerun"  # a fragment's control changed what the sidebar draws
QUERY_TURNS = "floor.query_turns"  # how many times another query was picked (turn_query)


@dataclass(eq=False)  # a node is itself: found among a page's fragments by identity
class Node:
    """An element or a block of a recorded page, with the fragment that drew it."""

    proto: Element | Block | None = None
    fragment: str = ""
    children: dict[int, Node] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    roots: dict[int, Node]  # MAIN and SIDEBAR
    fragments: list[Node]  # each fragment's own container, in the order drawn


def page_of(deltas: list[tuple[tuple[int, ...], str, str, bytes]]) -> Page:
    """The recorded deltas as a tree, the last delta at a place standing."""
    roots = {MAIN: Node(), SIDEBAR: Node()}
    for path, fragment, kind, data in deltas:
        parent = roots[path[0]]
        for index in path[1:-1]:
            parent = parent.children.setdefault(index, Node())
        before = parent.children.get(path[-1])
        proto = Element.FromString(data) if kind == "element" else Block.FromString(data)
        parent.children[path[-1]] = Node(proto, fragment, before.children if before and
                                         kind == "block" else {})
    fragments: list[Node] = []

    def collect(node: Node, fragment: str) -> None:
        for index in sorted(node.children):
            child = node.children[index]
            if is_fragment(child, fragment):
                fragments.append(child)
            collect(child, child.fragment)

    for root in roots.values():
        collect(root, "")
    return Page(roots, fragments)


def is_fragment(node: Node, drawing: str) -> bool:
    """A block drawn by another fragment than the one drawing its parent is that fragment's
    own container (st.fragment opens one)."""
    return isinstance(node.proto, Block) and bool(node.fragment) and node.fragment != drawing


def widget_key(element: Element) -> str | None:
    """The dashboard's key of a recorded widget (None for an element or a widget without)."""
    kind = element.WhichOneof("type")
    element_id = getattr(getattr(element, kind), "id", "") if kind else ""
    return user_key_from_element_id(element_id) if element_id.startswith("$$ID") else None


@dataclass(frozen=True)
class Recording:
    navigation: Navigation
    # (title, runs shown, candidates or None, K's, gain's, query's, baseline's index) -> page
    pages: dict[tuple, Page]
    k: tuple[int, ...]  # the K recorded, in the order of their index
    sizes: dict[str, tuple[int, ...]]  # title -> how many K, gains, queries, baselines
    live: dict[str, Element]  # each live control as first recorded (every run shown)
    k_by_page: dict[str, tuple[int, ...]] = field(default_factory=dict)  # title -> its K

    def k_index(self, title: str, typed: int) -> int:
        """The index of the state drawn for the K typed: its own where the page was recorded
        at it, else counted from the first recorded, modulo the first K recorded."""
        recorded = self.k_by_page.get(title, ())
        if typed in recorded:
            return recorded.index(typed)
        return (typed - self.k[0]) % len(self.k)

    def page(self, key: tuple) -> Page:
        """The recorded state `key`; else the same with the first baseline, then the first
        query too (states the benchmark does not reach); for a page not recorded (never
        timed), the first page recorded."""
        for fallback in (key, (*key[:-1], 0), (*key[:-2], 0, 0)):
            if fallback in self.pages:
                return self.pages[fallback]
        return next((page for found, page in self.pages.items() if found[0] == key[0]),
                    next(iter(self.pages.values())))


@st.cache_resource
def recording(path: str) -> Recording:
    """The recording written by floor_record.py (a pickle of bytes and tuples it wrote)."""
    raw = pickle.loads(Path(path).read_bytes())
    pages = {key: page_of(deltas) for key, deltas in raw["scenarios"].items()}
    live: dict[str, Element] = {}
    for deltas in raw["scenarios"].values():
        for _, _, kind, data in deltas:
            if kind == "element":
                element = Element.FromString(data)
                key = widget_key(element)
                if key in LIVE:
                    live.setdefault(key, element)
    sizes = {key[0]: tuple(1 + max(found[at] for found in pages if found[0] == key[0])
                           for at in range(3, 7)) for key in pages}
    return Recording(Navigation.FromString(raw["navigation"]), pages, tuple(raw["k"]), sizes,
                     live, {title: tuple(k) for title, k in raw.get("k_by_page", {}).items()})


# --- the live controls ------------------------------------------------------------------


def floor(key: str) -> str:
    return f"floor.{key}"


def recorded_value(element: Element):
    """What the recorded widget showed: its set value, else its default."""
    kind = element.WhichOneof("type")
    proto = getattr(element, kind)
    if kind == "number_input":
        return int(proto.default) if proto.data_type == proto.INT else proto.default
    if kind == "multiselect":
        return (list(proto.raw_values) if proto.set_value
                else [proto.options[i] for i in proto.default])
    if kind in ("selectbox", "radio"):
        return proto.raw_value if getattr(proto, "set_value", False) and proto.raw_value \
            else proto.options[proto.default]
    return None


def value(source: Recording, key: str):
    """A live control's value now: the session's, else what the dashboard first showed."""
    if key not in source.live:
        return None
    return st.session_state.get(floor(key), recorded_value(source.live[key]))


def position(source: Recording, key: str) -> int:
    """The index of a live control's value among its options (0 without the control)."""
    if key not in source.live:
        return 0
    element = source.live[key]
    options, now = list(getattr(element, element.WhichOneof("type")).options), value(source, key)
    return options.index(now) if now in options else 0


def state(source: Recording, title: str) -> tuple:
    """The recorded state the controls pick: the shape the runs shown (and on Compare the
    candidates) give, and in each of the other dimensions, the recorded value whose index
    is the control's modulo their number (K counted from the first recorded; the K typed
    itself on a page recorded at it)."""
    shown = len(value(source, RUNS) or ()) or 1
    candidates = None
    if title == COMPARE:
        chosen = value(source, CANDIDATES)
        candidates = min(len(chosen) if chosen is not None else shown - 1, shown - 1)
    sizes = source.sizes.get(title, (1, 1, 1, 1))
    k = source.k_index(title, int(value(source, K) or source.k[0]))
    at = (k, position(source, GAIN), st.session_state.get(QUERY_TURNS, 0),
          position(source, BASELINE))
    return (title, shown, candidates, *(i % size for i, size in zip(at, sizes, strict=True)))


def turn_query() -> None:
    """Another query picked (the picker or Next): the next recorded one is drawn. Not the
    picked one's index modulo their number: the benchmark picks every 37th id, which, with
    the unscored ids left out of the picker, is often the same modulo 3, and the floor then
    drew again the page it showed where the dashboard draws another query."""
    st.session_state[QUERY_TURNS] = st.session_state.get(QUERY_TURNS, 0) + 1


def next_query(source: Recording) -> None:
    options = list(source.live[QUERY].selectbox.options)
    st.session_state[floor(QUERY)] = options[min(position(source, QUERY) + 1, len(options) - 1)]
    turn_query()


def ask_app_rerun() -> None:
    st.session_state[APP_RERUN] = True


def draw_live(dg, key: str, source: Recording) -> None:
    """The live control `key` in place of the recorded one, as the dashboard draws it."""
    element = source.live[key]
    kind = element.WhichOneof("type")
    proto = getattr(element, kind)
    name = floor(key)
    if kind != "button":
        st.session_state.setdefault(name, recorded_value(element))
    shown = {"label": proto.label, "help": proto.help or None, "key": name}
    if kind == "number_input":
        number = int if proto.data_type == proto.INT else float
        dg.number_input(min_value=number(proto.min) if proto.has_min else None,
                        max_value=number(proto.max) if proto.has_max else None,
                        step=number(proto.step), format=proto.format or None, **shown)
    elif kind == "radio":
        dg.radio(options=list(proto.options), horizontal=proto.horizontal, **shown)
    elif kind == "multiselect":
        dg.multiselect(options=list(proto.options), **shown)
    elif kind == "selectbox":
        dg.selectbox(options=list(proto.options),
                     on_change={BASELINE: ask_app_rerun, QUERY: turn_query}.get(key), **shown)
    elif key == NEXT:
        dg.button(icon=proto.icon or None, shortcut=proto.shortcut or None, type=proto.type,
                  on_click=next_query, args=(source,), **shown)
    else:
        raise ValueError(f"no live control for a recorded {kind} ({key})")


# --- the replay -------------------------------------------------------------------------


def send(dg, element: Element) -> None:
    """The recorded element at `dg`'s next place, as DeltaGenerator._enqueue sends one."""
    dg = dg._active_dg
    message = ForwardMsg()
    message.delta.new_element.CopyFrom(element)
    message.metadata.delta_path[:] = dg._cursor.delta_path
    enqueue_message(message)
    dg._cursor.lock_element()


def replay(dg, node: Node, drawing: str, source: Recording, title: str, page: Page) -> None:
    """`node`'s children into `dg`, in order: a block opened and filled, a fragment drawn by
    one of this app, a live control drawn, any other element sent as recorded."""
    for index in sorted(node.children):
        child = node.children[index]
        if is_fragment(child, drawing):
            with dg:
                drawn_fragment(source, title, page.fragments.index(child))
        elif isinstance(child.proto, Block):
            replay(dg._block(child.proto), child, drawing, source, title, page)
        elif widget_key(child.proto) in source.live:
            draw_live(dg, widget_key(child.proto), source)
        else:
            send(dg, child.proto)


@st.fragment
def drawn_fragment(source: Recording, title: str, number: int) -> None:
    """The `number`-th fragment of the page in the state the controls pick now (a control
    inside it reruns this alone, as in the dashboard)."""
    if st.session_state.pop(APP_RERUN, False):  # as the dashboard's page_fragment does
        st.rerun()
    page = source.page(state(source, title))
    node = page.fragments[number]
    replay(context_dg_stack.get()[-1], node, node.fragment, source, title, page)


def drawn(source: Recording, title: str):
    def draw() -> None:
        page = source.page(state(source, title))
        replay(st._main, page.roots[MAIN], "", source, title, page)
    draw.__name__ = f"floor_{title}"
    return draw


def main() -> None:
    source = recording(sys.argv[1])
    st.set_page_config(page_title="Floor", layout="wide", initial_sidebar_state="expanded")
    chosen = st.navigation([
        st.Page(drawn(source, page.page_name), title=page.page_name, icon=page.icon or None,
                url_path=page.url_pathname or None, default=page.is_default)
        for page in source.navigation.app_pages])
    page = source.page(state(source, chosen.title))
    replay(st.sidebar, page.roots[SIDEBAR], "", source, chosen.title, page)
    chosen.run()


main()
