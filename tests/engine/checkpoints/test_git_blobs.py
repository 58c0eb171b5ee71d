"""Checkpoints in a git repository: clean tracked files are named by their blob, not copied, and undo stays exact."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.checkpoints.undo import UndoRefused, pending, revert
from tests.engine.checkpoints.helpers import Workspace, picture, workspace

FILES = 2_000
FILE_BYTES = 2_000


def content(number: int) -> bytes:
    """The bytes of file ``number``: :data:`FILE_BYTES` of them, different for every file (nothing is kept once for two)."""
    return (f"{number:08d}\n" * (FILE_BYTES // 9 + 1)).encode()[:FILE_BYTES]


def git(root: Path, *arguments: str) -> str:
    """Run git in ``root`` as a person would (their identity given here), returning its output."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    done = subprocess.run(["git", *arguments], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def repository(tmp_path: Path) -> Workspace:
    """A workspace that is a git repository of :data:`FILES` committed files, an ignored folder and untracked files."""
    ws = workspace(tmp_path)
    for number in range(FILES):
        folder = ws.root / "src" / f"d{number % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{number}.txt").write_bytes(content(number))
    (ws.root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (ws.root / "run.sh").chmod(0o755)
    (ws.root / "link").symlink_to("run.sh")
    (ws.root / ".gitignore").write_text("build/\n")
    git(ws.root, "init", "-q")
    git(ws.root, "add", "-A")
    git(ws.root, "commit", "-q", "-m", "one")
    os.utime(ws.root / ".git" / "index")  # the files were written before the index: none is racily clean
    (ws.root / "build").mkdir()
    (ws.root / "build" / "out.o").write_bytes(b"\x7fELF" * 100)
    (ws.root / "notes.txt").write_text("untracked\n")
    return ws


def store_bytes(ws: Workspace) -> int:
    """What the store's kept copies take."""
    return sum(path.stat().st_size for path in ws.store.objects.rglob("*") if path.is_file())


def test_undo_in_a_repository_is_byte_exact_and_keeps_only_what_the_repository_does_not_have(tmp_path: Path) -> None:
    ws = repository(tmp_path)
    start = picture(ws.root)
    ws.call(
        "execute_command",
        command=(
            "echo changed > src/d1/f1.txt && rm src/d2/f2.txt && chmod 600 src/d3/f3.txt && echo new > src/d4/new.txt"
            " && rm link && ln -s notes.txt link && chmod 700 run.sh && echo edited >> notes.txt"
            " && rm build/out.o && echo built > build/new.o && mkdir -p made/deep && echo x > made/deep/y"
            " && rm -r src/d5"
        ),
    )
    ws.end_round(first=True)
    assert store_bytes(ws) < FILES * FILE_BYTES * 0.05  # the committed files were named, not copied
    [turn] = pending(ws.store)
    assert all(c.before is None or not c.before.git for c in turn.changes.values())  # a checkpoint owns its bytes
    revert(turn, ws.store)
    assert picture(ws.root) == start


def test_a_blob_the_repository_lost_during_the_command_makes_undo_refuse_that_file_by_name(tmp_path: Path) -> None:
    ws = repository(tmp_path)
    target = ws.root / "src" / "d7" / "f7.txt"
    blob = git(ws.root, "rev-parse", "HEAD:src/d7/f7.txt").strip()
    loose = f".git/objects/{blob[:2]}/{blob[2:]}"
    ws.call("execute_command", command=f"rm src/d7/f7.txt && echo kept > src/d8/f8.txt && rm -f {loose}")
    ws.end_round(first=True)
    [turn] = pending(ws.store)
    with pytest.raises(UndoRefused, match=f"{target}: its earlier state was not kept \\(its git blob {blob[:12]}"):
        revert(turn, ws.store)
    revert(turn, ws.store, force=True)
    assert (ws.root / "src" / "d8" / "f8.txt").read_bytes() == content(8) and not target.exists()


def test_a_hostile_repository_configuration_runs_nothing(tmp_path: Path) -> None:
    ws = repository(tmp_path)
    witness = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {witness}\n")
    hook.chmod(0o755)
    hooks = ws.root / ".git" / "hooks"
    for name in ("post-index-change", "pre-commit", "fsmonitor-watchman", "reference-transaction"):
        (hooks / name).write_text(hook.read_text())
        (hooks / name).chmod(0o755)
    with (ws.root / ".git" / "config").open("a") as config:
        config.write(f"[core]\n\tfsmonitor = {hook}\n\thooksPath = {tmp_path}\n\tpager = {hook}\n")
        config.write(f'[filter "x"]\n\tclean = {hook}\n\tsmudge = {hook}\n\tprocess = {hook}\n')
    (ws.root / ".gitattributes").write_text("* filter=x\n")
    start = picture(ws.root)
    ws.call("execute_command", command="echo changed > src/d1/f1.txt && rm src/d2/f2.txt")
    ws.end_round(first=True)
    assert store_bytes(ws) < FILES * FILE_BYTES * 0.05
    revert(pending(ws.store)[0], ws.store)
    assert picture(ws.root) == start and not witness.exists()
