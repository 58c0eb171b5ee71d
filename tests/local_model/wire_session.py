"""The tasks `make test-local-model` gives the real `hive` against llama-cpp-python, and what the wire showed.

One `WireSession` is one client (hive's own OpenAI-compatible client, or litellm) with its own HIVE_HOME, so
what hive learns about the server (kept in the user cache) carries from one task to the next, as it would
for a person. Every request goes through a `RecordingProxy`; `summary()` is the short account the target
prints at the end.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.local_model.llama_server import MODEL_ALIAS, WINDOW
from tests.local_model.recording_proxy import Exchange, RecordingProxy
from tests.support.cli import run_hive

MODEL = f"openai/{MODEL_ALIAS}"
MAX_TURNS = 3
RUN_TIMEOUT_S = 900


@dataclass(frozen=True)
class Task:
    """One small task, with the files its folder starts with."""

    name: str
    prompt: str
    files: dict[str, str] = field(default_factory=dict)


TASKS = (
    Task("write", "Create a file named hello.txt that contains the word hello."),
    Task("read", "Read the file notes.txt and tell me the number written in it.", {"notes.txt": "The number is 42.\n"}),
    Task("run", "Run the shell command `echo local-model-check` and tell me what it printed."),
)


@dataclass(frozen=True)
class TaskRun:
    """One `hive run` and the exchanges it caused."""

    task: Task
    returncode: int
    stdout: str
    stderr: str
    exchanges: list[Exchange]

    @property
    def report(self) -> dict[str, Any]:
        """hive's `-o json` object (empty when it printed none)."""
        try:
            parsed = json.loads(self.stdout)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}

    @property
    def error(self) -> str:
        """The error hive gave (its JSON `error`, else its last stderr line)."""
        error = self.report.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error)
        if error:
            return str(error)
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if self.returncode and lines else ""

    @property
    def chats(self) -> list[Exchange]:
        """The chat-completions exchanges of this run."""
        return [exchange for exchange in self.exchanges if exchange.is_chat]


@dataclass
class WireSession:
    """The runs of one client against the recording proxy, and `hive models` afterwards."""

    client: str
    runs: list[TaskRun] = field(default_factory=list)
    models_output: subprocess.CompletedProcess[str] | None = None

    learned: dict[str, str] = field(default_factory=dict)
    """The user-cache files that name the model after the runs (what hive learned), name -> text."""

    def __repr__(self) -> str:
        return f"WireSession({self.client!r}, {len(self.runs)} runs, {len(self.exchanges)} exchanges)"

    @property
    def chats(self) -> list[Exchange]:
        """Every chat-completions exchange, in order, over all the runs."""
        return [exchange for run in self.runs for exchange in run.chats]

    @property
    def exchanges(self) -> list[Exchange]:
        """Every exchange (chat and look-ups), in order, over all the runs."""
        return [exchange for run in self.runs for exchange in run.exchanges]


def client_environment(client: str, home: Path) -> dict[str, str]:
    """The environment of one client's runs: its own HIVE_HOME, no local-server probing, the client chosen."""
    environment = {"HIVE_HOME": str(home), "HIVE_LOCAL_SERVERS": "", "HIVE_PROVIDER_CLIENT": "auto"}
    if client == "litellm":
        environment["HIVE_PROVIDER_CLIENT"] = "litellm"
    return environment


def run_tasks(client: str, proxy: RecordingProxy, folder: Path) -> WireSession:
    """Run every task with one client through `proxy`, then ask `hive models` what it learned."""
    session = WireSession(client)
    home = folder / "hive_home"
    environment = client_environment(client, home)
    for task in TASKS:
        session.runs.append(_run_task(task, proxy, folder / task.name, environment))
    models_environment = {**environment, "HIVE_MODEL": MODEL, "HIVE_API_BASE": proxy.base_url}
    session.models_output = run_hive("models", timeout=120, **models_environment)
    session.learned = _cache_files_naming_the_model(home / "cache")
    return session


def _cache_files_naming_the_model(cache: Path) -> dict[str, str]:
    files = sorted(path for path in cache.rglob("*") if path.is_file()) if cache.is_dir() else []
    texts = {str(path.relative_to(cache)): path.read_text(errors="replace") for path in files}
    return {name: text for name, text in texts.items() if MODEL_ALIAS in text}


