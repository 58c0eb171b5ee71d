"""litellm's model table (prices, context windows, capabilities), read as data, one entry at a time.

The table is a 3.5 MB JSON file inside the litellm package; ``importlib.util.find_spec`` finds it
without running litellm's ``__init__`` (which costs seconds). Parsing all of it costs about 30 ms and
9 MiB, on every run, for the one or two models the run asks about. So a host that says where
(``keep_lookups``; the hive program does, in the user cache folder) gets the entries looked up (and the
names the table does not list) kept in a small file there, valid while the table file is the same (its
path, size and modification time): a run that asks about a model asked about before reads that file
instead of the table. A host that says nothing (an embedding that writes nothing) reads the table.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.private_files import open_private, private_dir

TABLE_FILE = "model_prices_and_context_window_backup.json"
LOOKUPS_FILE = "model-table-lookups.json"

Entry = dict[str, Any]

_lookups_folder: Callable[[], Path] | None = None


def keep_lookups(folder: Callable[[], Path] | None) -> None:
    """Keep the entries looked up in the folder ``folder()`` names, for later runs (None: keep none)."""
    global _lookups_folder
    _lookups_folder = folder


@functools.cache
def table_path() -> Path | None:
    """litellm's table file; None when litellm is not installed."""
    spec = importlib.util.find_spec("litellm")
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        path = Path(folder) / TABLE_FILE
        if path.is_file():
            return path
    return None


@functools.cache
def whole_table() -> dict[str, Entry]:
    """Every entry of the table (model → prices, window, ...); empty when litellm is not installed."""
    path = table_path()
    if path is None:
        return {}
    table = json.loads(path.read_text(encoding="utf-8"))
    return {name: entry for name, entry in table.items() if isinstance(entry, dict)}


def entry(name: str) -> Entry | None:
    """The table's entry for exactly ``name``, or None when the table does not list it."""
    if _lookups_folder is None:
        return whole_table().get(name)
    return _lookups(_lookups_folder() / LOOKUPS_FILE).entry(name)


class _Lookups:
    """The entries looked up so far, kept in the cache file for the next run."""

    def __init__(self, file: Path, table: dict[str, object], entries: dict[str, Entry | None]) -> None:
        self.file = file
        self.table = table
        self.entries = entries
        self._lock = threading.Lock()

    def entry(self, name: str) -> Entry | None:
        with self._lock:
            if name in self.entries:
                return self.entries[name]
            found = whole_table().get(name)
            self.entries[name] = found
            self._save()
            return found

    def _save(self) -> None:
        """Write the lookups (a temporary file, then renamed); a cache that cannot be written is no loss."""
        partial = self.file.with_name(f".{self.file.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            private_dir(self.file.parent)
            with open_private(partial, "w") as handle:
                handle.write(json.dumps({"table": self.table, "entries": self.entries}))
            os.replace(partial, self.file)
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)


@functools.cache
def _lookups(file: Path) -> _Lookups:
    table = _identity(table_path())
    return _Lookups(file, table, _saved_entries(file, table))


def _identity(path: Path | None) -> dict[str, object]:
    """What tells one table file from another: its path, size and modification time."""
    if path is None:
        return {"path": None}
    stat = path.stat()
    return {"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _saved_entries(file: Path, table: dict[str, object]) -> dict[str, Entry | None]:
    """The entries saved for this very table file; none when the file is missing, unreadable or for another table."""
    try:
        saved = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entries = saved.get("entries") if isinstance(saved, dict) and saved.get("table") == table else None
    if not isinstance(entries, dict):
        return {}
    return {name: value for name, value in entries.items() if value is None or isinstance(value, dict)}
