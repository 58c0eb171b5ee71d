"""Tool calls a model wrote as text: found, checked against the offered tools, or left as text.

Small and open models often write their calls into the answer instead of the structured field, in
the markup of their chat template. ``calls_in_text`` reads the known forms:

- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, one block per call;
- Llama 3.x: ``<|python_tag|>{"name": ..., "parameters": {...}}`` (several joined by ``;``), or the
  bare JSON object as the whole reply;
- Mistral: ``[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]``, and the newer
  ``[TOOL_CALLS]name{...}`` / ``[TOOL_CALLS]name[ARGS]{...}``, once per call;
- a fenced ```json block that is the whole reply, holding one such object or a list of them.

Prose may come before the tagged forms (it stays the answer's text), never after a call. Anything
ambiguous stays text: a name no offered tool has, arguments that are not a JSON object or lack a
required key, broken JSON, an unexpected key, prose after the markup, two forms in one reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct

from engine.events import ToolCall
from engine.model.assembly import new_call_id

HERMES_OPEN, HERMES_CLOSE = "<tool_call>", "</tool_call>"
PYTHON_TAG = "<|python_tag|>"
MISTRAL_TAG = "[TOOL_CALLS]"
MISTRAL_ARGS = "[ARGS]"
CALL_MARKERS = (HERMES_OPEN, PYTHON_TAG, MISTRAL_TAG)
"""The tags that open a call written as text; the streamed text is held back from the first one on."""
END_TOKENS = ("<|eom_id|>", "<|eot_id|>", "<|im_end|>", "</s>")
"""End-of-turn tokens some servers leave at the end of the text; they are not prose."""

_ARGUMENT_KEYS = ("arguments", "parameters")
_ALLOWED_KEYS = frozenset({"name", *_ARGUMENT_KEYS, "type", "id"})
_FENCE = re.compile(r"\A```[ \t]*(?:json)?[ \t]*\n(?P<body>.*)\n[ \t]*```\Z", re.DOTALL)
_MISTRAL_NAME = re.compile(r"\s*(?P<name>[A-Za-z0-9_.\-]+)\s*(?:\[ARGS\])?\s*(?=\{)")
_DECODER = json.JSONDecoder()


class OfferedTool(Struct, frozen=True):
    """What a call written as text is checked against: a tool's name and the keys its schema requires."""

    name: str
    required: frozenset[str] = frozenset()


class TextCalls(Struct, frozen=True):
    """The calls found in a reply's text, and what is left of the text without their markup."""

    calls: tuple[ToolCall, ...]
    text: str
    """The prose before the markup (stripped); empty when the markup was the whole reply."""
    form: str
    """Which form the calls were written in: ``hermes``, ``python_tag``, ``json``, ``mistral``, ``fenced``."""


def offered_tools(tools: Iterable[Mapping[str, Any]]) -> dict[str, OfferedTool]:
    """The offered tools by name, from tool definitions in the OpenAI format."""
    offered: dict[str, OfferedTool] = {}
    for definition in tools:
        function = definition.get("function") or {}
        name = function.get("name")
        if not isinstance(name, str):
            continue
        required = (function.get("parameters") or {}).get("required") or ()
        offered[name] = OfferedTool(name=name, required=frozenset(k for k in required if isinstance(k, str)))
    return offered


def calls_in_text(text: str, tools: Mapping[str, OfferedTool]) -> TextCalls | None:
    """The calls ``text`` holds in one known form, each checked against ``tools``; None when it stays text."""
    if not tools:
        return None
    body = _without_end_tokens(text)
    markers = [marker for marker in CALL_MARKERS if marker in body]
    if len(markers) > 1:
        return None
    if markers:
        return _tagged_calls(body, markers[0], tools)
    return _whole_reply_calls(body, tools)


def _without_end_tokens(text: str) -> str:
    body = text.strip()
    while body.endswith(END_TOKENS):
        token = next(t for t in END_TOKENS if body.endswith(t))
        body = body[: -len(token)].rstrip()
    return body


def _tagged_calls(body: str, marker: str, tools: Mapping[str, OfferedTool]) -> TextCalls | None:
    start = body.index(marker)
    prose, markup = body[:start].strip(), body[start:]
    if marker == HERMES_OPEN:
        found, form = _hermes_objects(markup), "hermes"
    elif marker == PYTHON_TAG:
        found, form = _json_objects(markup[len(PYTHON_TAG) :], separators=";"), "python_tag"
    else:
        found, form = _mistral_calls(markup), "mistral"
    return _checked(found, prose, form, tools)


