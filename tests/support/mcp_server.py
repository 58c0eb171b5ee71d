"""A small MCP server (SDK 2.x ``MCPServer``) that misbehaves on demand, for hive's MCP tests.

    python tests/support/mcp_server.py [--hang-at-start] [--hold-until PATH] [--tools-file PATH] [--marker TEXT]
                                       [stdio | http PORT]

Tools: ``echo(text)``; ``peek(text)`` (marked read-only); ``work(steps, delay)`` reports progress
after each step; ``grow(name)`` adds a tool and announces the changed list (on both protocol eras);
``hang()`` never returns (after touching the ``--hang-flag`` file, when given: the call has arrived); ``crash()`` ends the process mid-call, ``crash_later(delay)`` after answering; ``fail()`` returns an ``isError``
result; ``roots()`` asks the client for its roots (``roots/list``) and returns them as JSON; ``ask()`` and
``choose()`` ask the person a form (elicitation: a name and an age; a colour, a flag and extras, all with
defaults) and return the outcome as JSON;
``summarize(text, max_tokens, stop)`` asks the client's model (``sampling/createMessage``, with a system prompt, a
model hint and includeContext) and returns its answer, model and stop reason as JSON. ``--hang-at-start`` sleeps before answering anything (a server that never connects);
``--hold-until PATH`` answers nothing until PATH exists (a test decides when the server connects);
``--tools-file PATH`` adds a tool for each line of PATH, when it exists (the same launch, other tools);
``--hang-flag PATH`` names that file; ``--marker`` is ignored but appears in the command line, so tests can look for leftover processes;
``--spawn-child MARKER`` starts a sleeping child (in the server's process group, with MARKER in its
command line) that the server leaves behind when it exits.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp_types import (
    CreateMessageResult,
    ListRootsResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

server = MCPServer("hive-test", version="1.0")
_hang_flag: list[str] = []
"""The file ``hang`` touches when a call arrives (set from ``--hang-flag``)."""


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=True, title="Peek"))
def peek(text: str) -> str:
    """Return the text in capitals (a read-only tool)."""
    return text.upper()


@server.tool()
async def work(steps: int = 3, delay: float = 0.05, ctx: Context = None) -> str:  # type: ignore[assignment]
    """Sleep ``steps`` times, reporting progress after each step."""
    for step in range(1, steps + 1):
        await anyio.sleep(delay)
        await ctx.report_progress(step, steps, f"step {step}/{steps}")
    return f"worked {steps} steps"


@server.tool()
async def grow(name: str = "extra", ctx: Context = None) -> str:  # type: ignore[assignment]
    """Add a tool called ``name`` and announce the changed tool list."""
    server.add_tool(lambda: f"{name} says hi", name=name, description="added while running")
    await ctx.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
async def hang() -> str:
    """Never return (touch the hang flag first, so a test knows the call is in flight)."""
    for flag in _hang_flag:
        await anyio.Path(flag).touch()
    await anyio.sleep(3600)
    return "unreachable"


@server.tool()
def crash() -> str:
    """End the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def crash_later(delay: float = 0.2) -> str:
    """Answer, then end the server process ``delay`` seconds later (with no call in flight)."""
    threading.Timer(delay, os._exit, args=(4,)).start()
    return "crashing soon"


@server.tool()
def fail() -> str:
    """Raise, which the client sees as an isError result."""
    raise ValueError("fail was asked to fail")


def _ask_for_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(_ask_for_roots)]) -> str:
    """The client's roots as JSON: a list of ``{"uri", "name"}``."""
    return json.dumps([{"uri": str(root.uri), "name": root.name} for root in found.roots])


class Contact(BaseModel):
    """The form ``ask`` puts to the person."""

    name: str = Field(title="Name", description="Who you are", min_length=1)
    age: int = Field(default=30, title="Age", ge=0, le=150)


class Preferences(BaseModel):
    """The form ``choose`` puts to the person: every field has a default."""

    colour: Literal["red", "green", "blue"] = Field(default="green", title="Colour")
    loud: bool = Field(default=False, description="Shout the answer")
    extras: list[Literal["salt", "pepper"]] = Field(default=["salt"], description="Any number of extras")


def _ask_contact() -> Elicit[Contact]:
    return Elicit("Who are you?\x1b[2K (the server asks)", Contact)


def _ask_preferences() -> Elicit[Preferences]:
    return Elicit("Pick your preferences", Preferences)


def _outcome(result: AcceptedElicitation[Any] | DeclinedElicitation | CancelledElicitation) -> str:
    data = result.data.model_dump() if isinstance(result, AcceptedElicitation) else None
    return json.dumps({"action": result.action, "content": data})


@server.tool()
def ask(answer: Annotated[ElicitationResult[Contact], Resolve(_ask_contact)]) -> str:
    """Ask the person for a name and an age (elicitation); return ``{"action", "content"}`` as JSON."""
    return _outcome(answer)


@server.tool()
def choose(answer: Annotated[ElicitationResult[Preferences], Resolve(_ask_preferences)]) -> str:
    """Ask for a colour, a boolean and extras, each with a default; return ``{"action", "content"}`` as JSON."""
    return _outcome(answer)


def _ask_to_summarize(text: str, max_tokens: int = 50, stop: str = "") -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=text))],
        max_tokens=max_tokens,
        system_prompt="Summarize what the user sends in one line.",
        include_context="thisServer",
        model_preferences=ModelPreferences(hints=[ModelHint(name="claude-haiku")]),
        stop_sequences=[stop] if stop else None,
    )


@server.tool()
def summarize(
    text: str,
    answer: Annotated[CreateMessageResult, Resolve(_ask_to_summarize)],
    max_tokens: int = 50,
    stop: str = "",
) -> str:
    """Ask the client's model to summarize ``text`` (``sampling/createMessage``); its answer as JSON."""
    content = answer.content
    said = content.text if isinstance(content, TextContent) else f"[{content.type}]"
    return json.dumps({"text": said, "model": answer.model, "stop_reason": answer.stop_reason})


def hold_until(path: str, guard_s: float = 120) -> None:
    """Wait until ``path`` exists (the test's signal to connect); the guard only ends a forgotten test."""
    deadline = time.monotonic() + guard_s
    while path and not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)


def add_listed_tools(path: str) -> None:
    """Add a tool named by each line of ``path`` (no file: none)."""
    if not path or not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as listed:
        for name in filter(None, (line.strip() for line in listed)):
            server.add_tool(lambda name=name: f"{name} says hi", name=name, description=f"the {name} tool")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hang-at-start", action="store_true")
    parser.add_argument("--marker", default="")
    parser.add_argument("--spawn-child", default="")
    parser.add_argument("--hang-flag", default="")
    parser.add_argument("--hold-until", default="")
    parser.add_argument("--tools-file", default="")
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "http"])
    parser.add_argument("port", nargs="?", type=int, default=8765)
    options = parser.parse_args()
    _hang_flag.extend(filter(None, [options.hang_flag]))
    if options.spawn_child:
        sleeper = "import time; time.sleep(300)"
        subprocess.Popen(
            [sys.executable, "-c", sleeper, options.spawn_child], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
    if options.hang_at_start:
        time.sleep(3600)
    hold_until(options.hold_until)
    add_listed_tools(options.tools_file)
    if options.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=options.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
