"""Translate a ``ModelRequest`` (OpenAI message format) into an Anthropic ``/v1/messages`` request body.

The system prompt goes apart, consecutive turns of one role are merged (tool results become the
user's ``tool_result`` blocks), and an assistant turn sends its signed thinking blocks back unchanged
before its text and ``tool_use`` blocks, as litellm's own translation does.
"""

from __future__ import annotations

import json
from typing import Any

from engine.model.pricing import model_entry
from engine.model.types import Message, ModelRequest

DEFAULT_MAX_TOKENS = 128_000
"""litellm's ``max_tokens`` for an Anthropic model its table does not list (the API requires one)."""
THINKING_HEADROOM = 4_096
"""With thinking on and no ``max_tokens``, litellm asks for the thinking budget plus this much."""
_EFFORT_BUDGETS = {"minimal": 128, "low": 1024, "medium": 2048, "high": 4096, "xhigh": 8192, "max": 16384}
"""litellm's thinking budgets for each ``reasoning_effort``."""

Block = dict[str, Any]


def request_body(request: ModelRequest, *, model: str, model_name: str, streaming: bool) -> dict[str, Any]:
    """The JSON body for ``request``; ``model`` is hive's model string, ``model_name`` Anthropic's."""
    options = request.options
    system, messages = translate_messages(request.messages)
    body: dict[str, Any] = {"model": model_name, "messages": messages}
    if system:
        body["system"] = system
    if request.tools:
        body["tools"] = [tool_definition(tool) for tool in request.tools]
        choice = tool_choice(options.tool_choice, options.parallel_tool_calls)
        if choice is not None:
            body["tool_choice"] = choice
    if options.temperature is not None:
        body["temperature"] = options.temperature
    extra = dict(options.extra)
    thinking = extra.get("thinking") or effort_thinking(options.reasoning_effort)
    if thinking:
        body["thinking"] = thinking
    body["max_tokens"] = options.max_tokens or default_max_tokens(thinking, model, model_name)
    body["stream"] = streaming
    body.update({name: value for name, value in extra.items() if name != "thinking"})
    return body


def default_max_tokens(thinking: Any, *models: str) -> int:
    """What litellm sends when no ``max_tokens`` is set: budget + headroom with thinking, else the model's limit."""
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
    if isinstance(budget, int) and thinking.get("type") == "enabled":
        return budget + THINKING_HEADROOM
    entry = model_entry(*models)
    limit = entry.get("max_output_tokens") if entry else None
    return int(limit) if isinstance(limit, int | float) and limit > 0 else DEFAULT_MAX_TOKENS


def effort_thinking(effort: str | None) -> dict[str, Any] | None:
    """The ``thinking`` parameter for a ``reasoning_effort`` (None: leave thinking as the model has it)."""
    budget = _EFFORT_BUDGETS.get((effort or "").lower())
    return {"type": "enabled", "budget_tokens": budget} if budget else None


def tool_definition(tool: dict[str, Any]) -> Block:
    """An OpenAI function tool as an Anthropic tool: ``{name, description, input_schema}``."""
    function = tool.get("function") if tool.get("type") == "function" else None
    if not isinstance(function, dict):
        return dict(tool)  # already in Anthropic's shape (or a server tool)
    schema = function.get("parameters") or {"type": "object", "properties": {}}
    definition: Block = {"name": function["name"], "input_schema": schema}
    if function.get("description"):
        definition["description"] = function["description"]
    return _with_cache_point(definition, tool)


def tool_choice(choice: str | None, parallel: bool | None) -> Block | None:
    """OpenAI's ``tool_choice`` and ``parallel_tool_calls`` as Anthropic's ``tool_choice``."""
    mapped: Block | None = None
    if choice == "auto":
        mapped = {"type": "auto"}
    elif choice in ("required", "any"):
        mapped = {"type": "any"}
    elif choice == "none":
        mapped = {"type": "none"}
    elif choice:
        mapped = {"type": "tool", "name": choice}
    if parallel is False:
        mapped = mapped or {"type": "auto"}
        if mapped["type"] != "none":
            mapped["disable_parallel_tool_use"] = True
    return mapped


def translate_messages(messages: tuple[Message, ...]) -> tuple[list[Block], list[Message]]:
    """The system blocks, and the turns with their content blocks (one role never twice in a row)."""
    system: list[Block] = []
    turns: list[Message] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            system += text_blocks(message.get("content"))
            continue
        if role == "assistant":
            turn_role, blocks = "assistant", assistant_blocks(message)
        elif role == "tool":
            turn_role, blocks = "user", [tool_result(message)]
        else:
            turn_role, blocks = "user", text_blocks(message.get("content"))
        if turns and turns[-1]["role"] == turn_role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": turn_role, "content": blocks})
    return system, turns


def text_blocks(content: Any) -> list[Block]:
    """A string or a list of OpenAI content parts as Anthropic content blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            blocks.append({"type": "text", "text": part})
        elif isinstance(part, dict) and part.get("type") == "text":
            blocks.append(_with_cache_point({"type": "text", "text": part.get("text", "")}, part))
        elif isinstance(part, dict) and part.get("type") == "image_url":
            blocks.append(_with_cache_point(image_block(part.get("image_url")), part))
        elif isinstance(part, dict):
            blocks.append(dict(part))
    return blocks


def assistant_blocks(message: Message) -> list[Block]:
    """Thinking blocks (unchanged), then the text, then one ``tool_use`` block per tool call."""
    blocks = [thinking_block(block) for block in message.get("thinking_blocks") or ()]
    blocks += text_blocks(message.get("content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        blocks.append(
            {"type": "tool_use", "id": call.get("id"), "name": function.get("name"), "input": _arguments(function)}
        )
    return blocks


def thinking_block(block: Any) -> Block:
    """A thinking or redacted_thinking block as the server sent it (extra keys such as ``index`` dropped)."""
    data = dict(block)
    if data.get("type") == "redacted_thinking":
        return {"type": "redacted_thinking", "data": data.get("data")}
    return {"type": "thinking", "thinking": data.get("thinking") or "", "signature": data.get("signature") or ""}


def tool_result(message: Message) -> Block:
    """An OpenAI tool message as a ``tool_result`` block."""
    content = message.get("content")
    result = content if isinstance(content, str) else text_blocks(content)
    return {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": result}


def image_block(image: Any) -> Block:
    """An OpenAI ``image_url`` (a data URL or a web address) as an Anthropic image block."""
    url = image.get("url", "") if isinstance(image, dict) else str(image or "")
    header, comma, data = url.partition(",")
    if url.startswith("data:") and comma and header.endswith(";base64"):
        media_type = header[len("data:") : -len(";base64")]
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _with_cache_point(block: Block, source: dict[str, Any]) -> Block:
    """``block`` with the prompt-caching breakpoint ``source`` (an OpenAI part or tool) carries, if any."""
    if isinstance(source.get("cache_control"), dict):
        block["cache_control"] = source["cache_control"]
    return block


def _arguments(function: dict[str, Any]) -> Any:
    raw = function.get("arguments")
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