def _whole_reply_calls(body: str, tools: Mapping[str, OfferedTool]) -> TextCalls | None:
    fence = _FENCE.match(body)
    if fence is not None:
        return _checked(_json_values(fence.group("body")), "", "fenced", tools)
    if body.startswith("{"):
        return _checked(_json_objects(body, separators=";"), "", "json", tools)
    return None


def _hermes_objects(markup: str) -> list[Any] | None:
    """The JSON of each ``<tool_call>`` block; None unless the markup is nothing but such blocks.

    The closing tag of the last block may be missing (some servers stop the reply on it).
    """
    found: list[Any] = []
    position = 0
    while position < len(markup):
        if not markup.startswith(HERMES_OPEN, position):
            return None
        read = _value_at(markup, position + len(HERMES_OPEN))
        if read is None:
            return None
        value, position = read
        if markup.startswith(HERMES_CLOSE, position):
            position = _skip_space(markup, position + len(HERMES_CLOSE))
        elif position < len(markup):
            return None
        found.append(value)
    return found


def _mistral_calls(markup: str) -> list[Any] | None:
    """``[TOOL_CALLS]`` then a list of call objects, or ``name{...}`` after each ``[TOOL_CALLS]``."""
    after = markup[len(MISTRAL_TAG) :].lstrip()
    if after.startswith("["):
        value = _one_json_value(after)
        return value if isinstance(value, list) else None
    found: list[Any] = []
    position = 0
    while position < len(markup):
        named = _MISTRAL_NAME.match(markup, position + len(MISTRAL_TAG))
        if not markup.startswith(MISTRAL_TAG, position) or named is None:
            return None
        read = _value_at(markup, named.end())
        if read is None:
            return None
        arguments, position = read
        found.append({"name": named.group("name"), "arguments": arguments})
    return found


def _value_at(text: str, position: int) -> tuple[Any, int] | None:
    """The JSON value starting at ``position`` (after whitespace), and where the whitespace after it ends."""
    try:
        value, end = _DECODER.raw_decode(text, _skip_space(text, position))
    except ValueError:
        return None
    return value, _skip_space(text, end)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _json_values(text: str) -> list[Any] | None:
    """One object, or a list of them, as the whole of ``text``."""
    value = _one_json_value(text)
    if isinstance(value, list):
        return value
    return None if value is None else [value]


def _json_objects(text: str, *, separators: str) -> list[Any] | None:
    """JSON values one after another, apart by whitespace or ``separators``; None unless that is all of ``text``."""
    found: list[Any] = []
    position, text = 0, text.strip()
    while position < len(text):
        try:
            value, position = _DECODER.raw_decode(text, position)
        except ValueError:
            return None
        found.append(value)
        while position < len(text) and (text[position].isspace() or text[position] in separators):
            position += 1
    return found or None


def _one_json_value(text: str) -> Any:
    """The one JSON value that is the whole of ``text`` (None when it is not exactly one)."""
    found = _json_objects(text, separators="")
    return found[0] if found is not None and len(found) == 1 else None


def _checked(found: list[Any] | None, prose: str, form: str, tools: Mapping[str, OfferedTool]) -> TextCalls | None:
    """The calls, if every one is well formed and names an offered tool with its required arguments."""
    if not found:
        return None
    calls = [_call(value, tools) for value in found]
    if any(call is None for call in calls):
        return None
    return TextCalls(calls=tuple(c for c in calls if c is not None), text=prose, form=form)


def _call(value: Any, tools: Mapping[str, OfferedTool]) -> ToolCall | None:
    if not isinstance(value, dict) or not value.keys() <= _ALLOWED_KEYS or value.get("type", "function") != "function":
        return None
    name = value.get("name")
    tool = tools.get(name) if isinstance(name, str) else None
    given = [key for key in _ARGUMENT_KEYS if key in value]
    if tool is None or len(given) > 1:
        return None
    arguments = value[given[0]] if given else {}
    if not isinstance(arguments, dict) or not tool.required <= arguments.keys():
        return None
    return ToolCall(id=new_call_id(), name=tool.name, arguments=arguments, raw_arguments=json.dumps(arguments))
