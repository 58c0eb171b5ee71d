"""Scripted replies whose tool calls are written as text, in the markup of the chat templates small models use.

Each form is a function from (name, arguments) pairs to the reply text, as the template renders it; `text_calls`
makes the scripted server reply with it as plain answer text (no structured `tool_calls`).

    server.script(text_calls("hermes", ("read_file", {"path": "a.txt"})), text("done"))
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.llm_server import Completion, text

Call = tuple[str, dict[str, Any]]


def hermes(*calls: Call) -> str:
    """Qwen 2.5 / Hermes 2 Pro: one `<tool_call>` block per call, on its own lines."""
    return "\n".join(f"<tool_call>\n{json.dumps({'name': n, 'arguments': a})}\n</tool_call>" for n, a in calls)


def python_tag(*calls: Call) -> str:
    """Llama 3.1: `<|python_tag|>` then the calls as JSON joined by `; `, ended by `<|eom_id|>`."""
    return "<|python_tag|>" + "; ".join(json.dumps({"name": n, "parameters": a}) for n, a in calls) + "<|eom_id|>"


def bare_json(*calls: Call) -> str:
    """Llama 3.2 / 3.3 JSON tool calling: the call object is the whole reply."""
    (name, arguments), *_ = calls
    return json.dumps({"type": "function", "name": name, "parameters": arguments})


def mistral(*calls: Call) -> str:
    """Mistral v3 tokenizer: `[TOOL_CALLS]` then a JSON list of call objects."""
    return "[TOOL_CALLS] " + json.dumps([{"name": n, "arguments": a} for n, a in calls])


def mistral_named(*calls: Call) -> str:
    """Mistral v11+ tokenizer: `[TOOL_CALLS]name{arguments}` for each call."""
    return "".join(f"[TOOL_CALLS]{n}{json.dumps(a)}" for n, a in calls)


def fenced(*calls: Call) -> str:
    """A fenced json block holding the call object (or a list when there are several)."""
    objects = [{"name": n, "arguments": a} for n, a in calls]
    return "```json\n" + json.dumps(objects[0] if len(objects) == 1 else objects, indent=2) + "\n```"


FORMS: dict[str, Callable[..., str]] = {
    "hermes": hermes,
    "python_tag": python_tag,
    "json": bare_json,
    "mistral": mistral,
    "mistral_named": mistral_named,
    "fenced": fenced,
}
"""Every form, by name."""


def text_calls(form: str, *calls: Call, prose: str = "", chunk_size: int = 4) -> Completion:
    """A reply whose text is ``prose`` (if any) then ``calls`` written in ``form``, streamed in small pieces."""
    written = FORMS[form](*calls)
    return text(f"{prose}\n{written}" if prose else written, chunk_size=chunk_size)
