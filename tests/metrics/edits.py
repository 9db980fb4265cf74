"""One field of a JSON-like document (a snapshot, a saved-figures file's metadata) replaced,
or removed, at any depth: what the hostile-input tests of files read back draw."""

from __future__ import annotations

import copy

from hypothesis import strategies as st


def paths(value, path=()):
    """The path (keys and list indices) of `value` and of everything inside it."""
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for name, item in items:
        yield from paths(item, (*path, name))


def any_field_edited(data, document, values: st.SearchStrategy, *, removals: bool = False):
    """A copy of `document` with one field at a drawn path replaced by a draw of `values`,
    or, with `removals`, sometimes removed from its dictionary."""
    path = data.draw(st.sampled_from([p for p in paths(document) if p]))
    changed = copy.deepcopy(document)
    target = changed
    for name in path[:-1]:
        target = target[name]
    if removals and data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(values)
    return changed
