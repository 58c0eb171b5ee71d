"""Environment variables hive sets in its own process for the libraries it loads, kept from its children.

Some libraries read their settings only from the environment: litellm (offline, quiet) and pydantic
(no third-party plugins). hive sets those in its own process, but the commands, hooks and servers it
starts must see the environment the user gave hive, so :func:`inherited_environment` leaves out what
:func:`set_for_this_process` put there. A variable the user had already set is never touched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_set_here: dict[str, str] = {}


def set_for_this_process(name: str, value: str) -> None:
    """Set ``name`` to ``value`` unless the environment already has it; children will not inherit it."""
    if name in os.environ:
        return
    os.environ[name] = value
    _set_here[name] = value


def inherited_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's by default) without the variables hive set for itself, as a child gets it."""
    source = os.environ if env is None else env
    return {name: value for name, value in source.items() if _set_here.get(name) != value}
