"""read_bounded: the one reader of files hive reads on its own refuses what could hang it or exhaust memory.

A FIFO test that regressed would block on open() or read() with no writer; pytest-timeout ends it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.safe_read import Head, UnsafeFile, describe_size, open_checked, read_bounded, read_head


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"x" * 100)

    assert read_bounded(path, limit=100) == b"x" * 100
    with pytest.raises(UnsafeFile, match="^is larger than 99 bytes$"):
        read_bounded(path, limit=99)


def test_a_sparse_file_of_2_gb_is_refused_as_too_large(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    with path.open("wb") as file:
        file.truncate(2 * 1024**3)

    with pytest.raises(UnsafeFile, match="^is larger than 256 KiB$"):
        read_bounded(path, limit=256 * 1024)


def test_a_fifo_is_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    os.mkfifo(path)

    with pytest.raises(UnsafeFile, match="^is a FIFO, not a regular file$"):
        read_bounded(path, limit=1024)


def test_a_fifo_behind_a_link_is_refused_too(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "settings.yaml").symlink_to(tmp_path / "pipe")

    with pytest.raises(UnsafeFile, match="FIFO"):
        read_bounded(tmp_path / "settings.yaml", limit=1024)


def test_a_link_to_dev_zero_and_a_folder_are_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "folder.yaml").mkdir()

    with pytest.raises(UnsafeFile, match="^is a character device, not a regular file$"):
        read_bounded(tmp_path / "zero.yaml", limit=1024)
    with pytest.raises(UnsafeFile, match="^is a folder, not a regular file$"):
        read_bounded(tmp_path / "folder.yaml", limit=1024)


def test_a_link_loop_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")

    with pytest.raises(UnsafeFile, match="link"):
        read_bounded(tmp_path / "a.yaml", limit=1024)


def test_within_refuses_a_link_that_leaves_the_folder_and_follows_one_that_stays(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("token")
    (project / "real.yaml").write_text("model: x\n")
    (project / ".ironhive" / "out.yaml").symlink_to(secret)
    (project / ".ironhive" / "in.yaml").symlink_to(project / "real.yaml")

    with pytest.raises(UnsafeFile, match=f"^leads to {secret}, outside {project}$"):
        read_bounded(project / ".ironhive" / "out.yaml", limit=1024, within=project)
    assert read_bounded(project / ".ironhive" / "in.yaml", limit=1024, within=project) == b"model: x\n"
    assert read_bounded(project / ".ironhive" / "out.yaml", limit=1024) == b"token"  # no folder given: followed


def test_a_missing_file_is_a_plain_os_error_and_a_refusal_is_one_too(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing.yaml", limit=1024)
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OSError) as refused:  # callers that handle unreadable files handle refusals
        read_bounded(tmp_path / "pipe", limit=1024)
    assert isinstance(refused.value, UnsafeFile) and refused.value.reason == "is a FIFO, not a regular file"


@pytest.mark.parametrize(
    ("size", "text"), [(256 * 1024, "256 KiB"), (1024 * 1024, "1 MiB"), (1536, "1536 bytes"), (1000, "1000 bytes")]
)
def test_sizes_are_described_in_the_largest_whole_unit(size: int, text: str) -> None:
    assert describe_size(size) == text


def test_read_head_cuts_a_sparse_file_of_2_gb_at_the_limit_and_says_more_follows(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    with path.open("wb") as file:
        file.write(b"use tabs\n")
        file.truncate(2 * 1024**3)

    head = read_head(path, limit=16)

    assert head == Head(b"use tabs\n" + b"\0" * 7, True, 2 * 1024**3)


def test_read_head_of_a_small_file_is_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"short\n")

    assert read_head(path, limit=1024) == Head(b"short\n", False, 6)


def test_a_link_into_proc_is_refused_even_without_a_folder_to_stay_in(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").symlink_to("/proc/self/environ")

    with pytest.raises(
        UnsafeFile, match=f"^leads to /proc/{os.getpid()}/environ, under /proc, where no project file lives$"
    ):
        read_head(tmp_path / "AGENTS.md", limit=1024)
    with pytest.raises(UnsafeFile, match="under /proc"):
        open_checked(Path("/proc/self/environ"))


def test_a_link_into_the_home_is_refused_when_it_leaves_the_project(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (home / ".bash_history").write_text("export TOKEN=secret\n")
    (project / "CLAUDE.md").symlink_to("../home/.bash_history")

    with pytest.raises(UnsafeFile, match="outside"):
        read_head(project / "CLAUDE.md", limit=1024, within=project)


def test_open_checked_refuses_a_fifo_before_opening_it_and_reads_a_regular_file_in_chunks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "f.txt").write_text("one\ntwo\n")

    with pytest.raises(UnsafeFile, match="FIFO"):
        open_checked(tmp_path / "pipe")
    with open_checked(tmp_path / "f.txt") as file:
        assert file.readline(100) == b"one\n"
        assert file.read() == b"two\n"


def test_open_checked_of_a_resolved_path_still_refuses_a_link_in_its_last_component(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")

    with pytest.raises(UnsafeFile, match="link"):
        open_checked(tmp_path / "alias.txt", resolved=True)
