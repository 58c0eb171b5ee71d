"""Custom commands listed by their folders' stamps: kept while no folder changes, found again when one does.

Files and folders are given a modification time long ago (``settle``) where a test needs the kept
listing: a stamp younger than the file system's clock tick could hide a change, so it is not trusted.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engine.custom_commands import CommandFileError, current_command, discover_commands, listed_commands
from engine.folder_stamps import walk
from engine.parsed_files import ParsedFiles
from engine.paths import user_config_dir

LONG_AGO = 1_700_000_000


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIVE_HOME", str(tmp_path / "hive_home"))
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def settle(folder: Path) -> None:
    """Every file and folder under ``folder`` (and itself) last changed long ago."""
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (LONG_AGO, LONG_AGO), follow_symlinks=False)


def command(name: str, description: str) -> str:
    return f"---\ndescription: {description}\n---\nRun {name}."


def test_the_listing_is_kept_while_no_folder_changes_and_found_again_when_one_does(
    project: Path, tmp_path: Path
) -> None:
    folder = project / ".ironhive" / "commands"
    write(folder / "review.md", command("review", "Review."))
    write(folder / "git" / "log.md", command("log", "Log."))
    write(folder / "old.md", command("old", "Old."))
    settle(folder)
    first = listed_commands(project, home=tmp_path)
    kept = listed_commands(project, home=tmp_path)

    write(folder / "standup.md", command("standup", "Standup."))
    (folder / "old.md").unlink()
    added = listed_commands(project, home=tmp_path)
    settle(folder)
    write(folder / "git" / "deeper" / "blame.md", command("blame", "Blame."))
    nested = listed_commands(project, home=tmp_path)

    assert kept is first and sorted(first.commands) == ["git:log", "old", "review"]
    assert sorted(added.commands) == ["git:log", "review", "standup"]
    assert sorted(nested.commands) == ["git:deeper:blame", "git:log", "review", "standup"]


def test_a_commands_folder_created_later_is_listed(project: Path, tmp_path: Path) -> None:
    mine = user_config_dir() / "commands"
    write(project / ".ironhive" / "commands" / "review.md", "Review.")
    settle(project / ".ironhive")
    before = listed_commands(project, home=tmp_path)
    write(mine / "standup.md", "Standup.")

    assert sorted(before.commands) == ["review"]
    assert sorted(listed_commands(project, home=tmp_path).commands) == ["review", "standup"]


def test_an_editor_saving_by_rename_is_seen_and_an_edit_in_place_waits_for_help(project: Path, tmp_path: Path) -> None:
    folder = project / ".ironhive" / "commands"
    review = write(folder / "review.md", command("review", "Review."))
    write(folder / "lint.md", command("lint", "Lint."))
    settle(folder)
    listed_commands(project, home=tmp_path)

    review.write_text(command("review", "Review, edited in place."))
    in_place = listed_commands(project, home=tmp_path).commands["review"]
    shown_by_help = discover_commands(project, home=tmp_path).commands["review"]
    after_help = listed_commands(project, home=tmp_path).commands["review"]
    settle(folder)
    write(folder / "lint.md.swp", command("lint", "Lint, saved by rename."))
    (folder / "lint.md.swp").rename(folder / "lint.md")
    renamed = listed_commands(project, home=tmp_path).commands["lint"]

    assert in_place.description == "Review."  # no folder changed: Tab shows it at the next /help
    assert shown_by_help.description == "Review, edited in place."
    assert after_help is shown_by_help  # /help refreshed what Tab lists
    assert renamed.description == "Lint, saved by rename."


def test_what_a_command_runs_is_its_files_text_now(project: Path, tmp_path: Path) -> None:
    write(user_config_dir() / "commands" / "review.md", "Mine.")
    theirs = write(project / ".ironhive" / "commands" / "review.md", "Theirs, first.")
    settle(user_config_dir() / "commands")
    settle(project / ".ironhive")
    kept = listed_commands(project, home=tmp_path).commands["project:review"]

    theirs.write_text("Theirs, now.")
    now = current_command(kept)
    theirs.write_text("---\nmode: yolo\n---\nBroken now.")

    assert (now.name, now.body) == ("project:review", "Theirs, now.")
    with pytest.raises(CommandFileError, match="mode must be plan or work"):
        current_command(kept)


def test_a_young_folder_is_walked_again_at_each_look(project: Path, tmp_path: Path) -> None:
    folder = project / ".ironhive" / "commands"
    review = write(folder / "review.md", command("review", "Review."))
    os.utime(review, (LONG_AGO, LONG_AGO))  # the file is old; its folder changed "just now" (ahead of the clock,
    os.utime(folder, (time.time() + 3600,) * 2)  # so no pause of a busy machine can make it look settled)
    listed_commands(project, home=tmp_path)
    review.write_text(command("review", "Review, edited."))

    assert listed_commands(project, home=tmp_path).commands["review"].description == "Review, edited."


def test_a_young_file_is_parsed_again_and_a_settled_one_once(tmp_path: Path) -> None:
    parses: list[str] = []
    young = write(tmp_path / "young.md", "young")
    os.utime(young, (time.time() + 3600,) * 2)  # changed "just now" whatever pauses a busy machine makes
    old = write(tmp_path / "old.md", "old")
    os.utime(old, (LONG_AGO, LONG_AGO))
    kept: ParsedFiles[str] = ParsedFiles(settle_ns=2_000_000_000)

    def parse(path: Path) -> str:
        parses.append(path.name)
        return path.read_text()

    for _ in range(3):
        kept.get(young, young, lambda: parse(young))
        kept.get(old, old, lambda: parse(old))

    assert parses.count("young.md") == 3 and parses.count("old.md") == 1


def test_the_walk_finds_what_rglob_finds_and_stamps_every_folder(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "")
    write(tmp_path / ".hidden.md", "")
    write(tmp_path / "notes.txt", "")
    write(tmp_path / "sub" / "deeper" / "b.md", "")
    write(tmp_path / "folder.md" / "c.md", "")
    write(tmp_path / "elsewhere" / "d.md", "")
    (tmp_path / "sub" / "linked").symlink_to(tmp_path / "elsewhere")  # not followed, as rglob does not

    found = walk(tmp_path, ".md")

    assert list(found.files) == sorted(tmp_path.rglob("*.md"))
    folders = {tmp_path, *(p for p in tmp_path.rglob("*") if p.is_dir() and not p.is_symlink())}
    assert {folder for folder, _ in found.stamps} == folders
    assert walk(tmp_path / "missing", ".md").stamps == ((tmp_path / "missing", None),)
