"""The ``memory`` section of the settings."""

from __future__ import annotations

from pathlib import Path

from engine.config.validation import StrictRecord


class MemoryOptions(StrictRecord, frozen=True):
    """Long-term memory: the ``remember`` and ``recall`` tools over a store that outlives sessions."""

    enabled: bool = False
    """Offer the ``remember`` and ``recall`` tools."""
    embedding_model: str | None = None
    """A litellm embedding model: recall ranks by cosine similarity instead of BM25."""
    path: Path | None = None
    """The SQLite file (absolute, or under ``~``); ``memory.sqlite3`` in the user data dir when unset."""

    def __post_init__(self) -> None:
        if self.path is not None and not self.path.expanduser().is_absolute():
            raise ValueError("path: must be an absolute path (or start with ~)")
