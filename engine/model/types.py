"""What the loop sends to a model and what comes back, independent of any provider library."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from engine.errors import ErrorCategory
from engine.events import ToolCall, Usage

Message = dict[str, Any]
"""A chat message in the OpenAI format (role, content, tool_calls, tool_call_id, ...)."""


class CallOptions(Struct, frozen=True, kw_only=True):
    """Per-call model options. ``None`` means "not set": the provider's default applies.

    A per-turn override is merged onto the loop's defaults with ``merged_onto``.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    tools: tuple[str, ...] | None = None
    """Restrict the offered tools to these names for this turn."""
    extra: tuple[tuple[str, Any], ...] = ()
    """Provider-specific parameters passed through unchanged."""

    def merged_onto(self, defaults: CallOptions) -> CallOptions:
        """These options where set, ``defaults`` elsewhere; ``extra`` entries are combined."""
        changes: dict[str, Any] = {
            name: value
            for name in ("temperature", "max_tokens", "reasoning_effort", "tool_choice", "parallel_tool_calls", "tools")
            if (value := getattr(self, name)) is not None
        }
        merged_extra = dict(defaults.extra) | dict(self.extra)
        return replace(defaults, **changes, extra=tuple(merged_extra.items()))


class ModelRequest(Struct, frozen=True, kw_only=True):
    """One call to a model."""

    messages: tuple[Message, ...]
    tools: tuple[dict[str, Any], ...] = ()
    """Tool definitions in the OpenAI format."""
    options: CallOptions = field(default_factory=CallOptions)


class ModelReply(Struct, frozen=True, kw_only=True):
    """A complete model reply, assembled from a stream or read from a buffered response."""

    text: str
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    response_id: str | None = None
    """The provider's id of this response (chat ``id``, Responses ``id``, Anthropic ``message.id``), when it gave one."""
    provider_fields: tuple[tuple[str, Any], ...] = ()
    """Extra assistant-message fields that must be sent back unchanged (e.g. signed thinking blocks)."""

    def to_message(self) -> Message:
        """The assistant message to append to the history."""
        message: Message = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.raw_arguments or "{}"},
                }
                for call in self.tool_calls
            ]
        message.update(dict(self.provider_fields))
        return message


class StreamText(Struct, frozen=True, kw_only=True):
    """A piece of answer text, as it streams."""

    text: str


class StreamReasoning(Struct, frozen=True, kw_only=True):
    """A piece of reasoning text, as it streams."""

    text: str


class StreamOpened(Struct, frozen=True, kw_only=True):
    """The provider accepted the request: from now on the model is working on the answer."""


class StreamRetry(Struct, frozen=True, kw_only=True):
    """The call failed before any output and will be tried again after ``delay_s``."""

    category: ErrorCategory
    message: str
    attempt: int
    delay_s: float


StreamItem = StreamOpened | StreamText | StreamReasoning | StreamRetry | ModelReply
"""What a model stream yields: the opening and deltas of each try (and retry notices), then one ``ModelReply`` last."""


class ModelClient(Protocol):
    """Something that can answer a ``ModelRequest``; the loop depends only on this.

    For one whole answer rather than a stream, call ``engine.model.completion.complete`` with the client.
    """

    @property
    def model(self) -> str:
        """The model identifier (e.g. ``openai/gpt-4o``)."""
        ...

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """Stream the reply: text and reasoning deltas, then the assembled ``ModelReply``."""
        ...
