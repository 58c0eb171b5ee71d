"""The advisor: a tool with no arguments that has a stronger model review the conversation so far.

Offered only when ``advisor.model`` is set. The advisor reads a transcript of the conversation (the
requests, the tool calls and their results) and answers with a review; it never gets tools. A session
may consult it ``advisor.max_calls`` times; its usage counts in the session's usage and report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.context.compaction import transcript_line
from engine.delegate.options import AdvisorOptions
from engine.model.completion import ModelCallFailed, UsageSink, complete
from engine.model.types import Message, ModelClient, ModelReply, ModelRequest
from engine.tools.base import ToolContext, ToolResult, Toolset, ToolSpec
from engine.tools.registry import ToolRegistry
from engine.tracking.progress import report_usage

if TYPE_CHECKING:
    from engine.capabilities import BuildContext
    from engine.usage import Usage

ADVISOR_TOOL = "advisor"
REVIEWER_INSTRUCTIONS = """You are the advisor of a coding agent. You read the transcript of its conversation \
with a person (their requests, the agent's tool calls and the results) and review the work so far. You cannot \
run tools and the agent cannot ask follow-up questions, so be complete and concrete:
- Is the approach sound for what the person asked? If not, what should be done instead?
- What is wrong, risky or missing (bugs, unverified assumptions, untested changes, requirements not met)?
- What should the agent do next, in order?
Be concise and specific (name files, functions and commands). If the work is right, say so briefly."""


def advisor_description(max_calls: int) -> str:
    """The tool description: what the advisor does and when to consult it."""
    return (
        "Ask a stronger model to review the work so far: it reads this whole conversation (the requests, your "
        "tool calls and their results) and answers with advice. Consult it before committing to an approach, "
        "when you are stuck, and before declaring a task done. It takes no arguments and has no tools; "
        f"at most {max_calls} consultations per session."
    )


class AdvisorProvider:
    """Offers the ``advisor`` tool when the settings name an advisor model."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        options = context.config.advisor
        if options.model is None or options.max_calls == 0:
            return None
        return ToolRegistry([AdvisorTool(options, context)])


class AdvisorTool:
    """Sends the transcript to the advisor model; counts the calls of the session it was built for."""

    def __init__(self, options: AdvisorOptions, context: BuildContext) -> None:
        self.options = options
        self.context = context
        self.calls = 0
        self.spec = ToolSpec(
            name=ADVISOR_TOOL,
            description=advisor_description(options.max_calls),
            parameters={"type": "object", "properties": {}},
            read_only=True,
        )

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.calls >= self.options.max_calls:
            return ToolResult.error(
                f"The advisor was already consulted {self.calls} times, the most this session allows "
                "(advisor.max_calls); go on without it."
            )
        self.calls += 1
        assert self.options.model is not None
        request = review_request(self.context.conversation.view())
        try:
            reply = await review(self._client(), request, count=self._count)
        except ModelCallFailed as failed:
            return ToolResult.error(f"The advisor could not be consulted: {failed}")
        return ToolResult(reply.text.strip() or "(the advisor gave no review)")

    def _count(self, usage: Usage) -> None:
        """The advisor's tokens count in the progress report (against its model) and in the session's usage."""
        report_usage(usage, model=self.options.model)
        self.context.account.count(usage)

    def _client(self) -> ModelClient:
        assert self.options.model is not None
        return self.context.model.client_for(self.options.model)


def review_request(messages: tuple[Message, ...]) -> ModelRequest:
    """The advisor's request: the reviewer instructions and the conversation as a transcript (no tools)."""
    transcript = "\n\n".join(transcript_line(message) for message in messages)
    return ModelRequest(
        messages=(
            {"role": "system", "content": REVIEWER_INSTRUCTIONS},
            {"role": "user", "content": f"The conversation so far:\n\n{transcript}\n\nYour review:"},
        )
    )


async def review(client: ModelClient, request: ModelRequest, count: UsageSink) -> ModelReply:
    """The advisor's reply, usable or not (a refused, empty or cut review is passed on as it is)."""
    try:
        return await complete(client, request, count=count)
    except ModelCallFailed as failed:
        if failed.kind == "no_reply":
            raise AssertionError from None  # as before: the tool round reports the advisor crashed
        if failed.reply is None:
            raise
        return failed.reply
