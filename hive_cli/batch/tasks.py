"""TASKS.jsonl: one task a line, read whole and checked before anything starts.

A line is a JSON object. ``repo`` and ``prompt`` are required; the rest is optional and falls back to the
batch's defaults (``hive batch``'s options). ``output_schema`` is a JSON Schema given inline (an object),
so that a task carries everything it needs to another machine; ``setup`` is one shell command run in the
task's working copy before hive starts. ``id`` names the task in the results, its folder and its branch:
letters, digits, ``_`` and ``-`` (at most 64, starting with a letter or digit); without one a task is
``line-N`` (N its line number). Blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from engine.errors import ConfigError

TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""A task id: safe as a file name, a folder name and a part of a git branch name."""
REF = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/@^~+-]{0,199}")
"""A git ref or commit: never starting with ``-`` (it would be an option), no spaces or control characters."""
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
SCP_LIKE = re.compile(r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:")


class BatchTask(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One line of TASKS.jsonl, checked."""

    id: str
    repo: str
    """A local git repository (a path, relative to the TASKS file) or a git URL."""
    prompt: Annotated[str, Meta(min_length=1)]
    ref: str | None = None
    """The branch, tag or commit to work from; default: the repository's HEAD (a URL's default branch)."""
    model: str | None = None
    mode: Literal["plan", "work"] | None = None
    max_turns: Annotated[int, Meta(ge=1)] | None = None
    max_cost_usd: Annotated[float, Meta(gt=0)] | None = None
    output_schema: dict[str, Any] | None = None
    """A JSON Schema (inline) the final answer must be valid against."""
    setup: str | None = None
    """A shell command run in the working copy (in hive's sandbox) before the task starts."""

    @property
    def is_url(self) -> bool:
        """Whether ``repo`` is a git URL (cloned) rather than a local repository (a worktree of it)."""
        return is_git_url(self.repo)


def is_git_url(repo: str) -> bool:
    """``scheme://...`` or git's ``user@host:path``."""
    return bool(URL_SCHEME.match(repo) or SCP_LIKE.match(repo))


class _Line(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A line as written: the same fields as ``BatchTask`` with ``id`` optional."""

    repo: Annotated[str, Meta(min_length=1)]
    prompt: Annotated[str, Meta(min_length=1)]
    id: str | None = None
    ref: str | None = None
    model: Annotated[str, Meta(min_length=1)] | None = None
    mode: Literal["plan", "work"] | None = None
    max_turns: Annotated[int, Meta(ge=1)] | None = None
    max_cost_usd: Annotated[float, Meta(gt=0)] | None = None
    output_schema: dict[str, Any] | None = None
    setup: Annotated[str, Meta(min_length=1)] | None = None


def read_tasks(path: Path) -> list[BatchTask]:
    """The tasks of ``path`` in file order; ``ConfigError`` (exit 2) naming the file and line for the first bad one."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it ({error.strerror or error})") from None
    tasks: list[BatchTask] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        task = _task(line, number, path)
        if task.id in seen:
            raise ConfigError(f"{path}, line {number}: the id {task.id!r} is already used on line {seen[task.id]}")
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise ConfigError(f"{path}: no tasks (one JSON object a line)")
    return tasks


def _task(line: str, number: int, path: Path) -> BatchTask:
    where = f"{path}, line {number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: not a JSON object")
    try:
        given = msgspec.convert(data, _Line)
    except msgspec.ValidationError as error:
        raise ConfigError(f"{where}: {error}") from None
    task_id = f"line-{number}" if given.id is None else given.id
    if not TASK_ID.fullmatch(task_id):
        raise ConfigError(f"{where}: the id {task_id!r} is not letters, digits, _ and - (1 to 64, no leading _ or -)")
    if given.ref is not None and (not REF.fullmatch(given.ref) or ".." in given.ref):
        raise ConfigError(f"{where}: the ref {given.ref!r} is not a branch, tag or commit name")
    if given.repo.startswith("-") or any(ord(c) < 32 for c in given.repo):
        raise ConfigError(f"{where}: the repo {given.repo!r} is not a path or a git URL")
    repo = given.repo if is_git_url(given.repo) else str((path.parent / given.repo).resolve())
    fields = msgspec.structs.asdict(given) | {"id": task_id, "repo": repo}
    return BatchTask(**fields)
