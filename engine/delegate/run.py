"""One delegated run: the child agent built like any agent, run on its task, its answer handed back.

The child is made by ``build_agent`` from the parent's configuration (no session file, no settings
read again) with its definition's tools, prompt, model and turn limit, the parent's approver and
modes, and what is left of the session's usage limits. Its run is tracked below the calling tool's
scope, so its model turns and tool calls show nested under "Calling NAME Agent" and its usage rolls
into the parent's report; the same usage is counted in the parent's run, so the limits see it.
"""

from __future__ import annotations

from contextlib import aclosing

from msgspec.structs import replace

from engine.agent import Agent, BuildContext, Extensions, build_agent, model_client
from engine.delegate.definitions import AgentDefinition
from engine.delegate.provider import AgentsProvider, OnlyTools
from engine.events import (
    ApprovalRequested,
    ApprovalResolved,
    ModeChanged,
    Retrying,
    RunFinished,
    RunResult,
)
from engine.instructions import EnvironmentInstructions
from engine.loop import AgentLoop
from engine.model.types import CallOptions
from engine.paths import scratch_dir
from engine.tools.base import ToolContext, ToolResult

RELAYED = (ApprovalRequested, ApprovalResolved, ModeChanged, Retrying)
"""What of the child's own stream the parent's stream gets (tracking forwards its turns and tool calls)."""


async def run_delegated(
    definition: AgentDefinition, task: str, provider: AgentsProvider, parent: BuildContext, ctx: ToolContext
) -> ToolResult:
    """Run ``definition`` on ``task`` for the agent ``parent`` built; its answer (or why there is none)."""
    assert parent.loop is not None
    parent_loop = parent.loop()
    refusal = parent.config.limits.check(parent_loop.usage)
    if refusal:
        return ToolResult.error(f"The {definition.name} agent was not started: {refusal}.")
    child = build_child(definition, provider, parent, parent_loop)
    try:
        result = await _drive(child, task, definition, ctx)
    finally:  # what the child spent counts even when the parent's run is cancelled meanwhile
        parent_loop.count_usage(child.loop.usage)
    return answer(definition, result, child.loop.options.max_turns, parent.config.delegation.max_output_characters)


def build_child(
    definition: AgentDefinition, provider: AgentsProvider, parent: BuildContext, parent_loop: AgentLoop
) -> Agent:
    """The child agent: its definition's tools among the parent's providers and its own agents, one level deeper."""
    config = parent.config
    client = model_client(config, definition.model) if definition.model else parent_loop.client
    child_config = replace(
        config,
        model=replace(config.model, model=client.model),
        max_turns=definition.max_tool_turns or config.delegation.max_tool_turns,
        limits=config.limits.after(parent_loop.usage),
    )
    extensions = replace(
        parent.extensions or Extensions(),
        providers=(OnlyTools((*provider.tools, provider.deeper()), definition.tools),),
        contributors=(EnvironmentInstructions(),),
        base_instructions=definition.prompt,
        context=None,
        turn_observers=(),
        tracking_observers=(),  # the child's run is nested in the parent's request: its observers hear it
    )
    return build_agent(
        child_config,
        approver=parent.approver,
        data_dir=parent.data_dir or scratch_dir(config.cwd),
        extensions=extensions,
        client=client,
        agent_id=definition.name,
        modes=parent.modes,
    )


async def _drive(child: Agent, task: str, definition: AgentDefinition, ctx: ToolContext) -> RunResult:
    override = CallOptions(reasoning_effort=definition.reasoning) if definition.reasoning else None
    result: RunResult | None = None
    async with aclosing(child.loop.run_streaming(task, override)) as events:
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
