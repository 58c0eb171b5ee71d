"""The session's points: user_prompt before a prompt enters the history, stop when a run completes,
session_start and session_end around the session.

A user_prompt hook may block the prompt (the run ends with an error and the prompt is not sent) or add
context (appended to the prompt the model sees). A stop hook that answers ``"continue": true`` sends its
reason to the model as the next user message, and the run goes on (at most :data:`MAX_STOP_CONTINUES`
times per prompt; the hook's stdin says ``stop_hook_active`` once it has). Hooks that fail are reported.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Any, Literal

from msgspec.structs import replace

from engine.events import ErrorEvent, Event, RunFinished, RunResult
from engine.hooks.options import HookEvent
from engine.hooks.points import Hooks
from engine.hooks.runner import HookOutcome
from engine.model.types import CallOptions
from engine.run.loop import AgentLoop

MAX_STOP_CONTINUES = 3
"""How many times stop hooks may send the agent on after one prompt."""


class HookedRun:
    """One prompt's run behind the user_prompt and stop hooks; ``events()`` yields one ``RunFinished`` at the end.

    ``cancel()`` stops a hook that is running (the run then ends as the hooks leave it); while the
    loop itself runs, the loop's own ``cancel()`` applies.
    """

    def __init__(self, hooks: Hooks, loop: AgentLoop, prompt: str, override: CallOptions | None = None) -> None:
        self.hooks = hooks
        self.loop = loop
        self.prompt = prompt
        self.override = override
        self._hook_task: asyncio.Task[object] | None = None
        self._cancelled = False

    def cancel(self) -> bool:
        """Stop the hook that is running; False when none is (then the loop's ``cancel()`` is the one to call)."""
        if self._hook_task is None or self._hook_task.done():
            return False
        self._cancelled = True
        self._hook_task.cancel()
        return True

    async def events(self) -> AsyncGenerator[Event, None]:
        """The run's events; the prompt first passes the user_prompt hooks, each completed run the stop hooks."""
        outcomes = await self._hook("user_prompt", prompt=self.prompt)
        if outcomes is None:
            yield self._finished(RunResult(text="", exit_reason="cancelled"))
            return
        for event in failures(self.hooks, outcomes):
            yield event
        blocker = next((o for o in outcomes if o.denies), None)
        if blocker is not None:
            message = f"the prompt was not sent: blocked by {blocker.hook.label}: {blocker.reason or 'no reason given'}"
            yield ErrorEvent(category="tool", message=message, agent=self.hooks.agent_id)
            yield self._finished(RunResult(text="", exit_reason="error", error=message))
            return
        text: str | None = with_context(self.prompt, [o.context for o in outcomes if o.failure is None and o.context])
        results: list[RunResult] = []
        while text is not None:
            result = None
            async for event in self.loop.run_streaming(text, self.override):
                if isinstance(event, RunFinished):
                    result = event.result
                else:
                    yield event
            assert result is not None
            results.append(result)
            text, outcomes = await self._stop(result, len(results))
            for event in failures(self.hooks, outcomes):
                yield event
        yield self._finished(merged(results))

    async def _stop(self, result: RunResult, runs: int) -> tuple[str | None, list[HookOutcome]]:
        """What the stop hooks said about a run: the message to go on with (None to stop), and their outcomes."""
        if result.exit_reason != "completed" or runs > MAX_STOP_CONTINUES or not self.hooks.has("stop"):
            return None, []
        outcomes = await self._hook("stop", last_text=result.text, stop_hook_active=runs > 1)
        asks = [o for o in outcomes or () if o.failure is None and o.go_on]
        message = "\n".join(o.reason or "Go on with the task." for o in asks) if asks else None
        return message, outcomes or []

    async def _hook(self, event: HookEvent, **fields: Any) -> list[HookOutcome] | None:
        """The outcomes of the hooks of ``event``; None when ``cancel()`` stopped them."""
        self._hook_task = asyncio.current_task()
        try:
            return await self.hooks.run(event, **fields)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not self._cancelled or task is None:
                raise
            task.uncancel()
            return None
        finally:
            self._hook_task = None
            self._cancelled = False

    def _finished(self, result: RunResult) -> RunFinished:
        return RunFinished(result=result, agent=self.hooks.agent_id)


def failures(hooks: Hooks, outcomes: Sequence[HookOutcome]) -> list[Event]:
    """One error event per hook that failed or timed out."""
    events: list[Event] = []
    hooks.report(outcomes, events.append)
    return events


def with_context(prompt: str, contexts: Sequence[str]) -> str:
    """``prompt`` with what the hooks added, marked as theirs."""
    if not contexts:
        return prompt
    return prompt + "\n\n" + "\n".join(f"[Context from a user_prompt hook: {c}]" for c in contexts)


def merged(results: Sequence[RunResult]) -> RunResult:
    """One result for the runs a prompt took: the last one's ending, every run's turns, usage and addenda."""
    last = results[-1]
    if len(results) == 1:
        return last
    usage = results[0].usage
    for result in results[1:]:
        usage = usage + result.usage
    turns = tuple(t for r in results for t in r.turns)
    addenda = tuple(a for r in results for a in r.addenda)
    return replace(last, turns=turns, usage=usage, addenda=addenda)


async def session_hooks(hooks: Hooks, event: Literal["session_start", "session_end"]) -> tuple[str, ...]:
    """Run the session_start or session_end hooks; one notice per hook that failed and per change the sandbox undid."""
    outcomes = await hooks.run(event)
    failed = [o.describe() for o in outcomes if o.failure is not None]
    return (*failed, *(f"{o.hook.label}: {line}" for o in outcomes for line in o.undone))
