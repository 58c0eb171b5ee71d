"""Every git a command of hive's starts runs without the programs a repository names by a fixed key, in the real
sandbox and without it; what steers git from the work tree is put back after a sandboxed command changes it.

The programs would write a canary inside the project, which a command may write: only the neutral configuration
hive gives git keeps them from running, not the sandbox's wall.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from engine.tools.base import ToolContext, ToolResult
from engine.tools.shell import ExecuteCommandTool
from tests.engine.sandbox.helpers import Runner

PROGRAM = '#!/bin/sh\necho "$0 ran" >> "$(git rev-parse --show-toplevel 2>/dev/null || pwd)/canary"\n'


def _plant(project: Path, key: str, name: str) -> Path:
    script = project / name
    script.write_text(PROGRAM)
    script.chmod(0o755)
    subprocess.run(["git", "-C", str(project), "config", key, str(script)], check=True)
    return project / "canary"


def _unconfined(project: Path, data: Path, command: str) -> ToolResult:
    ctx = ToolContext(cwd=project, data_dir=data)
    return asyncio.run(ExecuteCommandTool(kill_grace=0.3).run({"command": command}, ctx))


def test_core_fsmonitor_never_runs_for_git_status_in_the_sandbox_or_out(run: Runner, project: Path) -> None:
    canary = _plant(project, "core.fsmonitor", "watch.sh")
    (project / "README.md").write_text("changed\n")
    boxed = run("git status --short")
    assert boxed.success is True and "M README.md" in boxed.output
    plain = _unconfined(project, run.data_dir, "git status --short && git diff --stat")
    assert plain.success is True and "README.md" in plain.output
    assert not canary.exists()


def test_the_repositorys_editor_never_runs_and_commit_still_works(run: Runner, project: Path) -> None:
    canary = _plant(project, "core.editor", "editor.sh")
    _plant(project, "sequence.editor", "sequence.sh")
    (project / "README.md").write_text("changed\n")
    no_message = run("git -c user.name=T -c user.email=t@example.invalid commit -a")
    assert no_message.success is False and "empty commit message" in no_message.output
    committed = run(
        "git add -A README.md && git -c user.name=T -c user.email=t@example.invalid commit -qm two && git log --oneline"
    )
    assert committed.success is True and "two" in committed.output
    assert not canary.exists()


def test_a_pager_of_the_repository_never_runs_even_on_a_terminal(run: Runner, project: Path) -> None:
    canary = _plant(project, "core.pager", "pager.sh")
    _plant(project, "pager.log", "pager.sh")
    result = _unconfined(project, run.data_dir, "script -qec 'git log -1 --oneline' /dev/null")  # a terminal for git
    assert result.success is True and "first" in result.output
    assert not canary.exists()


def test_a_file_the_config_includes_is_put_back_after_a_sandboxed_command(run: Runner, project: Path) -> None:
    team = project / "team.gitconfig"
    team.write_text("[core]\n\tautocrlf = input\n")
    subprocess.run(["git", "-C", str(project), "config", "include.path", "../team.gitconfig"], check=True)
    result = run("printf '[core]\\n\\tfsmonitor = ./x.sh\\n' >> team.gitconfig && echo x > .git/extra.cfg")
    assert team.read_text() == "[core]\n\tautocrlf = input\n"
    assert "the command changed team.gitconfig, which decides what git runs by itself" in result.output
