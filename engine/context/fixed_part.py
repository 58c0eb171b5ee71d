"""The fixed part of every request (the instructions and the tool schemas), made to fit a small window.

A request always carries the system prompt and the tool definitions; on a 2,048-token window hive's
full set takes more than the window. When the fixed part takes more than a share of the window,
``fit_fixed_part`` shrinks it, in this order, stopping at the first that fits:

1. compact schemas: each description cut to its first sentence, optional parameters' descriptions and
   examples dropped (per tool, the names, types and required keys kept whole);
2. fewer tools: the tools the tool retriever ranks lowest for the latest request go first; the core
   tools (read, write, edit, run) and the tools the conversation already used are always kept;
3. shorter instructions: hive's base instructions in brief, and no skills section;
   then as many of the dropped tools as fit again.

When even the shortest instructions with the core tools do not fit, ``WindowTooSmall`` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from msgspec import Struct

from engine.errors import ProviderError

Tool = dict[str, Any]

CORE_TOOLS = ("read_file", "write_file", "edit_file", "execute_command")
"""Kept in every request however small the window: without them hive cannot do a coding task."""
BRIEF_INSTRUCTIONS = """You are hive, a coding agent in the user's project. Read files before changing them, \
make focused changes (edit_file, write_file), verify with execute_command, and report briefly what you did."""
_DROPPED_KEYS = frozenset({"examples", "example", "title", "$comment"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")
MAX_SENTENCE = 160


class WindowTooSmall(ProviderError):
    """The model's window cannot hold even hive's shortest instructions and smallest tool set."""

    def __init__(self, window: int, minimum: int) -> None:
        super().__init__(
            f"the model's window is {window:,} tokens; hive's instructions and the smallest tool set take {minimum:,}",
            category="window_too_small",
        )
        self.window = window
        self.minimum = minimum


class FixedPart(Struct, frozen=True, kw_only=True):
    """What a request carries before the conversation, and how it was made to fit."""

    instructions: str
    tools: tuple[Tool, ...]
    tokens: int
    """The system prompt's and the tools' tokens together."""
    steps: tuple[str, ...] = ()
    """What was done to fit: ``compact schemas``, ``fewer tools``, ``shorter instructions`` (none: nothing)."""


class Counting(Struct, frozen=True, kw_only=True):
    """How the fixed part is counted: the system prompt's tokens, and the tool definitions'."""

    instructions: Callable[[str], int]
    tools: Callable[[Sequence[Tool]], int]

    def fixed(self, instructions: str, tools: Sequence[Tool]) -> int:
        """The tokens of ``instructions`` and ``tools`` together."""
        return (self.instructions(instructions) if instructions else 0) + self.tools(tools)


def fit_fixed_part(
    instructions: str,
    tools: Sequence[Tool],
    *,
    budget: float,
    window: int,
    counting: Counting,
    ranking: Sequence[str] = (),
    keep: Sequence[str] = (),
) -> FixedPart:
    """The fixed part within ``budget`` tokens; ``ranking`` orders the tool names best first (unranked tools
    last), ``keep`` names tools never dropped beside the core ones. Raises ``WindowTooSmall`` when even the
    minimum takes more than ``window``."""
    full = counting.fixed(instructions, tools)
    if full <= budget:
        return FixedPart(instructions=instructions, tools=tuple(tools), tokens=full)
    compacted = [compact_tool(tool) for tool in tools]
    tokens = counting.fixed(instructions, compacted)
    if tokens <= budget:
        return FixedPart(instructions=instructions, tools=tuple(compacted), tokens=tokens, steps=("compact schemas",))
    ordered = _drop_order(compacted, ranking, keep)
    always = sum(1 for tool in ordered if _name(tool) in _always(keep))
    fewer = _most_tools_within(instructions, ordered, budget, counting, always)
    if fewer is not None:
        return _fitted(instructions, fewer, counting, ("compact schemas", "fewer tools"))
    brief = shorter_instructions(instructions)
    kept = _most_tools_within(brief, ordered, budget, counting, always)
    steps = ("compact schemas", "fewer tools", "shorter instructions")
    if kept is not None:
        return _fitted(brief, kept, counting, steps)
    minimum = [tool for tool in ordered if _name(tool) in _always(keep)]
    smallest = counting.fixed(brief, minimum)
    if smallest > window:
        raise WindowTooSmall(window, smallest)
    return FixedPart(instructions=brief, tools=tuple(minimum), tokens=smallest, steps=steps)


def _fitted(instructions: str, tools: Sequence[Tool], counting: Counting, steps: tuple[str, ...]) -> FixedPart:
    return FixedPart(
        instructions=instructions, tools=tuple(tools), tokens=counting.fixed(instructions, tools), steps=steps
    )


def _always(keep: Sequence[str]) -> frozenset[str]:
    return frozenset((*CORE_TOOLS, *keep))


def _drop_order(tools: Sequence[Tool], ranking: Sequence[str], keep: Sequence[str]) -> list[Tool]:
    """The tools, those always kept first, then best ranked first (so the last ones are dropped first)."""
    rank = {name: index for index, name in enumerate(ranking)}
    always = _always(keep)
    return sorted(tools, key=lambda tool: (_name(tool) not in always, rank.get(_name(tool), len(rank))))


def _most_tools_within(
    instructions: str, ordered: Sequence[Tool], budget: float, counting: Counting, always: int
) -> list[Tool] | None:
    """The longest prefix of ``ordered`` within ``budget`` holding at least its first ``always`` tools; None if
    none does."""
    base = counting.instructions(instructions) if instructions else 0
    sizes = [counting.tools([tool]) for tool in ordered]
    chosen: list[Tool] = []
    total = base
    for tool, size in zip(ordered, sizes, strict=True):
        if total + size > budget:
            break
        chosen.append(tool)
        total += size
    if len(chosen) < always or counting.fixed(instructions, chosen) > budget:
        return None
    return chosen


def shorter_instructions(instructions: str) -> str:
    """``instructions`` with hive's base instructions in brief and without the skills section."""
    from engine.context.window import split_skills_section
    from engine.instructions import BASE_INSTRUCTIONS

    without_skills, _ = split_skills_section(instructions)
    if without_skills.startswith(BASE_INSTRUCTIONS):
        return BRIEF_INSTRUCTIONS + without_skills[len(BASE_INSTRUCTIONS) :]
    return without_skills


def compact_tool(tool: Tool) -> Tool:
    """``tool`` with its description cut to the first sentence and its parameters' optional detail dropped."""
    function = tool.get("function")
    if not isinstance(function, Mapping):
        return tool
    compacted: dict[str, Any] = {
        "name": function.get("name"),
        "description": first_sentence(function.get("description")),
    }
    parameters = function.get("parameters")
    if isinstance(parameters, Mapping):
        compacted["parameters"] = compact_schema(parameters, required=True)
    return {**tool, "function": compacted}


def compact_schema(schema: Mapping[str, Any], *, required: bool) -> dict[str, Any]:
    """A JSON schema without examples and titles; descriptions kept to one sentence, and only where ``required``."""
    needed = set(schema.get("required") or ())
    compacted: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED_KEYS or (key == "description" and not required):
            continue
        if key == "description":
            compacted[key] = first_sentence(value)
        elif key == "properties" and isinstance(value, Mapping):
            compacted[key] = {
                name: compact_schema(prop, required=name in needed) if isinstance(prop, Mapping) else prop
                for name, prop in value.items()
            }
        elif key == "items" and isinstance(value, Mapping):
            compacted[key] = compact_schema(value, required=required)
        else:
            compacted[key] = value
    return compacted


def first_sentence(text: object) -> str:
    """The first sentence of ``text`` (at most ``MAX_SENTENCE`` characters)."""
    if not isinstance(text, str):
        return ""
    sentence = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip()
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[: MAX_SENTENCE - 1].rstrip() + "…"


def _name(tool: Tool) -> str:
    function = tool.get("function")
    return str(function.get("name")) if isinstance(function, Mapping) else ""
