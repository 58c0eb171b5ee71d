"""What tool-call tracking costs: the same runs with tracking on and off, alternately, in one process.

Workloads against a model that answers from memory (so only hive's own work is measured):
  * a 10,000-delta text stream;
  * 1,000 tool calls (10 model turns of 100 parallel calls) of the built-in read_file on a small file,
    the cheapest real tool;
  * the same 1,000 calls of a tool that does nothing at all: the worst case, shown for honesty.
Goal: at most 5% overhead (stream and real tool calls).

Times are the process's CPU time (its threads included), not the clock's: the model answers from
memory, so a run never waits, and on a shared machine the clock also counts other processes' turns.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from benchmarks.support.noop_tool import Noop
from engine.events import ToolCall, Usage
from engine.model.types import ModelReply, StreamItem, StreamText
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.tools.files import ReadFileTool
from engine.tools.registry import ToolRegistry
from engine.tracking import Tracker

DELTAS = 10_000
TURNS, CALLS_PER_TURN = 10, 100
REPEATS = 15
USAGE = Usage(prompt_tokens=100, completion_tokens=10, calls=1)


class StreamingModel:
    """Streams DELTAS small pieces of text, then the reply."""

    model = "bench/model"

    async def stream(self, request: Any) -> AsyncGenerator[StreamItem, None]:
        for _ in range(DELTAS):
            yield StreamText(text="word ")
        yield ModelReply(text="word " * DELTAS, usage=USAGE)


class ToolCallingModel:
    """Asks for CALLS_PER_TURN parallel calls per turn, TURNS times, then answers."""

    model = "bench/model"
    tool = "noop"
    arguments: dict[str, Any] = {}

    def __init__(self) -> None:
        self.turns = 0

    async def stream(self, request: Any) -> AsyncGenerator[StreamItem, None]:
        self.turns += 1
        if self.turns > TURNS:
            yield ModelReply(text="done", usage=USAGE)
            return
        calls = tuple(
            ToolCall(id=f"c{self.turns}-{i}", name=self.tool, arguments=self.arguments, raw_arguments="{}")
            for i in range(CALLS_PER_TURN)
        )
        yield ModelReply(text="", tool_calls=calls, usage=USAGE)


class ReadFileModel(ToolCallingModel):
    """The same calls, to read_file on a 40-line file."""

    tool = "read_file"
    arguments = {"path": "small.py"}


async def one_run(make_model: Callable[[], Any], tracked: bool, workdir: Path) -> float:
    model = make_model()
    loop = AgentLoop(
        client=model,
        toolset=ToolRegistry([Noop(), ReadFileTool()]),
        environment=ToolEnvironment(cwd=workdir, data_dir=workdir),
        options=LoopOptions(max_turns=TURNS + 5),
        hooks=Tracker(model.model) if tracked else None,
    )
    events = loop.run_streaming("go")
    started = time.process_time()
    async for _ in events:
        pass
    return time.process_time() - started


def measure(name: str, make_model: Callable[[], Any], workdir: Path) -> float:
    asyncio.run(one_run(make_model, True, workdir))  # warm-up
    off, on = [], []
    for repeat in range(REPEATS):
        # alternate which goes first, so drift within a pair does not always favour one side
        for tracked in (False, True) if repeat % 2 == 0 else (True, False):
            (on if tracked else off).append(asyncio.run(one_run(make_model, tracked, workdir)))
    ratios = [b / a for a, b in zip(off, on, strict=True)]
    overhead = (statistics.median(ratios) - 1) * 100
    print(
        f"  {name:28s} off {statistics.median(off) * 1000:8.1f} ms   on {statistics.median(on) * 1000:8.1f} ms"
        f"   overhead {overhead:+5.1f}%"
    )
    return overhead


def main() -> None:
    print(f"tracking overhead, median of {REPEATS} paired runs (order alternating), CPU time")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "small.py").write_text("".join(f"line_{i} = {i}\n" for i in range(40)))
        deltas = measure(f"{DELTAS:,}-delta stream", StreamingModel, workdir)
        calls = measure(f"{TURNS * CALLS_PER_TURN:,} read_file calls", ReadFileModel, workdir)
        measure(f"{TURNS * CALLS_PER_TURN:,} zero-cost calls (worst)", ToolCallingModel, workdir)
    worst = max(deltas, calls)
    print(f"goal <= 5% (stream, read_file calls): {'met' if worst <= 5 else 'NOT met'} (worst {worst:+.1f}%)")


if __name__ == "__main__":
    main()
