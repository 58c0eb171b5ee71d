"""The ``hooks:`` section of a settings file: which command runs at which point, for which tools, for how long."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

HookEvent = Literal["session_start", "user_prompt", "pre_tool", "post_tool", "stop", "session_end"]
TOOL_EVENTS = frozenset({"pre_tool", "post_tool"})
DEFAULT_HOOK_TIMEOUT = 60.0


class HookSpec(BaseModel):
    """One hook: ``command`` runs with ``sh -c`` at ``event``; ``matcher`` picks the tools (pre_tool, post_tool)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    event: HookEvent
    command: str = Field(min_length=1)
    matcher: str | None = None
    """Tool-name globs separated by ``|`` (``write_file|edit_file``, ``mcp__*``); every tool when unset."""
    timeout: float = Field(default=DEFAULT_HOOK_TIMEOUT, gt=0, le=600)
    """Seconds the command may take; then it is stopped and counts as failed."""

    @model_validator(mode="after")
    def _matcher_only_for_tools(self) -> HookSpec:
        if self.matcher is not None and self.event not in TOOL_EVENTS:
            raise ValueError(f"matcher is for pre_tool and post_tool hooks, not {self.event}")
        return self

    def matches(self, tool: str) -> bool:
        """Whether this hook runs for a call of ``tool``."""
        if self.matcher is None:
            return True
        return any(fnmatchcase(tool, glob.strip()) for glob in self.matcher.split("|") if glob.strip())

    @property
    def label(self) -> str:
        """How people are told which hook it was: its event and command."""
        command = self.command if len(self.command) <= 60 else self.command[:57] + "..."
        return f"{self.event} hook `{command}`"
