"""Build real agent loops for tests: the real litellm client against the scripted server, real tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta, Struct

from engine.events import Event, RunFinished, RunResult
from engine.model.client_settings import ModelSettings
from engine.model.failures import RetryPolicy
from engine.model.litellm_client import LiteLLMClient
from engine.model.openai_compat import OpenAICompatClient
from engine.model.providers import openai_compatible_endpoint
from engine.model.types import ModelClient
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment, TurnObserver
from engine.tools.base import ArgsTool, Tool, ToolContext, ToolResult
from engine.tools.registry import ToolRegistry
from tests.support.llm_server import LLMServer

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, retry_after_cap_s=0.5)


def client_for(
    server: LLMServer, *, timeout_s: float = 10.0, retry: RetryPolicy = FAST_RETRY, direct: bool = False
) -> ModelClient:
    """The real litellm client pointed at the scripted server, or (``direct``) hive's own OpenAI-compatible one."""
    settings = ModelSettings(
        model="openai/test-model", api_base=server.base_url, api_key="sk-test", timeout_s=timeout_s, retry=retry
    )
    if direct:
        endpoint = openai_compatible_endpoint(settings)
        assert endpoint is not None
        return OpenAICompatClient(settings, endpoint)
    return LiteLLMClient(settings)


def make_loop(
    server: LLMServer,
    tmp_path: Path,
    tools: Sequence[Tool] = (),
    *,
    toolset: Any = None,
    options: LoopOptions | None = None,
    observers: Sequence[TurnObserver] = (),
    timeout_s: float = 10.0,
    instructions: str = "You are a test agent.",
) -> AgentLoop:
    """An agent loop over ``tools`` working in ``tmp_path``."""
    return AgentLoop(
        client=client_for(server, timeout_s=timeout_s),
        toolset=toolset if toolset is not None else ToolRegistry(tools),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
        instructions=instructions,
        options=options,
        turn_observers=observers,
    )


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    """Every event of a run."""
    return [event async for event in events]


def run_events(loop: AgentLoop, prompt: str) -> tuple[list[Event], RunResult]:
    """Run ``prompt`` to the end; the events and the result."""
    events = asyncio.run(collect(loop.run_streaming(prompt)))
    final = events[-1]
    assert isinstance(final, RunFinished)
    return events, final.result


def kinds(events: Sequence[Event]) -> list[str]:
    """The ``kind`` of each event."""
    return [event.kind for event in events]


class EchoArgs(Struct):
    text: Annotated[str, Meta(description="What to echo.")]
    delay: Annotated[float, Meta(description="Seconds to wait first.")] = 0.0


class RecordingTool(ArgsTool[EchoArgs]):
    """A test tool that echoes its text, optionally after a delay, and records how many calls overlap."""

    description = "Echo the text back."
    args_model = EchoArgs

    def __init__(self, name: str = "echo", *, read_only: bool = True, log: list[str] | None = None) -> None:
        self.name = name  # type: ignore[misc]
        self.read_only = read_only  # type: ignore[misc]
        self.log = log if log is not None else []
        self.in_flight = 0
        self.max_in_flight = 0

    async def execute(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.log.append(f"start {self.name} {args.text}")
        try:
            if args.delay:
                await asyncio.sleep(args.delay)
            return ToolResult(f"echo: {args.text}")
        finally:
            self.in_flight -= 1
            self.log.append(f"end {self.name} {args.text}")


class FuncTool(ArgsTool[EchoArgs]):
    """A test tool whose behaviour is a plain function of the text."""

    description = "Run a test function."
    args_model = EchoArgs
    read_only = True

    def __init__(self, name: str, func: Callable[[str, ToolContext], ToolResult]) -> None:
        self.name = name  # type: ignore[misc]
        self.func = func

    async def execute(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        return self.func(args.text, ctx)


class Tracked:
    """An agent loop with a tracker on its lifecycle seam, as a session composes it."""

    def __init__(
        self,
        server: LLMServer,
        tmp_path: Path,
        tools: Sequence[Tool],
        *,
        observers: Sequence[Any] = (),
        include_tool_arguments: bool = False,
        options: Any = None,
    ) -> None:
        from engine.tracking import Tracker, TrackingOptions

        self.toolset = ToolRegistry(tools)
        self.tracker = Tracker(
            "openai/test-model",
            options=options or TrackingOptions(include_tool_arguments=include_tool_arguments),
            observers=observers,
        )
        self.loop = AgentLoop(
            client=client_for(server),
            toolset=self.toolset,
            environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive-data"),
            instructions="You are a test agent.",
            hooks=self.tracker,
        )

    def stream(self, prompt: str) -> AsyncIterator[Event]:
        """The tracked event stream of one run."""
        return self.loop.run_streaming(prompt)

    def run(self, prompt: str) -> tuple[list[Event], RunResult]:
        """Run to the end; the events and the result."""
        events = asyncio.run(collect(self.stream(prompt)))
        final = events[-1]
        assert isinstance(final, RunFinished)
        return events, final.result


class RecordingObserver:
    """Keeps what a tracking observer receives, and from which threads."""

    def __init__(self) -> None:
        import threading

        self.events: list[Any] = []
        self.reports: list[Any] = []
        self.threads: set[int] = set()
        self._lock = threading.Lock()
        self._ident = threading.get_ident

    def on_event(self, event: Any) -> None:
        with self._lock:
            self.events.append(event)
            self.threads.add(self._ident())

    def on_report(self, report: Any) -> None:
        with self._lock:
            self.reports.append(report)
