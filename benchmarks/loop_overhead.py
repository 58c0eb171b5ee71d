"""hive's own time per tool round, excluding the model server.

200 tool rounds (a zero-cost tool) against a scripted server in another process, driven two ways in
the same run, alternately:
  * hive: the real AgentLoop (litellm client, stream assembly, tool round, events, history);
  * bare: the least an agent loop must do with litellm (stream, collect the call, append messages).
Two figures per round: the loop's own machinery (the same AgentLoop driven by a model that answers
from memory: loop, tool round, events, history; no server, no litellm), and the paired difference
(hive - bare) / rounds, which adds hive's litellm adapter (stream assembly, retries, usage) but is
noisier. Goal: at most 2 ms per round.

The same loop also runs on hive's own OpenAI-compatible client (the default for this model): its
time per model call against litellm's, and how its per-call time moves from the first 50 calls to
the last 50 as the history grows. Goal: the direct client's per-call time does not grow with the
history (at most +1 ms from the first 50 calls to the last 50).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


from benchmarks.support import model_server
from benchmarks.support.noop_tool import Noop
from engine.events import ToolCall, Usage
from engine.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.model import litellm_import
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.litellm_client import LiteLLMClient
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import openai_compatible_endpoint
from engine.model.types import ModelClient, ModelReply, ModelRequest
from engine.tools.registry import ToolRegistry

ROUNDS = 200
REPEATS = 5
MODEL = "openai/test-model"


class InstantClient:
    """A model that answers at once from memory: what is left is the loop's own machinery."""

    model = MODEL

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: Any) -> Any:
        self.calls += 1
        if self.calls > ROUNDS:
            yield ModelReply(text="All rounds done.", usage=Usage(prompt_tokens=100, completion_tokens=10, calls=1))
            return
        call = ToolCall(id=f"call_{self.calls}", name="noop", arguments={}, raw_arguments="{}")
        yield ModelReply(text="", tool_calls=(call,), usage=Usage(prompt_tokens=100, completion_tokens=10, calls=1))


async def hive_run(client: Any, workdir: Path) -> float:
    loop = AgentLoop(
        client=client,
        toolset=ToolRegistry([Noop()]),
        environment=ToolEnvironment(cwd=workdir, data_dir=workdir),
        instructions="bench",
        options=LoopOptions(max_turns=ROUNDS + 5),
    )
    started = time.perf_counter()
    result = await loop.run("go")
    elapsed = time.perf_counter() - started
    assert result.exit_reason == "completed" and len(result.tool_outcomes) == ROUNDS, result
    return elapsed


def litellm_client(base_url: str) -> LiteLLMClient:
    return LiteLLMClient(ModelSettings(model=MODEL, api_base=base_url, api_key="sk-bench", retry=RetryPolicy()))


def direct_client(base_url: str) -> OpenAICompatClient:
    settings = ModelSettings(model=MODEL, api_base=base_url, api_key="sk-bench", retry=RetryPolicy())
    endpoint = openai_compatible_endpoint(settings)
    assert endpoint is not None
    return OpenAICompatClient(settings, endpoint)


class Timed:
    """A client wrapper recording how long each model call took, in call order."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.model = inner.model
        self.times: list[float] = []

    async def stream(self, request: ModelRequest) -> Any:
        started = time.perf_counter()
        async for item in self.inner.stream(request):
            yield item
        self.times.append(time.perf_counter() - started)


def growth_ms(times: list[float]) -> float:
    """Median per-call time of the last 50 calls minus that of the first 50, in ms."""
    return (statistics.median(times[-50:]) - statistics.median(times[:50])) * 1000


async def bare_run(base_url: str) -> float:
    litellm = litellm_import.load()
    tools = [{"type": "function", "function": {"name": "noop", "description": "Does nothing.", "parameters": {}}}]
    messages: list[dict[str, Any]] = [{"role": "system", "content": "bench"}, {"role": "user", "content": "go"}]
    started = time.perf_counter()
    for _ in range(ROUNDS + 1):
        response = await litellm.acompletion(
            model=MODEL,
            api_base=base_url,
            api_key="sk-bench",
            messages=messages,
            tools=tools,
            stream=True,
            stream_options={"include_usage": True},
            max_retries=0,
        )
        call_id, arguments = None, ""
        async for chunk in response:
            for choice in chunk.choices:
                for fragment in choice.delta.tool_calls or ():
                    call_id = call_id or fragment.id
                    arguments += fragment.function.arguments or ""
        if call_id is None:
            break
        call = {"id": call_id, "type": "function", "function": {"name": "noop", "arguments": arguments or "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "ok"})
    return time.perf_counter() - started


async def measure(base_url: str, workdir: Path) -> dict[str, list[Any]]:
    await bare_run(base_url)  # warm-up: imports, connection pool
    runs: dict[str, list[Any]] = {"hive": [], "own": [], "bare": [], "direct": [], "growth": [], "litellm_growth": []}
    for _ in range(REPEATS):
        via_litellm = Timed(litellm_client(base_url))
        runs["hive"].append(await hive_run(via_litellm, workdir))
        runs["bare"].append(await bare_run(base_url))
        runs["own"].append(await hive_run(InstantClient(), workdir))
        direct = Timed(direct_client(base_url))
        runs["direct"].append(await hive_run(direct, workdir))
        runs["growth"].append(growth_ms(direct.times))
        runs["litellm_growth"].append(growth_ms(via_litellm.times))
    return runs


def main() -> None:
    process, base_url = model_server.start("noop", ROUNDS)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runs = asyncio.run(measure(base_url, Path(tmp)))
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)
    hive_median, bare_median = statistics.median(runs["hive"]), statistics.median(runs["bare"])
    direct_median = statistics.median(runs["direct"])
    own_ms = statistics.median(runs["own"]) / ROUNDS * 1000  # the instant model makes 201 calls too
    difference_ms = (hive_median - bare_median) / ROUNDS * 1000
    print(f"loop overhead: {ROUNDS} tool rounds, median of {REPEATS} alternating runs")
    print(f"  hive AgentLoop      {hive_median:7.3f} s   ({hive_median / (ROUNDS + 1) * 1000:.2f} ms per model call)")
    print(f"  bare litellm loop   {bare_median:7.3f} s   ({bare_median / (ROUNDS + 1) * 1000:.2f} ms per model call)")
    print(f"  loop machinery per round (model answering from memory): {own_ms:.3f} ms")
    verdict = "met" if max(own_ms, difference_ms) <= 2 else "NOT met"
    print(f"  hive - bare litellm per round (paired):               {difference_ms:+.2f} ms  (goal <= 2 ms: {verdict})")
    print(
        f"  hive AgentLoop, own client {direct_median:7.3f} s   ({direct_median / (ROUNDS + 1) * 1000:.2f} ms per model call)"
    )
    saved_ms = (hive_median - direct_median) / (ROUNDS + 1) * 1000
    print(f"  own client saves per model call against litellm's:   {saved_ms:+.2f} ms")
    growth, litellm_growth = statistics.median(runs["growth"]), statistics.median(runs["litellm_growth"])
    verdict = "met" if growth <= 1 else "NOT met"
    print(f"  per-call time, last 50 calls - first 50: own client {growth:+.2f} ms (goal <= +1 ms: {verdict}),")
    print(f"                                            litellm    {litellm_growth:+.2f} ms")


if __name__ == "__main__":
    main()
