"""The hooks of one agent, by event: which of them run, with what on their stdin, and how failures are told."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.events import ROOT_AGENT, ErrorEvent, Event
from engine.hooks.options import HookEvent, HookSpec
from engine.hooks.runner import HookOutcome, HookRunner
from engine.sandbox.base import Sandbox, UnavailableSandbox
from engine.sandbox.status import SandboxStatus, sandbox_for


class Hooks:
    """The configured hooks, run through one runner; ``session_id`` is filled in once the session has one."""

    def __init__(self, specs: Sequence[HookSpec], runner: HookRunner, *, agent_id: str = ROOT_AGENT) -> None:
        self.specs = tuple(specs)
        self.runner = runner
        self.agent_id = agent_id
        self.session_id: str | None = None

    def has(self, event: HookEvent) -> bool:
        """Whether any hook runs at ``event``."""
        return any(spec.event == event for spec in self.specs)

    async def run(self, event: HookEvent, tool: str | None = None, **fields: Any) -> list[HookOutcome]:
        """Run every hook of ``event`` (those matching ``tool`` for tool events) in order, with ``fields`` on stdin."""
        payload = {
            "event": event,
            "session_id": self.session_id,
            "cwd": str(self.runner.cwd),
            "agent": self.agent_id,
            **({"tool_name": tool} if tool is not None else {}),
            **fields,
        }
        chosen = [s for s in self.specs if s.event == event and (tool is None or s.matches(tool))]
        return [await self.runner.run(spec, payload) for spec in chosen]

    def report(self, outcomes: Sequence[HookOutcome], emit: Callable[[Event], None]) -> None:
        """Tell the person about every hook that failed or timed out, and what the sandbox undid after one."""
        for outcome in outcomes:
            if outcome.failure is not None:
                emit(ErrorEvent(category="tool", message=outcome.describe(), agent=self.agent_id))
            for line in outcome.undone:
                emit(ErrorEvent(category="tool", message=f"{outcome.hook.label}: {line}", agent=self.agent_id))


def build_hooks(
    specs: Sequence[HookSpec], status: SandboxStatus, cwd: Path, agent_id: str = ROOT_AGENT
) -> Hooks | None:
    """The hooks of an agent working in ``cwd``, or None when none is configured.

    They run in the sandbox shell commands run in. Where the sandbox asked for cannot start, no hook runs
    (each one fails, so a pre_tool hook denies): nobody could be asked before every hook, and a hook must
    not run unconfined silently. ``sandbox: off`` runs them as hive itself.
    """
    if not specs:
        return None
    sandbox: Sandbox = sandbox_for(status)
    if status.failed:
        sandbox = UnavailableSandbox(status.mode, status.problem or "unknown")
    options = status.options
    runner = HookRunner(sandbox, cwd, passed=options.env, network=options.network or options.mode == "off")
    return Hooks(specs, runner, agent_id=agent_id)
