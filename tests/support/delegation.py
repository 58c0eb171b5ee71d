"""Sessions over the scripted server, and a router that answers each agent from its own script."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engine.config.loader import Overrides, SessionConfig, load_config
from engine.events import Event, RunFinished, RunResult
from engine.policy.gate import Approver
from engine.session import Session
from engine.session_open import open_session
from tests.support.agents import collect
from tests.support.llm_server import Reply


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def config_in(server_url: str, cwd: Path, settings: str = "") -> SessionConfig:
    """The configuration of ``cwd``, with ``settings`` as its project settings file."""
    if settings:
        write(cwd / ".ironhive" / "settings.yaml", settings)
        from tests.support.trust import trust

        trust(cwd)
    overrides = Overrides(model="openai/test-model", api_base=server_url, api_key="sk-test")
    return load_config(cwd, overrides, persist=False)


def open_in(config: SessionConfig, approver: Approver | None = None) -> Session:
    return asyncio.run(open_session(config, approver=approver))


def run(session: Session, prompt: str) -> tuple[list[Event], RunResult]:
    events = asyncio.run(collect(session.run_streaming(prompt)))
    final = events[-1]
    assert isinstance(final, RunFinished)
    return events, final.result


def who(body: dict[str, Any]) -> str:
    """Which agent sent a request: ``root`` (hive's own prompt), else the task of the delegated run."""
    messages = body["messages"]
    system = str(messages[0].get("content", ""))
    if system.startswith("You are hive"):
        return "root"
    return str(messages[1].get("content", ""))


class Router:
    """Scripted replies per agent (the root, or a delegated run by its task), whatever order requests come in."""

    def __init__(self, scripts: dict[str, Sequence[Reply]]) -> None:
        self.queues = {key: deque(replies) for key, replies in scripts.items()}
        self.order: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        key = who(body)
        self.order.append(key)
        return self.queues[key].popleft()

    def replies(self) -> list[Callable[[dict[str, Any]], Reply]]:
        """One scripted entry per reply the router holds."""
        return [self] * sum(len(queue) for queue in self.queues.values())


def offered(body: dict[str, Any]) -> list[str]:
    """The tool names a request offered."""
    return [tool["function"]["name"] for tool in body.get("tools") or ()]
