"""A batch of small tasks for `hive batch` tests, on the local pool and on Ray alike: repositories, TASKS.jsonl, model.

Each task asks the model to write ``<id>.txt`` in its own small git repository. The scripted model server
answers each task's requests by the task id in its prompt (``TaskRouter``), whatever order the tasks' requests
arrive in, so tasks can run in parallel: the first request of a task gets a ``write_file`` call, the next one
the final answer ``done <id>``. The router counts the requests per task (a task run twice shows as four) and
can hold a task's first request until the test lets it go (``hold``), to act while that task is running.

    tasks = make_batch(tmp_path, count=8)
    router = TaskRouter(tasks).script(llm_server)
    write_tasks_file(tmp_path / "TASKS.jsonl", tasks)
    ...                                     # run the batch
    for task in tasks: task.assert_done(copy_of_the_task)
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.llm_server import HeldReply, LLMServer, Reply, Usage, call, text, tool_calls

_MARK = re.compile(r"\[batch-task:([A-Za-z0-9_.-]+)\]")
REQUESTS_PER_TASK = 2
"""A task that runs to the end asks the model twice: once for the write, once for the answer."""


@dataclass(frozen=True)
class ScriptedTask:
    """One task of the batch and what it must leave behind."""

    id: str
    repo: Path
    """The source repository (a missing folder for a task meant to fail before hive runs)."""

    @property
    def prompt(self) -> str:
        return f"[batch-task:{self.id}] write {self.file_name}"

    @property
    def file_name(self) -> str:
        return f"{self.id}.txt"

    @property
    def content(self) -> str:
        return f"written by task {self.id}\n"

    @property
    def answer(self) -> str:
        return f"done {self.id}"

    def line(self, **extra: Any) -> dict[str, Any]:
        """The task's TASKS.jsonl object (id, repo, prompt), plus ``extra`` fields."""
        return {"id": self.id, "repo": str(self.repo), "prompt": self.prompt, **extra}

    def assert_done(self, copy: Path) -> None:
        """The task's file is in its copy with the scripted content, and the source repository is untouched."""
        assert (copy / self.file_name).read_text() == self.content
        assert not (self.repo / self.file_name).exists(), f"task {self.id} wrote into its source repository"


def make_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A git repository at ``path`` with one commit of ``files`` (a README by default)."""
    path.mkdir(parents=True)
    for name, content in (files or {"README.md": f"# {path.name}\n"}).items():
        (path / name).write_text(content)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "--quiet", "--initial-branch=main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "--quiet", "-m", "start"], check=True)
    return path


def make_batch(root: Path, count: int = 8, *, repos: int = 4, missing: Sequence[str] = ()) -> list[ScriptedTask]:
    """``count`` tasks t1..tN over ``repos`` repositories under ``root`` (tasks share them round-robin).

    Ids in ``missing`` name a repository that does not exist: those tasks fail before hive runs.
    """
    sources = [make_repo(root / "repos" / f"repo{n}") for n in range(1, repos + 1)]
    ids = [f"t{n}" for n in range(1, count + 1)]
    return [
        ScriptedTask(task_id, root / "repos" / "missing" if task_id in missing else sources[n % repos])
        for n, task_id in enumerate(ids)
    ]


def write_tasks_file(path: Path, tasks: Sequence[ScriptedTask], **extra: Any) -> Path:
    """TASKS.jsonl with one line per task (``extra`` fields added to every line)."""
    path.write_text("".join(json.dumps(task.line(**extra)) + "\n" for task in tasks))
    return path


class TaskRouter:
    """The scripted model's replies, chosen by the task id in the request's prompt."""

    def __init__(self, tasks: Sequence[ScriptedTask], *, usage: Usage | None = None) -> None:
        self.tasks = {task.id: task for task in tasks}
        self.usage = usage or Usage(prompt_tokens=100, completion_tokens=20)
        self.requests: Counter[str] = Counter()
        """Chat requests seen per task id."""
        self.events: list[tuple[str, str]] = []
        """("request", id) for each request and ("released", id) for each held one let go, in order."""
        self._held: dict[str, HeldReply] = {}
        self._lock = threading.Lock()

    def script(self, server: LLMServer, runs: int = 1) -> TaskRouter:
        """Queue enough replies on ``server`` for every task to run ``runs`` times."""
        server.script(*[self] * (REQUESTS_PER_TASK * len(self.tasks) * runs))
        return self

    def hold(self, task_id: str) -> HeldReply:
        """Hold the task's first request at the server until ``release()`` (``wait_arrived()`` waits for it)."""
        held = self._held[task_id] = HeldReply(self._first_reply(self.tasks[task_id]))
        return held

    def release(self, task_id: str) -> None:
        """Let the held request of ``task_id`` go, noting the moment in ``events``."""
        with self._lock:
            self.events.append(("released", task_id))
        self._held[task_id].release()

    def __call__(self, body: dict[str, Any]) -> Reply:
        task = self.tasks[self._task_id(body)]
        with self._lock:
            self.requests[task.id] += 1
            self.events.append(("request", task.id))
        if _has_tool_result(body):
            return text(task.answer, usage=self.usage)
        held = self._held.get(task.id)
        return held(body) if held is not None else self._first_reply(task)

    def _first_reply(self, task: ScriptedTask) -> Reply:
        write = call("write_file", {"path": task.file_name, "content": task.content}, id=f"w-{task.id}")
        return tool_calls(write, usage=self.usage)

    @staticmethod
    def _task_id(body: dict[str, Any]) -> str:
        for message in body.get("messages", []):
            if message.get("role") == "user" and (found := _MARK.search(_text_of(message.get("content")))):
                return found.group(1)
        raise AssertionError("a chat request names no batch task")


def _has_tool_result(body: dict[str, Any]) -> bool:
    return any(message.get("role") == "tool" for message in body.get("messages", []))


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")
