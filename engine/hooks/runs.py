"""The session's points: user_prompt before a prompt enters the history, stop when a run completes,
session_start and session_end around the session.

A user_prompt hook may block the prompt (the run ends with an error and the prompt is not sent) or add
context (appended to the prompt the model sees). A stop hook that answers ``"continue": true`` sends its
reason to the model as the next user message, and the run goes on (at most :data:`MAX_STOP_CONTINUES`
times per prompt; the hook's stdin says ``stop_hook_active`` once it has). Hooks that fail are reported.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import replace
from typing import Literal

from engine.events import ErrorEvent, Event, RunFinished, RunResult
from engine.hooks.points import Hooks
from engine.hooks.runner import HookOutcome
from engine.loop import AgentLoop
from engine.model.types import CallOptions

MAX_STOP_CONTINUES = 3
"""How many times stop hooks may send the agent on after one prompt."""


async def hooked_run(
    hooks: Hooks, loop: AgentLoop, prompt: str, override: CallOptions | None = None
) -> AsyncGenerator[Event, None]:
    """``loop.run_streaming(prompt)`` behind the user_prompt and stop hooks; one ``RunFinished`` at the end."""
    outcomes = await hooks.run("user_prompt", prompt=prompt)
    for event in failures(hooks, outcomes):
        yield event
    blocker = next((o for o in outcomes if o.denies), None)
    if blocker is not None:
        message = f"the prompt was not sent: blocked by {blocker.hook.label}: {blocker.reason or 'no reason given'}"
        yield ErrorEvent(category="tool", message=message, agent=hooks.agent_id)
        yield RunFinished(result=RunResult(text="", exit_reason="error", error=message), agent=hooks.agent_id)
        return
    text = with_context(prompt, [o.context for o in outcomes if o.failure is None and o.context])
    results: list[RunResult] = []
    for round_ in range(MAX_STOP_CONTINUES + 1):
        result = None
        async for event in loop.run_streaming(text, override):
            if isinstance(event, RunFinished):
                result = event.result
            else:
                yield event
        assert result is not None
        results.append(result)
        go_on = await _stop_hooks(hooks, result, round_ > 0) if round_ < MAX_STOP_CONTINUES else None
        if go_on is None:
            break
        for event in failures(hooks, go_on[1]):
            yield event
        if go_on[0] is None:
            break
        text = go_on[0]
    yield RunFinished(result=merged(results), agent=hooks.agent_id)


async def _stop_hooks(hooks: Hooks, result: RunResult, active: bool) -> tuple[str | None, list[HookOutcome]] | None:
    """What the stop hooks said about a completed run: the message to go on with (or None), and the outcomes."""
    if result.exit_reason != "completed" or not hooks.has("stop"):
        return None
    outcomes = await hooks.run("stop", last_text=result.text, stop_hook_active=active)
    asks = [o for o in outcomes if o.failure is None and o.go_on]
    message = "\n".join(o.reason or "Go on with the task." for o in asks) if asks else None
    return message, outcomes


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
    """Run the session_start or session_end hooks; one notice per hook that failed."""
    outcomes = await hooks.run(event)
    return tuple(o.describe() for o in outcomes if o.failure is not None)
