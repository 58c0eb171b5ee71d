"""Hooks as a capability: the tool hooks in the approved-call slot, the prompt's run, and the session's start and end.

The hooks' runner is imported only for a session whose settings configure hooks (this module is not
imported otherwise).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from engine.capabilities import BuildContext, Capability, SessionView
from engine.events import ROOT_AGENT, Event
from engine.hooks.points import Hooks, build_hooks
from engine.hooks.runs import HookedRun, session_hooks
from engine.hooks.toolset import hook_wrapper
from engine.model.types import CallOptions
from engine.run.loop import AgentLoop
from engine.tools.compose import ToolsetWrapper


class HooksCapability(Capability):
    """The configured hooks of every agent built with it; the root agent's also run at the session's points."""

    def __init__(self) -> None:
        self.hooks: Hooks | None = None
        """The root agent's hooks, once it is built."""
        self._running: HookedRun | None = None

    def approved_call_wrappers(self, context: BuildContext) -> tuple[ToolsetWrapper, ...]:
        config = context.config
        hooks = build_hooks(config.hooks, config.sandbox, config.cwd, context.agent_id)
        if context.agent_id == ROOT_AGENT:
            self.hooks = hooks
        return hook_wrapper(hooks, context.approver, context.modes)

    def for_child(self) -> Capability | None:
        return self  # a sub-agent's tool calls pass the tool hooks too

    async def start(self, session: SessionView) -> tuple[str, ...]:
        if self.hooks is None:
            return ()
        self.hooks.session_id = session.id
        return await session_hooks(self.hooks, "session_start")

    async def stop(self, session: SessionView) -> None:
        if self.hooks is not None:
            await session_hooks(self.hooks, "session_end")  # nobody is left to tell of a failure

    def run(self, prompt: str, override: CallOptions | None, loop: AgentLoop) -> AsyncGenerator[Event, None] | None:
        """With user_prompt or stop hooks, the prompt passes them first and the run may go on where they ask."""
        hooks = self.hooks
        if hooks is None or not (hooks.has("user_prompt") or hooks.has("stop")):
            return None
        self._running = HookedRun(hooks, loop, prompt, override)
        return self._running.events()

    def cancel(self) -> bool:
        return self._running is not None and self._running.cancel()
