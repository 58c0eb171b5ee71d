"""A server's ``sampling/createMessage`` read into what the person is shown and what the model is sent.

The server's messages are its own text: they are shown to the person as untrusted text (the host makes
every character visible) and sent to the model as they are, never mixed with hive's conversation, whatever
``includeContext`` asks for. Text and images are passed on; audio and tool content are refused.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from engine.model.types import CallOptions, Message, ModelRequest


class UnsupportedSampling(Exception):
    """The request holds something hive cannot pass to the model; ``str(error)`` says what."""


class SampledMessage(Struct, frozen=True, kw_only=True):
    """One of the server's messages as the person is shown it: its role and its text (an image as a note)."""

    role: str
    text: str


class SamplingQuestion(Struct, frozen=True, kw_only=True):
    """What the person decides on when a server asks to use the model."""

    server: str
    model: str
    """The model that will answer (the session's current one)."""
    max_tokens: int
    system_prompt: str | None
    messages: tuple[SampledMessage, ...]
    preferred_models: tuple[str, ...] = ()
    """The model names the server hinted at (hive answers with the session's model all the same)."""
    context_ignored: bool = False
    """The server asked for hive's conversation as context (``includeContext``), which it never gets."""


def sampling_question(server: str, model: str, params: Any) -> SamplingQuestion:
    """The question for the SDK's ``CreateMessageRequestParams``; raises ``UnsupportedSampling``."""
    preferences = params.model_preferences
    hints = (preferences.hints or []) if preferences is not None else []
    return SamplingQuestion(
        server=server,
        model=model,
        max_tokens=params.max_tokens,
        system_prompt=params.system_prompt,
        messages=tuple(
            SampledMessage(role=message.role, text=_shown_text(message.content_as_list)) for message in params.messages
        ),
        preferred_models=tuple(hint.name for hint in hints if hint.name),
        context_ignored=params.include_context not in (None, "none"),
    )


def model_request(params: Any) -> ModelRequest:
    """The one completion the server asked for: its system prompt and messages, no tools, capped at its maxTokens."""
    messages: list[Message] = []
    if params.system_prompt:
        messages.append({"role": "system", "content": params.system_prompt})
    messages += [
        {"role": message.role, "content": _model_content(message.content_as_list)} for message in params.messages
    ]
    return ModelRequest(
        messages=tuple(messages),
        options=CallOptions(max_tokens=params.max_tokens, temperature=params.temperature),
    )


def cut_at_stop_sequence(text: str, stops: list[str] | None) -> tuple[str, bool]:
    """``text`` up to the first of the server's stop sequences, and whether one was found.

    Applied to the answer rather than sent to the provider: not every provider takes stop sequences.
    """
    found = [index for stop in stops or () if stop and (index := text.find(stop)) >= 0]
    if not found:
        return text, False
    return text[: min(found)], True


def _shown_text(blocks: list[Any]) -> str:
    return "\n".join(_shown_block(block) for block in blocks)


def _shown_block(block: Any) -> str:
    if block.type == "text":
        return str(block.text)
    if block.type == "image":
        return f"[image, {block.mime_type}, {len(block.data) * 3 // 4:,} bytes]"
    raise UnsupportedSampling(_unsupported(block.type))


def _model_content(blocks: list[Any]) -> str | list[dict[str, Any]]:
    if all(block.type == "text" for block in blocks):
        return "\n".join(block.text for block in blocks)
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if block.type == "text":
            parts.append({"type": "text", "text": block.text})
        elif block.type == "image":
            parts.append({"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}})
        else:
            raise UnsupportedSampling(_unsupported(block.type))
    return parts


def _unsupported(kind: str) -> str:
    return f"hive: sampling with {kind} content is not supported (text and images are)"
