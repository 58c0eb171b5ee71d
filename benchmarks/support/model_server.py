"""A scripted model server in its own process, so its CPU time stays off the measured process.

    python benchmarks/support/model_server.py TOOL ROUNDS   # prints the base URL, serves until stdin closes

Each request gets a call to TOOL until the conversation holds ROUNDS tool results since the last
user message; then a short text answer. Chat-completions and Responses API requests are both
answered; a client that does not offer TOOL (another agent) gets a call to its own shell tool.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.llm_server import LLMServer, Reply, Usage, call, text, tool_calls
from tests.support.local_http import RecordedRequest

SHELL_TOOLS: dict[str, dict[str, Any]] = {"exec_command": {"cmd": "ls"}, "shell": {"command": ["ls"]}}
"""Other agents' shell tools (Codex's), called with ``ls`` when TOOL is not offered."""


class RoundsServer(LLMServer):
    """Answers by the shape of the conversation instead of a queue."""

    def __init__(self, tool: str, rounds: int, arguments: dict[str, Any]) -> None:
        self.tool = tool
        self.rounds = rounds
        self.arguments = arguments
        super().__init__()

    def _record(self, request: RecordedRequest) -> None:
        """Keep no requests: a benchmark's thousands of growing bodies would slow the server (its GC) as it runs."""

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        usage = Usage(prompt_tokens=100, completion_tokens=10)
        if tool_results(body) >= self.rounds:
            return text("All rounds done.", usage=usage)
        offered = tool_names(body)
        if self.tool in offered or not offered & SHELL_TOOLS.keys():
            return tool_calls(call(self.tool, self.arguments), usage=usage)
        shell = next(name for name in SHELL_TOOLS if name in offered)
        return tool_calls(call(shell, SHELL_TOOLS[shell]), usage=usage)


def tool_results(body: dict[str, Any]) -> int:
    """Tool results since the last user turn: chat ``tool`` messages or Responses ``function_call_output`` items."""
    turns = body.get("messages") or body.get("input") or []
    last_user = max((i for i, turn in enumerate(turns) if turn.get("role") == "user"), default=0)
    return sum(
        1 for turn in turns[last_user:] if turn.get("role") == "tool" or turn.get("type") == "function_call_output"
    )


def tool_names(body: dict[str, Any]) -> set[str]:
    """The names of the tools a request offers (chat or Responses shape)."""
    return {str((tool.get("function") or tool).get("name")) for tool in body.get("tools") or ()}


def start(tool: str, rounds: int, arguments: str = "{}") -> tuple[subprocess.Popen[str], str]:
    """Start the server process; returns it and the base URL. Close its stdin to stop it."""
    process = subprocess.Popen(
        [sys.executable, __file__, tool, str(rounds), arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def main() -> None:
    import json

    tool, rounds = sys.argv[1], int(sys.argv[2])
    arguments = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    with RoundsServer(tool, rounds, arguments) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
