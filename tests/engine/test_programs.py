"""engine.programs: which program on PATH hive may run outside the sandbox, checked on real folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.programs import INSIDE_WRITABLE, given_program, placement_problem, trusted_program
from tests.support.safe_folder import make_folder, program, safe_folder

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
OTHER_UID = 54321


@pytest.fixture
def safe() -> Iterator[Path]:
    with safe_folder() as folder:
        yield folder


def search(*folders: Path) -> str:
    return os.pathsep.join(str(folder) for folder in folders)


def test_the_first_program_in_a_folder_nobody_else_can_change_is_taken(safe: Path) -> None:
    first, second = program(safe / "a", "tool"), program(safe / "b", "tool")

    found = trusted_program("tool", unsafe_dirs=(), search_path=search(first.parent, second.parent))

    assert found.path == str(first)
    assert found.skipped == ()
    assert found.notice() is None


def test_a_program_inside_a_folder_commands_can_write_is_skipped_and_said(safe: Path) -> None:
    project = make_folder(safe / "project")
    planted = program(project / ".venv" / "bin", "rg")
    real = program(safe / "usr" / "bin", "rg")

    found = trusted_program("rg", unsafe_dirs=(project,), search_path=search(planted.parent, real.parent))

    assert found.path == str(real)
    assert [(skip.path, skip.reason) for skip in found.skipped] == [(planted, INSIDE_WRITABLE)]
    assert found.notice() == f"rg: skipped {planted} ({INSIDE_WRITABLE}); using {real}"


def test_a_writable_folder_named_through_a_link_is_still_recognised(safe: Path) -> None:
    project = make_folder(safe / "project")
    (safe / "alias").symlink_to(project)
    planted = program(project / "bin", "npx")

    found = trusted_program("npx", unsafe_dirs=(safe / "alias",), search_path=str(planted.parent))

    assert found.program is None
    assert found.skipped[0].reason == INSIDE_WRITABLE
    assert found.notice() == f"npx: skipped {planted} ({INSIDE_WRITABLE}); no other was found"


def test_a_group_writable_folder_is_skipped(safe: Path) -> None:
    shared = program(safe / "shared", "git").parent
    shared.chmod(0o775)

    found = trusted_program("git", unsafe_dirs=(), search_path=str(shared))

    assert found.program is None
    assert found.skipped[0].reason == f"{shared} can be written by its group"


def test_a_world_writable_folder_is_skipped_with_or_without_the_sticky_bit(safe: Path) -> None:
    loose, sticky = program(safe / "loose", "bash").parent, program(safe / "sticky", "bash").parent
    loose.chmod(0o777)
    sticky.chmod(0o1777)

    found = trusted_program("bash", unsafe_dirs=(), search_path=search(loose, sticky))

    assert found.program is None
    assert [skip.reason for skip in found.skipped] == [
        f"{loose} can be written by its group and others",
        f"{sticky} can be written by its group and others (even with the sticky bit)",
    ]


def test_a_program_under_the_real_tmp_is_skipped(tmp_path: Path) -> None:
    tmp = Path("/tmp")
    if not tmp.stat().st_mode & 0o1002 == 0o1002:
        pytest.skip("this /tmp is not sticky and world-writable")
    assert str(tmp_path.resolve()).startswith("/tmp/")
    planted = program(tmp_path / "bin", "rg")

    found = trusted_program("rg", unsafe_dirs=(), search_path=str(planted.parent))

    assert found.program is None
    assert found.skipped[0].reason.startswith("/tmp can be written by")


def test_a_group_writable_file_is_skipped(safe: Path) -> None:
    tool = program(safe / "bin", "tool")
    tool.chmod(0o775)

    found = trusted_program("tool", unsafe_dirs=(), search_path=str(tool.parent))

    assert found.program is None
    assert found.skipped[0].reason == f"{tool} can be written by its group"


def test_a_link_from_a_safe_folder_into_a_writable_one_is_skipped(safe: Path) -> None:
    project = make_folder(safe / "project")
    planted = program(project / "tools", "rg")
    link = make_folder(safe / "bin") / "rg"
    link.symlink_to(planted)

    found = trusted_program("rg", unsafe_dirs=(project,), search_path=str(link.parent))

    assert found.program is None
    assert [(skip.path, skip.reason) for skip in found.skipped] == [(link, INSIDE_WRITABLE)]


def test_a_link_through_a_link_that_lives_in_a_writable_folder_is_skipped(safe: Path) -> None:
    project = make_folder(safe / "project")
    real = program(safe / "real", "node")
    hop = make_folder(project / "alternatives") / "node"
    hop.symlink_to(real)
    link = make_folder(safe / "bin") / "node"
    link.symlink_to(hop)

    found = trusted_program("node", unsafe_dirs=(project,), search_path=str(link.parent))

    assert found.program is None
    assert found.skipped[0].reason == INSIDE_WRITABLE


def test_a_link_into_a_group_writable_folder_is_skipped(safe: Path) -> None:
    shared = program(safe / "shared", "cargo").parent
    shared.chmod(0o775)
    link = make_folder(safe / "bin") / "cargo"
    link.symlink_to(shared / "cargo")

    found = trusted_program("cargo", unsafe_dirs=(), search_path=str(link.parent))

    assert found.program is None
    assert found.skipped[0].reason == f"{shared} can be written by its group"


def test_the_path_found_is_run_not_the_file_it_links_to(safe: Path) -> None:
    multi = program(safe / "toolchain", "rustup")
    link = make_folder(safe / "bin") / "cargo"
    link.symlink_to(multi)

    found = trusted_program("cargo", unsafe_dirs=(), search_path=str(link.parent))

    assert found.program is not None
    assert (found.program.path, found.program.real) == (link, multi)


@needs_root
def test_a_folder_of_another_user_is_skipped(safe: Path) -> None:
    theirs = program(safe / "theirs", "npx").parent
    os.chown(theirs, OTHER_UID, -1)

    found = trusted_program("npx", unsafe_dirs=(), search_path=str(theirs))

    assert found.program is None
    assert found.skipped[0].reason == f"{theirs} belongs to uid {OTHER_UID}, not to root or you"


@needs_root
def test_bwrap_must_be_roots_from_slash_down(safe: Path) -> None:
    bwrap = program(safe / "bin", "bwrap")
    os.chown(bwrap, OTHER_UID, -1)

    found = trusted_program("bwrap", unsafe_dirs=(), search_path=str(bwrap.parent), root_only=True)

    assert found.program is None
    assert found.skipped[0].reason == f"{bwrap} belongs to uid {OTHER_UID}, not to root"


def test_empty_and_relative_path_entries_are_skipped(safe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = make_folder(safe / "work")
    program(here, "rg")
    program(here / "bin", "rg")
    monkeypatch.chdir(here)

    found = trusted_program("rg", unsafe_dirs=(), search_path=os.pathsep.join(["", "bin"]))

    assert found.program is None
    assert [skip.path for skip in found.skipped] == [here / "rg", here / "bin" / "rg"]
    assert all(skip.reason.startswith("a relative PATH entry") for skip in found.skipped)


def test_a_folder_without_the_program_says_nothing(safe: Path) -> None:
    project = make_folder(safe / "project")

    found = trusted_program("rg", unsafe_dirs=(project,), search_path=search(project, make_folder(safe / "empty")))

    assert (found.program, found.skipped) == (None, ())


def test_a_name_with_a_slash_is_not_looked_up() -> None:
    with pytest.raises(ValueError, match="a program name"):
        trusted_program("bin/rg", unsafe_dirs=())


def test_a_program_given_by_path_is_used_with_a_caution_when_commands_could_change_it(safe: Path) -> None:
    project = make_folder(safe / "project")
    inside, outside = program(project / "bin", "srv"), program(safe / "bin", "srv")

    risky = given_program(inside, unsafe_dirs=(project,))
    fine = given_program(outside, unsafe_dirs=(project,))

    assert risky.path == str(inside)
    assert risky.notice() == f"{inside}: runs {inside}, which others could have changed ({INSIDE_WRITABLE})"
    assert (fine.path, fine.notice()) == (str(outside), None)


def test_placement_problem_of_a_safe_file_is_none(safe: Path) -> None:
    assert placement_problem(program(safe / "bin", "tool"), unsafe_dirs=()) is None
