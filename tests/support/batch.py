"""For ``hive batch`` tests and benchmarks: small git repositories, a TASKS file, and a scripted model that
answers each task by the id in its prompt (so tasks running at once each get their own replies)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.llm_server import (
    LLMServer,
    Reply,
    Usage,
    call,
    hang,
    http_error,
    openai_error_body,
    text,
    tool_calls,
)

PRICED_MODEL = "gemini/gemini-2.5-flash"
"""A model litellm's price table knows, reached at the scripted server by its provider's own variables
(:func:`priced_env`): each task's cost is then a known, non-null number."""
TASK_USAGE = Usage(prompt_tokens=10_000, completion_tokens=1_000)


def priced_env(server: LLMServer, key: str) -> dict[str, str]:
    """The provider variables that send :data:`PRICED_MODEL` to ``server`` with ``key``."""
    return {"GEMINI_API_BASE": server.url + "/v1beta", "GEMINI_API_KEY": key}


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` (a test's own repository), its output."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def make_repo(path: Path, files: dict[str, str]) -> Path:
    """A git repository at ``path`` with ``files`` committed on ``main``."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    for name, content in files.items():
        (path / name).write_text(content)
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", "start")
    return path


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    """TASKS.jsonl with one line per task."""
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return path


class TaskModel:
    """Answers each chat request by the task named in its prompt (``TASK <id>:``).

    A task's first request gets a ``write_file`` of ``<id>.txt``; the request after the tool's result gets the
    answer ``Task <id> done.`` (``{"task": "<id>"}`` for an id starting with ``json``). A task whose id starts
    with ``fail`` is refused (400, not retried); one starting with ``hang`` gets no answer. Every request is
    counted by task in ``seen``.
    """

    def __init__(self, usage: Usage = TASK_USAGE) -> None:
        self.usage = usage
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages", [])
        task_id = _task_id(messages)
        with self.lock:
            self.seen[task_id] += 1
        if task_id.startswith("fail"):
            return http_error(400, openai_error_body(f"task {task_id} is refused", "invalid_request_error"))
        if task_id.startswith("hang"):
            return hang()
        if messages and messages[-1].get("role") == "tool":
            said = json.dumps({"task": task_id}) if task_id.startswith("json") else f"Task {task_id} done."
            return text(said, usage=self.usage)
        content = f"written by {task_id}\n"
        return tool_calls(call("write_file", {"path": f"{task_id}.txt", "content": content}), usage=self.usage)

    def serve(self, server: LLMServer, requests: int = 400) -> TaskModel:
        """Answer up to ``requests`` requests of ``server``."""
        server.script(*[self] * requests)
        return self


def _task_id(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        said = content if isinstance(content, str) else json.dumps(content)
        if "TASK " in said:
            return said.split("TASK ", 1)[1].split(":", 1)[0]
    return "?"


def task_prompt(task_id: str) -> str:
    """The prompt :class:`TaskModel` recognises."""
    return f"TASK {task_id}: write your file."
