"""The orders of settings values: for each kind of setting, whether one value is at least as tight as another.

Used by :mod:`engine.trust.tighten`, whose table gives every setting one of these.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Order = Callable[[Any, Any, Path], bool]
"""Whether the first value is at least as tight as the second (``root``: the project folder, for paths)."""


def same(value: Any, than: Any, root: Path) -> bool:
    """Only an equal value is as tight (a choice with no direction: an endpoint, a model)."""
    return type(value) is type(than) and bool(value == than)


def lower(value: Any, than: Any, root: Path) -> bool:
    """Numbers, smaller is tighter; None is no bound, looser than every number."""
    if than is None:
        return value is None or is_number(value)
    return is_number(value) and is_number(than) and bool(value <= than)


def earlier_in(*ranks: str) -> Order:
    """Named steps, earlier is tighter (``quick`` before ``deep``)."""

    def earlier(value: Any, than: Any, root: Path) -> bool:
        return value in ranks and than in ranks and ranks.index(value) <= ranks.index(than)

    return earlier


def tightest_is(tightest: Any) -> Order:
    """One value is tighter than every other; the rest are only as tight as themselves."""

    def holds(value: Any, than: Any, root: Path) -> bool:
        return same(value, tightest, root) or same(value, than, root)

    return holds


def fewer_names(value: Any, than: Any, root: Path) -> bool:
    """A list of names that allows (None: every name), fewer is tighter."""
    if than is None:
        return value is None or is_names(value)
    return is_names(value) and is_names(than) and set(value) <= set(than)


def more_names(value: Any, than: Any, root: Path) -> bool:
    """A list of names that excludes (None: none), more is tighter."""
    value, than = value or (), than or ()
    return is_names(value) and is_names(than) and set(value) >= set(than)


def inside_or_yours(value: Any, than: Any, root: Path) -> bool:
    """Folders: each one the user's own or inside the project (None: none)."""
    value, than = value or (), than or ()
    return is_names(value) and is_names(than) and all(raw in than or inside(raw, root) for raw in value)


def is_number(value: Any) -> bool:
    """An int or a float (a bool is not a number here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_names(value: Any) -> bool:
    """A list or tuple of strings."""
    return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)


def inside(raw: str, root: Path) -> bool:
    """Whether the folder ``raw`` names (relative ones from ``root``, ``~`` the home) resolves inside ``root``."""
    try:
        folder = (root / Path(raw).expanduser()).resolve()
        return folder.is_relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):  # a loop of links, a name the system refuses
        return False
