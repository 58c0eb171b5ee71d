"""The two example hooks in docs/hooks.md do what it says, with the JSON the page documents."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from engine.hooks.options import HookSpec
from engine.hooks.runner import HookOutcome, HookRunner
from engine.sandbox.base import NoSandbox

HOOKS_PAGE = Path(__file__).parents[3] / "docs" / "hooks.md"


def example(title: str) -> str:
    """The shell block that follows the line of docs/hooks.md starting with ``title``."""
    found = re.search(re.escape(title) + r".*?```sh\n(.*?)```", HOOKS_PAGE.read_text(), re.DOTALL)
    assert found is not None, f"no example {title!r} in docs/hooks.md"
    return found.group(1)


def run_example(project: Path, name: str, event: str, payload: dict[str, object]) -> HookOutcome:
    (project / name).write_text(example({"pre_tool": "Example: deny", "post_tool": "Example: a formatter"}[event]))
    hook = HookSpec(event=event, command=f"sh {name}")  # type: ignore[arg-type]
    return asyncio.run(HookRunner(NoSandbox(), project).run(hook, {"event": event, **payload}))


def test_the_migrations_example_denies_writes_under_migrations_only(tmp_path: Path) -> None:
    write = {"tool_name": "write_file", "arguments": {"path": "migrations/0042_users.sql", "content": "x"}}
    denied = run_example(tmp_path, "no-migrations.sh", "pre_tool", write)
    assert denied.denies and denied.reason.startswith("migrations/ is written by hand")
    other = {"tool_name": "write_file", "arguments": {"path": "src/app.py", "content": "x"}}
    assert run_example(tmp_path, "no-migrations.sh", "pre_tool", other) == HookOutcome(hook=denied.hook)


def test_the_formatter_example_formats_the_edited_file_and_leaves_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])  # ruff
    (tmp_path / "app.py").write_text("x=1\n")
    edit = {"tool_name": "edit_file", "arguments": {"path": "app.py"}, "result": {"output": "ok", "success": True}}

    outcome = run_example(tmp_path, "format.sh", "post_tool", edit)

    assert outcome.failure is None and outcome.note == "app.py was reformatted with ruff format"
    assert (tmp_path / "app.py").read_text() == "x = 1\n"
