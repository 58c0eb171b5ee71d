"""What hive learned about a model as one server serves it (its window, so far), kept for later runs.

A local or self-hosted server decides what it serves: llama.cpp's ``--ctx-size``, Ollama's ``num_ctx``,
LM Studio's loaded context length. None of that is in a model table, so hive asks the server once
(``engine.model.window_probe``) or reads it from an overflow error, and keeps the answer here, one
record per server and model, in a small file of the user cache folder (beside the model table's
lookups) when the host says where (``keep_facts``; the hive program does). A host that says nothing
keeps the records for the process only.

A record has only optional facts, so more kinds of fact fit without a new file; a record written by a
later hive with fields this one does not know is read without them.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
from msgspec import Struct

from engine.private_files import open_private, private_dir
from engine.safe_read import UnsafeFile, read_bounded

FACTS_FILE = "served-models.json"
MAX_FILE_BYTES = 1_000_000
"""A facts file larger than this is not read (it is rebuilt)."""


class ServedModel(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The facts learned about ``model`` as the server at ``api_base`` serves it."""

    api_base: str
    model: str
    """The model as hive names it (``openai/qwen2.5-coder``)."""
    window: int | None = None
    """The context window the server serves, in tokens; None when it did not say."""
    window_source: str | None = None
    """Where the window was learned: the endpoint that said it, or ``overflow error``."""
    window_note: str | None = None
    """What a person should know about the figure (e.g. Ollama's default when ``num_ctx`` is not set)."""
    learned_at: str | None = None
    """When the record was last changed (UTC, ISO 8601)."""


_folder: Callable[[], Path] | None = None
_records: dict[tuple[str, str], ServedModel] | None = None
_lock = threading.Lock()


def keep_facts(folder: Callable[[], Path] | None) -> None:
    """Keep the records in the folder ``folder()`` names, for later runs (None: for this process only)."""
    global _folder, _records
    with _lock:
        _folder, _records = folder, None


def facts_for(api_base: str, model: str) -> ServedModel | None:
    """The record for ``model`` at ``api_base``, or None when nothing was learned yet."""
    with _lock:
        return _loaded().get((_base_key(api_base), model))


def all_facts() -> list[ServedModel]:
    """Every record, by server then model."""
    with _lock:
        return sorted(_loaded().values(), key=lambda r: (r.api_base, r.model))


def remember(record: ServedModel) -> ServedModel:
    """Keep ``record`` (stamped with the time now) in place of the one for the same server and model."""
    stamped = msgspec.structs.replace(record, learned_at=datetime.now(UTC).isoformat(timespec="seconds"))
    with _lock:
        records = _loaded()
        records[(_base_key(record.api_base), record.model)] = stamped
        _save(records)
    return stamped


def _base_key(api_base: str) -> str:
    return api_base.rstrip("/")


def _loaded() -> dict[tuple[str, str], ServedModel]:
    global _records
    if _records is None:
        _records = {(_base_key(r.api_base), r.model): r for r in _read_file()}
    return _records


def _read_file() -> list[ServedModel]:
    """The records saved; none when the file is missing, unreadable or not hive's."""
    if _folder is None:
        return []
    try:
        data = read_bounded(_folder() / FACTS_FILE, limit=MAX_FILE_BYTES)
        return msgspec.json.decode(data, type=list[ServedModel])
    except (OSError, UnsafeFile, msgspec.DecodeError):
        return []


def _save(records: dict[tuple[str, str], ServedModel]) -> None:
    """Write the records (a temporary file, then renamed); a cache that cannot be written is no loss."""
    if _folder is None:
        return
    file = _folder() / FACTS_FILE
    partial = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        private_dir(file.parent)
        with open_private(partial, "w") as handle:
            handle.write(msgspec.json.encode(list(records.values())).decode())
        os.replace(partial, file)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
