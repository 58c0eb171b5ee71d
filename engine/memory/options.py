"""The ``memory`` section of the settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator


class MemoryOptions(BaseModel):
    """Long-term memory: the ``remember`` and ``recall`` tools over a store that outlives sessions."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    enabled: bool = False
    embedding_model: str | None = None
    """A litellm embedding model: recall ranks by cosine similarity instead of BM25."""
    path: Path | None = None
    """The SQLite file (absolute, or under ``~``); ``memory.sqlite3`` in the user data dir when unset."""

    @field_validator("path")
    @classmethod
    def _absolute(cls, path: Path | None) -> Path | None:
        if path is not None and not path.expanduser().is_absolute():
            raise ValueError("must be an absolute path (or start with ~)")
        return path
