"""Tool calls written as text: each known form found, checked against the real built-in tools, or left as text.

The positive cases are written as the chat templates of Qwen 2.5 / Hermes 2 Pro, Llama 3.1-3.3, Mistral
(v3 and v11+ tokenizers) render a call; the negative ones are what must stay text.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.model.text_tool_calls import TextCalls, calls_in_text, offered_tools
from engine.tools.builtin import builtin_tools

TOOLS = offered_tools(tool.spec.to_openai() for tool in builtin_tools())
WRITE = {"path": "hello.py", "content": "print('hi')\n"}
RUN = {"command": "python3 hello.py"}
READ = {"path": "hello.py"}


def j(value: Any) -> str:
    """JSON as the templates write it (with spaces)."""
    return json.dumps(value)


# (name, text, form, [(tool, arguments)], prose left)
FOUND: list[tuple[str, str, str, list[tuple[str, dict[str, Any]]], str]] = [
    (
        "qwen one call",
        f"<tool_call>\n{j({'name': 'write_file', 'arguments': WRITE})}\n</tool_call>",
        "hermes",
        [("write_file", WRITE)],
        "",
    ),
    (
        "qwen two calls, prose first",
        "I'll write it and run it.\n"
        f"<tool_call>\n{j({'name': 'write_file', 'arguments': WRITE})}\n</tool_call>\n"
        f"<tool_call>\n{j({'name': 'execute_command', 'arguments': RUN})}\n</tool_call>",
        "hermes",
        [("write_file", WRITE), ("execute_command", RUN)],
        "I'll write it and run it.",
    ),
    (
        "hermes, keys in the other order, end token left by the server",
        f"<tool_call>{j({'arguments': READ, 'name': 'read_file'})}</tool_call><|im_end|>",
        "hermes",
        [("read_file", READ)],
        "",
    ),
    (
        "hermes, the last closing tag cut by a stop sequence",
        f"<tool_call>\n{j({'name': 'read_file', 'arguments': READ})}\n",
        "hermes",
        [("read_file", READ)],
        "",
    ),
    (
        "hermes, a closing tag inside an argument",
        f"<tool_call>{j({'name': 'write_file', 'arguments': {'path': 't.md', 'content': '</tool_call>'}})}</tool_call>",
        "hermes",
        [("write_file", {"path": "t.md", "content": "</tool_call>"})],
        "",
    ),
    (
        "llama 3.1 python tag",
        f"<|python_tag|>{j({'name': 'execute_command', 'parameters': RUN})}<|eom_id|>",
        "python_tag",
        [("execute_command", RUN)],
        "",
    ),
    (
        "llama python tag, two calls joined by ;",
        f"<|python_tag|>{j({'name': 'write_file', 'parameters': WRITE})}; "
        f"{j({'name': 'read_file', 'parameters': READ})}",
        "python_tag",
        [("write_file", WRITE), ("read_file", READ)],
        "",
    ),
    (
        "llama 3.2 bare JSON with a type",
        j({"type": "function", "name": "read_file", "parameters": READ}) + "<|eot_id|>",
        "json",
        [("read_file", READ)],
        "",
    ),
    (
        "bare JSON with arguments",
        "\n" + j({"name": "execute_command", "arguments": RUN}) + "\n",
        "json",
        [("execute_command", RUN)],
        "",
    ),
    (
        "mistral v3 list",
        f"[TOOL_CALLS] [{j({'name': 'write_file', 'arguments': WRITE})}, {j({'name': 'read_file', 'arguments': READ})}]</s>",
        "mistral",
        [("write_file", WRITE), ("read_file", READ)],
        "",
    ),
    (
        "mistral nemo list with ids",
        f"[TOOL_CALLS][{j({'name': 'read_file', 'arguments': READ, 'id': 'a1b2c3d4e'})}]",
        "mistral",
        [("read_file", READ)],
        "",
    ),
    (
        "mistral v11 name then JSON, twice",
        f"[TOOL_CALLS]write_file{j(WRITE)}[TOOL_CALLS]execute_command{j(RUN)}",
        "mistral",
        [("write_file", WRITE), ("execute_command", RUN)],
        "",
    ),
    (
        "mistral v13 with [ARGS], prose first",
        f"Reading it.[TOOL_CALLS]read_file[ARGS]{j(READ)}",
        "mistral",
        [("read_file", READ)],
        "Reading it.",
    ),
    (
        "fenced json object",
        f"```json\n{j({'name': 'read_file', 'arguments': READ})}\n```",
        "fenced",
        [("read_file", READ)],
        "",
    ),
    (
        "fenced block without a language, holding a list",
        f"```\n[{j({'name': 'write_file', 'arguments': WRITE})},\n {j({'name': 'read_file', 'parameters': READ})}]\n```",
        "fenced",
        [("write_file", WRITE), ("read_file", READ)],
        "",
    ),
    (
        "a tool without required arguments, arguments left out",
        '<tool_call>{"name": "list_directory"}</tool_call>',
        "hermes",
        [("list_directory", {})],
        "",
    ),
]


@pytest.mark.parametrize(("text", "form", "expected", "prose"), [case[1:] for case in FOUND], ids=[c[0] for c in FOUND])
def test_calls_written_as_text_are_found(
    text: str, form: str, expected: list[tuple[str, dict[str, Any]]], prose: str
) -> None:
    found = calls_in_text(text, TOOLS)

    assert isinstance(found, TextCalls)
    assert found.form == form
    assert [(call.name, call.arguments) for call in found.calls] == expected
    assert all(json.loads(call.raw_arguments or "") == call.arguments for call in found.calls)
    assert found.text == prose
    ids = [call.id for call in found.calls]
    assert all(ids) and len(set(ids)) == len(ids)


STAYS_TEXT: list[tuple[str, str]] = [
    ("plain prose", "I wrote hello.py and ran it."),
    ("unknown tool", f"<tool_call>{j({'name': 'delete_everything', 'arguments': {}})}</tool_call>"),
    ("broken JSON", '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"</tool_call>'),
    ("arguments not an object", f"<tool_call>{j({'name': 'read_file', 'arguments': 'hello.py'})}</tool_call>"),
    ("a required key missing", f"<tool_call>{j({'name': 'write_file', 'arguments': {'path': 'a'}})}</tool_call>"),
    ("both arguments and parameters", j({"name": "read_file", "arguments": READ, "parameters": READ})),
    ("an unexpected key", j({"name": "read_file", "path": "hello.py", "arguments": READ})),
    ("a type that is no function", j({"type": "tool", "name": "read_file", "arguments": READ})),
    ("a name that is no string", j({"name": ["read_file"], "arguments": READ})),
    (
        "markup inside prose that explains",
        f"You could call <tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call> to see it.",
    ),
    ("markup in inline code", f"Write `<tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call>`."),
    (
        "one good call and one unknown",
        f"<tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call>"
        f"<tool_call>{j({'name': 'nope', 'arguments': {}})}</tool_call>",
    ),
    (
        "prose between hermes blocks",
        f"<tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call> and <tool_call>",
    ),
    (
        "two forms mixed",
        f"<tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call>[TOOL_CALLS]read_file{j(READ)}",
    ),
    ("bare JSON after prose", "Here it is: " + j({"name": "read_file", "arguments": READ})),
    ("bare JSON then prose", j({"name": "read_file", "arguments": READ}) + " That reads it."),
    ("fenced JSON inside prose", f"Call this:\n```json\n{j({'name': 'read_file', 'arguments': READ})}\n```\nDone."),
    ("a fenced block of another language", f"```python\n{j({'name': 'read_file', 'arguments': READ})}\n```"),
    ("a JSON answer that is no call", j({"name": "hive", "version": 1})),
    ("an empty list", "[TOOL_CALLS][]"),
    ("llama built-in tool syntax", '<|python_tag|>brave_search.call(query="hive")<|eom_id|>'),
    ("mistral name without arguments", "[TOOL_CALLS]read_file"),
    ("an empty tag", "<tool_call></tool_call>"),
]


@pytest.mark.parametrize("text", [case[1] for case in STAYS_TEXT], ids=[case[0] for case in STAYS_TEXT])
def test_ambiguous_or_wrong_calls_stay_text(text: str) -> None:
    assert calls_in_text(text, TOOLS) is None


def test_nothing_is_a_call_when_no_tools_are_offered() -> None:
    assert calls_in_text(f"<tool_call>{j({'name': 'read_file', 'arguments': READ})}</tool_call>", {}) is None


def test_only_the_offered_tools_count() -> None:
    only_read = offered_tools(t.spec.to_openai() for t in builtin_tools() if t.spec.name == "read_file")

    assert calls_in_text(f"[TOOL_CALLS]execute_command{j(RUN)}", only_read) is None
    assert calls_in_text(f"[TOOL_CALLS]read_file{j(READ)}", only_read) is not None
