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
the last 50 as the history grows. The server shares the machine and parses the growing history too,
so the client's own cost is its process's CPU time during the call (the server runs in another
process), set against a bare httpx loop posting the same growing bodies in the same run. Goals: the
client costs at most 1 ms per call more than the bare loop, and that overhead does not grow with the
history: from the first 50 calls to the last 50 it moves by at most 0.5 ms. Both loops' per-call time
grows with the body they encode and send (the bare loop's by 1.6 ms on a slow day here): shown, not
judged.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


from benchmarks.support import model_server
from benchmarks.support.noop_tool import Noop
from engine.context.compaction import CompactionLimit, Compactor
from engine.context.masking import ObservationMasking
from engine.context.policy import ContextPolicy
from engine.context.window import Windows
from engine.events import ToolCall, Usage
from engine.model import litellm_import
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.litellm_client import LiteLLMClient
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import openai_compatible_endpoint
from engine.model.types import ModelClient, ModelReply, ModelRequest
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
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


def agent_context(client: ModelClient) -> ContextPolicy:
    """The context policy an agent gets by default: masking, and compaction ahead of time in a known window."""
    limit = CompactionLimit(lambda: MODEL, 0.8, Windows(128_000))
    return ObservationMasking(10, Compactor(lambda: client), limit)


async def hive_run(client: Any, workdir: Path, context: ContextPolicy | None = None) -> float:
    loop = AgentLoop(
        client=client,
        toolset=ToolRegistry([Noop()]),
        environment=ToolEnvironment(cwd=workdir, data_dir=workdir),
        instructions="bench",
        options=LoopOptions(max_turns=ROUNDS + 5),
        context=context,
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


class Calls:
    """How long each model call took, in call order: on the clock, and in this process's CPU time."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []

    @contextmanager
    def one(self) -> Iterator[None]:
        """Time one call."""
        started, cpu = time.perf_counter(), time.process_time()
        yield
        self.cpu.append(time.process_time() - cpu)
        self.times.append(time.perf_counter() - started)


class Timed:
    """A client wrapper recording how long each model call took."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.model = inner.model
        self.calls = Calls()

    async def stream(self, request: ModelRequest) -> Any:
        with self.calls.one():
            async for item in self.inner.stream(request):
                yield item


def growth_ms(times: list[float]) -> float:
    """Median per-call time of the last 50 calls minus that of the first 50, in ms."""
    return (statistics.median(times[-50:]) - statistics.median(times[:50])) * 1000


async def bare_http_run(base_url: str) -> Calls:
    """The least a client over httpx must do: post the growing history, read the stream to its end."""
    import httpx2 as httpx

    tools = [{"type": "function", "function": {"name": "noop", "description": "Does nothing.", "parameters": {}}}]
    messages: list[dict[str, Any]] = [{"role": "system", "content": "bench"}, {"role": "user", "content": "go"}]
    calls = Calls()
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(ROUNDS + 1):
            body = {"model": "test-model", "messages": messages, "stream": True, "tools": tools}
            body["stream_options"] = {"include_usage": True}
            with calls.one():
                call_id = await _post_and_read(http, f"{base_url.rstrip('/')}/chat/completions", body)
            if call_id is None:
                break
            call = {"id": call_id, "type": "function", "function": {"name": "noop", "arguments": "{}"}}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": call_id, "content": "ok"})
    return calls


async def _post_and_read(http: Any, url: str, body: dict[str, Any]) -> str | None:
    """One streamed call: the id of the tool call it asked for, if any."""
    call_id = None
    headers = {"Authorization": "Bearer sk-bench", "Accept": "text/event-stream"}
    async with http.stream("POST", url, json=body, headers=headers) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices") or ():
                for fragment in choice.get("delta", {}).get("tool_calls") or ():
                    call_id = call_id or fragment.get("id")
    return call_id


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
    runs: dict[str, list[Any]] = {"hive": [], "own": [], "bare": [], "direct": [], "litellm_growth": []}
    runs |= {"own_context": [], "direct_calls": [], "http_calls": []}
    for _ in range(REPEATS):
        via_litellm = Timed(litellm_client(base_url))
        runs["hive"].append(await hive_run(via_litellm, workdir))
        runs["bare"].append(await bare_run(base_url))
        runs["own"].append(await hive_run(InstantClient(), workdir))
        instant = InstantClient()
        runs["own_context"].append(await hive_run(instant, workdir, agent_context(instant)))
        direct = Timed(direct_client(base_url))
        runs["direct"].append(await hive_run(direct, workdir))
        runs["direct_calls"].append(direct.calls)
        runs["http_calls"].append(await bare_http_run(base_url))
        runs["litellm_growth"].append(growth_ms(via_litellm.calls.times))
    return runs


def per_call(runs: list[Calls]) -> dict[str, float]:
    """Medians over the runs, in ms: per-call time and CPU time, and their growth over the history."""
    return {
        "time": statistics.median(statistics.median(c.times) for c in runs) * 1000,
        "cpu": statistics.median(statistics.median(c.cpu) for c in runs) * 1000,
        "growth": statistics.median(growth_ms(c.times) for c in runs),
        "cpu_growth": statistics.median(growth_ms(c.cpu) for c in runs),
    }


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
    context_ms = statistics.median(runs["own_context"]) / ROUNDS * 1000
    print(f"    with the agent's context policy (masking, compaction limit): {context_ms:.3f} ms")
    verdict = "met" if max(own_ms, context_ms, difference_ms) <= 2 else "NOT met"
    print(f"  hive - bare litellm per round (paired):               {difference_ms:+.2f} ms  (goal <= 2 ms: {verdict})")
    print(
        f"  hive AgentLoop, own client {direct_median:7.3f} s   ({direct_median / (ROUNDS + 1) * 1000:.2f} ms per model call)"
    )
    saved_ms = (hive_median - direct_median) / (ROUNDS + 1) * 1000
    print(f"  own client saves per model call against litellm's:   {saved_ms:+.2f} ms")
    print_client(
        per_call(runs["direct_calls"]), per_call(runs["http_calls"]), statistics.median(runs["litellm_growth"])
    )


def print_client(own: dict[str, float], http: dict[str, float], litellm_growth: float) -> None:
    """The own client's per-call figures against the bare httpx loop's."""
    print("  own client per model call, median (CPU: this process only, the server left out):")
    print(f"    own client       {own['time']:5.2f} ms   CPU {own['cpu']:5.2f} ms")
    print(f"    bare httpx loop  {http['time']:5.2f} ms   CPU {http['cpu']:5.2f} ms")
    overhead = own["cpu"] - http["cpu"]
    verdict = "met" if overhead <= 1 else "NOT met"
    print(f"    own client - bare httpx, CPU per call: {overhead:+.2f} ms (goal <= 1 ms: {verdict})")
    print("  per-call time, last 50 calls - first 50:")
    print(f"    own client       CPU {own['cpu_growth']:+.2f} ms, time {own['growth']:+.2f} ms")
    print(f"    bare httpx loop  CPU {http['cpu_growth']:+.2f} ms, time {http['growth']:+.2f} ms  (the same bodies)")
    print(f"    litellm              time {litellm_growth:+.2f} ms")
    growth = own["cpu_growth"] - http["cpu_growth"]
    verdict = "met" if growth <= 0.5 else "NOT met"
    print(
        f"    own client's overhead (own - bare httpx), CPU: {growth:+.2f} ms (goal: does not grow, <= +0.5 ms: {verdict})"
    )


if __name__ == "__main__":
    main()
