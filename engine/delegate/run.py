"""One delegated run: the child agent built like any agent, run on its task, its answer handed back.

The child is built through the parent's build context (``BuildContext.build_child``) from the
parent's configuration (no session file, no settings read again) with its definition's tools,
prompt, model and turn limit, the parent's approver and modes, and what is left of the session's
usage limits. Its run is tracked below the calling tool's
scope, so its model turns and tool calls show nested under "Calling NAME Agent" and its usage rolls
into the parent's report; the same usage is counted in the parent's run, so the limits see it.
"""

from __future__ import annotations

from contextlib import aclosing

from msgspec.structs import replace

from engine.capabilities import BuildContext, Capability, Instructions, ToolProvider, Tools
from engine.delegate.definitions import AgentDefinition
from engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    ModeChanged,
    Retrying,
    RunFinished,
    RunResult,
)
from engine.instructions import EnvironmentInstructions
from engine.model.types import CallOptions
from engine.run.loop import AgentLoop
from engine.tools.base import ToolContext, ToolResult

RELAYED = (ApprovalRequested, ApprovalResolved, ModeChanged, Retrying)
"""What of the child's own stream the parent's stream gets (tracking forwards its turns and tool calls)."""


async def run_delegated(
    definition: AgentDefinition, task: str, tools: ToolProvider, parent: BuildContext, ctx: ToolContext
) -> ToolResult:
    """Run ``definition`` on ``task`` with ``tools``, for the agent ``parent`` built; its answer (or why there is none)."""
    refusal = parent.config.limits.check(parent.account.total)
    if refusal:
        return ToolResult.error(f"The {definition.name} agent was not started: {refusal}.")
    child = build_child(definition, tools, parent)
    try:
        result = await _drive(child, task, definition, ctx)
    finally:  # what the child spent counts even when the parent's run is cancelled meanwhile
        parent.account.count(child.account.total)
    return answer(definition, result, child.options.max_turns, parent.config.delegation.max_output_characters)


def build_child(definition: AgentDefinition, tools: ToolProvider, parent: BuildContext) -> AgentLoop:
    """The child agent: ``tools`` (its definition's among the parent's and its own agents), one level deeper.

    It keeps what each of the parent's capabilities leaves a sub-agent (wrappers, guards, context
    management); its turn and tracking observers are the parent's request's, which hear its run nested.
    """
    config = parent.config
    client = parent.model.client_for(definition.model) if definition.model else parent.model.client
    child_config = replace(
        config,
        model=replace(config.model, model=client.model),
        max_turns=definition.max_tool_turns or config.delegation.max_tool_turns,
        limits=config.limits.after(parent.account.total),
    )
    kept = [k for c in parent.capabilities if (k := c.for_child()) is not None]
    capabilities: list[Capability] = [Tools(tools), Instructions(EnvironmentInstructions()), *kept]
    return parent.build_child(
        child_config, capabilities, instructions=definition.prompt, client=client, agent_id=definition.name
    )


async def _drive(child: AgentLoop, task: str, definition: AgentDefinition, ctx: ToolContext) -> RunResult:
    override = CallOptions(reasoning_effort=definition.reasoning) if definition.reasoning else None
    result: RunResult | None = None
    async with aclosing(child.run_streaming(task, override)) as events:
        async for event in events:
            if isinstance(event, RELAYED):
                ctx.emit(event)
            elif isinstance(event, RunFinished):
                result = event.result
    assert result is not None
    return result


def answer(definition: AgentDefinition, result: RunResult, max_turns: int, cap: int) -> ToolResult:
    """The tool result of a finished run: its answer, marked partial when the turn limit stopped it."""
    name = definition.name
    if result.exit_reason in ("completed", "pending_tool_calls"):
        return ToolResult(capped(result.text or f"(the {name} agent finished without an answer)", cap))
    if result.exit_reason == "max_turns":
        said = next((turn.text for turn in reversed(result.turns) if turn.text.strip()), "")
        header = (
            f"[partial: the {name} agent stopped at its limit of {max_turns} tool turns before finishing; "
            f"{'what it said last follows' if said else 'it gave no answer yet'}]"
        )
        return ToolResult(capped(f"{header}\n{said}".rstrip(), cap), None)
    if result.exit_reason == "cancelled":
        return ToolResult.error(f"The {name} agent was cancelled before it finished.")
    return ToolResult.error(f"The {name} agent failed: {result.error or result.exit_reason}.")


def capped(text: str, cap: int) -> str:
    """``text`` cut to ``cap`` characters, saying how much was cut."""
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n[answer cut at {cap:,} of {len(text):,} characters]"