def _run_task(task: Task, proxy: RecordingProxy, workdir: Path, environment: dict[str, str]) -> TaskRun:
    workdir.mkdir(parents=True)
    for name, text in task.files.items():
        (workdir / name).write_text(text)
    before = len(proxy.exchanges)
    arguments = ["--model", MODEL, "--api-base", proxy.base_url, "--api-key", "sk-local", "-C", str(workdir)]
    done = run_hive(
        "run", task.prompt, "-o", "json", "--yes", "--max-turns", str(MAX_TURNS), *arguments,
        timeout=RUN_TIMEOUT_S, **environment,
    )  # fmt: skip
    return TaskRun(task, done.returncode, done.stdout, done.stderr, list(proxy.exchanges[before:]))


# ---------------------------------------------------------------------------------------------------------------
# Reading the wire


def is_overflow_answer(exchange: Exchange) -> bool:
    """The server said the request does not fit its window (llama-cpp-python: 400 context_length_exceeded)."""
    body = exchange.body.decode("utf-8", "replace").lower()
    return exchange.status == 400 and ("context_length_exceeded" in body or "context length" in body)


def same_messages(first: Exchange, second: Exchange) -> bool:
    """The two requests carry the same conversation (a retry of one another, streamed or not)."""
    return first.payload.get("messages") == second.payload.get("messages")


def status_label(exchange: Exchange) -> str:
    """The status as the summary counts it: `200`, `200-empty-stream`, `500`, `cut`..."""
    if exchange.status == 0:
        return "unreachable"
    if exchange.empty_stream:
        return f"{exchange.status}-empty-stream"
    return f"{exchange.status}-cut" if exchange.cut else str(exchange.status)


def summary(session: WireSession) -> str:
    """A short account of one client's runs: requests, statuses, what hive sent and what it learned."""
    chats = session.chats
    statuses = Counter(status_label(exchange) for exchange in chats)
    lookups = Counter(f"{e.request.method} {e.request.path}" for e in session.exchanges if not e.is_chat)
    with_tools = [exchange for exchange in chats if exchange.tool_names]
    lines = [
        f"client {session.client}: {len(chats)} chat requests, statuses "
        + (", ".join(f"{label} x{count}" for label, count in sorted(statuses.items())) or "none"),
        f"  other requests: {dict(lookups) or 'none'}",
        f"  requests with tools: {len(with_tools)} (tools per request: "
        f"{sorted({len(e.tool_names) for e in with_tools})}), with tool_choice=auto: "
        f"{sum(1 for e in with_tools if e.payload.get('tool_choice') == 'auto')}, streamed: "
        f"{sum(1 for e in chats if e.streamed)}, unstreamed: {sum(1 for e in chats if not e.streamed)}",
        f"  largest request: {max((len(e.request.body) for e in chats), default=0)} bytes; window {WINDOW} tokens",
    ]
    lines += [_run_line(run) for run in session.runs]
    lines += _refusal_lines(chats)
    lines.append(_models_line(session))
    lines += [f"  learned, in the user cache {name}: {_shorten(text, 400)}" for name, text in session.learned.items()]
    if not session.learned:
        lines.append("  learned, in the user cache: nothing that names the model")
    return "\n".join(lines)


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _run_line(run: TaskRun) -> str:
    report = run.report
    tools_run = [call.get("name") or call.get("tool") for call in report.get("tool_calls") or ()]
    answered_calls = [name for exchange in run.chats for name in exchange.reply_tool_calls()]
    usage = (report.get("usage") or {}).get("total") or {}
    served = sum(int((e.answer().get("usage") or {}).get("prompt_tokens") or 0) for e in run.chats)
    line = (
        f"  task {run.task.name}: exit {run.returncode}, {len(run.chats)} requests, server answered tool calls "
        f"{answered_calls or 'none'}, hive ran {tools_run or 'no tools'}; prompt tokens hive counted "
        f"{usage.get('prompt_tokens', '?')}{' (estimated)' if usage.get('estimated') else ''}, "
        f"server reported {served or 'none'}"
    )
    return line + (f"\n    error: {run.error}" if run.error else "")


def _refusal_lines(chats: list[Exchange]) -> list[str]:
    refused = [exchange for exchange in chats if exchange.failed or exchange.empty_stream]
    return [
        f"  refused: {status_label(e)} streamed={e.streamed} tools={len(e.tool_names)}: {e.error_text() or '(no body)'}"
        for e in refused[:6]
    ]


def _models_line(session: WireSession) -> str:
    done = session.models_output
    if done is None:
        return "  hive models: not run"
    text = (done.stdout.strip() or done.stderr.strip()).replace("\n", " | ")
    return f"  hive models: exit {done.returncode}: {text[:400]}"
