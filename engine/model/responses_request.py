"""Translate a ``ModelRequest`` (OpenAI chat messages) into an OpenAI Responses API request body.

The system prompt becomes ``instructions``; the other turns become ``input`` items: user and assistant
messages, one ``function_call`` item per tool call and one ``function_call_output`` item per tool
result. Tools are flattened to the Responses shape (``name`` and ``parameters`` beside ``type``). hive
keeps no state on the server (``store: false``), so a reasoning model's encrypted reasoning is asked
for and its items are sent back before the assistant turn that followed them.
"""

from __future__ import annotations

from typing import Any

from engine.model.pricing import model_entry
from engine.model.types import CallOptions, Message, ModelRequest

REASONING_ITEMS = "reasoning_items"
"""The assistant-message field holding the reasoning items to send back (with their encrypted content)."""
ENCRYPTED_REASONING = "reasoning.encrypted_content"

Item = dict[str, Any]


def request_body(request: ModelRequest, *, model: str, model_name: str, streaming: bool) -> dict[str, Any]:
    """The JSON body for ``request``; ``model`` is hive's model string, ``model_name`` the server's."""
    options = request.options
    instructions, items = translate_messages(request.messages)
    body: dict[str, Any] = {"model": model_name, "input": items, "stream": streaming, "store": False}
    if instructions:
        body["instructions"] = instructions
    if request.tools:
        body["tools"] = [tool_definition(tool) for tool in request.tools]
        body.update(_tool_options(options))
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.max_tokens is not None:
        body["max_output_tokens"] = options.max_tokens
    extra = dict(options.extra)
    reasoning = reasoning_parameter(options.reasoning_effort, extra.pop("reasoning", None), model, model_name)
    if reasoning is not None:
        body["reasoning"] = reasoning
        body["include"] = [ENCRYPTED_REASONING]
    body.update(extra)
    return body


def reasoning_parameter(effort: str | None, given: Any, *models: str) -> dict[str, Any] | None:
    """``reasoning`` for a model that reasons: the effort asked for, with summaries streamed back.

    None for a model the table does not mark as reasoning when no effort is asked for (other models
    reject the parameter).
    """
    if isinstance(given, dict):
        return {"summary": "auto", **given}
    entry = model_entry(*models)
    if effort is None and not (entry and entry.get("supports_reasoning")):
        return None
    return {"summary": "auto"} | ({"effort": effort} if effort else {})


def _tool_options(options: CallOptions) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    if options.tool_choice in ("auto", "none", "required"):
        chosen["tool_choice"] = options.tool_choice
    elif options.tool_choice == "any":
        chosen["tool_choice"] = "required"
    elif options.tool_choice:
        chosen["tool_choice"] = {"type": "function", "name": options.tool_choice}
    if options.parallel_tool_calls is not None:
        chosen["parallel_tool_calls"] = options.parallel_tool_calls
    return chosen


def tool_definition(tool: dict[str, Any]) -> Item:
    """An OpenAI chat tool (``{"type": "function", "function": {...}}``) in the Responses shape."""
    function = tool.get("function") if tool.get("type") == "function" else None
    if not isinstance(function, dict):
        return dict(tool)  # already in the Responses shape (or a built-in tool such as web search)
    definition: Item = {
        "type": "function",
        "name": function["name"],
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        "strict": False,  # hive's schemas have optional parameters, which strict mode refuses
    }
    if function.get("description"):
        definition["description"] = function["description"]
    return definition


def translate_messages(messages: tuple[Message, ...]) -> tuple[str, list[Item]]:
    """The instructions (every system message's text) and the input items of the other turns."""
    instructions: list[str] = []
    items: list[Item] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            instructions += [text for text in (content_text(message.get("content")),) if text]
        elif role == "assistant":
            items += assistant_items(message)
        elif role == "tool":
            items.append(tool_output(message))
        else:
            items.append({"role": "user", "content": user_content(message.get("content"))})
    return "\n\n".join(instructions), items


def content_text(content: Any) -> str:
    """The text of a string or of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    texts = [part if isinstance(part, str) else str(part.get("text") or "") for part in parts if _is_text(part)]
    return "".join(texts)


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, dict) and part.get("type") in ("text", "input_text"))


def user_content(content: Any) -> str | list[Item]:
    """A user message's content: a string as is, content parts as ``input_text`` / ``input_image`` parts."""
    if content is None or isinstance(content, str):
        return content or ""
    parts: list[Item] = []
    for part in content if isinstance(content, list) else [content]:
        if _is_text(part):
            parts.append({"type": "input_text", "text": content_text([part])})
        elif isinstance(part, dict) and part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            parts.append({"type": "input_image", "image_url": url})
        elif isinstance(part, dict):
            parts.append(dict(part))
    return parts


def assistant_items(message: Message) -> list[Item]:
    """Reasoning items (unchanged), the text as an assistant message, then one ``function_call`` per call."""
    items = [dict(item) for item in message.get(REASONING_ITEMS) or () if isinstance(item, dict)]
    text = content_text(message.get("content"))
    if text:
        items.append({"role": "assistant", "content": text})
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        arguments = function.get("arguments")
        items.append(
            {
                "type": "function_call",
                "call_id": call.get("id"),
                "name": function.get("name"),
                "arguments": arguments if isinstance(arguments, str) and arguments else "{}",
            }
        )
    return items


def tool_output(message: Message) -> Item:
    """A tool message as a ``function_call_output`` item."""
    content = message.get("content")
    output = content if isinstance(content, str) else content_text(content)
    return {"type": "function_call_output", "call_id": message.get("tool_call_id"), "output": output}
