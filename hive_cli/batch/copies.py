"""A task's working copy: a git worktree of a local repository, or a clone of a URL; and its changes afterwards.

Never the source checkout itself. Every git here runs with no hooks (``core.hooksPath``), no file-system
monitor and no pager (:func:`engine.git_environment.with_neutral_git`), so neither a local repository's
``.git`` nor a cloned one runs a program of its choosing in the batch's own process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from msgspec import Struct

from engine.git_environment import with_neutral_git
from engine.programs import trusted_program
from hive_cli.batch.tasks import BatchTask

GIT_OPTIONS = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "-c", "protocol.ext.allow=never")
AUTHOR = ("-c", "user.name=hive batch", "-c", "user.email=hive-batch@localhost")
GIT_TIMEOUT_S = 600


class CopyError(Exception):
    """The working copy could not be made or read; the message is one line for the task's result."""


class Changes(Struct, frozen=True, kw_only=True):
    """What a task changed: the files, and the patch file (None when nothing changed)."""

    files: tuple[str, ...]
    patch: Path | None


def branch_name(batch: str, task_id: str) -> str:
    """The task's branch: ``hive-batch/<batch>/<task id>`` (both checked names: no path or ref tricks)."""
    return f"hive-batch/{batch}/{task_id}"


def make_copy(task: BatchTask, copy: Path, branch: str) -> str:
    """Make ``copy`` for ``task`` on a new ``branch``; return the commit it starts from. ``CopyError`` if it cannot."""
    if task.is_url:
        _git(copy.parent, "clone", "--quiet", "--no-checkout", "--", task.repo, str(copy))
        start = _commit(copy, task.ref or "HEAD", remote=True)
        _git(copy, "checkout", "--quiet", "-B", branch, start)
        return start
    source = Path(task.repo)
    if not source.is_dir():
        raise CopyError(f"the repository {task.repo} is not a folder")
    _forget_copy(source, copy, branch)
    start = _commit(source, task.ref or "HEAD", remote=False)
    _git(source, "worktree", "add", "--quiet", "-b", branch, str(copy), start)
    return start


def commit_setup(copy: Path, start: str, task_id: str) -> str:
    """Commit what the setup command left (files git does not ignore) on the branch; the commit the task starts from.

    The task's patch then holds the agent's changes only.
    """
    if not _commit_all(copy, f"hive batch: setup of task {task_id}"):
        return start
    return _git(copy, "rev-parse", "HEAD").strip()


def collect_changes(copy: Path, start: str, task_id: str, patch: Path) -> Changes:
    """Commit everything the task left in ``copy`` on its branch and write the patch from ``start`` to ``patch``."""
    files = _commit_all(copy, f"hive batch: task {task_id}")
    if not files:
        return Changes(files=(), patch=None)
    diff = _git(copy, "diff", "--binary", "--no-ext-diff", "--no-textconv", start, "HEAD")
    patch.write_text(diff, encoding="utf-8")
    return Changes(files=files, patch=patch)


def _commit_all(copy: Path, message: str) -> tuple[str, ...]:
    """Commit every change in ``copy``; the files changed (none: nothing committed)."""
    _git(copy, "add", "--all")
    files = tuple(_git(copy, "diff", "--cached", "--name-only", "-z").split("\0")[:-1])
    if files:
        _git(copy, *AUTHOR, "commit", "--quiet", "--no-verify", "-m", message)
    return files


def _forget_copy(source: Path, copy: Path, branch: str) -> None:
    """Remove what an earlier, unfinished attempt of this task left: its worktree and its branch."""
    if copy.exists():
        _git_quiet(source, "worktree", "remove", "--force", str(copy))
        shutil.rmtree(copy, ignore_errors=True)
    _git_quiet(source, "worktree", "prune")
    _git_quiet(source, "branch", "--quiet", "-D", branch)


def _commit(repo: Path, ref: str, *, remote: bool) -> str:
    """The commit ``ref`` names in ``repo`` (for a clone, ``origin/<ref>`` too)."""
    names = [ref, f"origin/{ref}"] if remote else [ref]
    for name in names:
        found = _git_quiet(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}")
        if found:
            return found.strip()
    raise CopyError(f"no commit {ref} in the repository")


def _git(cwd: Path, *args: str) -> str:
    """Run git; its output, or ``CopyError`` with its last line of complaint."""
    done = _run_git(cwd, args)
    if done.returncode != 0:
        complaint = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise CopyError(f"git {args[0]} failed: {complaint}")
    return done.stdout


def _git_quiet(cwd: Path, *args: str) -> str | None:
    """Run git; its output, or None when it failed."""
    done = _run_git(cwd, args)
    return done.stdout if done.returncode == 0 else None


def _run_git(cwd: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    git = trusted_program("git", unsafe_dirs=(cwd,)).path
    if git is None:
        raise CopyError("git is not installed (or only where a command could have planted it)")
    env = with_neutral_git({**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    try:
        return subprocess.run(
            [git, *GIT_OPTIONS, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CopyError(f"git {args[0]} did not run: {error}") from None
