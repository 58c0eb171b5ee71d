"""hive's one reader of git configuration, judged against the real git: the same entries, or a refusal where git refuses.

Then the repository around a folder (work tree, git folder, a linked worktree's shared config) and its
includes, followed inside the repository and named, never read, outside it.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from engine.git_config import MAX_CONFIG_BYTES, parse_git_config, read_config_file
from engine.git_repository import MAX_INCLUDE_DEPTH, find_repository, repository_config, steering_paths

CASES = [
    "[core] fsmonitor = x\n",
    "[core ]\na=b\n",
    "[ core]\na=b\n",
    '[a "b.c"]\nx=1\n',
    "[a.B]\nx=1\n",
    '[a "B\\"q"]\nx=1\n',
    "[core]\na = b # c\n",
    '[core]\na = "b # c"  ; d\n',
    "[core]\na = b\\\n c\n",
    "[core]\na = b\\x\n",
    "[core]\na\n",
    "[core]\na # c\n",
    "[core]\r\na = b\r\n",
    "\ufeff[core]\na=b\n",
    '[core]\na = "open\n',
    "[core]\na=b\\",
    "[core]\n1a=b\n",
    "[core]\na_b=c\n",
    "[]\na=b\n",
    "[core]\n\ta = x\t y   \n",
    "[core]a=b\n",
    '[core]\na="x""y"\n',
    '[a "x"y]\nz=1\n',
    '[a  "x"]\nz=1\n',
    "[core]\na=b\n[core\n",
    "[core]\na=\\t\\n\\b\n",
    '[diff "Lock"]\n\tTextConv = "./x --y"\n[filter "lfs"]\n\tprocess = git-lfs filter-process\n',
]


def git_entries(path: Path) -> list[tuple[str, str | None]] | None:
    """What ``git config --list`` reads from the file (None when git refuses it); keys outside a section left out."""
    done = subprocess.run(["git", "config", "--file", str(path), "--null", "--list"], capture_output=True)
    if done.returncode != 0:
        return None
    records = [r.partition("\n") for r in done.stdout.decode("utf-8", "surrogateescape").split("\0") if r]
    return [(key, value if newline else None) for key, newline, value in records if "." in key]


def hive_entries(text: str) -> list[tuple[str, str | None]] | None:
    parsed = parse_git_config(text)
    return None if parsed.error else [(entry.key, entry.value) for entry in parsed.entries]


@pytest.mark.parametrize("text", CASES)
def test_a_file_is_read_as_git_reads_it(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config"
    path.write_bytes(text.encode())
    assert hive_entries(text) == git_entries(path)


def test_random_files_are_read_as_git_reads_them(tmp_path: Path) -> None:
    pieces = ["[", "]", '"', "\\", "\n", " ", "\t", "=", "#", ";", "a", "B", ".", "-", "1", "\r", "é", "core", "x"]
    chance = random.Random(41)
    path = tmp_path / "config"
    for _ in range(300):
        text = "[s]\n" + "".join(chance.choice(pieces) for _ in range(chance.randint(1, 24)))
        path.write_bytes(text.encode())
        assert hive_entries(text) == git_entries(path), repr(text)


def test_what_cannot_be_read_safely_is_a_problem_never_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "FIFO" in read_config_file(fifo).problem
    large = tmp_path / "large"
    large.write_text("[core]\n" + "# pad\n" * (MAX_CONFIG_BYTES // 6 + 1))
    assert "larger than" in read_config_file(large).problem
    missing = read_config_file(tmp_path / "missing")
    assert not missing.exists and not missing.problem
    rejected = tmp_path / "rejected"
    rejected.write_text("[core]\n\tfsmonitor = ./a\n[core\n\tfsmonitor = ./b\n")
    read = read_config_file(rejected)
    assert "git rejects line 3" in read.problem and [e.value for e in read.entries] == ["./a"]


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "config"
    path.write_text("[core]\n\tpager = a\n")
    assert [e.value for e in read_config_file(path).entries] == ["a"]
    path.write_text("[core]\n\tpager = bbbb\n")
    assert [e.value for e in read_config_file(path).entries] == ["bbbb"]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "repo").resolve()
    root.mkdir()
    git(root, "init", "-q")
    return root


def test_includes_inside_the_repository_are_followed_as_git_follows_them(repo: Path) -> None:
    (repo / "shared.gitconfig").write_text("[core]\n\tfsmonitor = ./watch\n[include]\n\tpath = .git/more.cfg\n")
    (repo / ".git" / "more.cfg").write_text('[diff "x"]\n\ttextconv = ./conv\n')
    git(repo, "config", "include.path", "../shared.gitconfig")
    config = repository_config(find_repository(repo / "sub") or pytest.fail("no repository"))
    listed = git(repo, "config", "--local", "--includes", "--list").splitlines()
    assert [f"{item.entry.key}={item.entry.value}" for item in config.entries] == listed
    assert config.included == (repo / "shared.gitconfig", repo / ".git" / "more.cfg")
    assert config.problems == ()
    assert set(steering_paths(find_repository(repo) or pytest.fail())) == set(config.included)


def test_an_include_outside_the_repository_is_named_and_never_read(repo: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "outside.cfg"
    os.mkfifo(fifo)  # read, it would hang
    git(repo, "config", "includeIf.gitdir:/nowhere/.path", str(fifo))
    (repo / "in.cfg").symlink_to(tmp_path / "elsewhere.cfg")
    git(repo, "config", "--add", "include.path", "../in.cfg")
    config = repository_config(find_repository(repo) or pytest.fail())
    assert config.included == (fifo, tmp_path / "elsewhere.cfg")
    assert [problem.split(" includes ")[1] for problem in config.problems] == [
        f"{fifo}, outside the repository",
        f"{tmp_path / 'elsewhere.cfg'}, outside the repository",
    ]


def test_includes_stop_at_a_bounded_depth(repo: Path) -> None:
    for level in range(MAX_INCLUDE_DEPTH + 2):
        (repo / f"{level}.cfg").write_text(f"[include]\n\tpath = ../{level + 1}.cfg\n".replace("../", ""))
    git(repo, "config", "include.path", "../0.cfg")
    config = repository_config(find_repository(repo) or pytest.fail())
    assert any("past the 5 levels" in problem for problem in config.problems)


def test_a_linked_worktree_reads_the_shared_config(repo: Path, tmp_path: Path) -> None:
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "one")
    git(repo, "config", "core.hooksPath", ".husky")
    linked = (tmp_path / "linked").resolve()
    git(repo, "worktree", "add", "-q", str(linked))
    found = find_repository(linked) or pytest.fail()
    assert found.work_tree == linked and found.common_dir == repo / ".git"
    assert repository_config(found).values("core", "hookspath") == [".husky"]
    assert steering_paths(found) == (linked / ".husky",)
