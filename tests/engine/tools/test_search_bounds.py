"""Searches survive hostile ignore files and say which files they left out when nothing matched.

ripgrep blocks for good on a FIFO named ``.gitignore`` (it opens every ignore file it meets): the
backend must not let it walk such a tree. A regression blocks; pytest-timeout ends it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.tools.base import ToolResult
from engine.tools.grep_skips import Skipped, describe_skipped
from engine.tools.ignore import refused_ignore_file
from engine.tools.search import GlobFilesTool, GrepFilesTool
from engine.tools.search_backend import MAX_FILE_SIZE, SearchBackend

Call = Callable[..., ToolResult]


def _repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("needle = 1\n")
    (workspace / "notes.txt").write_text("nothing here\n")
    return workspace


@pytest.mark.parametrize("where", [".gitignore", "src/.gitignore", ".git/info/exclude"])
def test_a_fifo_ignore_file_does_not_hang_grep_or_glob(
    call: Call, backend: SearchBackend, workspace: Path, where: str
) -> None:
    repo = _repo(workspace)
    (repo / where).unlink(missing_ok=True)
    os.mkfifo(repo / where)

    grep = call(GrepFilesTool(backend), pattern="needle")
    glob = call(GlobFilesTool(backend), pattern="*.py")

    assert grep.output.splitlines()[0] == "src/app.py:1:needle = 1"
    assert glob.output.splitlines()[0] == "src/app.py"
    assert refused_ignore_file(repo) == repo / where


def test_a_huge_ignore_file_is_not_read(call: Call, backend: SearchBackend, workspace: Path) -> None:
    repo = _repo(workspace)
    with (repo / ".gitignore").open("wb") as file:
        file.write(b"notes.txt\n")
        file.truncate(2 * 1024**3)

    assert call(GrepFilesTool(backend), pattern="nothing").output.splitlines()[0] == "notes.txt:1:nothing here"
    assert refused_ignore_file(repo) == repo / ".gitignore"


def test_an_ordinary_tree_lets_ripgrep_walk(workspace: Path) -> None:
    repo = _repo(workspace)
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "src" / ".gitignore").symlink_to("../.gitignore")

    assert refused_ignore_file(repo) is None


def test_no_matches_names_the_binary_and_the_too_large_files_left_out(
    call: Call, backend: SearchBackend, workspace: Path
) -> None:
    repo = _repo(workspace)
    (repo / "logo.png").write_bytes(b"\x89PNG\0\0needle")
    with (repo / "dump.sql").open("wb") as file:
        file.write(b"needle\n")
        file.truncate(MAX_FILE_SIZE + 1)

    result = call(GrepFilesTool(backend), pattern="absent")

    assert (result.success, result.output) == (
        True,
        "No matches for 'absent' in .. Not searched: 1 binary file (logo.png), 1 file larger than 20 MiB (dump.sql).",
    )
    assert result.shown_files is not None and result.shown_files.paths == ("logo.png", "dump.sql")
    assert result.shown_files.render(frozenset({"dump.sql"})) == (
        "No matches for 'absent' in .. Not searched: 1 binary file (logo.png)."
    )


def test_no_matches_in_a_folder_of_text_says_only_that(call: Call, backend: SearchBackend, workspace: Path) -> None:
    _repo(workspace)

    assert call(GrepFilesTool(backend), pattern="absent", path="src").output == "No matches for 'absent' in src."


def test_many_skipped_files_are_counted_not_all_named() -> None:
    skipped = Skipped(binary=tuple(f"b{n}.bin" for n in range(8)), unreadable=("locked.txt",), unchecked=3)

    assert describe_skipped(skipped, "sub/") == (
        " Not searched: 8 binary files (sub/b0.bin, sub/b1.bin, sub/b2.bin, sub/b3.bin, sub/b4.bin and 3 more), "
        "1 file that could not be read (sub/locked.txt). (3 more files were not checked.)"
    )
