"""Every command table hive knows, by program name (see :mod:`engine.policy.argspec`)."""

from __future__ import annotations

from functools import cache

from engine.policy.argspec import ToolTable
from engine.policy.tables_build import BUILD_TABLES
from engine.policy.tables_files import FILE_TABLES
from engine.policy.tables_git import GIT

_ALL: tuple[ToolTable, ...] = (GIT, *BUILD_TABLES, *FILE_TABLES)

TABLES: dict[str, ToolTable] = {table.name: table for table in _ALL if not table.entry}
"""Tables of programs called by their name (``git``, ``cp``)."""


@cache
def entry_tables() -> tuple[ToolTable, ...]:
    """Tables of commands that start with more than the program's name (``python -m pytest``)."""
    return tuple(table for table in _ALL if table.entry)


def verdict_tables() -> tuple[ToolTable, ...]:
    """The tables that decide what a command may do (the others only name its files)."""
    return tuple(table for table in _ALL if _decides(table))


def _decides(table: ToolTable) -> bool:
    return bool(table.subcommands) or (table.main is not None and table.main.cls is not None)
