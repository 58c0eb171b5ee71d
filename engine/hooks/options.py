"""The ``hooks:`` section of a settings file: which command runs at which point, for which tools, for how long."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from engine.config.validation import StrictRecord
from engine.globs import GlobError, name_glob, name_matches

HookEvent = Literal["session_start", "user_prompt", "pre_tool", "post_tool", "stop", "session_end"]
TOOL_EVENTS = frozenset({"pre_tool", "post_tool"})
DEFAULT_HOOK_TIMEOUT = 60.0


class HookSpec(StrictRecord, frozen=True):
    """One hook: ``command`` runs with ``sh -c`` at ``event``; ``matcher`` picks the tools (pre_tool, post_tool)."""

    event: HookEvent
    """The point of the session the hook runs at."""
    command: Annotated[str, Meta(min_length=1)]
    """The shell command, run with ``sh -c`` in the project folder; it gets the event as JSON on stdin."""
    matcher: str | None = None
    """Tool-name globs (:mod:`engine.globs`, case exact) separated by ``|`` (``write_file|edit_file``, ``mcp__*``);
    every tool when unset."""
    timeout: Annotated[float, Meta(gt=0, le=600)] = DEFAULT_HOOK_TIMEOUT
    """Seconds the command may take; then it is stopped and counts as failed."""

    def __post_init__(self) -> None:
        if self.matcher is not None and self.event not in TOOL_EVENTS:
            raise ValueError(f"matcher is for pre_tool and post_tool hooks, not {self.event}")
        for glob in self._globs():
            try:
                name_glob(glob)
            except GlobError as exc:
                raise ValueError(f"matcher {glob!r}: {exc}") from None

    def matches(self, tool: str) -> bool:
        """Whether this hook runs for a call of ``tool``."""
        if self.matcher is None:
            return True
        return any(name_matches(glob, tool) for glob in self._globs())

    def _globs(self) -> list[str]:
        return [glob.strip() for glob in (self.matcher or "").split("|") if glob.strip()]

    @property
    def label(self) -> str:
        """How people are told which hook it was: its event and command."""
        command = self.command if len(self.command) <= 60 else self.command[:57] + "..."
        return f"{self.event} hook `{command}`"
