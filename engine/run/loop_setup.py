"""What an agent loop is built from besides its model: run defaults, where tools run, who watches each turn.

A plain chat needs none of it: :class:`~engine.run.loop.AgentLoop` defaults to no tools and to
:func:`chat_environment`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from msgspec import Struct, field

from engine.config.defaults import DEFAULT_MAX_TURNS
from engine.events import ROOT_AGENT, ToolCall, TurnRecord
from engine.model.types import CallOptions
from engine.run.recovery import HIVE_RECOVERIES, Recoveries
from engine.tools.base import FileToolOptions, ToolContext
from engine.usage import UsageLimits

TurnObserver = Callable[[TurnRecord], "str | None | Awaitable[str | None]"]
"""Sees every finished turn; may return an addendum for the caller (never added to the history)."""


class LoopOptions(Struct, frozen=True, kw_only=True):
    """Defaults for every run of a loop."""

    max_turns: int = DEFAULT_MAX_TURNS
    """Model turns per run before the loop stops with ``max_turns``."""
    call_options: CallOptions = field(default_factory=CallOptions)
    limits: UsageLimits = field(default_factory=UsageLimits)
    vision: dict[str, bool] = field(default_factory=dict)
    recoveries: Recoveries = HIVE_RECOVERIES
    """What the loop does about a failed model call (compact, resume, stop) and the fix-it words it shows."""


class ToolEnvironment(Struct, frozen=True, kw_only=True):
    """Where tools run."""

    cwd: Path
    data_dir: Path
    file_options: FileToolOptions = field(default_factory=FileToolOptions)

    def context(self, call: ToolCall, agent_id: str = ROOT_AGENT, offered: frozenset[str] | None = None) -> ToolContext:
        """A fresh context for one call; ``offered`` names the tools the model was offered in its round."""
        return ToolContext(
            cwd=self.cwd,
            data_dir=self.data_dir,
            file_options=self.file_options,
            call_id=call.id,
            agent_id=agent_id,
            offered=offered,
        )


def chat_environment() -> ToolEnvironment:
    """The environment of a loop given no tools: the process's working directory (no tool runs in it)."""
    cwd = Path.cwd()
    return ToolEnvironment(cwd=cwd, data_dir=cwd)
