"""Custom slash commands: where they are found, how names and shadowing work, how arguments are filled in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.custom_commands import CommandSettings, command_settings, discover_commands
from engine.paths import user_config_dir


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


def test_project_user_and_claude_commands_with_namespaces_and_shadowing(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_user = write(home / ".claude" / "commands" / "review.md", "Review (claude, user).")
    hive_user = write(user_config_dir() / "commands" / "review.md", "Review (hive, user).")
    write(user_config_dir() / "commands" / "standup.md", "Summarise yesterday's commits.")
    write(project / ".claude" / "commands" / "git" / "log.md", "Show the log.")
    project_review = write(project / ".ironhive" / "commands" / "review.md", "Review (project).")
    write(project / ".ironhive" / "commands" / "help.md", "Not /help.")

    found = discover_commands(project / "src", frozenset({"help"}), home=home)

    assert sorted(found.commands) == ["git:log", "project:review", "review", "standup"]
    review = found.commands["review"]
    assert (review.body, review.scope, review.path) == ("Review (hive, user).", "user", hive_user)
    theirs = found.commands["project:review"]
    assert (theirs.body, theirs.scope, theirs.path) == ("Review (project).", "project", project_review)
    assert found.commands["standup"].scope == "user"
    hidden = [(s.name, s.hidden, s.by, s.offered_as) for s in found.shadowed]
    assert ("review", claude_user, hive_user, None) in hidden
    assert ("review", project_review, hive_user, "project:review") in hidden
    assert ("help", project / ".ironhive" / "commands" / "help.md", None, None) in hidden


def test_a_project_commands_model_and_mode_count_only_when_trusted_and_mode_only_tightens(project: Path) -> None:
    write(project / ".ironhive" / "commands" / "go.md", "---\nmode: work\nmodel: openai/x\n---\nGo.")
    write(project / ".ironhive" / "commands" / "look.md", "---\nmode: plan\n---\nLook.")
    write(user_config_dir() / "commands" / "mine.md", "---\nmode: work\nmodel: openai/mine\n---\nMine.")
    found = discover_commands(project).commands
    go, look, mine = found["go"], found["look"], found["mine"]

    assert command_settings(go, trusted=False, current_mode="work") == CommandSettings(
        ignored=("model: openai/x", "mode: work")
    )
    assert command_settings(go, trusted=True, current_mode="work") == CommandSettings(model="openai/x", mode="work")
    planned = command_settings(go, trusted=True, current_mode="plan")
    assert (planned.model, planned.mode) == ("openai/x", None) and "may not leave plan mode" in planned.ignored[0]
    assert command_settings(look, trusted=True, current_mode="work").mode == "plan"
    assert command_settings(mine, trusted=False, current_mode="plan") == CommandSettings(
        model="openai/mine", mode="work"
    )


def test_arguments_fill_the_placeholders_or_are_appended(project: Path, tmp_path: Path) -> None:
    folder = project / ".ironhive" / "commands"
    write(
        folder / "fix.md",
        "---\ndescription: Fix an issue\nargument-hint: ISSUE [AREA]\n---\nFix #$1 in $2. All: $ARGUMENTS",
    )
    write(folder / "plain.md", "Explain the code.")
    found = discover_commands(project, home=tmp_path)

    fix = found.commands["fix"]
    assert (fix.description, fix.argument_hint) == ("Fix an issue", "ISSUE [AREA]")
    assert fix.expand('123 "the parser"') == 'Fix #123 in the parser. All: 123 "the parser"'
    assert fix.expand("7") == "Fix #7 in . All: 7"
    plain = found.commands["plain"]
    assert plain.expand("") == "Explain the code."
    assert plain.expand("src/a.py") == "Explain the code.\n\nARGUMENTS: src/a.py"


def test_a_broken_file_is_reported_by_name_and_the_others_still_load(project: Path, tmp_path: Path) -> None:
    folder = project / ".ironhive" / "commands"
    broken = write(folder / "broken.md", "---\ndescription: [unclosed\n---\nbody")
    write(folder / "wrong-mode.md", "---\nmode: yolo\n---\nbody")
    write(folder / "fine.md", "---\nmodel: openai/gpt-4o-mini\nmode: plan\nallowed-tools: Bash\n---\nbody")
    found = discover_commands(project, home=tmp_path)

    assert list(found.commands) == ["fine"]
    assert (found.commands["fine"].model, found.commands["fine"].mode) == ("openai/gpt-4o-mini", "plan")
    assert any(str(broken) in p and "not valid YAML" in p for p in found.problems)
    assert any("mode must be plan or work" in p for p in found.problems)


def test_a_project_command_that_is_a_link_out_of_its_folder_is_refused(project: Path, tmp_path: Path) -> None:
    history = write(tmp_path / "home" / ".bash_history", "export TOKEN=history-canary")
    folder = project / ".ironhive" / "commands"
    folder.mkdir(parents=True)
    (folder / "leak.md").symlink_to(history)
    write(folder / "inside.md", "Inside.")
    (folder / "alias.md").symlink_to(folder / "inside.md")

    found = discover_commands(project, home=tmp_path / "home")

    assert sorted(found.commands) == ["alias", "inside"]
    assert any("leak.md" in p and "outside" in p for p in found.problems)
    assert all("history-canary" not in c.body for c in found.commands.values())


def test_commands_are_parsed_once_and_again_when_a_file_or_a_link_s_target_changes(
    project: Path, tmp_path: Path
) -> None:
    folder = project / ".ironhive" / "commands"
    review = write(folder / "review.md", "---\ndescription: Review.\n---\nReview it.")
    target = write(folder / "shared" / "target.md", "First body.")
    (folder / "alias.md").symlink_to(target)
    for path in (review, target, folder / "alias.md"):  # written long ago: a stamp that young is not trusted
        os.utime(path, (1_700_000_000, 1_700_000_000), follow_symlinks=False)
    first = discover_commands(project, home=tmp_path)
    again = discover_commands(project, home=tmp_path)
    review.write_text("---\ndescription: Review twice.\n---\nReview it.")
    target.write_text("Second body, longer.")
    changed = discover_commands(project, home=tmp_path)

    assert again.commands["review"] is first.commands["review"]  # unchanged: not parsed again
    assert changed.commands["review"].description == "Review twice."
    assert changed.commands["alias"].body == "Second body, longer."
