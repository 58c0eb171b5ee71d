"""What the engine asks of a memory store, whatever keeps it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from msgspec import Struct

MemoryScope = Literal["user", "project"]
"""``project``: seen only in the project it was saved in; ``user``: seen in every project of the user."""


class Memory(Struct, frozen=True, kw_only=True):
    """One remembered note."""

    id: int
    text: str
    scope: MemoryScope
    tags: tuple[str, ...] = ()
    created: float
    """Seconds since the epoch."""
    score: float = 0.0
    """How well it matched the query (higher is better; only comparable within one recall)."""


class MemoryService(Protocol):
    """A store of notes for one user working in one project."""

    def remember(self, text: str, scope: MemoryScope = "project", tags: Sequence[str] = ()) -> Memory:
        """Keep ``text``; the new memory."""
        ...

    def recall(self, query: str, scope: MemoryScope | None = None, limit: int = 5) -> list[Memory]:
        """The memories best matching ``query``, best first; ``scope`` None searches both scopes."""
        ...

    def forget(self, memory_id: int) -> bool:
        """Delete one of this user's memories visible here; whether there was one."""
        ...
