"""A saved session's conversation replayed to the editor (``session/load``), as the updates it was sent live."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from acp import start_tool_call, text_block, tool_content, update_agent_message_text, update_user_message_text
from acp.schema import AgentMessageChunk, ToolCallProgress, ToolCallStart, UserMessageChunk

from engine.events import ToolCall
from engine.session_store import LoadedSession
from hive_cli.acp.updates import KINDS, title

Replayed = UserMessageChunk | AgentMessageChunk | ToolCallStart | ToolCallProgress


def replay(saved: LoadedSession) -> Iterator[Replayed]:
    """The user's prompts, the agent's answers and its tool calls (with how each ended), in order."""
    outputs = {m.get("tool_call_id"): _text(m.get("content")) for m in saved.messages if m.get("role") == "tool"}
    for message in saved.messages:
        role, text = message.get("role"), _text(message.get("content"))
        if role == "user" and text:
            yield update_user_message_text(text)
        elif role == "assistant":
            if text:
                yield update_agent_message_text(text)
            for raw in message.get("tool_calls") or ():
                yield _finished_call(raw, outputs.get(raw.get("id"), ""), saved.succeeded(raw.get("id", "")))


def _finished_call(raw: dict[str, Any], output: str, success: bool | None) -> ToolCallStart:
    function = raw.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError:
        arguments = {}
    call = ToolCall(id=str(raw.get("id", "")), name=str(function.get("name", "")), arguments=_dict(arguments))
    return start_tool_call(
        call.id,
        title(call),
        kind=KINDS.get(call.name, "other"),
        status="failed" if success is False else "completed",
        content=[tool_content(text_block(output))] if output else None,
        raw_input=call.arguments,
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(content: Any) -> str:
    """A message's text: its string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""
