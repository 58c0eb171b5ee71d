"""Helpers for benchmarks/context.py: a long synthetic history, and a reading task run through the real loop."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.context.policy import ContextPolicy
from engine.context.tokens import TokenCounter
from engine.conversation import Conversation
from engine.events import ToolCall, Usage
from engine.model.types import Message, ModelReply, ModelRequest
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.tools.files import ReadFileTool
from engine.tools.registry import ToolRegistry

WORDS = "def return self value import class for in range if else None True print path config cache".split()
IDENTIFIERS = "path config cache model request response buffer token stream parser handler record entry index".split()
MODEL = "openai/gpt-4o"


def reading_history(tokens: int, result_chars: int = 4096, seed: int = 1) -> list[Message]:
    """A history of read_file rounds holding at least ``tokens`` tokens for ``MODEL``."""
    rng = random.Random(seed)
    counter = TokenCounter(MODEL)
    history: list[Message] = [{"role": "system", "content": "You are hive."}, {"role": "user", "content": "read"}]
    i = 0
    while counter.request(history) < tokens:
        arguments = json.dumps({"path": f"src/module_{i}.py"})
        function = {"name": "read_file", "arguments": arguments}
        history.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "function": function}]})
        body = " ".join(rng.choice(WORDS) for _ in range(result_chars // 5))
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": body})
        i += 1
    return history


CODE_LINES = (
    "def {a}_{b}(self, {c}: str) -> {D}:\n",
    '    """Return the {a} {b} for {c}, reading the {d} once."""\n',
    "    if {c} in self._{a}:\n",
    "        return self._{a}[{c}]\n",
    "    {b} = load_{d}({c}, default=None)\n",
    "    self._{a}[{c}] = {D}({b} or {{}})\n",
    "    return self._{a}[{c}]\n",
    "\n",
)


def write_files(directory: Path, count: int, size: int = 4096, seed: int = 2) -> None:
    """``count`` different Python files of ``size`` bytes each (methods made of common identifiers)."""
    rng = random.Random(seed)
    for i in range(count):
        lines: list[str] = [f'"""Module {i}: helpers for the {rng.choice(IDENTIFIERS)} layer."""\n\n']
        while sum(map(len, lines)) < size:
            a, b, c, d = (rng.choice(IDENTIFIERS) for _ in range(4))
            lines += [line.format(a=a, b=b, c=c, d=d, D=d.capitalize()) for line in CODE_LINES]
        (directory / f"file_{i:03}.py").write_text("".join(lines)[:size])


@dataclass
class ReadingModel:
    """A model answering from memory: one read_file call per round, then a short answer; records every request."""

    rounds: int
    model: str = MODEL
    requests: list[ModelRequest] = field(default_factory=list)

    async def stream(self, request: ModelRequest) -> Any:
        self.requests.append(request)
        usage = Usage(prompt_tokens=1, completion_tokens=1, calls=1)
        number = len(self.requests)
        if number > self.rounds:
            yield ModelReply(text="Read them all.", usage=usage)
            return
        arguments = json.dumps({"path": f"file_{number - 1:03}.py"})
        call = ToolCall(id=f"call_{number}", name="read_file", arguments=json.loads(arguments), raw_arguments=arguments)
        yield ModelReply(text="", tool_calls=(call,), usage=usage)


class LedgerModel:
    """Writes every task ledger it is asked for (the summariser of the compactions)."""

    model = MODEL

    async def stream(self, request: ModelRequest) -> Any:
        yield ModelReply(text="Files touched:\n- file_*.py read in order", usage=Usage(calls=1))


@dataclass(frozen=True)
class Sent:
    """What a task sent to the model over all its requests."""

    requests: int
    total_bytes: int
    total_tokens: int
    largest_tokens: int


async def run_reading_task(
    workdir: Path, rounds: int, policy: ContextPolicy, conversation: Conversation | None = None
) -> Sent:
    """Run the reading task through the real loop with ``policy``; measure every request it sent."""
    model = ReadingModel(rounds)
    loop = AgentLoop(
        client=model,
        toolset=ToolRegistry([ReadFileTool()]),
        environment=ToolEnvironment(cwd=workdir, data_dir=workdir),
        instructions="You are hive, a coding agent. Read the files you are asked to read.",
        options=LoopOptions(max_turns=rounds + 5),
        context=policy,
        conversation=conversation,
    )
    result = await loop.run(f"Read file_000.py to file_{rounds - 1:03}.py, one at a time.")
    assert result.exit_reason == "completed" and len(result.tool_outcomes) == rounds, result
    counter = TokenCounter(MODEL)
    sizes = [len(json.dumps({"messages": list(r.messages), "tools": list(r.tools)})) for r in model.requests]
    tokens = [counter.request(r.messages, r.tools) for r in model.requests]
    return Sent(requests=len(sizes), total_bytes=sum(sizes), total_tokens=sum(tokens), largest_tokens=max(tokens))
